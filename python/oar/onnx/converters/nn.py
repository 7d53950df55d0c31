"""Layers' ops: convolutions, pools, normalisations, dropout, embedding, padding and attention.

ONNX computes these channel-first; a channel-last oar op is converted between two Transposes.
The export is of inference: dropout is the identity (scaled for 'downscale_in_infer') and batch
norm reads its running statistics, whatever the layer's mode when it was traced.
"""
import math

import numpy as np

from ..graph import NUMPY, Unsupported
from .registry import converts


# ---- layout and padding -------------------------------------------------------------------------
def _channel_last(ctx, default_first):
    fmt = ctx.attr("data_format", default_first)
    return fmt != default_first and fmt.endswith("C")


def _to_first(ctx, x, rank):
    """channel-last -> channel-first"""
    return ctx.transpose(x, [0, rank - 1] + list(range(1, rank - 1)))


def _to_last_perm(rank):
    return [0] + list(range(2, rank)) + [1]


def _per_dim(v, nd):
    v = [v] if isinstance(v, int) else list(v)
    return v * nd if len(v) == 1 else v


def _pad_pairs(ctx, padding, nd, channel_last):
    """Paddle's padding forms (1, nd, 2*nd values or a pair per dim of x) -> [before, after] per
    spatial dim (as oar's shape rules read them)."""
    p = [padding] if isinstance(padding, int) else list(padding)
    if len(p) in (1, nd):
        return [v for d in range(nd) for v in (p[0 if len(p) == 1 else d],) * 2]
    if len(p) == 2 * nd:
        return p
    if len(p) == 2 * (nd + 2):
        cdim = nd + 1 if channel_last else 1
        return [v for d in range(nd + 2) if d not in (0, cdim) for v in p[2 * d:2 * d + 2]]
    raise Unsupported(f"{ctx.op.where()}: padding {padding} has no ONNX form")


def _onnx_pads(pairs):
    """[b0, e0, b1, e1, ...] -> ONNX's [b0, b1, ..., e0, e1, ...]"""
    return pairs[0::2] + pairs[1::2]


def _window_pads(ctx, nd, spatial, kernel, stride, dilation, channel_last):
    """The ONNX pads (or auto_pad) of a conv or pool op: explicit pairs, VALID, or SAME (pads for
    ceil(in / stride) outputs, the extra one after, as Paddle; dilation then counts as 1)."""
    algorithm = str(ctx.attr("padding_algorithm", "EXPLICIT")).upper()
    if algorithm == "VALID":
        return {"pads": [0] * (2 * nd)}, dilation
    if algorithm == "SAME":
        if any(s < 0 for s in spatial):
            return {"auto_pad": "SAME_UPPER"}, [1] * nd
        pairs = []
        for d in range(nd):
            out = (spatial[d] + stride[d] - 1) // stride[d]
            total = max((out - 1) * stride[d] + kernel[d] - spatial[d], 0)
            pairs += [total // 2, total - total // 2]
        return {"pads": _onnx_pads(pairs)}, [1] * nd
    return {"pads": _onnx_pads(_pad_pairs(ctx, ctx.attr("padding", 0), nd, channel_last))}, dilation


def _spatial(shape, channel_last):
    return shape[1:-1] if channel_last else shape[2:]


def _channel_first_op(ctx, build, default_first):
    """Runs build(x_channel_first) -> y_channel_first, transposing around it for channel-last ops;
    names the result."""
    rank = ctx.rank(0)
    last = _channel_last(ctx, default_first)
    x = _to_first(ctx, ctx.inp(0), rank) if last else ctx.inp(0)
    if last:
        ctx.transpose(build(x, 1), _to_last_perm(rank), [ctx.out()])
    else:
        build(x, [ctx.out()])


_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


# ---- convolution --------------------------------------------------------------------------------
@converts("conv1d", "conv2d", "conv3d")
def conv(ctx):
    nd = ctx.rank(0) - 2
    last = _channel_last(ctx, _FIRST[nd])
    kernel = ctx.shape(1)[2:]
    stride = _per_dim(ctx.attr("stride", 1), nd)
    pads, dilation = _window_pads(ctx, nd, _spatial(ctx.shape(0), last), kernel, stride,
                                  _per_dim(ctx.attr("dilation", 1), nd), last)
    ins = [ctx.inp(1)] + ([ctx.inp(2)] if ctx.has(2) else [])

    def build(x, out):
        return ctx.node("Conv", [x] + ins, out, kernel_shape=kernel, strides=stride, dilations=dilation,
                        group=int(ctx.attr("groups", 1)), **pads)
    _channel_first_op(ctx, build, _FIRST[nd])


@converts("conv1d_transpose", "conv2d_transpose", "conv3d_transpose")
def conv_transpose(ctx):
    nd = ctx.rank(0) - 2
    last = _channel_last(ctx, _FIRST[nd])
    if str(ctx.attr("padding_algorithm", "EXPLICIT")).upper() == "SAME":
        raise Unsupported(f"{ctx.op.where()}: a transposed convolution with padding 'SAME' has no "
                          "ONNX conversion here; give explicit padding")
    kernel = ctx.shape(1)[2:]
    stride = _per_dim(ctx.attr("stride", 1), nd)
    dilation = _per_dim(ctx.attr("dilation", 1), nd)
    pairs = [0] * (2 * nd) if str(ctx.attr("padding_algorithm")).upper() == "VALID" else \
        _pad_pairs(ctx, ctx.attr("padding", 0), nd, last)
    out_pad = _per_dim(ctx.attr("output_padding", 0) or 0, nd)
    size = ctx.attr("output_size")
    if size:  # the output padding that gives output_size
        spatial_in = _spatial(ctx.shape(0), last)
        if any(s < 0 for s in spatial_in):
            raise Unsupported(f"{ctx.op.where()}: output_size with a dynamic spatial input size")
        size = _per_dim(size, nd)
        out_pad = [size[d] - ((spatial_in[d] - 1) * stride[d] - pairs[2 * d] - pairs[2 * d + 1]
                              + dilation[d] * (kernel[d] - 1) + 1) for d in range(nd)]
    ins = [ctx.inp(1)] + ([ctx.inp(2)] if ctx.has(2) else [])

    def build(x, out):
        return ctx.node("ConvTranspose", [x] + ins, out, kernel_shape=kernel, strides=stride,
                        dilations=dilation, group=int(ctx.attr("groups", 1)), pads=_onnx_pads(pairs),
                        output_padding=out_pad if any(out_pad) else None)
    _channel_first_op(ctx, build, _FIRST[nd])


# ---- pools --------------------------------------------------------------------------------------
def _only_first_result(ctx):
    for k in range(1, len(ctx.op.results)):
        if ctx.used(k):
            raise Unsupported(f"{ctx.op.where()}: its result {k} (indices or statistics) is read; only "
                              "the first result has an ONNX conversion")


@converts("max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_index",
          "max_pool2d_with_index", "max_pool3d_with_index", "avg_pool1d", "avg_pool2d", "avg_pool3d")
def pool(ctx):
    _only_first_result(ctx)
    nd = ctx.rank(0) - 2
    last = _channel_last(ctx, _FIRST[nd])
    kernel = _per_dim(ctx.attr("kernel_size"), nd)
    stride = ctx.attr("stride")
    stride = kernel if stride is None or len(stride) == 0 else _per_dim(stride, nd)
    pads, _ = _window_pads(ctx, nd, _spatial(ctx.shape(0), last), kernel, stride, [1] * nd, last)
    attrs = dict(kernel_shape=kernel, strides=stride, **pads)
    if ctx.attr("ceil_mode"):
        ctx.require(10, "ceil_mode of a pool")
        attrs["ceil_mode"] = 1
    if ctx.op.name.startswith("avg"):
        if ctx.attr("divisor_override") is not None:
            raise Unsupported(f"{ctx.op.where()}: divisor_override has no ONNX AveragePool form")
        op_type = "AveragePool"
        attrs["count_include_pad"] = 0 if ctx.attr("exclusive", True) else 1
    else:
        op_type = "MaxPool"
    _channel_first_op(ctx, lambda x, out: ctx.node(op_type, [x], out, **attrs), _FIRST[nd])


def _adaptive_windows(size, out):
    """Paddle's adaptive windows along one dim: [floor(i * size / out), ceil((i + 1) * size / out))."""
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_general(ctx, x, in_sp, out_sp, is_avg, out):
    """An adaptive pool of static sizes, one spatial dim at a time (a window is a product of
    per-dim ranges): a MatMul with an averaging matrix for avg, Slices + ReduceMax for max."""
    rank = len(in_sp) + 2
    dims = [d for d in range(len(in_sp)) if in_sp[d] != out_sp[d]]
    for n, d in enumerate(dims):
        axis = d + 2
        target = out if n == len(dims) - 1 else 1
        windows = _adaptive_windows(in_sp[d], out_sp[d])
        if not is_avg:
            parts = [ctx.reduce("ReduceMax", ctx.slice_(x, [b], [e], [axis]), [axis], True) for b, e in windows]
            x = ctx.node("Concat", parts, target, axis=axis)
            continue
        m = np.zeros((out_sp[d], in_sp[d]), dtype=NUMPY[ctx.dtype(0)])
        for i, (b, e) in enumerate(windows):
            m[i, b:e] = 1.0 / (e - b)
        if axis == rank - 1:
            x = ctx.node("MatMul", [x, ctx.const(m.T.copy(), "pool_matrix")], target)
        elif axis == rank - 2:
            x = ctx.node("MatMul", [ctx.const(m, "pool_matrix"), x], target)
        else:  # move the dim last and back
            perm = [a for a in range(rank) if a != axis] + [axis]
            y = ctx.node("MatMul", [ctx.transpose(x, perm), ctx.const(m.T.copy(), "pool_matrix")])
            x = ctx.transpose(y, list(np.argsort(perm)), target)
    return x if dims else ctx.node("Identity", [x], out)


@converts("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
          "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d")
def adaptive_pool(ctx):
    """A global pool for an output of 1s, a plain pool when every input size is a multiple of its
    output size (the windows then tile the input), else per-dim windows (_adaptive_general)."""
    _only_first_result(ctx)
    nd = ctx.rank(0) - 2
    last = _channel_last(ctx, _FIRST[nd])
    is_avg = "avg" in ctx.op.name
    out_sp, in_sp = _spatial(ctx.out_shape(), last), _spatial(ctx.shape(0), last)
    if all(o == 1 for o in out_sp):
        op_type = "GlobalAveragePool" if is_avg else "GlobalMaxPool"
        build = lambda x, out: ctx.node(op_type, [x], out)  # noqa: E731
    elif any(i < 0 for i in in_sp):
        raise Unsupported(f"{ctx.op.where()}: an adaptive pool to {out_sp} of a dynamic spatial size "
                          f"{in_sp} has no ONNX form")
    elif all(i % o == 0 for i, o in zip(in_sp, out_sp)):
        k = [i // o for i, o in zip(in_sp, out_sp)]
        op_type = "AveragePool" if is_avg else "MaxPool"
        build = lambda x, out: ctx.node(op_type, [x], out, kernel_shape=k, strides=k)  # noqa: E731
    else:
        build = lambda x, out: _adaptive_general(ctx, x, in_sp, out_sp, is_avg, out)  # noqa: E731
    _channel_first_op(ctx, build, _FIRST[nd])


# ---- normalisation ------------------------------------------------------------------------------
def _param_or(ctx, slot, value, size, dtype):
    """Operand slot, or a constant vector of `value` when the optional operand is absent."""
    if ctx.has(slot):
        return ctx.inp(slot)
    return ctx.const(np.full(size, value, dtype=NUMPY[dtype]), "ones" if value == 1 else "zeros")


@converts("batch_norm_base")
def batch_norm(ctx):
    _only_first_result(ctx)
    if ctx.attr("use_batch_stats"):
        ctx.training_form("batch norm with batch statistics")
    rank, axis = ctx.rank(0), ctx.attr("channel_axis", 1) % ctx.rank(0)
    c, dtype = ctx.shape(1)[0], ctx.dtype(0)
    ins = [_param_or(ctx, 3, 1.0, c, dtype), _param_or(ctx, 4, 0.0, c, dtype), ctx.inp(1), ctx.inp(2)]
    eps = float(ctx.attr("epsilon"))
    if axis == 1 or rank < 2:
        ctx.node("BatchNormalization", [ctx.inp(0)] + ins, [ctx.out()], epsilon=eps)
        return
    perm = [0, axis] + [d for d in range(1, rank) if d != axis]
    y = ctx.node("BatchNormalization", [ctx.transpose(ctx.inp(0), perm)] + ins, 1, epsilon=eps)
    ctx.transpose(y, list(np.argsort(perm)), [ctx.out()])


def _normalize(ctx, x, axes, eps, dtype):
    """(x - mean) / sqrt(var + eps) over axes, var the biased one (ReduceMean-based)."""
    d = ctx.node("Sub", [x, ctx.reduce("ReduceMean", x, axes, True)])
    var = ctx.reduce("ReduceMean", ctx.node("Mul", [d, d]), axes, True)
    std = ctx.node("Sqrt", [ctx.node("Add", [var, ctx.scalar(eps, dtype)])])
    return ctx.node("Div", [d, std])


@converts("layer_norm")
def layer_norm(ctx):
    x, dtype, rank = ctx.inp(0), ctx.dtype(0), ctx.rank(0)
    shape = list(ctx.attr("normalized_shape"))
    k, eps = len(shape), float(ctx.attr("epsilon"))
    if ctx.opset >= 17:
        scale = _param_or(ctx, 1, 1.0, shape, dtype)
        ins = [x, scale] + ([ctx.inp(2)] if ctx.has(2) else [])
        ctx.node("LayerNormalization", ins, [ctx.out()], axis=-k, epsilon=eps)
        return
    y = _normalize(ctx, x, list(range(rank - k, rank)), eps, dtype)
    if ctx.has(1):
        y = ctx.node("Mul", [y, ctx.inp(1)])
    if ctx.has(2):
        y = ctx.node("Add", [y, ctx.inp(2)])
    ctx.alias(0, y)


def _channel_vector(ctx, slot, rank):
    """A per-channel parameter [C] shaped [C, 1, ...] to broadcast over a channel-first tensor."""
    return ctx.node("Reshape", [ctx.inp(slot), ctx.ints([-1] + [1] * (rank - 2), "shape")])


@converts("group_norm")
def group_norm(ctx):
    rank, dtype = ctx.rank(0), ctx.dtype(0)
    groups, eps = int(ctx.attr("num_groups")), float(ctx.attr("epsilon"))

    def build(x, out):
        g = ctx.node("Reshape", [x, ctx.ints([0, groups, -1], "shape")])
        y = ctx.node("Reshape", [_normalize(ctx, g, [2], eps, dtype), ctx.node("Shape", [x])])
        if ctx.has(1):
            y = ctx.node("Mul", [y, _channel_vector(ctx, 1, rank)])
        if ctx.has(2):
            y = ctx.node("Add", [y, _channel_vector(ctx, 2, rank)])
        return ctx.node("Identity", [y], out)
    _channel_first_op(ctx, build, _FIRST.get(rank - 2, "NCHW"))


@converts("instance_norm")
def instance_norm(ctx):
    rank, dtype = ctx.rank(0), ctx.dtype(0)
    c = ctx.shape(0)[-1 if _channel_last(ctx, _FIRST[rank - 2]) else 1]
    scale, bias = _param_or(ctx, 3, 1.0, c, dtype), _param_or(ctx, 4, 0.0, c, dtype)
    eps = float(ctx.attr("eps"))
    if ctx.attr("use_input_stats", True):
        build = lambda x, out: ctx.node("InstanceNormalization", [x, scale, bias], out, epsilon=eps)  # noqa: E731
    else:
        build = lambda x, out: ctx.node("BatchNormalization", [x, scale, bias, ctx.inp(1), ctx.inp(2)],  # noqa: E731
                                        out, epsilon=eps)
    _channel_first_op(ctx, build, _FIRST[rank - 2])


# ---- dropout, embedding, padding ----------------------------------------------------------------
@converts("dropout")
def dropout(ctx):
    if ctx.attr("training"):
        ctx.training_form("dropout")
    if ctx.attr("mode") == "downscale_in_infer":
        ctx.node("Mul", [ctx.inp(0), ctx.scalar(1.0 - float(ctx.attr("p")), ctx.dtype(0))], [ctx.out()])
    else:
        ctx.alias(0, ctx.inp(0))


@converts("embedding", "embedding_base")
def embedding(ctx):
    ctx.node("Gather", [ctx.inp(1), ctx.inp(0)], [ctx.out()], axis=0)


@converts("pad_nd")
def pad_nd(ctx):
    mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}.get(ctx.attr("mode"))
    if mode is None:
        raise Unsupported(f"{ctx.op.where()}: pad mode '{ctx.attr('mode')}' has no ONNX Pad form")
    pads = _onnx_pads(list(ctx.attr("pads")))
    if any(p < 0 for p in pads):
        raise Unsupported(f"{ctx.op.where()}: negative pads")
    value = float(ctx.attr("value", 0.0))
    if ctx.opset >= 11:
        ins = [ctx.inp(0), ctx.ints(pads, "pads")]
        if mode == "constant" and value != 0.0:
            ins.append(ctx.scalar(value, ctx.dtype(0), "value"))
        ctx.node("Pad", ins, [ctx.out()], mode=mode)
    else:
        ctx.node("Pad", [ctx.inp(0)], [ctx.out()], mode=mode, pads=pads, value=value)


# ---- attention ----------------------------------------------------------------------------------
@converts("scaled_dot_product_attention")
def attention(ctx):
    """softmax(q k^T * scale + mask) v on [B, S, H, D] tensors, as MatMuls and a Softmax."""
    if ctx.attr("training") and ctx.attr("dropout_p"):
        ctx.training_form("attention dropout")
    q_shape, k_shape = ctx.shape(0), ctx.shape(1)
    if q_shape[2] != k_shape[2] or q_shape[2] < 0:
        raise Unsupported(f"{ctx.op.where()}: grouped heads (query heads {q_shape[2]}, key heads "
                          f"{k_shape[2]}) have no ONNX conversion here")
    dtype = ctx.dtype(0)
    scale = ctx.attr("scale")
    scale = 1.0 / math.sqrt(q_shape[3]) if scale is None else float(scale)
    q = ctx.transpose(ctx.inp(0), [0, 2, 1, 3])
    kt = ctx.transpose(ctx.inp(1), [0, 2, 3, 1])
    v = ctx.transpose(ctx.inp(2), [0, 2, 1, 3])
    scores = ctx.node("Mul", [ctx.node("MatMul", [q, kt]), ctx.scalar(scale, dtype)])
    if ctx.has(3):
        if ctx.dtype(3) == "bool":
            scores = ctx.node("Where", [ctx.inp(3), scores, ctx.scalar(-np.inf, dtype)])
        else:
            scores = ctx.node("Add", [scores, ctx.inp(3)])
    if ctx.attr("is_causal"):
        sq, sk = q_shape[1], k_shape[1]
        if sq < 0 or sk < 0:
            raise Unsupported(f"{ctx.op.where()}: a causal mask needs static sequence lengths")
        mask = np.where(np.tril(np.ones((sq, sk), dtype=bool)), 0.0, -np.inf).astype(NUMPY[dtype])
        scores = ctx.node("Add", [scores, ctx.const(mask, "causal_mask")])
    probs = ctx.node("Softmax", [scores], 1, axis=-1)  # the last axis: the same in every opset
    ctx.transpose(ctx.node("MatMul", [probs, v]), [0, 2, 1, 3], [ctx.out()])
