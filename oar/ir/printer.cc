#include "oar/ir/printer.h"

#include <sstream>
#include <unordered_map>

#include "oar/ir/op_registry.h"

namespace oar::ir {

namespace {

class Printer {
 public:
  std::string run(const Program& p) {
    os_ << "program {\n";
    ops(p.block(), 1);
    os_ << "}\n";
    return os_.str();
  }

 private:
  std::string name(const Value* v) {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    return "%<undefined>";  // the verifier reports this; printing never fails
  }
  std::string define(const Value* v) {
    std::string n = "%" + std::to_string(next_++);
    names_[v] = n;
    return n;
  }
  void indent(int depth) { os_ << std::string(2 * depth, ' '); }

  void ops(const Block& b, int depth) {
    for (auto& op : b.ops()) operation(*op, depth);
  }

  void operands(const Operation& op) {
    const OpDef* def = op.def();
    if (!def || def->operands.size() != op.num_slots()) {  // no registry entry: flat
      for (size_t i = 0; i < op.num_operands(); ++i) os_ << (i ? ", " : "") << name(op.operand(i));
      return;
    }
    for (size_t s = 0; s < op.num_slots(); ++s) {
      if (s) os_ << ", ";
      const auto vs = op.slot(s);
      if (def->operands[s].kind == OperandKind::List) {
        os_ << "[";
        for (size_t k = 0; k < vs.size(); ++k) os_ << (k ? ", " : "") << name(vs[k]);
        os_ << "]";
      } else if (vs.empty()) {
        os_ << "none";
      } else {
        os_ << name(vs[0]);
      }
    }
  }

  void operation(const Operation& op, int depth) {
    indent(depth);
    for (size_t r = 0; r < op.num_results(); ++r) os_ << (r ? ", " : "") << define(op.result(r));
    if (op.num_results()) os_ << " = ";
    os_ << op.name() << "(";
    operands(op);
    os_ << ")";
    if (!op.attributes().empty()) {
      os_ << " {";
      bool first = true;
      for (auto& [k, a] : op.attributes()) {
        os_ << (first ? "" : ", ") << k << " = " << a.str();
        first = false;
      }
      os_ << "}";
    }
    for (auto& region : op.regions()) {
      os_ << " region {";
      for (size_t k = 0; k < region->num_blocks(); ++k) {
        const Block& b = region->block(k);
        os_ << "\n";
        if (b.num_arguments() || k > 0 || b.empty()) {
          indent(depth + 1);
          os_ << "^(";
          for (size_t i = 0; i < b.num_arguments(); ++i) {
            os_ << (i ? ", " : "") << define(b.argument(i)) << ": " << b.argument(i)->type().str();
          }
          os_ << "):\n";
        }
        ops(b, depth + 1);
      }
      if (region->num_blocks()) indent(depth);
      os_ << "}";
    }
    if (op.num_results()) {
      os_ << " : ";
      for (size_t r = 0; r < op.num_results(); ++r) os_ << (r ? ", " : "") << op.result(r)->type().str();
    }
    os_ << "\n";
  }

  std::ostringstream os_;
  std::unordered_map<const Value*, std::string> names_;
  size_t next_ = 0;
};

}  // namespace

std::string print(const Program& program) { return Printer().run(program); }

std::string Program::str() const { return print(*this); }

}  // namespace oar::ir
