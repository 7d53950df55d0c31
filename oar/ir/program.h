// Program: a whole static graph. It owns one top-level block (and, through it, every operation,
// value, region and nested block). Parameters are not stored inside: a `parameter` op names
// one, and whoever runs or saves the program supplies the tensors by name, so several programs
// (train, eval, inference) can share the same weights.
#pragma once
#include <string>
#include <vector>

#include "oar/ir/region.h"

namespace oar::ir {

class Program {
 public:
  Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  Block& block() const { return body_->block(0); }
  // Names of the `parameter` ops, in program order.
  std::vector<std::string> parameter_names() const;
  // Names of the `data` ops (the program's inputs), in program order.
  std::vector<std::string> input_names() const;
  // The `fetch` ops (the program's named outputs), in program order: (name, value).
  std::vector<std::pair<std::string, Value*>> outputs() const;
  // Every operation, outer before inner, in program order.
  std::vector<Operation*> all_ops() const;

  // Every value in a fixed order (per block: its arguments, then each op's results followed by
  // the values of its regions). A program parsed from this one's text form lists its values in
  // the same order, so an index names "the same" value in a clone.
  std::vector<Value*> values() const;

  std::string str() const;  // the text form (printer.cc)

 private:
  std::unique_ptr<Region> body_;
};

// Calls fn(op) for every operation under `block`, in order, descending into regions.
template <typename Fn>
void walk(const Block& block, Fn&& fn) {
  for (auto& op : block.ops()) {
    fn(op.get());
    for (auto& r : op->regions())
      for (auto& b : r->blocks()) walk(*b, fn);
  }
}

}  // namespace oar::ir
