"""oar.compat.nn.functional (paddle.compat.nn.functional): PyTorch-style pad, softmax, linear,
scaled_dot_product_attention and unfold over oar's ops."""
from ... import _C
from ...framework import mode
from .._utils import check_out, reject_keywords

__all__ = ["pad", "softmax", "linear", "scaled_dot_product_attention", "unfold"]


def _oar():
    import oar
    return oar


def _pad_len_check(pad_len, ndim, constant):
    if pad_len > 6 or pad_len < 0:
        raise ValueError(f"Expect len(pad) <= 6 and not -1, got: {pad_len}")
    limit = 2 * ndim - (0 if constant else 2)
    if pad_len > limit:
        raise ValueError(f"len(pad) is bounded by input.ndim: expect len(pad) <= {limit}, got: {pad_len}")


@reject_keywords({"x", "name", "data_format", "pad_from_left_axis"}, "paddle.compat.nn.functional.pad",
                 "paddle.nn.functional.pad")
def pad(input, pad, mode="constant", value=0.0):
    """Pads a tensor (torch.nn.functional.pad): `pad` lists (before, after) pairs starting from the
    LAST axis, (left, right, top, bottom, front, back). Constant mode pads any axes; reflect,
    replicate and circular pad the last one to three axes of a 2-D to 5-D input.

    Args:
        input (Tensor): The input.
        pad (list|tuple|Tensor): Pad sizes, last axis first; an empty Tensor gives a copy of input.
        mode (str, optional): 'constant', 'reflect', 'replicate' or 'circular'. Default: 'constant'.
        value (float, optional): The fill of constant mode. Default: 0.0.

    Returns:
        Tensor: The padded tensor.

    Examples:
        >>> import oar
        >>> x = oar.ones([2, 3])
        >>> print(oar.compat.nn.functional.pad(x, [1, 0, 0, 2], value=5.).numpy())
        [[5. 1. 1. 1.]
         [5. 1. 1. 1.]
         [5. 5. 5. 5.]
         [5. 5. 5. 5.]]
    """
    oar = _oar()
    if mode not in ("reflect", "replicate", "constant", "circular"):
        raise AssertionError(f"mode should be one of constant, reflect, replicate, circular, but got {mode}.")
    ndim = len(input.shape)
    if isinstance(pad, _C.Tensor):
        if pad.size == 0:
            return input.clone()
        pad = [int(v) for v in pad.tolist()]
    if mode == "constant" and len(pad) != (ndim - 2) * 2:
        pad = list(pad) + [0] * (2 * ndim - len(pad))
        # PyTorch counts pairs from the last axis; oar.nn.functional.pad with 2*ndim sizes from the first.
        per_axis = []
        for axis in range(ndim):
            k = ndim - 1 - axis
            per_axis += [pad[2 * k], pad[2 * k + 1]]
        return oar.nn.functional.pad(input, per_axis, mode="constant", value=float(value))
    if not 1 <= ndim <= 5:
        raise AssertionError(f"Input tensor dimension must be in [1-5] but got {ndim}")
    constant = mode == "constant"
    if not constant and ndim < 2:
        raise ValueError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now, "
                         f"got ndim: {ndim}")
    pad = list(pad)
    _pad_len_check(len(pad), ndim, constant)
    pad += [0] * (6 - len(pad))
    lead = list(range(5 - ndim))
    x5 = input.unsqueeze(lead) if lead else input
    out = oar.nn.functional.pad(x5, pad, mode=mode, value=float(value), data_format="NCDHW")
    return out.squeeze(lead) if lead else out


@reject_keywords({"x", "axis", "name"}, "paddle.compat.nn.functional.softmax", "paddle.nn.functional.softmax",
                 doc_suffix="torch.nn.functional.softmax")
def softmax(input, dim=None, dtype=None, *args, out=None, **kwargs):
    """Softmax along dim (torch.nn.functional.softmax). Without dim, PyTorch's legacy choice: axis 0
    for 0-D, 1-D and 3-D inputs, axis 1 otherwise. With dtype, input is cast first. A third
    positional int (PyTorch's _stacklevel) is accepted and ignored.

    Args:
        input (Tensor): The input.
        dim (int, optional): The axis. Default: None.
        dtype (str|dtype, optional): Cast input to this dtype first. Default: None.
        out (Tensor, optional): Written with the result. Default: None.

    Returns:
        Tensor: The softmax.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1., 2.], [3., 4.]])
        >>> print(oar.compat.nn.functional.softmax(x, dim=0).numpy().round(4))
        [[0.1192 0.1192]
         [0.8808 0.8808]]
    """
    oar = _oar()
    extra = list(args)
    if isinstance(dtype, int) and not isinstance(dtype, bool):  # softmax(x, dim, _stacklevel[, dtype])
        dtype = extra.pop(0) if extra else None
    kwargs.pop("_stacklevel", None)
    if extra or kwargs:
        raise TypeError(f"softmax() got unexpected arguments: {extra or ''} {sorted(kwargs) or ''}")
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    x = input if dtype is None else input.astype(dtype)
    result = oar.nn.functional.softmax(x, axis=dim)
    if out is not None:
        check_out(out, False)
        oar.assign(result, out)
        return out
    return result


@reject_keywords({"x", "name"}, "paddle.compat.nn.functional.linear", "paddle.nn.functional.linear")
def linear(input, weight, bias=None):
    """input @ weight.T + bias (torch.nn.functional.linear): weight is [out_features, in_features],
    PyTorch's layout (oar.nn.functional.linear takes [in, out]).

    Args:
        input (Tensor): [*, in_features].
        weight (Tensor): [out_features, in_features].
        bias (Tensor, optional): [out_features]. Default: None.

    Returns:
        Tensor: [*, out_features].

    Examples:
        >>> import oar
        >>> y = oar.compat.nn.functional.linear(oar.ones([2, 3]), oar.ones([4, 3]), oar.ones([4]))
        >>> print(y.shape, y[0, 0].item())
        [2, 4] 4.0
    """
    oar = _oar()
    out = oar.matmul(input, weight, transpose_y=True)
    if bias is not None:
        out = out + bias
    return out


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    """Attention in PyTorch's layout (torch.nn.functional.scaled_dot_product_attention): query
    [batch, heads, seq, head_dim], key and value [batch, kv_heads, kv_seq, head_dim];
    softmax(q k^T * scale + mask) v, scale defaulting to 1/sqrt(head_dim). A boolean mask keeps the
    True positions; a float mask is added. Dropout is applied whenever dropout_p > 0.

    Args:
        query (Tensor): [batch, heads, seq, head_dim].
        key (Tensor): [batch, kv_heads, kv_seq, head_dim].
        value (Tensor): [batch, kv_heads, kv_seq, head_dim].
        attn_mask (Tensor, optional): Broadcastable to [batch, heads, seq, kv_seq]. Default: None.
        dropout_p (float, optional): Dropout probability of the attention weights. Default: 0.0.
        is_causal (bool, optional): A lower-triangular mask; excludes attn_mask. Default: False.
        scale (float, optional): The score scale. Default: None.
        enable_gqa (bool, optional): Let key/value have fewer heads that query's groups share.
            Default: False.

    Returns:
        Tensor: [batch, heads, seq, head_dim].

    Examples:
        >>> import oar
        >>> q = oar.rand([2, 4, 5, 8])
        >>> out = oar.compat.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        >>> print(out.shape)
        [2, 4, 5, 8]
    """
    oar = _oar()
    if is_causal and attn_mask is not None:
        raise RuntimeError("Explicit attn_mask should not be set when is_causal=True")
    q, k, v = (t.swapaxes(-3, -2) for t in (query, key, value))
    out = oar.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, True, None,
                                                          scale, enable_gqa)
    return out.swapaxes(-3, -2)


def _as_list(v):
    return v.tolist() if isinstance(v, _C.Tensor) else v


@reject_keywords({"x", "kernel_sizes", "dilations", "paddings", "strides", "name"},
                 "paddle.compat.nn.functional.unfold", "paddle.nn.functional.unfold")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding blocks of a [N, C, H, W] input into [N, C*kh*kw, L] (torch.nn.functional.unfold).

    Args:
        input (Tensor): [N, C, H, W].
        kernel_size (int|list|tuple|Tensor): The block size.
        dilation (int|list|tuple|Tensor, optional): Default: 1.
        padding (int|list|tuple|Tensor, optional): Default: 0.
        stride (int|list|tuple|Tensor, optional): Default: 1.

    Returns:
        Tensor: [N, C*kh*kw, L].

    Examples:
        >>> import oar
        >>> out = oar.compat.nn.functional.unfold(oar.rand([1, 2, 4, 4]), 2, stride=2)
        >>> print(out.shape)
        [1, 8, 4]
    """
    return _oar().nn.functional.unfold(input, kernel_sizes=_as_list(kernel_size), strides=_as_list(stride),
                                       paddings=_as_list(padding), dilations=_as_list(dilation))


# paddle.compat.nn.functional is a package in Paddle; the proxy maps torch.nn.functional onto this module.
del mode
