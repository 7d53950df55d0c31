// Value: an SSA value, defined exactly once (an operation's result or a block's argument) and
// used by any number of operations. Each value knows its uses (use-def chains), so passes can
// find consumers and replace a value everywhere.
#pragma once
#include <cstdint>
#include <vector>

#include "oar/ir/type.h"

namespace oar::ir {

class Operation;
class Block;

// One use: operand `index` of operation `user`.
struct Use {
  Operation* user;
  uint32_t index;
  bool operator==(const Use& o) const { return user == o.user && index == o.index; }
};

class Value {
 public:
  Value(TensorType type, Operation* op, Block* block, uint32_t index)
      : type_(std::move(type)), op_(op), block_(block), index_(index) {}
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const TensorType& type() const { return type_; }
  void set_type(TensorType t) { type_ = std::move(t); }
  // The operation whose result this is; null for a block argument.
  Operation* defining_op() const { return op_; }
  bool is_block_argument() const { return op_ == nullptr; }
  // The block that owns this argument (null for a result).
  Block* argument_owner() const { return block_; }
  // Result index or argument index.
  uint32_t index() const { return index_; }

  const std::vector<Use>& uses() const { return uses_; }
  bool has_uses() const { return !uses_.empty(); }
  // Points every use of this value at `other` instead (both must have the same type).
  void replace_all_uses_with(Value* other);

 private:
  friend class Operation;
  void add_use(Use u) { uses_.push_back(u); }
  void remove_use(Use u);

  TensorType type_;
  Operation* op_;
  Block* block_;
  uint32_t index_;
  std::vector<Use> uses_;
};

}  // namespace oar::ir
