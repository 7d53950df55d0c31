#!/usr/bin/env python3
"""The op generator: reads oar/ops/specs/*.yaml and writes, for every op,
the C++ API function, its autograd node, the Python binding (and Tensor method) and its IR op
definition (ir_<family>.cc: operand slots, attributes with defaults, results, type inference).

Spec entry (one per op):
  op: name                      # C++ and Python name
  args: (Tensor x, Tensor y, bool keepdim=false, ...)   # Paddle's names and order
  output: Tensor(out)           # or "Tensor(values), Tensor(indices)" or "Tensor[](out)"
  infer_meta: fn                # infer_meta::fn(args...) -> Meta (or std::vector<Meta>)
  ir_meta: fn                   # type inference for programs only (the kernel makes its output)
  promote: [x, y]               # cast these tensors to their common dtype first (optional)
  kernel: expr                  # C++ statement computing outputs, e.g. kernels::binary(BinaryOp::Add, x, y, out)
  view: true                    # kernel expr returns the output (a view); no allocation
  composite: true               # instead of infer_meta/kernel: the op is written with other ops, in
                                # oar/ops/composite/<family>.cc (see composite.h there)
  shape_only: false             # (composite) its body reads values or calls kernels, so programs
                                # cannot infer its result types from it: they are told them
  backward: {x: formula, y: formula}   # C++ expressions in other ops; names: args, outputs, grad
  method: false                 # not a Python Tensor method (default: a method when arg 0 is a Tensor)
  inplace: name_                # also generate an in-place variant (x is overwritten)
  python: false                 # no Python binding (a hand-written one exists)
  draws: true                   # takes numbers from the random generator (passes keep each draw;
                                # on a device: the backend's Philox kernel, see device_random.h)
  draws: indirect               # random only through the random ops it calls (passes keep it;
                                # on a device it runs there, its draws on the host)
  reads: metadata               # the kernel reads only its inputs' shapes and dtypes (shape, numel):
                                # it runs on the host for every place and the result moves there
  device_kernel: expr           # C++ for a device place instead of the backend launch (see
                                # oar/ops/device_kernels.h): a statement filling the outputs, for an op
                                # whose host kernel also writes an input (batch_norm's running
                                # statistics); or, for a kernel that makes its output (data-dependent
                                # shapes: indexing), an expression giving it
  public: false                 # bound as oar._C.<op> for oar's own Python layers, not exported as oar.<op>
  doc: |                        # the Python docstring (Paddle-style: summary, Args, Returns, Examples)
Argument types: Tensor, Tensor? (may be undefined), Tensor[], Scalar, IntArray, int, float, bool,
str, DataType, DataType? (std::nullopt when None).
"""
import os
import re
import sys

import yaml

CPP_TYPES = {
    "Tensor": "const Tensor&", "Tensor?": "const Tensor&", "Tensor[]": "const std::vector<Tensor>&",
    "Scalar": "const Scalar&", "Scalar?": "const std::optional<Scalar>&",
    "IntArray": "const IntArray&", "int": "int64_t", "float": "double",
    "bool": "bool", "str": "const std::string&", "DataType": "DType",
    "DataType?": "std::optional<DType>", "int?": "std::optional<int64_t>",
}
STORE_TYPES = {  # how a node keeps an attribute
    "Scalar": "Scalar", "Scalar?": "std::optional<Scalar>", "IntArray": "IntArray",
    "int": "int64_t", "float": "double", "bool": "bool", "str": "std::string",
    "DataType": "DType", "DataType?": "std::optional<DType>", "int?": "std::optional<int64_t>",
}


class Arg:
    def __init__(self, text):
        text = text.strip()
        m = re.match(r"^([\w\[\]\?]+)\s+(\w+)\s*(?:=\s*(.+))?$", text)
        if not m:
            raise SystemExit(f"gen_ops: cannot parse argument '{text}'")
        self.type, self.name, self.default = m.group(1), m.group(2), m.group(3)
        if self.type not in CPP_TYPES:
            raise SystemExit(f"gen_ops: unknown type '{self.type}' in '{text}'")

    @property
    def is_tensor(self):
        return self.type in ("Tensor", "Tensor?")

    def cpp_default(self):
        d = self.default
        if d is None:
            return None
        if d == "None":
            return "Tensor()" if self.type == "Tensor?" else "std::nullopt" if "?" in self.type else "{}"
        if self.type == "str":
            return d if d.startswith('"') else f'"{d}"'
        if self.type == "DataType":
            return f"DType::{d}"
        return d

    def py_default(self):
        d = self.default
        if d is None:
            return None
        if d in ("None", "{}"):
            return "nb::none()"
        if d in ("true", "false"):
            return d
        if self.type == "str":
            return f'std::string({d if d.startswith(chr(34)) else chr(34) + d + chr(34)})'
        if self.type == "DataType":
            return f"DType::{d}"
        if self.type in ("Scalar", "Scalar?"):
            return f"Scalar({d})"
        if self.type == "IntArray":
            return f"IntArray{d}" if d.startswith("{") else f"IntArray({d})"
        if self.type == "float":
            return f"double({d})"
        if self.type == "int":
            return f"int64_t({d})"
        return d


def split_args(text):
    text = text.strip()
    assert text[0] == "(" and text[-1] == ")", text
    body, parts, depth, cur = text[1:-1], [], 0, ""
    for ch in body:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return [Arg(p) for p in parts]


class Op:
    def __init__(self, spec, source):
        self.name = spec["op"]
        self.source = source
        self.family = source[:-len(".yaml")]  # the spec file's stem: names its generated files
        self.args = split_args(spec["args"])
        out = spec.get("output", "Tensor(out)")
        self.multi = out.startswith("Tensor[]")
        self.outputs = re.findall(r"\((\w+)\)", out)
        self.infer_meta = spec.get("infer_meta")
        # A shape rule for programs only, for an op whose kernel makes its own output (its result
        # shape is known from operand types in the cases the rule accepts).
        self.ir_meta = spec.get("ir_meta")
        self.kernel = spec.get("kernel")
        self.draws = spec.get("draws", False)  # False, True (itself) or "indirect"
        if self.draws not in (False, True, "indirect"):
            raise SystemExit(f"gen_ops: op '{self.name}': draws must be true or indirect, got {self.draws!r}")
        self.device_kernel = spec.get("device_kernel")
        self.reads = spec.get("reads")
        if self.reads not in (None, "metadata"):
            raise SystemExit(f"gen_ops: op '{self.name}': reads must be metadata, got {self.reads!r}")
        self.view = spec.get("view", False)
        # Under auto_cast (oar/ops/amp.h): the op's default list (white, black, float32; none:
        # never cast, e.g. cast itself), and which inputs may be cast (default: all tensors).
        self.amp = spec.get("amp", "gray")
        if self.amp not in ("gray", "white", "black", "float32", "none"):
            raise SystemExit(f"gen_ops: op '{self.name}': amp must be white, black, float32 or none, "
                             f"got {self.amp!r}")
        self.amp_inputs = spec.get("amp_inputs")
        self.composite = spec.get("composite", False)
        if self.composite not in (False, True):
            raise SystemExit(f"gen_ops: op '{self.name}': composite must be true (its body is a function in "
                             f"oar/ops/composite/{self.family}.cc), got a {type(self.composite).__name__}")
        self.shape_only = spec.get("shape_only", True)
        self.promote = spec.get("promote", [])
        self.float_inputs = spec.get("float_inputs", [])  # ints/bools cast to the default float
        self.backward = spec.get("backward") or {}
        self.python = spec.get("python", True)
        self.public = spec.get("public", True)
        self.inplace = spec.get("inplace")
        first_tensor = bool(self.args) and self.args[0].type == "Tensor"
        self.method = spec.get("method", first_tensor)
        self.doc = spec.get("doc", "")
        if not self.composite and not self.kernel:
            raise SystemExit(f"gen_ops: op '{self.name}' needs a kernel or a composite body")
        for k in self.backward:
            if k not in [a.name for a in self.args]:
                raise SystemExit(f"gen_ops: op '{self.name}' backward names unknown input '{k}'")

    def ret_type(self):
        if self.multi:
            return "std::vector<Tensor>"
        if len(self.outputs) > 1:
            return "std::tuple<" + ", ".join(["Tensor"] * len(self.outputs)) + ">"
        return "Tensor"

    def params(self, with_defaults, skip_first=False):
        out = []
        for i, a in enumerate(self.args):
            if skip_first and i == 0:
                continue
            p = f"{CPP_TYPES[a.type]} {a.name}"
            if with_defaults and a.cpp_default() is not None:
                p += f" = {a.cpp_default()}"
            out.append(p)
        return ", ".join(out)

    def arg_names(self):
        return ", ".join(a.name for a in self.args)


def words(expr):
    return set(re.findall(r"[A-Za-z_]\w*", expr))


META_CALLS = {"shape": "{n}_shape", "dtype": "{n}_dtype", "ndim": "int64_t({n}_shape.size())",
              "numel": "numel_of({n}_shape)"}


def meta_only_inputs(op):
    """Tensor inputs whose backward formulas read only shape/dtype/ndim/numel: the node keeps
    those, not the tensor, so no storage is held and writing to it in place stays legal."""
    text = "\n".join(op.backward.values())
    out = set()
    for a in op.args:
        if a.type != "Tensor":
            continue
        uses = re.findall(r"\b" + a.name + r"\b(\.\w+\(\))?", text)
        if uses and all(u[1:-2] in META_CALLS for u in uses):
            out.add(a.name)
    return out


def use_meta(formula, names):
    """Rewrites x.shape() and friends into the saved metadata for the meta-only inputs."""
    for n in names:
        formula = re.sub(r"\b" + n + r"\.(shape|dtype|ndim|numel)\(\)",
                         lambda m: META_CALLS[m.group(1)].format(n=n), formula)
    return formula


def gen_node(op):
    """An autograd node class for `op`, or '' when it has no backward."""
    if not op.backward:
        return ""
    used = set()
    for f in op.backward.values():
        used |= words(f)
    tensors = [a for a in op.args if a.type in ("Tensor", "Tensor?", "Tensor[]")]
    metas = meta_only_inputs(op)
    saved = [a for a in tensors if a.name in used and a.name not in metas]
    attrs = [a for a in op.args if a.type in STORE_TYPES and a.name in used]
    saved_outs = [o for o in op.outputs if o in used] if not op.multi else []
    cls = f"{op.name.title().replace('_', '')}Grad"
    lines = [f"struct {cls} : autograd::Node {{",
             f'  const char* name() const override {{ return "{op.name}_grad"; }}']
    for a in saved:
        if a.type == "Tensor[]":
            lines.append(f"  std::vector<autograd::SavedTensor> {a.name}_;")
        else:
            lines.append(f"  autograd::SavedTensor {a.name}_;")
    for o in saved_outs:
        lines.append(f"  autograd::SavedTensor {o}_;")
    for n in sorted(metas):
        lines.append(f"  Shape {n}_shape;")
        lines.append(f"  DType {n}_dtype;")
    for a in attrs:
        lines.append(f"  {STORE_TYPES[a.type]} {a.name};")
    lines.append("  void release_saved() override {")
    lines.append("    Node::release_saved();")
    for a in saved:
        if a.type == "Tensor[]":
            lines.append(f"    {a.name}_.clear();")
        else:
            lines.append(f"    {a.name}_.reset();")
    for o in saved_outs:
        lines.append(f"    {o}_.reset();")
    lines.append("  }")
    lines.append("  autograd::TensorList apply(autograd::TensorList&& grads) override {")
    lines.append("    auto self = shared_from_this();")
    for a in saved:
        if a.type == "Tensor[]":
            lines.append(f"    std::vector<Tensor> {a.name};")
            lines.append(f"    for (auto& s : {a.name}_) {a.name}.push_back(s.unpack(self, \"{op.name}\"));")
        else:
            lines.append(f'    Tensor {a.name} = {a.name}_.unpack(self, "{op.name}");')
    for o in saved_outs:
        lines.append(f'    Tensor {o} = {o}_.unpack(self, "{op.name}");')
    if op.multi:
        lines.append("    const std::vector<Tensor>& grad = grads;")
    elif len(op.outputs) == 1:
        lines.append("    const Tensor& grad = grads[0];")
    else:
        for k, o in enumerate(op.outputs):
            lines.append(f"    const Tensor& grad_{o} = grads[{k}];")
    # One edge per tensor input (Tensor[] inputs expand to one edge per element).
    lines.append("    autograd::TensorList result(next_edges.size());")
    lines.append("    size_t edge = 0;")
    for a in tensors:
        formula = op.backward.get(a.name)
        if formula:
            formula = use_meta(formula, metas)
        if a.type == "Tensor[]":
            lines.append(f"    const size_t {a.name}_first = edge; edge += {a.name}_count;")
            if formula:
                lines.append("    {")
                lines.append(f"      bool any = false; for (size_t i = 0; i < {a.name}_count; ++i) any |= needs_input_grad({a.name}_first + i);")
                lines.append(f"      if (any) {{ std::vector<Tensor> gs = {formula}; for (size_t i = 0; i < gs.size(); ++i) result[{a.name}_first + i] = gs[i]; }}")
                lines.append("    }")
            continue
        if formula:
            body = formula.strip()
            if body.startswith("{"):
                lines.append(f"    if (needs_input_grad(edge)) result[edge] = [&]() -> Tensor {body}();")
            else:
                lines.append(f"    if (needs_input_grad(edge)) result[edge] = {body};")
        lines.append("    ++edge;")
    lines.append("    return result;")
    lines.append("  }")
    for a in tensors:
        if a.type == "Tensor[]":
            lines.append(f"  size_t {a.name}_count = 0;")
    lines.append("};")
    return "\n".join(lines) + "\n"


def gen_record(op, out_names):
    """Statements that record the node after the outputs exist."""
    if not op.backward:
        return []
    cls = f"{op.name.title().replace('_', '')}Grad"
    used = set()
    for f in op.backward.values():
        used |= words(f)
    tensors = [a for a in op.args if a.type in ("Tensor", "Tensor?", "Tensor[]")]
    diff = [a for a in tensors if a.name in op.backward]
    conds = []
    for a in diff:
        if a.type == "Tensor[]":
            conds.append(f"autograd::any_requires_grad_list({a.name})")
        else:
            conds.append(f"autograd::any_requires_grad({{&{a.name}}})")
    lines = [f"  if ({' || '.join(conds)}) {{", f"    auto node = std::make_shared<{cls}>();"]
    metas = meta_only_inputs(op)
    for a in tensors:
        if a.name not in used:
            continue
        if a.name in metas:
            lines.append(f"    node->{a.name}_shape = {a.name}.shape();")
            lines.append(f"    node->{a.name}_dtype = {a.name}.dtype();")
        elif a.type == "Tensor[]":
            lines.append(f"    for (const auto& t : {a.name}) node->{a.name}_.emplace_back(t, false);")
        else:
            lines.append(f"    node->{a.name}_ = autograd::SavedTensor({a.name}, false);")
    for a in op.args:
        if a.type in STORE_TYPES and a.name in used:
            lines.append(f"    node->{a.name} = {a.name};")
    lines.append("    std::vector<const Tensor*> ins;")
    for a in tensors:
        if a.type == "Tensor[]":
            lines.append(f"    node->{a.name}_count = {a.name}.size();")
            if a.name in op.backward:
                lines.append(f"    for (const auto& t : {a.name}) ins.push_back(&t);")
            else:
                lines.append(f"    for (size_t i = 0; i < {a.name}.size(); ++i) ins.push_back(nullptr);")
        elif a.name in op.backward:
            lines.append(f"    ins.push_back({a.name}.defined() ? &{a.name} : nullptr);")
        else:
            lines.append("    ins.push_back(nullptr);")
    if op.multi:
        lines.append(f"    std::vector<const Tensor*> outs; for (const auto& t : {out_names[0]}) outs.push_back(&t);")
    else:
        lines.append("    std::vector<const Tensor*> outs{" + ", ".join("&" + o for o in out_names) + "};")
    lines.append("    autograd::record(node, ins, outs);")
    if not op.multi:
        for o in op.outputs:
            if o in used:
                lines.append(f"    node->{o}_ = autograd::SavedTensor({o}, true);")
    lines.append("  }")
    return lines


def gen_trace(op):
    """The line that records `op` into the active tracer (static mode) instead of running it.
    Composites without type inference get none: their bodies trace op by op."""
    if op.composite and ir_rule(op) == "Declared":
        return ""
    slots = ", ".join(f"std::vector<Tensor>{{{a.name}}}" if a.is_tensor else a.name
                      for a in op.args if a.type in OPERAND_KINDS)
    attrs = ", ".join(f'{{"{a.name}", ir::to_attribute({a.name})}}' for a in op.args if a.type not in OPERAND_KINDS)
    return (f"  if (ir::tracing_active()) [[unlikely]]\n    return ir::traced_result<{op.ret_type()}>(ir::trace_op("
            f'"{op.name}", {{{slots}}}, ir::AttributeMap{{{attrs}}}));\n')


AMP_CATEGORIES = {"gray": "Gray", "white": "White", "black": "Black", "float32": "Float32"}


def gen_amp(op):
    """Under auto_cast (oar/ops/amp.h): decide the dtype, cast the castable inputs and run the op
    again with AMP suspended. Views and ops marked `amp: none` are never cast."""
    tensors = [a for a in op.args if a.is_tensor or a.type == "Tensor[]"]
    if op.amp == "none" or op.view or not tensors:
        return ""
    castable = set(op.amp_inputs if op.amp_inputs is not None else [a.name for a in tensors])
    unknown = castable - {a.name for a in tensors}
    if unknown:
        raise SystemExit(f"gen_ops: op '{op.name}': amp_inputs names {sorted(unknown)}, not tensor inputs")
    # As Paddle, the decision looks only at the inputs it may cast (batch_norm: x, not its stats).
    singles = ", ".join("&" + a.name for a in tensors if a.is_tensor and a.name in castable)
    lists = ", ".join("&" + a.name for a in tensors if a.type == "Tensor[]" and a.name in castable)
    args = ", ".join(f"amp::cast_to({a.name}, amp_dtype_)" if a.name in castable else a.name for a in op.args)
    return ("  if (amp::active()) [[unlikely]] {\n"
            f'    const DType amp_dtype_ = amp::compute_dtype("{op.name}", amp::Category::{AMP_CATEGORIES[op.amp]}, '
            f"{{{singles}}}, {{{lists}}});\n"
            "    const amp::Suspend amp_off_;\n"
            f"    return oar::{op.name}({args});\n"
            "  }\n")


def gen_observe(op):
    """Shows the op observers (oar/ops/op_observer.h) this call: run the op with observation
    suspended, then notify. Views compute nothing and are not observed. A composite is observed
    as one op, the ops inside it are not: many bodies call kernels directly (linear's GEMM, the
    fused ops, the random draws), which only the composite's own observation can show."""
    if op.view:
        return ""
    tensors = [a.name for a in op.args if a.is_tensor or a.type == "Tensor[]"]
    return ("  if (ops::observing()) [[unlikely]] {\n"
            "    const int64_t start_ = ops::clock_ns();\n"
            f"    auto r_ = [&] {{ const ops::ObserverSuspend off_; return oar::{op.name}({op.arg_names()}); }}();\n"
            f'    ops::notify("{op.name}", ops::inputs_of({", ".join(tensors)}), ops::outputs_of(r_), start_);\n'
            "    return r_;\n"
            "  }\n")


def place_expr(op, rename=None):
    """C++ expression for the place `op` runs on (oar/ops/device_dispatch.h): its inputs' place,
    or the expected place when it has no tensor inputs."""
    rename = rename or {}
    singles = [a.name for a in op.args if a.is_tensor]
    lists = [a.name for a in op.args if a.type == "Tensor[]"]
    if not singles and not lists:
        return "expected_place()"
    ins = ", ".join("&" + rename.get(n, n) for n in singles)
    extra = (", {" + ", ".join("&" + n for n in lists) + "}") if lists else ""
    return f'ops::op_place("{op.name}", {{{ins}}}{extra})'


def gen_device_launch(op, rename, outs):
    """The call of a backend kernel for a non-host place: inputs in spec order (a Tensor[]
    contributes its tensors, and an int attribute '<name>_count' their number), attrs by name."""
    attr_list = [f'{{"{a.name}", ir::to_attribute({a.name})}}' for a in op.args
                 if a.type not in OPERAND_KINDS]
    attr_list += [f'{{"{a.name}_count", ir::to_attribute(static_cast<int64_t>({a.name}.size()))}}'
                  for a in op.args if a.type == "Tensor[]"]
    attrs = ", ".join(attr_list)
    call = f'ops::launch("{op.name}", place_, ins_, ir::AttributeMap{{{attrs}}}, {{{", ".join(outs)}}})'
    if not any(a.type == "Tensor[]" for a in op.args):
        ins = ", ".join(rename.get(a.name, a.name) for a in op.args if a.is_tensor)
        return call.replace("ins_", "{" + ins + "}")
    lines = ["std::vector<Tensor> ins_;"]
    for a in op.args:
        if a.is_tensor:
            lines.append(f"ins_.push_back({rename.get(a.name, a.name)});")
        elif a.type == "Tensor[]":
            lines.append(f"ins_.insert(ins_.end(), {a.name}.begin(), {a.name}.end());")
    return "\n    ".join(lines + [call])


def gen_composite_placement(op):
    """A composite runs its body on its inputs' device (so the ops it creates land there); one
    without tensor inputs runs on the expected place. An op that draws from the generator itself
    (`draws`: uniform, bernoulli, dropout_mask) makes its result there too and fills it through
    ops::draw_into (oar/ops/device_random.h): the backend's Philox kernel, or a host draw copied
    over, so a seed gives the same numbers on every device."""
    has_inputs = any(a.is_tensor or a.type == "Tensor[]" for a in op.args)
    if has_inputs:
        return (f"  const Place place_ = {place_expr(op)};\n"
                "  std::optional<ExpectedPlaceGuard> on_device_;\n"
                "  if (!place_.is_host()) [[unlikely]] on_device_.emplace(place_);\n")
    return ""


def gen_function(op):
    sig = f"{op.ret_type()} {op.name}({op.params(False)})"
    body = []
    if op.composite:
        return (sig + " {\n" + gen_amp(op) + gen_trace(op) + gen_observe(op) + gen_composite_placement(op)
                + f"  return composite::{op.name}({op.arg_names()});\n}}\n")
    body.append((gen_amp(op) + gen_trace(op) + gen_observe(op)).rstrip("\n"))
    # Type promotion: cast the listed inputs to their common dtype.
    if op.promote:
        ps = op.promote
        body.append("  const DType common = " + " ".join(f"promote_types({p}.dtype()," for p in ps[:-1]) +
                    f" {ps[-1]}.dtype()" + f", \"{op.name}\")" * (len(ps) - 1) + ";")
        for p in ps:
            body.append(f"  const Tensor {p}_p = {p}.dtype() == common ? {p} : cast({p}, common);")
    for p in op.float_inputs:
        body.append(f"  const Tensor {p}_p = is_integral({p}.dtype(), true) ? cast({p}, default_float_dtype()) : {p};")
    rename = {p: f"{p}_p" for p in op.promote + op.float_inputs}
    call_args = ", ".join(rename.get(a.name, a.name) for a in op.args)

    def subst(expr):
        return re.sub(r"\b(" + "|".join(rename) + r")\b", lambda m: rename[m.group(1)], expr) if rename else expr

    if op.view or op.multi:
        if not op.view:
            body.append(f"  if (const Place place_ = {place_expr(op, rename)}; !place_.is_host()) [[unlikely]]")
            body.append(f'    ops::unsupported_on_device("{op.name}", place_);')
        body.append(f"  {op.ret_type()} result = {subst(op.kernel)};")
        out_names = ["result"]
        if not op.multi:
            out_names = ["result"]
    else:
        if op.infer_meta:
            body.append(f"  const Place place_ = {place_expr(op, rename)};")
            if len(op.outputs) == 1:
                body.append(f"  const Meta meta = infer_meta::{op.infer_meta}(\"{op.name}\", {call_args});")
                body.append(f"  Tensor {op.outputs[0]} = Tensor::make(meta.shape, meta.dtype, place_);")
            else:
                body.append(f"  const std::vector<Meta> metas = infer_meta::{op.infer_meta}(\"{op.name}\", {call_args});")
                for k, o in enumerate(op.outputs):
                    body.append(f"  Tensor {o} = Tensor::make(metas[{k}].shape, metas[{k}].dtype, place_);")
            if op.reads == "metadata":  # no device memory read: a host kernel serves every place
                body[-1] = body[-1].replace(", place_);", ", CPUPlace());")
                body.append(f"  {subst(op.kernel)};")
                body.append("  if (!place_.is_host()) [[unlikely]] "
                            f"{op.outputs[0]} = ops::copy_to_place({op.outputs[0]}, place_);")
            else:
                body.append("  if (place_.is_host()) [[likely]] {")
                body.append(f"    {subst(op.kernel)};")
                body.append("  } else {")
                body.append(f"    {subst(op.device_kernel) if op.device_kernel else gen_device_launch(op, rename, op.outputs)};")
                body.append("  }")
        else:  # the kernel creates its outputs
            if op.device_kernel:  # an expression giving the result on a device
                if len(op.outputs) != 1:
                    raise SystemExit(f"gen_ops: op '{op.name}': device_kernel for a kernel that makes its "
                                     "outputs needs a single output")
                body.append(f"  const Place place_ = {place_expr(op, rename)};")
                body.append(f"  Tensor {op.outputs[0]} = place_.is_host() ? {subst(op.kernel)} : "
                            f"{subst(op.device_kernel)};")
            else:
                body.append(f"  if (const Place place_ = {place_expr(op, rename)}; !place_.is_host()) [[unlikely]]")
                body.append(f'    ops::unsupported_on_device("{op.name}", place_);')
                if len(op.outputs) == 1:
                    body.append(f"  Tensor {op.outputs[0]} = {subst(op.kernel)};")
                else:
                    body.append(f"  auto [{', '.join(op.outputs)}] = {subst(op.kernel)};")
        out_names = list(op.outputs)
    # Backward formulas see the promoted inputs under their own names.
    rec = gen_record(op, out_names)
    if rec and rename:
        body.append("  {")
        for p in rename:
            body.append(f"    const Tensor& {p} = {p}_p;")
        body.extend("  " + l for l in rec)
        body.append("  }")
    else:
        body.extend(rec)
    if op.view and op.backward is not None and not op.backward:
        pass
    if op.multi or op.view:
        body.append("  return result;")
    elif len(op.outputs) == 1:
        body.append(f"  return {op.outputs[0]};")
    else:
        body.append(f"  return {{{', '.join(op.outputs)}}};")
    return sig + " {\n" + "\n".join(body) + "\n}\n"


def gen_inplace(op):
    """x.op_(...): computes op out of place, writes the result into x, moves x's history."""
    if not op.inplace:
        return "", ""
    first = op.args[0].name
    decl = f"Tensor& {op.inplace}({op.params(True).replace('const Tensor& ' + first, 'Tensor& ' + first, 1)});"
    params = op.params(False).replace("const Tensor& " + first, "Tensor& " + first, 1)
    used = set()
    for f in op.backward.values():
        used |= words(f)
    body = [f"Tensor& {op.inplace}({params}) {{",
            "  const amp::Suspend amp_off_;  // in-place ops keep x's dtype: auto_cast leaves them alone",
            f"  if (ir::tracing_active()) [[unlikely]] {{",
            f"    ir::rebind_symbolic({first}, oar::{op.name}({op.arg_names()}));",
            f"    return {first};",
            "  }",
            f'  autograd::check_inplace({first}, "{op.inplace}");']
    call_args = op.arg_names()
    if first in used and first not in meta_only_inputs(op):
        # The op saves x for its backward, and x is about to be overwritten: when recording,
        # let it save a (differentiable) copy instead.
        tensors = [a.name for a in op.args if a.type == "Tensor"]
        cond = " || ".join(f"{t}.requires_grad()" for t in tensors)
        body.append(f"  const Tensor {first}_in = autograd::grad_enabled() && ({cond}) ? {first}.clone() : {first};")
        call_args = ", ".join([f"{first}_in"] + [a.name for a in op.args[1:]])
    body += [f"  Tensor r = oar::{op.name}({call_args});",
            f'  OAR_ENFORCE_ARG(r.shape() == {first}.shape(), "{op.inplace}: the result shape ", shape_str(r.shape()),',
            f'                  " differs from the shape of x ", shape_str({first}.shape()), "; in-place ops cannot broadcast x");',
            f"  assign_inplace({first}, r);",
            f"  return {first};", "}"]
    return decl, "\n".join(body) + "\n"


def gen_binding(op):
    if not op.python:
        return ""
    params = []
    call = []
    for a in op.args:
        t = CPP_TYPES[a.type]
        if a.type == "IntArray":
            t = "const IntArray&"
        if a.type == "Tensor?":  # None arrives as a null pointer: an undefined Tensor
            params.append(f"const Tensor* {a.name}")
            call.append(f"({a.name} ? *{a.name} : Tensor())")
            continue
        params.append(f"{t} {a.name}")
        call.append(a.name)
    params.append("nb::handle name")
    lam = (f"[]({', '.join(params)}) {{ return oar::{op.name}({', '.join(call)}); }}")
    arg_specs = []
    for a in op.args:
        spec = f'nb::arg("{a.name}")'
        if a.py_default() is not None:
            spec += f" = {a.py_default()}"
        if a.type == "Tensor?" or (a.default == "None"):
            spec = spec.replace(f'nb::arg("{a.name}")', f'nb::arg("{a.name}").none()')
        arg_specs.append(spec)
    arg_specs.append('nb::arg("name") = nb::none()')
    # The spec's doc (Paddle-style: summary, Args, Returns, Examples) follows nanobind's signature
    # line in __doc__, help() and the _C.pyi stub.
    doc = f', R"oardoc({op.doc.strip()})oardoc"' if op.doc else ""
    text = f'  m.def("{op.name}", {lam}, {", ".join(arg_specs)}{doc});\n'
    if op.method:  # the same function as a Tensor method (self is the first argument)
        text += (f'  nb::cpp_function_def({lam}, nb::scope(tensor_cls), nb::name("{op.name}"), nb::is_method()'
                 + "".join(", " + a for a in arg_specs[1:]) + f"{doc});\n")
    return text


# ---- IR op definitions (oar/ir): one registry entry per spec op ----
OPERAND_KINDS = {"Tensor": "OperandKind::Single", "Tensor?": "OperandKind::Optional", "Tensor[]": "OperandKind::List"}
ATTR_KINDS = {  # spec type -> (AttrKind, nullable)
    "bool": ("Bool", False), "int": ("Int", False), "float": ("Float", False), "str": ("Str", False),
    "DataType": ("DType", False), "IntArray": ("IntArray", False), "Scalar": ("Scalar", False),
    "int?": ("Int", True), "DataType?": ("DType", True), "Scalar?": ("Scalar", True),
}


def ir_default(a):
    """The spec default as an ir::Attribute expression (the same value the C++ API defaults to)."""
    d, t = a.default, a.type
    if d is None:
        return "std::nullopt"
    if d == "None" and t.endswith("?"):
        return "Attribute::none()"
    if t == "bool":
        return f"Attribute::boolean({d})"
    if t == "int":
        return "Attribute::integer(0)" if d == "None" else f"Attribute::integer(int64_t({d}))"
    if t == "float":
        return f"Attribute::floating(double({d}))"
    if t == "str":
        return f"Attribute::string({a.cpp_default()})"
    if t == "DataType":
        return f"Attribute::dtype(DType::{d})"
    if t == "IntArray":
        if d in ("None", "{}"):
            return "Attribute::int_array({})"
        return f"Attribute::int_array({{{d.strip('{}')}}})"
    if t == "Scalar":
        return "Attribute::scalar(Scalar())" if d == "None" else f"Attribute::scalar(Scalar({d}))"
    raise SystemExit(f"gen_ops: no IR default for '{t} {a.name}={d}'")


def ir_rule(op):
    """How a program infers the op's result types (oar/ir/op_registry.h TypeRule)."""
    if op.composite:
        return "Composite" if op.shape_only else "Declared"
    if (op.infer_meta or op.ir_meta) and not op.view and not op.multi:
        return "InferMeta"
    if op.ir_meta and op.multi:  # a program rule for a variable list of results (unique_flat)
        return "InferMeta"
    if op.view:  # its view kernel computes geometry only: it runs on placeholders
        return "MetaKernel"
    return "Declared"


def unpack_ir_args(op):
    """C++ lines binding each argument of `op` by name from the MetaArgs `ir_args_` (tensors by
    operand slot, the rest from the attributes)."""
    lines, slot = [], 0
    for a in op.args:
        if a.is_tensor:
            lines.append(f"  const Tensor& {a.name} = ir_args_.tensor({slot});")
            slot += 1
        elif a.type == "Tensor[]":
            lines.append(f"  const std::vector<Tensor>& {a.name} = ir_args_.tensors({slot});")
            slot += 1
        else:
            lines.append(f'  const {STORE_TYPES[a.type]} {a.name} = ir_args_.attr<{STORE_TYPES[a.type]}>("{a.name}");')
    return lines


def gen_ir_meta(op, rule):
    """The type-inference function of `op`: its infer_meta (or view kernel) on placeholders."""
    fn = f"meta_{op.name}"
    lines = [f"std::vector<Meta> {fn}(const MetaArgs& ir_args_) {{"] + unpack_ir_args(op)
    if op.promote:
        ps = op.promote
        lines.append("  const DType common = " + " ".join(f"promote_types({p}.dtype()," for p in ps[:-1]) +
                     f" {ps[-1]}.dtype()" + f", \"{op.name}\")" * (len(ps) - 1) + ";")
        for p in ps:
            lines.append(f"  const Tensor {p}_p = retyped({p}, common);")
    for p in op.float_inputs:
        lines.append(f"  const Tensor {p}_p = is_integral({p}.dtype(), true) ? retyped({p}, default_float_dtype()) : {p};")
    rename = {p: f"{p}_p" for p in op.promote + op.float_inputs}
    call_args = ", ".join(rename.get(a.name, a.name) for a in op.args)

    def subst(expr):
        return re.sub(r"\b(" + "|".join(rename) + r")\b", lambda m: rename[m.group(1)], expr) if rename else expr

    if rule == "InferMeta":
        if len(op.outputs) == 1 and not op.multi:
            lines.append(f'  return {{infer_meta::{op.ir_meta or op.infer_meta}("{op.name}", {call_args})}};')
        elif op.multi:
            lines.append(f'  return infer_meta::{op.ir_meta}("{op.name}", {call_args});')
        else:
            lines.append(f'  return infer_meta::{op.ir_meta or op.infer_meta}("{op.name}", {call_args});')
    elif op.multi:
        lines.append(f"  const std::vector<Tensor> views = {subst(op.kernel)};")
        lines.append("  std::vector<Meta> out;")
        lines.append("  for (const Tensor& v : views) out.push_back(Meta{v.shape(), v.dtype()});")
        lines.append("  return out;")
    else:
        lines.append(f"  const Tensor view = {subst(op.kernel)};")
        lines.append("  return {Meta{view.shape(), view.dtype()}};")
    lines.append("}")
    return fn, "\n".join(lines) + "\n"


def meta_types(text):
    text = text.replace("const std::vector<Tensor>&", "const MetaTensorList&")  # Tensor[] parameters
    return re.sub(r"\bTensor\b", "MetaTensor", text)


def gen_shape_only(op, rule):
    """(declaration, definition) of op's shape-only twin in namespace oar::ir::shape_only."""
    ret = meta_types(op.ret_type())
    decl = f"{ret} {op.name}({meta_types(op.params(True))});"
    if rule == "Composite":  # the body in oar/ops/composite/<family>.cc, compiled shape-only
        return decl, ""
    lines = [f"{ret} {op.name}({meta_types(op.params(False))}) {{"]
    if rule == "Declared":
        lines.append(f'  OAR_THROW(Unimplemented, "op \'{op.name}\' has no type inference (its result shape depends on '
                     f'data, or its body runs kernels): its result types must be given when it is built");')
    else:
        if op.promote:
            ps = op.promote
            lines.append("  const DType common = " + " ".join(f"promote_types({p}.dtype()," for p in ps[:-1]) +
                         f" {ps[-1]}.dtype()" + f", \"{op.name}\")" * (len(ps) - 1) + ";")
            for p in ps:
                lines.append(f"  const Tensor {p}_p = retyped({p}, common);")
        for p in op.float_inputs:
            lines.append(f"  const Tensor {p}_p = is_integral({p}.dtype(), true) ? retyped({p}, default_float_dtype()) : {p}.tensor();")
        rename = {p: f"{p}_p" for p in op.promote + op.float_inputs}
        args = ", ".join(rename.get(a.name, f"to_tensors({a.name})" if a.type == "Tensor[]" else a.name) for a in op.args)

        def subst(expr):
            return re.sub(r"\b(" + "|".join(rename) + r")\b", lambda m: rename[m.group(1)], expr) if rename else expr

        if rule == "InferMeta":
            if op.multi:
                lines.append(f'  std::vector<MetaTensor> results;')
                lines.append(f'  for (const Meta& m : infer_meta::{op.ir_meta}("{op.name}", {args})) results.push_back(MetaTensor(m));')
                lines.append(f'  return results;')
            elif len(op.outputs) == 1:
                lines.append(f'  return MetaTensor(infer_meta::{op.ir_meta or op.infer_meta}("{op.name}", {args}));')
            else:
                lines.append(f'  const std::vector<Meta> m = infer_meta::{op.ir_meta or op.infer_meta}("{op.name}", {args});')
                lines.append("  return {" + ", ".join(f"MetaTensor(m[{k}])" for k in range(len(op.outputs))) + "};")
        elif op.multi:
            lines.append(f"  return MetaTensor::list({subst(op.kernel)});")
        else:
            lines.append(f"  return MetaTensor::of({subst(op.kernel)});")
    lines.append("}")
    return decl, "\n".join(lines) + "\n"


def gen_composite_meta(op):
    """The registry's MetaFn for a composite: its shape-only body on placeholders."""
    fn = f"meta_{op.name}"
    lines = [f"std::vector<Meta> {fn}(const MetaArgs& ir_args_) {{"]
    slot, names = 0, []
    for a in op.args:
        if a.type in ("Tensor", "Tensor?"):
            lines.append(f"  const shape_only::MetaTensor {a.name}(ir_args_.tensor({slot}));")
            slot += 1
        elif a.type == "Tensor[]":
            lines.append(f"  const std::vector<shape_only::MetaTensor> {a.name} = shape_only::wrap(ir_args_.tensors({slot}));")
            slot += 1
        else:
            lines.append(f'  const {STORE_TYPES[a.type]} {a.name} = ir_args_.attr<{STORE_TYPES[a.type]}>("{a.name}");')
        names.append(a.name)
    lines.append(f"  return shape_only::metas_of(shape_only::{op.name}({', '.join(names)}));")
    lines.append("}")
    return fn, "\n".join(lines) + "\n"


def gen_ir_exec(op):
    """The registry's ExecFn: the op's C++ API called with the operation's tensors and attributes."""
    fn = f"exec_{op.name}"
    lines = [f"std::vector<Tensor> {fn}(const MetaArgs& ir_args_) {{"] + unpack_ir_args(op)
    lines.append(f"  return exec_results(oar::{op.name}({op.arg_names()}));")
    lines.append("}")
    return fn, "\n".join(lines) + "\n"


def gen_ir_def(op, family):
    """(meta function text, registration block) of op's IR definition."""
    rule = ir_rule(op)
    meta_text, meta_fn = "", None
    if rule == "Composite":
        meta_fn, meta_text = gen_composite_meta(op)
    elif rule != "Declared":
        meta_fn, meta_text = gen_ir_meta(op, rule)
    operands = ", ".join(f'{{"{a.name}", {OPERAND_KINDS[a.type]}}}' for a in op.args if a.type in OPERAND_KINDS)
    attrs = []
    for a in op.args:
        if a.type in OPERAND_KINDS:
            continue
        kind, nullable = ATTR_KINDS[a.type]
        attrs.append(f'AttrDef{{"{a.name}", AttrKind::{kind}, {str(nullable).lower()}, {ir_default(a)}, "{a.type}"}}')
    reg = ["  {", "    OpDef d;", f'    d.name = "{op.name}";', f'    d.family = "{family}";',
           f"    d.operands = {{{operands}}};", f"    d.attrs = {{{', '.join(attrs)}}};",
           f"    d.results = {{{', '.join(chr(34) + o + chr(34) for o in op.outputs)}}};",
           f"    d.variadic_results = {str(op.multi).lower()};", f"    d.rule = TypeRule::{rule};"]
    if op.view:
        reg.append("    d.is_view = true;")
    if op.inplace:
        reg.append(f'    d.inplace_variant = "{op.inplace}";')
    if op.draws:
        reg.append("    d.is_random = true;")
    if meta_fn:
        reg.append(f"    d.meta = &{meta_fn};")
    reg.append(f"    d.exec = &exec_{op.name};")
    reg += ["    r.add(std::move(d));", "  }"]
    return meta_text, "\n".join(reg) + "\n"


class HeaderIndex:
    """Which infer_meta and CPU kernel headers a family's generated files include: those that
    declare a name its specs call (infer_meta: fields, infer_meta::f and kernels::f in kernel
    expressions and backward formulas), plus the elementwise and reduce kernel headers for the
    BinaryOp/UnaryOp/ReduceOp enums. So editing a kernel header recompiles the families that
    use it, not every generated file. A header missed here is a compile error, never a silent
    change."""

    ALWAYS = ["oar/kernels/cpu/elementwise.h", "oar/kernels/cpu/reduce.h"]

    def __init__(self, src):
        self.src = src
        self.declares = {}  # name -> set of header paths
        for sub, ns in (("oar/ops/infer_meta", "infer_meta"), ("oar/kernels/cpu", "kernels")):
            for fn in sorted(os.listdir(os.path.join(src, sub))):
                if not fn.endswith(".h"):
                    continue
                text = open(os.path.join(src, sub, fn)).read()
                names = set(re.findall(r"\b(\w+)\s*\(", text)) | set(re.findall(r"\b(?:struct|class|enum class|using)\s+(\w+)", text))
                for n in names:
                    self.declares.setdefault((ns, n), set()).add(f"{sub}/{fn}")

    def includes(self, ops, with_backward):
        wanted = set(self.ALWAYS)
        # A family's backward formulas too long for its spec live in oar/ops/backward/<family>.cc.
        family = ops[0].family
        if with_backward and os.path.exists(os.path.join(self.src, "oar/ops/backward", family + ".h")):
            wanted.add(f"oar/ops/backward/{family}.h")
        for op in ops:
            text = " ".join(filter(None, [op.kernel] + (list(op.backward.values()) if with_backward else [])))
            used = [("infer_meta", n) for n in filter(None, [op.infer_meta, op.ir_meta])]
            used += re.findall(r"\b(infer_meta|kernels)::(\w+)", text)
            for key in used:
                wanted |= self.declares.get(key, set())
        return "".join(f'#include "{h}"\n' for h in sorted(wanted))


def main():
    src, out_cpp, out_py = sys.argv[1], sys.argv[2], sys.argv[3]
    spec_dir = os.path.join(src, "oar", "ops", "specs")
    ops = []
    seen = set()
    for fn in sorted(os.listdir(spec_dir)):
        if not fn.endswith(".yaml"):
            continue
        with open(os.path.join(spec_dir, fn)) as f:
            for spec in yaml.safe_load(f) or []:
                op = Op(spec, fn)
                if op.name in seen:
                    raise SystemExit(f"gen_ops: op '{op.name}' defined twice")
                seen.add(op.name)
                ops.append(op)
    headers = HeaderIndex(src)
    fam_ops = {}  # family -> its ops, in spec order
    for op in ops:
        fam_ops.setdefault(op.family, []).append(op)
    os.makedirs(out_cpp, exist_ok=True)
    os.makedirs(out_py, exist_ok=True)

    # Declarations go one header per family (api/<family>.h, with api.h including them all for
    # users); definitions and bindings one file per family too. A generated file includes the
    # family headers of the ops its text calls, so adding or changing an op recompiles its own
    # family and the files that call it, not every file that uses a Tensor.
    fam_decls = {}  # family -> declarations of its ops and their in-place variants
    families = {}  # spec stem -> {"defs": [...], "nodes": [...], "binds": [...]}
    for op in ops:
        fam = families.setdefault(op.family, {"defs": [], "nodes": [], "binds": []})
        defs, nodes, binds = fam["defs"], fam["nodes"], fam["binds"]
        decls = fam_decls.setdefault(op.family, [])
        decls.append(f"{op.ret_type()} {op.name}({op.params(True)});")
        nodes.append(gen_node(op))
        defs.append(gen_function(op))
        defs.append("namespace ir {\n" + gen_ir_exec(op)[1] + "}  // namespace ir\n")
        idecl, idef = gen_inplace(op)
        if idecl:
            decls.append(idecl)
            defs.append(idef)
        binds.append(gen_binding(op))
        if op.inplace and op.python:
            ip_lam = (f'[]({op.params(False).replace("const Tensor& " + op.args[0].name, "Tensor " + op.args[0].name, 1)}) '
                      f'{{ oar::{op.inplace}({op.arg_names()}); return {op.args[0].name}; }}')
            # As Paddle documents its in-place APIs: a pointer to the out-of-place op.
            x = op.args[0].name
            ip_doc = (f', R"oardoc(In-place version of ``{op.name}``: writes the result into ``{x}`` and returns '
                      f'``{x}``. See ``oar.{op.name}`` for the arguments.)oardoc"')
            binds.append(f'  nb::cpp_function_def({ip_lam}, nb::scope(tensor_cls), nb::name("{op.inplace}"), nb::is_method()'
                         + "".join(f', nb::arg("{a.name}")' + (f" = {a.py_default()}" if a.py_default() else "") for a in op.args[1:]) + f"{ip_doc});\n")
            binds.append(f'  m.def("{op.inplace}", []({op.params(False).replace("const Tensor& " + op.args[0].name, "Tensor " + op.args[0].name, 1)}) '
                         f'{{ oar::{op.inplace}({op.arg_names()}); return {op.args[0].name}; }}, '
                         + ", ".join(f'nb::arg("{a.name}")' + (f" = {a.py_default()}" if a.py_default() else "") for a in op.args) + f"{ip_doc});\n")

    def write(path, text):
        old = open(path).read() if os.path.exists(path) else None
        if old != text:  # keep timestamps stable so rebuilds stay incremental
            with open(path, "w") as f:
                f.write(text)

    head = "// Generated by tools/gen_ops.py from oar/ops/specs/*.yaml. Do not edit.\n"
    op_family = {}  # every C++ op function (ops and their in-place variants) -> its family
    for op in ops:
        op_family[op.name] = op.family
        if op.inplace:
            op_family[op.inplace] = op.family

    def families_called(text, own):
        """The families whose ops `text` calls (an op's name followed by '('), and `own`: the
        family headers a file includes. A name matched by accident only costs a rebuild; a call
        missed here is a compile error, never a silent change."""
        return sorted({op_family[n] for n in re.findall(r"\b(\w+)\s*\(", text) if n in op_family} | {own})

    def api_includes(fams):
        return "".join(f'#include "oar/ops/generated/api/{f}.h"\n' for f in fams)

    def shape_only_includes(fams):
        return "".join(f'#include "oar/ops/generated/shape_only/{f}.h"\n' for f in fams)

    os.makedirs(os.path.join(out_cpp, "api"), exist_ok=True)
    os.makedirs(os.path.join(out_cpp, "shape_only"), exist_ok=True)
    for stem, decls in fam_decls.items():
        write(os.path.join(out_cpp, "api", f"{stem}.h"), head + f"// The C++ API of the ops in oar/ops/specs/{stem}.yaml.\n"
              "#pragma once\n#include <optional>\n#include <tuple>\n#include <vector>\n#include \"oar/core/int_array.h\"\n"
              "#include \"oar/core/tensor.h\"\n\nnamespace oar {\n\n" + "\n".join(decls) + "\n\n}  // namespace oar\n")
    write(os.path.join(out_cpp, "api.h"), head + "// Every op of the C++ API (one header per family under api/).\n#pragma once\n"
          + api_includes(sorted(fam_decls)))
    # Composite bodies (oar/ops/composite/<family>.cc) compile twice, each time through a generated
    # file that includes the family headers the body calls: eager (composite_<family>.cc) and as
    # the ops' shape-only twins (shape_only_<family>.cc); see composite.h there.
    composite_dir = os.path.join(src, "oar", "ops", "composite")
    composite_decls = {}
    for op in ops:
        if op.composite:
            stem = op.family
            if not os.path.exists(os.path.join(composite_dir, f"{stem}.cc")):
                raise SystemExit(f"gen_ops: op '{op.name}' is composite: its body belongs in oar/ops/composite/{stem}.cc")
            composite_decls.setdefault(stem, []).append(f"{op.ret_type()} {op.name}({op.params(False)});")
    for fn in sorted(os.listdir(composite_dir)):
        if fn.endswith(".cc"):
            stem = fn[:-3]
            called = families_called(open(os.path.join(composite_dir, fn)).read(), stem)
            write(os.path.join(out_cpp, f"composite_{fn}"), head + "// The composite bodies of oar/ops/composite/"
                  f"{fn} (eager), after the API headers of the ops they call.\n"
                  + api_includes(called) + f"#include \"oar/ops/composite/{fn}\"\n")
            write(os.path.join(out_cpp, f"shape_only_{fn}"), head + "// The composite bodies of oar/ops/composite/"
                  f"{fn}, compiled as the ops' shape-only twins (see composite.h there).\n"
                  f"#define OAR_SHAPE_ONLY 1\n" + shape_only_includes(called) + f"#include \"oar/ops/composite/{fn}\"\n")
    for stem, fam in families.items():
        bodies = ""
        if stem in composite_decls:
            bodies = (f"namespace composite {{  // defined in oar/ops/composite/{stem}.cc\n\n"
                      + "\n".join(composite_decls[stem]) + "\n\n}  // namespace composite\n\n")
        text = ("namespace {\n\n" + "\n".join(n for n in fam["nodes"] if n) + "\n}  // namespace\n\n"
                + "\n".join(fam["defs"]) + "\n}  // namespace oar\n")
        write(os.path.join(out_cpp, f"api_{stem}.cc"), head + api_includes(families_called(text, stem)) +
              "#include \"oar/autograd/node.h\"\n#include \"oar/autograd/grad_mode.h\"\n#include \"oar/core/random.h\"\n#include \"oar/ir/tracer.h\"\n#include \"oar/ops/op_helpers.h\"\n#include \"oar/ops/device_dispatch.h\"\n#include \"oar/ops/device_ops.h\"\n#include \"oar/ops/device_kernels.h\"\n#include \"oar/ops/amp.h\"\n#include \"oar/ops/op_observer.h\"\n"
              + headers.includes(fam_ops[stem], with_backward=True) + "\nnamespace oar {\n\nusing kernels::BinaryOp;\nusing kernels::UnaryOp;\nusing kernels::ReduceOp;\n\n"
              + bodies + text)
        write(os.path.join(out_py, f"bind_{stem}.cc"), head + "#include \"bind_common.h\"\n" + api_includes([stem]) + "\nnamespace oar::python {\n\n"
              f"void bind_ops_{stem}(nb::module_& m) {{\n  nb::handle tensor_cls = nb::type<Tensor>();\n  (void)tensor_cls;\n"
              + "".join(fam["binds"]) + "}\n\n}  // namespace oar::python\n")
    write(os.path.join(out_py, "bind_ops.cc"), head + "#include \"bind_common.h\"\n\nnamespace oar::python {\n\n"
          + "".join(f"void bind_ops_{stem}(nb::module_& m);\n" for stem in families) +
          "\nvoid bind_generated_ops(nb::module_& m) {\n" + "".join(f"  bind_ops_{stem}(m);\n" for stem in families) +
          "  // Ops that are also Tensor methods (the Python layer attaches them).\n  m.attr(\"_method_ops\") = nb::make_tuple(" +
          ", ".join(f'"{op.name}"' for op in ops if op.python and op.method) + ");\n"
          "  m.attr(\"_generated_ops\") = nb::make_tuple(" +
          ", ".join(f'"{op.name}"' for op in ops if op.python) + ");\n"
          "  m.attr(\"_internal_ops\") = nb::make_tuple(" +
          ", ".join(f'"{op.name}"' for op in ops if op.python and not op.public) + ");\n"
          "  m.attr(\"_inplace_ops\") = nb::make_tuple(" +
          ", ".join(f'"{op.inplace}"' for op in ops if op.python and op.inplace) + ");\n"
          "}\n\n}  // namespace oar::python\n")
    # IR op definitions, one file per family, and the function that registers them all; each
    # family's shape-only twins are declared in shape_only/<family>.h.
    ir_head = head + "#include \"oar/ir/op_registry.h\"\n#include \"oar/ir/type_inference.h\"\n"
    for stem, fops in fam_ops.items():
        metas, regs, so_defs, so_decls = [], [], [], []
        for op in fops:
            m, r = gen_ir_def(op, stem)
            if m:
                metas.append(m)
            regs.append(r)
            d, body = gen_shape_only(op, ir_rule(op))
            so_decls.append(d)
            so_defs.append(body)
        write(os.path.join(out_cpp, "shape_only", f"{stem}.h"), head + f"// The shape-only twins of the ops in oar/ops/specs/{stem}.yaml "
              "(see oar/ir/meta_tensor.h).\n#pragma once\n#include <optional>\n#include <tuple>\n#include <vector>\n"
              "#include \"oar/core/int_array.h\"\n#include \"oar/ir/meta_tensor.h\"\n\nnamespace oar::ir::shape_only {\n\n"
              + "\n".join(so_decls) + "\n\n}  // namespace oar::ir::shape_only\n")
        exec_decls = "".join(f"std::vector<Tensor> exec_{op.name}(const MetaArgs&);  // api_{stem}.cc\n" for op in fops)
        text = ("namespace oar::ir {\n\n" + exec_decls + "\nnamespace shape_only {\n\n"
                + "\n".join(so_defs) + "\n}  // namespace shape_only\n\nnamespace {\n\n"
                + "\n".join(metas) + "\n}  // namespace\n\n"
                + f"void register_ir_ops_{stem}(OpRegistry& r) {{\n" + "".join(regs) + "}\n\n}  // namespace oar::ir\n")
        write(os.path.join(out_cpp, f"ir_{stem}.cc"), ir_head + shape_only_includes(families_called(text, stem))
              + headers.includes(fops, with_backward=False) + "\n" + text)
    write(os.path.join(out_cpp, "ir_shape_only.h"), head + "// Every op's shape-only twin (one header per family under shape_only/).\n"
          "#pragma once\n" + shape_only_includes(sorted(fam_ops)))
    write(os.path.join(out_cpp, "ir_ops.cc"), head + "#include \"oar/ir/op_registry.h\"\n\nnamespace oar::ir {\n\n"
          + "".join(f"void register_ir_ops_{stem}(OpRegistry& r);\n" for stem in fam_ops)
          + "\nvoid register_generated_ops(OpRegistry& r) {\n" + "".join(f"  register_ir_ops_{stem}(r);\n" for stem in fam_ops)
          + "}\n\n}  // namespace oar::ir\n")
    # Each op's default auto_cast list (oar/ops/amp.h), for the Python layer's white_list()/black_list().
    write(os.path.join(out_cpp, "amp_categories.cc"), head + "#include \"oar/ops/amp.h\"\n\nnamespace oar::amp {\n\n"
          "const std::vector<std::pair<std::string, Category>>& default_categories() {\n"
          "  static const std::vector<std::pair<std::string, Category>> table{\n"
          + "".join(f'      {{"{op.name}", Category::{AMP_CATEGORIES[op.amp]}}},\n' for op in ops if op.amp in ("white", "black", "float32"))
          + "  };\n  return table;\n}\n\n}  // namespace oar::amp\n")
    # A list of op names for the Python layer (which ops become Tensor methods).
    write(os.path.join(out_py, "op_names.txt"), "\n".join(
        f"{op.name} {int(op.method)} {op.inplace or '-'}" for op in ops if op.python) + "\n")


if __name__ == "__main__":
    main()
