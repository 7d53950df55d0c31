// Operation: one node of the IR: a name (the op), operands (SSA values it reads), results (values
// it defines), an attribute dictionary and nested regions (the branches of `cond`, the condition
// and body of `while_loop`). Operands are grouped in the slots of the op's registry entry: a
// slot holds one value (Tensor), zero or one (Tensor?) or a list (Tensor[]).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "oar/ir/attribute.h"
#include "oar/ir/type.h"
#include "oar/ir/value.h"

namespace oar::ir {

class Block;
class Region;
struct OpDef;

// Sorted by name, so that printing is deterministic.
using AttributeMap = std::map<std::string, Attribute>;

class Operation {
 public:
  // `segments`: the number of operands in each registry slot (empty: one slot per operand).
  static std::unique_ptr<Operation> create(std::string name, std::vector<Value*> operands,
                                           std::vector<uint32_t> segments, AttributeMap attrs,
                                           const std::vector<TensorType>& result_types,
                                           std::vector<std::unique_ptr<Region>> regions);
  // Without regions (an overload rather than a default argument: the empty vector would be
  // destroyed in callers that do not see Region's definition).
  static std::unique_ptr<Operation> create(std::string name, std::vector<Value*> operands,
                                           std::vector<uint32_t> segments, AttributeMap attrs,
                                           const std::vector<TensorType>& result_types);
  ~Operation();
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  const std::string& name() const { return name_; }
  // The registry entry (null for an op the registry does not know; the verifier rejects it).
  const OpDef* def() const { return def_; }

  size_t num_operands() const { return operands_.size(); }
  Value* operand(size_t i) const { return operands_.at(i); }
  const std::vector<Value*>& operands() const { return operands_; }
  void set_operand(size_t i, Value* v);
  const std::vector<uint32_t>& segments() const { return segments_; }
  size_t num_slots() const { return segments_.size(); }
  // The operands of registry slot `slot`.
  std::vector<Value*> slot(size_t slot) const;

  size_t num_results() const { return results_.size(); }
  Value* result(size_t i) const { return results_.at(i).get(); }
  std::vector<Value*> results() const;

  const AttributeMap& attributes() const { return attrs_; }
  // Null when absent.
  const Attribute* attr(const std::string& name) const;
  void set_attr(const std::string& name, Attribute a) { attrs_[name] = std::move(a); }

  size_t num_regions() const { return regions_.size(); }
  Region& region(size_t i) const { return *regions_.at(i); }
  const std::vector<std::unique_ptr<Region>>& regions() const { return regions_; }

  Block* parent_block() const { return parent_; }
  // Where the user wrote this op ("model.py:12"), when it was traced from user code; empty
  // otherwise. Not part of the text form; errors at run time quote it.
  const std::string& location() const { return location_; }
  void set_location(std::string loc) { location_ = std::move(loc); }
  // The operation whose region holds this one (null at the top level).
  Operation* parent_op() const;

  // Forgets every operand (here and in nested regions), so values can go in any order.
  void drop_all_references();

 private:
  friend class Block;
  Operation() = default;
  std::string name_;
  const OpDef* def_ = nullptr;
  std::vector<Value*> operands_;
  std::vector<uint32_t> segments_;
  std::vector<std::unique_ptr<Value>> results_;
  AttributeMap attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Block* parent_ = nullptr;
  std::string location_;
};

}  // namespace oar::ir
