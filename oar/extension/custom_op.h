// Custom operators: ops that users write in C++ and load at run time (the registry behind
// `paddle/extension.h`'s PD_BUILD_OP and `oar.utils.cpp_extension.load`). An op names its inputs,
// outputs and attributes ("scale: float"), and has a kernel and optionally infer-shape and
// infer-dtype functions; a grad op (`<name>_grad`) makes it differentiable. Kernels see tensors
// through a uniform context: the PD_KERNEL adapter (paddle/extension.h) unpacks it into the
// user's signature.
#pragma once
#include <any>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/operation.h"

namespace oar::extension {

// Naming conventions of input/output names (Paddle's): "X@GRAD" is the gradient of X,
// "X@VECTOR" a list of tensors, "X@OPTIONAL" an input that may be absent.
inline constexpr const char* kGradSuffix = "@GRAD";
inline constexpr const char* kVectorSuffix = "@VECTOR";
inline constexpr const char* kOptionalSuffix = "@OPTIONAL";
bool has_suffix(const std::string& name, const char* suffix);

// The arguments of one call: inputs by position (a list input is one entry of several tensors,
// an absent optional an entry with none), attributes by position as declared.
struct KernelContext {
  std::vector<std::vector<Tensor>> inputs;
  std::vector<std::optional<bool>> present;  // per input: false for an absent optional
  std::vector<std::any> attrs;
};
using KernelFn = std::function<std::vector<Tensor>(const KernelContext&)>;
// Shapes and dtypes of the inputs (a list input: one entry per tensor) → of the outputs.
struct MetaContext {
  std::vector<std::vector<std::vector<int64_t>>> shapes;
  std::vector<std::vector<DType>> dtypes;
  std::vector<std::any> attrs;
};
using InferShapeFn = std::function<std::vector<std::vector<int64_t>>(const MetaContext&)>;
using InferDtypeFn = std::function<std::vector<DType>(const MetaContext&)>;

struct OpMeta {
  std::string name;
  std::vector<std::string> inputs, outputs, attrs;  // attrs: "name: type"
  KernelFn kernel;
  InferShapeFn infer_shape;
  InferDtypeFn infer_dtype;
  std::string library;  // the shared library that registered it (for errors)
  bool side_effects = false;  // acts outside its results: programs never drop it (OpDef::has_side_effects)
};

// The process-wide registry. Registration runs in a library's static initialisers, where an
// exception would end the process: a second op of the same name is recorded as an error that the
// loader raises (take_errors) after the library is open.
class Registry {
 public:
  static Registry& global();
  OpMeta& add(const std::string& name);  // a new op, filled in by the builder
  const OpMeta* find(const std::string& name) const;
  std::vector<std::string> names() const;
  // Ops registered since `mark` (the ops a just-loaded library brought).
  size_t mark() const { return order_.size(); }
  std::vector<std::string> since(size_t mark) const;
  std::vector<std::string> take_errors();

 private:
  std::map<std::string, std::unique_ptr<OpMeta>> ops_;
  std::vector<std::string> order_;
  std::vector<std::unique_ptr<OpMeta>> rejected_;  // duplicates, kept alive for their builders
  std::vector<std::string> errors_;
};

// Opens a shared library of custom ops and returns the names of the ops it registered; raises
// naming the library when it cannot be opened or registers a name twice.
std::vector<std::string> load_library(const std::string& path);

// The attribute's declared type ("float" in "scale: float").
std::string attr_type(const std::string& declaration);
std::string attr_name(const std::string& declaration);

// Adds every registered custom op (but grad ops) to the IR's op registry, so programs can hold
// them (custom_op_ir.cc); ops whose attribute types programs cannot carry stay eager-only.
void register_ir_ops();

// Runs op `name` (while a program is being traced: records it there instead): checks the arguments against its declaration, runs the kernel, checks
// the outputs against infer-shape/infer-dtype when the op has them, and records the grad op for
// autograd when any input requires grad. Errors name the op.
std::vector<Tensor> run(const std::string& name, const KernelContext& ctx);
// The call's attributes as IR attributes, by the declared types.
ir::AttributeMap ir_attributes(const OpMeta& op, const std::vector<std::any>& attrs);

}  // namespace oar::extension
