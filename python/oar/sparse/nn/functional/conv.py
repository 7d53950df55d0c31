"""Sparse convolution and max pooling on COO tensors of layout NDHWC (3-D) or NHWC (2-D): the
sparse dims are (batch, *spatial), the channels are the values' dense dim.

A rulebook pairs input and output elements per kernel offset; it is built with vectorised
index ops (linear keys, sort, searchsorted), then each offset's pairs run one GEMM
(gathered inputs · that offset's weight slice) scattered into the outputs with index_add, so
the numeric work is oar's matmul and index kernels and gradients reach x's values, the weight
and the bias. Submanifold convolutions output exactly the input's positions; ordinary ones
every position some input reaches. Output elements are in sorted (coalesced) order."""
import itertools

from ..._lazy import oar

from ..._tensor import SparseCooTensor, coalesce, linear_key, unravel

__all__ = ["conv2d", "conv3d", "subm_conv2d", "subm_conv3d", "subm_conv2d_igemm", "subm_conv3d_igemm",
           "max_pool3d"]


def _tuple(op, name, v, nd):
    if isinstance(v, int):
        return [v] * nd
    v = [int(a) for a in v]
    if len(v) != nd:
        raise ValueError(f"sparse.{op}: {name} must be an int or {nd} ints, got {v}")
    return v


def _padding(op, padding, nd, kernel, dilation):
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return [0] * nd
        if mode == "SAME":
            return [d * (k - 1) // 2 for k, d in zip(kernel, dilation)]
        raise ValueError(f"sparse.{op}: padding must be 'SAME', 'VALID', an int or {nd} ints, got '{padding}'")
    if isinstance(padding, int):
        return [padding] * nd
    padding = list(padding)
    if len(padding) == 2 * nd and all(isinstance(p, int) for p in padding):
        if any(padding[2 * i] != padding[2 * i + 1] for i in range(nd)):
            raise NotImplementedError(f"sparse.{op}: asymmetric padding {padding} is not supported")
        return padding[::2]
    return _tuple(op, "padding", padding, nd)


def _check_input(op, x, nd):
    if not isinstance(x, SparseCooTensor):
        raise TypeError(f"sparse.{op}: x must be a sparse COO tensor, got {type(x).__name__}")
    if x.ndim != nd + 2 or x.sparse_dim() != nd + 1:
        raise ValueError(f"sparse.{op}: x must be a {nd + 2}-D COO tensor [N, {'D, ' if nd == 3 else ''}H, W, C] "
                         f"with sparse_dim {nd + 1}, got shape {x.shape} with sparse_dim {x.sparse_dim()}")


def rulebook(x, kernel, stride, padding, dilation, subm):
    """(out_indices, out_spatial, [(in_idx, out_idx) per kernel offset]) for x (coalesced COO)."""
    nd = len(kernel)
    spatial = x.shape[1:nd + 1]
    idx = x.indices().astype("int64")
    batch, coords = idx[0], idx[1:]
    nnz = x.nnz()
    offsets = list(itertools.product(*[range(k) for k in kernel]))
    if subm:
        out_spatial = list(spatial)
        dims = [x.shape[0]] + out_spatial
        keys = linear_key(idx, dims)  # sorted: x is coalesced
        positions = oar.arange(nnz, dtype="int64")
        pairs = []
        for off in offsets:
            cand = [coords[d] - padding[d] + off[d] * dilation[d] for d in range(nd)]
            valid = oar.ones([nnz], "bool")
            for d in range(nd):
                valid = valid & (cand[d] >= 0) & (cand[d] < spatial[d])
            key = linear_key(oar.stack([batch] + [c.clip(0, spatial[d] - 1) for d, c in enumerate(cand)]), dims)
            pos = oar.searchsorted(keys, key).clip(0, max(nnz - 1, 0))
            found = valid & (oar.gather(keys, pos) == key)
            where = oar.nonzero(found).reshape([-1])
            pairs.append((oar.gather(pos, where), oar.gather(positions, where)))
        return idx, out_spatial, pairs
    out_spatial = [(spatial[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
                   for d in range(nd)]
    if any(s <= 0 for s in out_spatial):
        raise ValueError(f"sparse convolution: the output size {out_spatial} is not positive (input {spatial}, "
                         f"kernel {kernel}, stride {stride}, padding {padding}, dilation {dilation})")
    dims = [x.shape[0]] + out_spatial
    per_offset, all_keys = [], []
    for off in offsets:
        num = [coords[d] + padding[d] - off[d] * dilation[d] for d in range(nd)]
        valid = oar.ones([nnz], "bool")
        for d in range(nd):
            valid = valid & (num[d] >= 0) & (num[d] % stride[d] == 0) & (num[d] // stride[d] < out_spatial[d])
        where = oar.nonzero(valid).reshape([-1])
        out = [oar.gather(num[d], where) // stride[d] for d in range(nd)]
        key = linear_key(oar.stack([oar.gather(batch, where)] + out), dims) if int(where.shape[0]) else \
            oar.zeros([0], "int64")
        per_offset.append(where)
        all_keys.append(key)
    keys = oar.concat(all_keys)
    if int(keys.shape[0]) == 0:
        return oar.zeros([nd + 1, 0], "int64"), out_spatial, [(w, w) for w in per_offset]
    uniq, inverse = oar.unique(keys, return_inverse=True)
    pairs, start = [], 0
    for where in per_offset:
        n = int(where.shape[0])
        pairs.append((where, inverse[start:start + n]))
        start += n
    return unravel(uniq, dims), out_spatial, pairs


def _conv(op, x, weight, bias, stride, padding, dilation, groups, data_format, subm, nd):
    _check_input(op, x, nd)
    layout = "NDHWC" if nd == 3 else "NHWC"
    if data_format != layout:
        raise ValueError(f"sparse.{op}: data_format must be '{layout}', got '{data_format}'")
    if groups != 1:
        raise ValueError(f"sparse.{op}: only groups=1 is supported (as in Paddle), got {groups}")
    if not isinstance(weight, oar.Tensor) or weight.ndim != nd + 2:
        raise ValueError(f"sparse.{op}: weight must be a {nd + 2}-D tensor [{'kD, ' if nd == 3 else ''}kH, kW, "
                         f"C_in, C_out], got {list(weight.shape) if isinstance(weight, oar.Tensor) else weight}")
    kernel = list(weight.shape[:nd])
    c_in, c_out = int(weight.shape[nd]), int(weight.shape[nd + 1])
    if x.shape[-1] != c_in:
        raise ValueError(f"sparse.{op}: x has {x.shape[-1]} channels but weight expects {c_in}")
    if weight.dtype != x.dtype:
        raise TypeError(f"sparse.{op}: weight must have x's dtype {x.dtype.name}, got {weight.dtype.name}")
    stride = _tuple(op, "stride", stride, nd)
    dilation = _tuple(op, "dilation", dilation, nd)
    padding = _padding(op, padding, nd, kernel, dilation)
    x = coalesce(x)
    out_idx, out_spatial, pairs = rulebook(x, kernel, stride, padding, dilation, subm)
    n_out = int(out_idx.shape[1])
    w = weight.reshape([-1, c_in, c_out])
    out = oar.zeros([n_out, c_out], x.dtype)
    values = x.values()
    for k, (src, dst) in enumerate(pairs):
        if int(src.shape[0]) == 0:
            continue
        out = oar.index_add(out, dst, 0, oar.matmul(oar.gather(values, src), w[k]))
    if bias is not None:
        out = out + bias
    return SparseCooTensor(out_idx.astype(x.indices().dtype), out, [x.shape[0]] + out_spatial + [c_out],
                           coalesced=True)


def _conv_doc(name, nd, subm):
    layout = "NDHWC" if nd == 3 else "NHWC"
    what = ("Submanifold sparse convolution: the output has exactly x's positions (stride is not used)."
            if subm else "Sparse convolution: an output position exists where some input reaches it.")
    kshape = "[kD, kH, kW, C_in, C_out]" if nd == 3 else "[kH, kW, C_in, C_out]"
    xshape = "[1, 3, 3, 3, 1]" if nd == 3 else "[1, 3, 3, 1]"
    wshape = "[3, 3, 3, 1, 2]" if nd == 3 else "[3, 3, 1, 2]"
    return f"""{what}

    Args:
        x (SparseCooTensor): [N, {'D, ' if nd == 3 else ''}H, W, C_in] ({layout}), sparse_dim {nd + 1}.
        weight (Tensor): {kshape}.
        bias (Tensor, optional): [C_out].
        stride (int|list): The stride per spatial dim.
        padding (int|list|str): Zero padding per spatial dim, or 'SAME'/'VALID'.
        dilation (int|list): The dilation per spatial dim.
        groups (int): Must be 1.
        data_format (str): '{layout}'.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor: [N, *out_spatial, C_out], coalesced.

    Examples:
        >>> import oar
        >>> x = oar.ones({xshape}).to_sparse_coo({nd + 1})
        >>> out = oar.sparse.nn.functional.{name}(x, oar.ones({wshape}), padding=1)
        >>> print(out.shape, out.nnz())
        [1, {'3, ' if nd == 3 else ''}3, 3, 2] {27 if nd == 3 else 9}
    """


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", name=None):
    return _conv("conv3d", x, weight, bias, stride, padding, dilation, groups, data_format, False, 3)


def subm_conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC", key=None,
                name=None):
    return _conv("subm_conv3d", x, weight, bias, stride, padding, dilation, groups, data_format, True, 3)


def subm_conv3d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NDHWC",
                      key=None, name=None):
    return _conv("subm_conv3d_igemm", x, weight, bias, stride, padding, dilation, groups, data_format, True, 3)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", name=None):
    return _conv("conv2d", x, weight, bias, stride, padding, dilation, groups, data_format, False, 2)


def subm_conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC", key=None,
                name=None):
    return _conv("subm_conv2d", x, weight, bias, stride, padding, dilation, groups, data_format, True, 2)


def subm_conv2d_igemm(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NHWC",
                      key=None, name=None):
    return _conv("subm_conv2d_igemm", x, weight, bias, stride, padding, dilation, groups, data_format, True, 2)


for _f, _nd, _subm in ((conv3d, 3, False), (subm_conv3d, 3, True), (subm_conv3d_igemm, 3, True),
                       (conv2d, 2, False), (subm_conv2d, 2, True), (subm_conv2d_igemm, 2, True)):
    _f.__doc__ = _conv_doc(_f.__name__, _nd, _subm)
subm_conv3d_igemm.__doc__ += "\n    The implicit-GEMM variant of Paddle's GPU build; on oar it is subm_conv3d.\n"
subm_conv2d_igemm.__doc__ += "\n    The implicit-GEMM variant of Paddle's GPU build; on oar it is subm_conv2d.\n"


def max_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, data_format="NDHWC", name=None):
    """Sparse 3-D max pooling: each output position that some input reaches takes the maximum of
    the stored inputs in its window (absent inputs do not count as 0).

    Args:
        x (SparseCooTensor): [N, D, H, W, C] (NDHWC), sparse_dim 4.
        kernel_size (int|list): The window.
        stride (int|list, optional): The stride (default: kernel_size).
        padding (int|list): Zero padding per spatial dim.
        ceil_mode (bool): Must be False.
        data_format (str): 'NDHWC'.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor: [N, *out_spatial, C], coalesced.

    Examples:
        >>> import oar
        >>> x = oar.ones([1, 2, 2, 2, 1]).to_sparse_coo(4)
        >>> print(oar.sparse.nn.functional.max_pool3d(x, 2).shape)
        [1, 1, 1, 1, 1]
    """
    _check_input("max_pool3d", x, 3)
    if data_format != "NDHWC":
        raise ValueError(f"sparse.max_pool3d: data_format must be 'NDHWC', got '{data_format}'")
    if ceil_mode:
        raise NotImplementedError("sparse.max_pool3d: ceil_mode=True is not supported (as in Paddle)")
    kernel = _tuple("max_pool3d", "kernel_size", kernel_size, 3)
    stride = kernel if stride is None else _tuple("max_pool3d", "stride", stride, 3)
    padding = _padding("max_pool3d", padding, 3, kernel, [1, 1, 1])
    x = coalesce(x)
    out_idx, out_spatial, pairs = rulebook(x, kernel, stride, padding, [1, 1, 1], False)
    n_out = int(out_idx.shape[1])
    src = oar.concat([p[0] for p in pairs])
    dst = oar.concat([p[1] for p in pairs])
    out = oar.geometric.send_u_recv(x.values(), src, dst, reduce_op="max", out_size=n_out) if n_out else \
        oar.zeros([0, x.shape[-1]], x.dtype)
    return SparseCooTensor(out_idx.astype(x.indices().dtype), out, [x.shape[0]] + out_spatial + [x.shape[-1]],
                           coalesced=True)
