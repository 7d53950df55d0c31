"""Elementwise binary ops, comparisons, scale/pow/clip/cast, reductions, matmul, linear, softmax."""
import numpy as np

from ..graph import Unsupported
from .registry import converts

# oar op -> (ONNX operator, opset): broadcasting binary ops on operands of the result's dtype.
_ARITHMETIC = {
    "add": ("Add", 7), "subtract": ("Sub", 7), "multiply": ("Mul", 7), "divide": ("Div", 7),
    "elementwise_div": ("Div", 7), "maximum": ("Max", 8), "minimum": ("Min", 8),
    "elementwise_pow": ("Pow", 7),
}
# Comparisons and logic: the operands share a dtype, the result is bool.
_COMPARE = {
    "equal": ("Equal", 11), "less_than": ("Less", 9), "greater_than": ("Greater", 9),
    "less_equal": ("LessOrEqual", 12), "greater_equal": ("GreaterOrEqual", 12),
    "logical_and": ("And", 7), "logical_or": ("Or", 7), "logical_xor": ("Xor", 7),
}


def _operands_as(ctx, dtype, slots=(0, 1)):
    """The operands, cast to dtype where an operand has another (Paddle promotes, ONNX does not)."""
    return [ctx.inp(s) if ctx.dtype(s) == dtype else ctx.cast(ctx.inp(s), dtype) for s in slots]


@converts(*_ARITHMETIC)
def arithmetic(ctx):
    op_type, version = _ARITHMETIC[ctx.op.name]
    ctx.require(version, op_type)
    dtype = ctx.out_dtype()
    if op_type == "Div" and not dtype.startswith(("float", "bfloat")):
        raise Unsupported(f"{ctx.op.where()}: integer division has no exact ONNX conversion "
                          "(ONNX Div truncates, Paddle floors)")
    ctx.node(op_type, _operands_as(ctx, dtype), [ctx.out()])


@converts(*_COMPARE, "not_equal")
def compare(ctx):
    op_type, version = _COMPARE.get(ctx.op.name, ("Equal", 11))
    if op_type == "Equal" and not ctx.dtype(0).startswith(("float", "bfloat")):
        version = 7  # Equal takes floats from opset 11
    ctx.require(version, op_type)
    ins = _operands_as(ctx, ctx.dtype(0))
    if ctx.op.name == "not_equal":
        ctx.node("Not", [ctx.node("Equal", ins)], [ctx.out()])
    else:
        ctx.node(op_type, ins, [ctx.out()])


@converts("where")
def where(ctx):
    dtype = ctx.out_dtype()
    ctx.node("Where", [ctx.inp(0)] + _operands_as(ctx, dtype, (1, 2)), [ctx.out()])


@converts("scale")
def scale(ctx):
    x, dtype = ctx.inp(0), ctx.dtype(0)
    s, b = ctx.attr("scale"), ctx.attr("bias")
    if ctx.attr("bias_after_scale"):
        y = x if s == 1 else ctx.node("Mul", [x, ctx.scalar(s, dtype)])
        y = y if b == 0 else ctx.node("Add", [y, ctx.scalar(b, dtype)])
    else:
        y = x if b == 0 else ctx.node("Add", [x, ctx.scalar(b, dtype)])
        y = y if s == 1 else ctx.node("Mul", [y, ctx.scalar(s, dtype)])
    ctx.alias(0, y)


@converts("pow")
def pow_(ctx):
    ctx.node("Pow", [ctx.inp(0), ctx.scalar(ctx.attr("y"), ctx.dtype(0))], [ctx.out()])


@converts("clip")
def clip(ctx):
    lo, hi = ctx.attr("min"), ctx.attr("max")
    lo = None if lo is None or lo <= -3.4e38 else lo
    hi = None if hi is None or hi >= 3.4e38 else hi
    ctx.clip(ctx.inp(0), lo, hi, ctx.dtype(0), [ctx.out()])


@converts("cast")
def cast(ctx):
    ctx.cast(ctx.inp(0), ctx.out_dtype(), [ctx.out()])


# ---- reductions ---------------------------------------------------------------------------------
_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "max": "ReduceMax", "min": "ReduceMin",
           "amax": "ReduceMax", "amin": "ReduceMin", "prod": "ReduceProd", "logsumexp": "ReduceLogSumExp"}


def _axes(ctx, axis):
    """Normalised reduction axes; None for all (Paddle: None or [])."""
    rank = ctx.rank(0)
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        return None
    axis = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % rank if rank else 0 for a in axis)


@converts(*_REDUCE)
def reduce(ctx):
    x = ctx.inp(0)
    if ctx.dtype(0) != ctx.out_dtype():
        x = ctx.cast(x, ctx.out_dtype())
    ctx.reduce(_REDUCE[ctx.op.name], x, _axes(ctx, ctx.attr("axis")), ctx.attr("keepdim"), [ctx.out()])


@converts("argmax", "argmin")
def argmax(ctx):
    x, axis, keep = ctx.inp(0), ctx.attr("axis"), bool(ctx.attr("keepdim"))
    op_type = "ArgMax" if ctx.op.name == "argmax" else "ArgMin"
    if axis is None:  # over the flattened tensor
        x = ctx.node("Reshape", [x, ctx.ints([-1], "shape")])
        y = ctx.node(op_type, [x], 1, axis=0, keepdims=0)
        if keep:
            y = ctx.node("Reshape", [y, ctx.ints([1] * ctx.rank(0), "shape")])
    else:
        y = ctx.node(op_type, [x], 1, axis=axis % ctx.rank(0), keepdims=int(keep))
    ctx.alias(0, y if ctx.out_dtype() == "int64" else ctx.cast(y, ctx.out_dtype()))


@converts("cumsum")
def cumsum(ctx):
    ctx.require(11, "CumSum")
    x, axis = ctx.inp(0), ctx.attr("axis")
    if axis is None:  # over the flattened tensor
        x, axis = ctx.node("Reshape", [x, ctx.ints([-1], "shape")]), 0
    if ctx.dtype(0) != ctx.out_dtype():
        x = ctx.cast(x, ctx.out_dtype())
    ctx.node("CumSum", [x, ctx.ints(axis % max(ctx.rank(0), 1))], [ctx.out()])


# ---- products -----------------------------------------------------------------------------------
def _swap_last(ctx, slot):
    """Operand slot with its last two dims swapped (a weight is swapped at export time)."""
    rank = ctx.rank(slot)
    array = ctx.array(slot)
    if array is not None and ctx.vid(slot) in ctx.parameters:
        return ctx.const(np.ascontiguousarray(np.swapaxes(array, -1, -2)), "weight_t")
    return ctx.transpose(ctx.inp(slot), list(range(rank - 2)) + [rank - 1, rank - 2])


@converts("matmul", "bmm", "mm")
def matmul(ctx):
    tx, ty = bool(ctx.attr("transpose_x", False)), bool(ctx.attr("transpose_y", False))
    x = _swap_last(ctx, 0) if tx and ctx.rank(0) >= 2 else ctx.inp(0)
    y = _swap_last(ctx, 1) if ty and ctx.rank(1) >= 2 else ctx.inp(1)
    ctx.node("MatMul", [x, y], [ctx.out()])


@converts("linear")
def linear(ctx):
    """x @ weight (+ bias), weight [in, out] as Paddle stores it."""
    x, w = ctx.inp(0), ctx.inp(1)
    bias = ctx.inp(2) if ctx.has(2) else None
    if ctx.rank(0) == 2 and ctx.rank(1) == 2:
        ctx.node("Gemm", [x, w] + ([bias] if bias else []), [ctx.out()])
    elif bias is None:
        ctx.node("MatMul", [x, w], [ctx.out()])
    else:
        ctx.node("Add", [ctx.node("MatMul", [x, w]), bias], [ctx.out()])


# ---- softmax ------------------------------------------------------------------------------------
@converts("softmax", "log_softmax")
def softmax(ctx):
    op_type = "Softmax" if ctx.op.name == "softmax" else "LogSoftmax"
    x, rank = ctx.inp(0), ctx.rank(0)
    if ctx.dtype(0) != ctx.out_dtype():
        x = ctx.cast(x, ctx.out_dtype())
    axis = ctx.attr("axis") % max(rank, 1)
    if ctx.opset >= 13 or axis == rank - 1:  # before 13 Softmax flattens to 2-D at axis
        ctx.node(op_type, [x], [ctx.out()], axis=axis if ctx.opset >= 13 else -1 if rank else 0)
        return
    perm = list(range(rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    y = ctx.node(op_type, [ctx.transpose(x, perm)], 1, axis=-1)
    ctx.transpose(y, perm, [ctx.out()])
