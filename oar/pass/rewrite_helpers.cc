#include "oar/pass/rewrite_helpers.h"

#include "oar/core/error.h"

namespace oar::pass {

ir::Block::iterator iterator_of(ir::Operation* op) {
  ir::Block* b = op->parent_block();
  OAR_ENFORCE(b != nullptr, PreconditionNotMet, "iterator_of: '", op->name(), "' is not in a block");
  for (auto it = b->begin(); it != b->end(); ++it)
    if (it->get() == op) return it;
  OAR_THROW(NotFound, "iterator_of: '", op->name(), "' is not in its parent block");
}

void replace_op(ir::Operation* op, const std::vector<ir::Value*>& values) {
  OAR_ENFORCE(values.size() == op->num_results(), InvalidArgument, "replace_op(", op->name(), "): ",
              values.size(), " values for ", op->num_results(), " results");
  for (size_t i = 0; i < values.size(); ++i) op->result(i)->replace_all_uses_with(values[i]);
  op->parent_block()->erase(op);
}

std::optional<double> splat_value(const ir::Value* v) {
  const ir::Operation* op = v->defining_op();
  if (op == nullptr) return std::nullopt;
  const std::string& n = op->name();
  if (n == "zeros" || n == "zeros_like") return 0.0;
  if (n == "ones" || n == "ones_like") return 1.0;
  if (n == "full" || n == "full_like") {
    const ir::Attribute* a = op->attr("fill_value");
    if (a == nullptr || a->kind() != ir::AttrKind::Scalar || a->as_scalar().is_complex()) return std::nullopt;
    return a->as_scalar().to<double>();
  }
  return std::nullopt;
}

}  // namespace oar::pass
