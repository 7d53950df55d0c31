"""Shape ops (reshape, squeeze, transpose, slices, splits, joins, expand, tile), gathers and the
creation ops. A creation op whose value is known at export time (full, arange, eye, or full_like
of a static shape) becomes a constant, written as an initializer only if something reads it; a
dynamic full_like becomes ConstantOfShape(Shape(x)).
"""
import numpy as np
from onnx import helper

from ..graph import NUMPY, Unsupported, onnx_dtype
from .registry import converts


def _norm(axis, rank):
    return axis + rank if axis < 0 else axis


def _shape_input(ctx, shape, hint="shape"):
    return ctx.ints(shape, hint)


@converts("reshape", "reshape_exact")
def reshape(ctx):
    # Paddle's 0 (copy the input's dim) and -1 (inferred) mean the same in ONNX's Reshape.
    ctx.node("Reshape", [ctx.inp(0), _shape_input(ctx, list(ctx.attr("shape")))], [ctx.out()])


@converts("flatten")
def flatten(ctx):
    src = ctx.shape(0)
    rank = len(src)
    if rank == 0:
        ctx.node("Reshape", [ctx.inp(0), _shape_input(ctx, [1])], [ctx.out()])
        return
    start, stop = _norm(ctx.attr("start_axis"), rank), _norm(ctx.attr("stop_axis"), rank)
    if rank > 1 and start == 1 and stop == rank - 1:  # ONNX Flatten: [d0, d1 * ... * dn]
        ctx.node("Flatten", [ctx.inp(0)], [ctx.out()], axis=1)
        return
    merged = src[start:stop + 1]
    # a dim before start keeps its place: 0 copies it; the merged one and those after it need
    # their sizes, with one -1 at most
    target = [0 if d < 0 else d for d in src[:start]]
    target.append(-1 if any(d < 0 for d in merged) else int(np.prod(merged)))
    target += [-1 if d < 0 else d for d in src[stop + 1:]]
    if target.count(-1) <= 1:
        ctx.node("Reshape", [ctx.inp(0), _shape_input(ctx, target)], [ctx.out()])
        return
    dims = ctx.node("Shape", [ctx.inp(0)])  # several dynamic dims: the target from x's shape
    parts = [ctx.slice_(dims, [0], [start], [0])] if start else []
    parts.append(ctx.ints([-1], "shape"))
    if stop + 1 < rank:
        parts.append(ctx.slice_(dims, [stop + 1], [rank], [0]))
    ctx.node("Reshape", [ctx.inp(0), ctx.node("Concat", parts, 1, axis=0)], [ctx.out()])


@converts("squeeze")
def squeeze(ctx):
    src, dst = ctx.shape(0), ctx.out_shape()
    axes = ctx.attr("axis") or list(range(len(src)))
    axes = sorted({_norm(a, len(src)) for a in ([axes] if isinstance(axes, int) else axes)})
    ones = [a for a in axes if src[a] == 1]
    if len(src) - len(ones) != len(dst):  # dynamic dims squeezed too (the program knew them)
        ones = [a for a in axes if src[a] in (1, -1)]
    if len(src) - len(ones) != len(dst):
        raise Unsupported(f"{ctx.op.where()}: cannot tell which dims of {src} become {dst}")
    if not ones:
        ctx.alias(0, ctx.inp(0))
    else:
        ctx.squeeze(ctx.inp(0), ones, [ctx.out()])


def unsqueeze_axes(rank, axes):
    """The output positions of the dims Paddle's unsqueeze inserts (each axis counts in the tensor
    made so far; a negative one from its end)."""
    dims = ["x"] * rank
    for a in ([axes] if isinstance(axes, int) else axes):
        a = a + len(dims) + 1 if a < 0 else a
        dims.insert(a, "new")
    return [i for i, d in enumerate(dims) if d == "new"]


@converts("unsqueeze")
def unsqueeze(ctx):
    ctx.unsqueeze(ctx.inp(0), unsqueeze_axes(ctx.rank(0), ctx.attr("axis")), [ctx.out()])


@converts("transpose")
def transpose(ctx):
    ctx.transpose(ctx.inp(0), [_norm(p, ctx.rank(0)) for p in ctx.attr("perm")], [ctx.out()])


@converts("t")
def t(ctx):
    if ctx.rank(0) < 2:
        ctx.alias(0, ctx.inp(0))
    else:
        ctx.transpose(ctx.inp(0), [1, 0], [ctx.out()])


@converts("expand", "broadcast_to")
def expand(ctx):
    ctx.require(8, "Expand")
    # -1 keeps x's dim: a 1 in Expand's shape broadcasts to it.
    shape = [1 if d == -1 else d for d in ctx.attr("shape")]
    ctx.node("Expand", [ctx.inp(0), _shape_input(ctx, shape)], [ctx.out()])


@converts("expand_as")
def expand_as(ctx):
    ctx.require(8, "Expand")
    ctx.node("Expand", [ctx.inp(0), ctx.node("Shape", [ctx.inp(1)])], [ctx.out()])


@converts("tile")
def tile(ctx):
    reps, rank = list(ctx.attr("repeat_times")), ctx.rank(0)
    x = ctx.inp(0)
    if len(reps) > rank:
        x = ctx.unsqueeze(x, list(range(len(reps) - rank)))
    reps = [1] * (rank - len(reps)) + reps
    ctx.node("Tile", [x, _shape_input(ctx, reps, "repeats")], [ctx.out()])


@converts("slice")
def slice_(ctx):
    ctx.slice_(ctx.inp(0), ctx.attr("starts"), ctx.attr("ends"),
               [_norm(a, ctx.rank(0)) for a in ctx.attr("axes")], out=[ctx.out()])


@converts("strided_slice")
def strided_slice(ctx):
    ctx.slice_(ctx.inp(0), ctx.attr("starts"), ctx.attr("ends"),
               [_norm(a, ctx.rank(0)) for a in ctx.attr("axes")], ctx.attr("strides"), [ctx.out()])


@converts("flip")
def flip(ctx):
    ctx.require(10, "a reversed Slice")
    axes = ctx.attr("axis")
    axes = [_norm(a, ctx.rank(0)) for a in ([axes] if isinstance(axes, int) else axes)]
    n = len(axes)
    ctx.slice_(ctx.inp(0), [-1] * n, [-(2 ** 63)] * n, axes, [-1] * n, [ctx.out()])


def _split_sizes(ctx, axis):
    sizes = [r[2][axis] for r in ctx.op.results]
    if any(s < 0 for s in sizes):
        raise Unsupported(f"{ctx.op.where()}: a split along a dynamic dim")
    return sizes


@converts("split", "split_with_sizes", "chunk")
def split(ctx):
    axis = _norm(ctx.attr("axis", 0), ctx.rank(0))
    outs = [ctx.out(k) for k in range(len(ctx.op.results))]
    ctx.split(ctx.inp(0), _split_sizes(ctx, axis), axis, outs)


@converts("unbind")
def unbind(ctx):
    axis = _norm(ctx.attr("axis", 0), ctx.rank(0))
    parts = ctx.split(ctx.inp(0), [1] * len(ctx.op.results), axis, len(ctx.op.results))
    parts = [parts] if isinstance(parts, str) else parts
    for k, p in enumerate(parts):
        ctx.squeeze(p, [axis], [ctx.out(k)])


@converts("concat")
def concat(ctx):
    ctx.node("Concat", ctx.inps(0), [ctx.out()], axis=_norm(ctx.attr("axis"), len(ctx.out_shape())))


@converts("stack")
def stack(ctx):
    rank = len(ctx.out_shape())
    axis = _norm(ctx.attr("axis", 0), rank)
    parts = [ctx.unsqueeze(x, [axis]) for x in ctx.inps(0)]
    ctx.node("Concat", parts, [ctx.out()], axis=axis)


@converts("tril", "triu")
def trilu(ctx):
    ctx.require(14, "Trilu")
    ctx.node("Trilu", [ctx.inp(0), ctx.ints(int(ctx.attr("diagonal", 0)), "k")], [ctx.out()],
             upper=int(ctx.op.name == "triu"))


@converts("shape_tensor")
def shape_tensor(ctx):
    ctx.node("Shape", [ctx.inp(0)], [ctx.out()])


@converts("numel_tensor")
def numel_tensor(ctx):
    ctx.node("Size", [ctx.inp(0)], [ctx.out()])


# ---- gathers ------------------------------------------------------------------------------------
@converts("gather", "index_select")
def gather(ctx):
    ctx.node("Gather", [ctx.inp(0), ctx.inp(1)], [ctx.out()], axis=_norm(ctx.attr("axis", 0), ctx.rank(0)))


@converts("masked_fill")
def masked_fill(ctx):
    ctx.node("Where", [ctx.inp(1), ctx.scalar(ctx.attr("value"), ctx.dtype(0)), ctx.inp(0)], [ctx.out()])


# ---- creation -----------------------------------------------------------------------------------
def _constant(ctx, array):
    """Result 0 is `array`, written where something reads it."""
    ctx.set_constant(0, np.asarray(array, dtype=NUMPY[ctx.out_dtype()]).reshape(ctx.out_shape()))


@converts("full", "zeros", "ones", "empty")
def full(ctx):
    value = {"zeros": 0, "ones": 1, "empty": 0}.get(ctx.op.name, ctx.attr("fill_value"))
    _constant(ctx, np.full(ctx.out_shape(), value))


@converts("arange")
def arange(ctx):
    _constant(ctx, np.arange(ctx.attr("start"), ctx.attr("end"), ctx.attr("step")))


@converts("linspace")
def linspace(ctx):
    _constant(ctx, np.linspace(ctx.attr("start"), ctx.attr("stop"), int(ctx.attr("num"))))


@converts("eye")
def eye(ctx):
    rows, cols = ctx.out_shape()
    _constant(ctx, np.eye(rows, cols))


@converts("full_like", "zeros_like", "ones_like", "empty_like")
def full_like(ctx):
    value = {"zeros_like": 0, "ones_like": 1, "empty_like": 0}.get(ctx.op.name, ctx.attr("fill_value"))
    shape, dtype = ctx.out_shape(), ctx.out_dtype()
    if all(d >= 0 for d in shape):
        _constant(ctx, np.full(shape, value))
        return
    ctx.require(9, "ConstantOfShape")
    fill = helper.make_tensor("value", onnx_dtype(dtype), [1], [np.asarray(value, dtype=NUMPY[dtype]).item()])
    ctx.node("ConstantOfShape", [ctx.node("Shape", [ctx.inp(0)])], [ctx.out()], value=fill)
