// Builder: creates operations at an insertion point. For a registered op it checks the operand
// slots, fills in default attributes, checks attribute kinds and infers the result types; the
// control-flow helpers build the regions through callbacks.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/program.h"

namespace oar::ir {

// Operands by registry slot: {x}, {} (absent Tensor?), {a, b, c} (Tensor[]).
using Operands = std::vector<std::vector<Value*>>;

class Builder {
 public:
  explicit Builder(Block* block) { set_insertion_point_to_end(block); }
  explicit Builder(Program& p) : Builder(&p.block()) {}

  void set_insertion_point_to_end(Block* block) {
    block_ = block;
    pos_ = block->end();
  }
  // New ops go before `before` in `block`.
  void set_insertion_point(Block* block, Block::iterator before) {
    block_ = block;
    pos_ = before;
  }
  Block* block() const { return block_; }

  // Creates op `name`. `result_types` is required for ops without type inference (Declared:
  // composites, data-dependent shapes) and, when given for others, must equal the inferred types.
  Operation* create(const std::string& name, const Operands& operands, const AttributeMap& attrs = {},
                    std::optional<std::vector<TensorType>> result_types = std::nullopt);
  // The same, for an op with one result.
  Value* create1(const std::string& name, const Operands& operands, const AttributeMap& attrs = {});

  Value* data(const std::string& name, const TensorType& type);
  Value* parameter(const std::string& name, const TensorType& type);
  // Builds then/else regions; each callback returns the values to yield (same types in both).
  std::vector<Value*> cond(Value* pred, const std::function<std::vector<Value*>(Builder&)>& then_fn,
                           const std::function<std::vector<Value*>(Builder&)>& else_fn);
  // cond_fn(b, args) returns the bool to continue with; body_fn(b, args) the next values.
  std::vector<Value*> while_loop(
      const std::vector<Value*>& inits,
      const std::function<Value*(Builder&, const std::vector<Value*>&)>& cond_fn,
      const std::function<std::vector<Value*>(Builder&, const std::vector<Value*>&)>& body_fn);
  Operation* yield(const std::vector<Value*>& values);

  // Checks operand slots and attributes of `def` and returns the complete attribute map
  // (defaults filled in). Shared with the parser and the verifier.
  static AttributeMap complete_attributes(const OpDef& def, const AttributeMap& attrs);
  static void check_slots(const OpDef& def, const std::vector<uint32_t>& segments);

 private:
  Operation* insert(std::unique_ptr<Operation> op);
  Block* block_ = nullptr;
  Block::iterator pos_;
};

}  // namespace oar::ir
