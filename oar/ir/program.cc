#include "oar/ir/program.h"

namespace oar::ir {

Program::Program() : body_(std::make_unique<Region>()) { body_->add_block(); }

namespace {
std::vector<std::string> names_of(const Program& p, const char* op_name) {
  std::vector<std::string> out;
  walk(p.block(), [&](Operation* op) {
    if (op->name() == op_name)
      if (const Attribute* a = op->attr("name"); a && a->kind() == AttrKind::Str) out.push_back(a->as_string());
  });
  return out;
}
}  // namespace

std::vector<std::string> Program::parameter_names() const { return names_of(*this, "parameter"); }
std::vector<std::string> Program::input_names() const { return names_of(*this, "data"); }

std::vector<Operation*> Program::all_ops() const {
  std::vector<Operation*> out;
  walk(block(), [&](Operation* op) { out.push_back(op); });
  return out;
}

}  // namespace oar::ir
