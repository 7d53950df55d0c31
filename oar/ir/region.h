// Region: the blocks nested in an operation (a branch of `cond`, the body of `while_loop`).
// Control flow here is structured: each region of the built-in ops holds one block.
#pragma once
#include <memory>
#include <vector>

#include "oar/ir/block.h"

namespace oar::ir {

class Region {
 public:
  explicit Region(Operation* parent = nullptr) : parent_(parent) {}
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  Block* add_block();
  size_t num_blocks() const { return blocks_.size(); }
  Block& block(size_t i = 0) const { return *blocks_.at(i); }
  const std::vector<std::unique_ptr<Block>>& blocks() const { return blocks_; }
  bool empty() const { return blocks_.empty(); }

  Operation* parent_op() const { return parent_; }
  void set_parent_op(Operation* op) { parent_ = op; }

 private:
  Operation* parent_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace oar::ir
