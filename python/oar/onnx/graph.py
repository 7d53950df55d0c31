"""The ONNX graph under construction: names for oar's values, nodes, initializers and the opset.

A converter (converters/) turns one oar operation into ONNX nodes through a GraphBuilder. It reads
its operands with `inp`, names its results with `out`, adds nodes with `node` and constants with
`const`, and states the opset a form needs with `require`: a converter written for the lowest opset
it supports picks newer forms (`ctx.opset >= 13`) only where the operator's signature changed. The
helpers below (`unsqueeze`, `squeeze`, `reduce`, `split`, `slice_`, `clip`) are those forms, so that
converters need not repeat the opset tests.
"""
import numpy as np

from onnx import TensorProto, helper, numpy_helper

# oar dtype name -> ONNX element type (the dtypes a program's values can have).
DTYPES = {
    "float32": TensorProto.FLOAT, "float64": TensorProto.DOUBLE, "float16": TensorProto.FLOAT16,
    "bfloat16": TensorProto.BFLOAT16, "int8": TensorProto.INT8, "uint8": TensorProto.UINT8,
    "int16": TensorProto.INT16, "int32": TensorProto.INT32, "int64": TensorProto.INT64,
    "bool": TensorProto.BOOL, "complex64": TensorProto.COMPLEX64,
    "complex128": TensorProto.COMPLEX128,
}
NUMPY = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "int8": np.int8,
         "uint8": np.uint8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
         "bool": np.bool_, "complex64": np.complex64, "complex128": np.complex128}


class NeedsOpset(Exception):
    """A converter needs a newer opset than the one being written (caught by the exporter)."""

    def __init__(self, version, op, why):
        super().__init__(version, op, why)
        self.version, self.op, self.why = version, op, why


class Unsupported(NotImplementedError):
    """An oar operation (or one of its forms) that has no ONNX conversion."""


def onnx_dtype(dtype, where="the program"):
    try:
        return DTYPES[dtype]
    except KeyError:
        raise Unsupported(f"oar.onnx.export: dtype {dtype} (in {where}) has no ONNX element type") from None


class Op:
    """One oar operation as a converter sees it: name, attrs, operands (lists of value ids: a
    Tensor[] operand has several, an absent optional one none), results (id, dtype, shape).
    Operand slots count the spec's Tensor arguments only: layer_norm(x, normalized_shape,
    weight, bias) has slots x 0, weight 1, bias 2."""

    def __init__(self, index, desc):
        self.index = index
        self.name = desc["name"]
        self.attrs = desc["attrs"]
        self.operands = desc["operands"]
        self.results = desc["results"]
        self.regions = desc["regions"]

    def where(self):
        results = ", ".join(f"%{r[0]}" for r in self.results) or "none"
        return f"operation #{self.index} '{self.name}' (results {results})"


class GraphBuilder:
    def __init__(self, opset, values, parameters, live):
        self.opset = opset
        self.values = values            # value id -> (dtype, shape)
        self.parameters = parameters    # value id -> (name, numpy array), read lazily by inp()
        self.live = live                # the value ids that the outputs depend on
        self.constants = {}             # value id -> numpy array known when exporting (full)
        self.training = []              # training-only forms exported as inference (warned)
        self.names = {}                 # value id -> ONNX name
        self.nodes = []
        self.initializers = {}          # ONNX name -> TensorProto
        self._taken = set()
        self._count = 0
        self.op = None                  # the operation being converted

    # ---- names ---------------------------------------------------------------------------------
    def fresh(self, hint="t"):
        while True:
            self._count += 1
            name = f"{hint}_{self._count}"
            if name not in self._taken:
                self._taken.add(name)
                return name

    def reserve(self, name):
        self._taken.add(name)
        return name

    # ---- the operation being converted ---------------------------------------------------------
    def has(self, slot):
        return slot < len(self.op.operands) and len(self.op.operands[slot]) > 0

    def vid(self, slot):
        ids = self.op.operands[slot]
        if len(ids) != 1:
            raise Unsupported(f"{self.op.where()}: operand {slot} holds {len(ids)} values, expected one")
        return ids[0]

    def inp(self, slot):
        """The ONNX name of operand `slot` (a parameter becomes an initializer when first read)."""
        return self.name_of(self.vid(slot))

    def inps(self, slot):
        return [self.name_of(v) for v in self.op.operands[slot]]

    def name_of(self, vid):
        if vid not in self.names:
            if vid in self.parameters:
                name, array = self.parameters[vid]
                self.initializers[name] = numpy_helper.from_array(array, name)
                self.names[vid] = name
            elif vid in self.constants:
                self.names[vid] = self.const(self.constants[vid], "const")
            else:
                raise Unsupported(f"{self.op.where() if self.op else 'the program'}: value %{vid} is "
                                  "read before any operation wrote it")
        return self.names[vid]

    def array(self, slot):
        """Operand `slot` as a NumPy array when it is known at export time (a weight or a full()),
        else None."""
        vid = self.vid(slot)
        if vid in self.parameters:
            return self.parameters[vid][1]
        return self.constants.get(vid)

    def shape(self, slot):
        return list(self.values[self.vid(slot)][1])

    def dtype(self, slot):
        return self.values[self.vid(slot)][0]

    def rank(self, slot):
        return len(self.shape(slot))

    def out_shape(self, k=0):
        return list(self.op.results[k][2])

    def out_dtype(self, k=0):
        return self.op.results[k][1]

    def out(self, k=0):
        """The ONNX name for result k (a fetched value keeps its fetch name)."""
        vid = self.op.results[k][0]
        if vid not in self.names:
            self.names[vid] = self.fresh(self.op.name)
        return self.names[vid]

    def alias(self, k, name):
        """Result k is the ONNX value `name` itself (no node), unless it must be named otherwise."""
        vid = self.op.results[k][0]
        if vid in self.names:  # a fetched value: its own name
            self.node("Identity", [name], [self.names[vid]])
        else:
            self.names[vid] = name

    def set_constant(self, k, array):
        """Result k is a constant known now: an initializer, written when something reads it."""
        vid = self.op.results[k][0]
        self.constants[vid] = array
        if vid in self.names:  # a fetched value
            self.node("Identity", [self.const(array, "const")], [self.names[vid]])

    def used(self, k):
        """Whether result k is read by the exported graph."""
        return self.op.results[k][0] in self.live

    def training_form(self, what):
        """Notes a training-only computation that the export replaces by its inference form."""
        self.training.append(f"{what} ({self.op.where()})")

    def attr(self, key, default=None):
        return self.op.attrs.get(key, default)

    # ---- building ------------------------------------------------------------------------------
    def require(self, version, why):
        if self.opset < version:
            raise NeedsOpset(version, self.op, why)

    def node(self, op_type, inputs, outputs=1, **attrs):
        """Adds a node; outputs is a list of names or a count of fresh ones. Returns the output
        names (one name when there is one output)."""
        if isinstance(outputs, int):
            outputs = [self.fresh(op_type.lower()) for _ in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs),
                                           name=self.fresh(f"{self.op.name}/{op_type}" if self.op else op_type),
                                           **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def const(self, value, hint="c", dtype=None):
        """A constant (initializer) holding value (NumPy array or Python scalar/list)."""
        array = np.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        self.initializers[name] = numpy_helper.from_array(array, name)
        return name

    def ints(self, values, hint="axes"):
        return self.const(np.asarray(values, dtype=np.int64), hint)

    def scalar(self, value, dtype, hint="c"):
        """A 0-D constant of an oar dtype."""
        return self.const(np.asarray(value, dtype=NUMPY[dtype]), hint)

    # ---- forms that differ between opsets ------------------------------------------------------
    def unsqueeze(self, x, axes, out=1):
        if self.opset >= 13:
            return self.node("Unsqueeze", [x, self.ints(axes)], out)
        return self.node("Unsqueeze", [x], out, axes=list(axes))

    def squeeze(self, x, axes, out=1):
        if self.opset >= 13:
            return self.node("Squeeze", [x, self.ints(axes)], out)
        return self.node("Squeeze", [x], out, axes=list(axes))

    def reduce(self, op_type, x, axes, keepdims, out=1):
        """ReduceMean/Sum/Max/Min/... over axes (None: all); the axes became an input in opset 13
        for ReduceSum and in opset 18 for the others."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.node(op_type, [x], out, keepdims=keep)
        if self.opset >= (13 if op_type == "ReduceSum" else 18):
            return self.node(op_type, [x, self.ints(axes)], out, keepdims=keep)
        return self.node(op_type, [x], out, axes=list(axes), keepdims=keep)

    def split(self, x, sizes, axis, outs):
        if self.opset >= 13:
            return self.node("Split", [x, self.ints(sizes, "split")], outs, axis=axis)
        return self.node("Split", [x], outs, axis=axis, split=list(sizes))

    def slice_(self, x, starts, ends, axes, steps=None, out=1):
        if steps is not None and any(s != 1 for s in steps):
            self.require(10, "a strided slice")
        if self.opset >= 10:
            ins = [x, self.ints(starts, "starts"), self.ints(ends, "ends"), self.ints(axes, "axes")]
            if steps is not None:
                ins.append(self.ints(steps, "steps"))
            return self.node("Slice", ins, out)
        return self.node("Slice", [x], out, starts=list(starts), ends=list(ends), axes=list(axes))

    def clip(self, x, lo, hi, dtype, out=1):
        if self.opset >= 11:
            ins = [x, "" if lo is None else self.scalar(lo, dtype, "min"),
                   "" if hi is None else self.scalar(hi, dtype, "max")]
            while ins[-1] == "":
                ins.pop()
            return self.node("Clip", ins, out)
        if dtype != "float32" and dtype != "float64" and dtype != "float16":
            self.require(11, "Clip of a non-float tensor")
        return self.node("Clip", [x], out, min=None if lo is None else float(lo),
                         max=None if hi is None else float(hi))

    def transpose(self, x, perm, out=1):
        return self.node("Transpose", [x], out, perm=list(perm))

    def cast(self, x, dtype, out=1):
        return self.node("Cast", [x], out, to=onnx_dtype(dtype))
