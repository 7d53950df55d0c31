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

std::vector<std::pair<std::string, Value*>> Program::outputs() const {
  std::vector<std::pair<std::string, Value*>> out;
  for (auto& op : block().ops())
    if (op->name() == "fetch") out.emplace_back(op->attr("name")->as_string("name"), op->operand(0));
  return out;
}

std::vector<Operation*> Program::all_ops() const {
  std::vector<Operation*> out;
  walk(block(), [&](Operation* op) { out.push_back(op); });
  return out;
}

namespace {
void collect_values(const Block& b, std::vector<Value*>& out) {
  for (size_t i = 0; i < b.num_arguments(); ++i) out.push_back(b.argument(i));
  for (auto& op : b.ops()) {
    for (size_t i = 0; i < op->num_results(); ++i) out.push_back(op->result(i));
    for (auto& r : op->regions())
      for (auto& inner : r->blocks()) collect_values(*inner, out);
  }
}
}  // namespace

std::vector<Value*> Program::values() const {
  std::vector<Value*> out;
  collect_values(block(), out);
  return out;
}

}  // namespace oar::ir
