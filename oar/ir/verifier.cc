#include "oar/ir/verifier.h"

#include <unordered_set>

#include "oar/ir/builder.h"
#include "oar/ir/type_inference.h"

namespace oar::ir {

namespace {

std::string types_str(const std::vector<TensorType>& ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].str();
  return s + ")";
}

class Verifier {
 public:
  void block(const Block& b, const std::string& where, std::unordered_set<const Value*> visible) {
    for (size_t i = 0; i < b.num_arguments(); ++i) visible.insert(b.argument(i));
    size_t index = 0;
    for (auto& op : b.ops()) {
      const std::string here = where + "op #" + std::to_string(index++) + " '" + op->name() + "'";
      try {
        operation(*op, visible);
      } catch (const Error& e) {
        // Keep the kind; say where. Errors from nested ops already carry their full position.
        std::string msg = e.what();
        if (msg.find(") verify: ") != std::string::npos) throw;
        if (msg.rfind("(", 0) == 0 && msg.find(") ") != std::string::npos) msg = msg.substr(msg.find(") ") + 2);
        detail::throw_error(e.kind(), __FILE__, __LINE__, "verify: ", here, ": ", msg);
      }
      for (size_t r = 0; r < op->num_regions(); ++r)
        for (size_t k = 0; k < op->region(r).num_blocks(); ++k)
          block(op->region(r).block(k), here + " region " + std::to_string(r) + " block " + std::to_string(k) + ": ",
                visible);
      for (size_t r = 0; r < op->num_results(); ++r) visible.insert(op->result(r));
    }
  }

 private:
  void operation(const Operation& op, const std::unordered_set<const Value*>& visible) {
    const OpDef* def = op.def();
    OAR_ENFORCE(def != nullptr, NotFound, "unknown op '", op.name(), "' (not in the op registry)");
    for (size_t i = 0; i < op.num_operands(); ++i)
      OAR_ENFORCE(visible.count(op.operand(i)), InvalidArgument, "operand ", i, " (", op.operand(i)->type().str(),
                  ") is not defined before this use (defined later, in another region, or not in this program)");
    Builder::check_slots(*def, op.segments());
    const AttributeMap full = Builder::complete_attributes(*def, op.attributes());
    OAR_ENFORCE(op.num_regions() == def->num_regions, InvalidArgument, "expected ", def->num_regions,
                " region(s), got ", op.num_regions());
    if (!def->variadic_results)
      OAR_ENFORCE(op.num_results() == def->results.size(), InvalidArgument, "expected ", def->results.size(),
                  " result(s), got ", op.num_results());
    if (def->verify) def->verify(op);
    if (def->rule != TypeRule::Declared) {
      std::vector<std::vector<TensorType>> slots;
      for (size_t s = 0; s < op.num_slots(); ++s) {
        slots.emplace_back();
        for (Value* v : op.slot(s)) slots.back().push_back(v->type());
      }
      std::vector<TensorType> have;
      for (size_t r = 0; r < op.num_results(); ++r) have.push_back(op.result(r)->type());
      const std::vector<TensorType> want = infer_types(*def, slots, full, &op.regions());
      OAR_ENFORCE(have == want, TypeMismatch, "result types ", types_str(have), " differ from the inferred ",
                  types_str(want));
    }
  }
};

}  // namespace

void verify(const Program& program) {
  Verifier v;
  v.block(program.block(), "", {});
}

}  // namespace oar::ir
