// Block: a list of operations run in order, with arguments (values defined on entry: the
// loop-carried values of a while_loop body). A block that ends a region's control flow ends with
// a terminator (`yield`).
#pragma once
#include <list>
#include <memory>
#include <vector>

#include "oar/ir/operation.h"

namespace oar::ir {

class Block {
 public:
  using OpList = std::list<std::unique_ptr<Operation>>;
  using iterator = OpList::iterator;

  explicit Block(Region* parent = nullptr) : parent_(parent) {}
  ~Block();
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  Value* add_argument(TensorType type);
  size_t num_arguments() const { return args_.size(); }
  Value* argument(size_t i) const { return args_.at(i).get(); }
  std::vector<Value*> arguments() const;

  OpList& ops() { return ops_; }
  const OpList& ops() const { return ops_; }
  iterator begin() { return ops_.begin(); }
  iterator end() { return ops_.end(); }
  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }

  // Inserts before `pos`; returns the inserted operation.
  Operation* insert(iterator pos, std::unique_ptr<Operation> op);
  Operation* push_back(std::unique_ptr<Operation> op) { return insert(ops_.end(), std::move(op)); }
  // Removes and destroys `op`; its results must have no uses left.
  void erase(Operation* op);

  // The last operation when it is a terminator, else null.
  Operation* terminator() const;
  Region* parent_region() const { return parent_; }
  Operation* parent_op() const;

 private:
  friend class Region;
  Region* parent_;
  std::vector<std::unique_ptr<Value>> args_;  // declared first: destroyed after the ops
  OpList ops_;
};

}  // namespace oar::ir
