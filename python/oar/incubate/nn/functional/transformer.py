"""fused_feedforward, fused_bias_dropout_residual_layer_norm and fused_multi_head_attention
(paddle.incubate.nn.functional): the blocks of a transformer layer, each one op in Paddle's GPU
build. Layer norms go through _norm.fused_norm, the attention softmax through softmax_mask."""
from __future__ import annotations

from .... import _C
from ..._softmax_mask import softmax_mask
from ._norm import fused_norm
from .dropout_add import check_dropout, dropout

__all__ = ["fused_feedforward", "fused_bias_dropout_residual_layer_norm", "fused_multi_head_attention"]

ACTIVATIONS = {"relu": _C.relu, "gelu": lambda t: _C.gelu(t, False)}


def layer_norm(x, scale, bias, epsilon):
    """Layer norm over the last dim (scale / bias optional)."""
    if scale is None and bias is None:  # fused_norm would skip the norm itself
        scale = _C.ones([x.shape[-1]], x.dtype)
    return fused_norm(x, scale, bias, epsilon, x.ndim - 1, kind="layer")[0]


def linear(x, weight, bias=None):
    return _C.matmul(x, weight) if bias is None else _C.fused_matmul_bias(x, weight, bias, False, False, "none")


def fused_feedforward(x, linear1_weight, linear2_weight, linear1_bias=None, linear2_bias=None, ln1_scale=None,
                      ln1_bias=None, ln2_scale=None, ln2_bias=None, dropout1_rate=0.5, dropout2_rate=0.5,
                      activation="relu", ln1_epsilon=1e-05, ln2_epsilon=1e-05, pre_layer_norm=False, training=True,
                      mode="upscale_in_train", ring_id=-1, add_residual=True, name=None):
    """The feed-forward block of a transformer layer.

    out = linear2(dropout1(activation(linear1(ln1(x) if pre_layer_norm else x)))); then
    out = x + dropout2(out) (without the x with add_residual=False); then ln2(out) unless
    pre_layer_norm.

    Args:
        x (Tensor): [batch, seq_len, d_model].
        linear1_weight (Tensor): [d_model, dim_feedforward].
        linear2_weight (Tensor): [dim_feedforward, d_model].
        linear1_bias, linear2_bias (Tensor, optional): [dim_feedforward], [d_model]. Default: None.
        ln1_scale, ln1_bias (Tensor, optional): The pre layer norm's, [d_model]. Default: None.
        ln2_scale, ln2_bias (Tensor, optional): The post layer norm's, [d_model]. Default: None.
        dropout1_rate (float, optional): Dropout after the activation. Default: 0.5.
        dropout2_rate (float, optional): Dropout of the block's output. Default: 0.5.
        activation (str, optional): 'relu' or 'gelu'. Default: 'relu'.
        ln1_epsilon, ln2_epsilon (float, optional): The layer norms' epsilon. Default: 1e-05.
        pre_layer_norm (bool, optional): Norm before (True) or after (False) the block. Default: False.
        training (bool, optional): Whether dropout drops. Default: True.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'. Default: 'upscale_in_train'.
        ring_id (int, optional): Tensor-parallel ring (Paddle's NCCL); only -1 supported. Default: -1.
        add_residual (bool, optional): Whether to add x. Default: True.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_feedforward
        >>> x = oar.randn([2, 3, 4])
        >>> out = fused_feedforward(x, oar.randn([4, 8]), oar.randn([8, 4]), training=False)
        >>> print(out.shape)
        [2, 3, 4]
    """
    check_dropout(dropout1_rate, mode)
    check_dropout(dropout2_rate, mode)
    if activation not in ACTIVATIONS:
        raise ValueError(f"fused_feedforward: activation should be 'relu' or 'gelu', got {activation!r}")
    if ring_id != -1:
        raise NotImplementedError("fused_feedforward: ring_id (tensor model parallel) is not supported")
    out = layer_norm(x, ln1_scale, ln1_bias, ln1_epsilon) if pre_layer_norm else x
    out = ACTIVATIONS[activation](linear(out, linear1_weight, linear1_bias))
    out = linear(dropout(out, dropout1_rate, training, mode), linear2_weight, linear2_bias)
    out = dropout(out, dropout2_rate, training, mode)
    if add_residual:
        out = x + out
    return out if pre_layer_norm else layer_norm(out, ln2_scale, ln2_bias, ln2_epsilon)


def fused_bias_dropout_residual_layer_norm(x, residual, bias=None, ln_scale=None, ln_bias=None, dropout_rate=0.5,
                                           ln_epsilon=1e-05, training=True, mode="upscale_in_train", name=None):
    """layer_norm(residual + dropout(x + bias)).

    Args:
        x (Tensor): [*, embed_dim].
        residual (Tensor): x's shape.
        bias (Tensor, optional): [embed_dim]. Default: None.
        ln_scale, ln_bias (Tensor, optional): The layer norm's, [embed_dim]. Default: None.
        dropout_rate (float, optional): Default: 0.5.
        ln_epsilon (float, optional): Default: 1e-05.
        training (bool, optional): Whether dropout drops. Default: True.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'. Default: 'upscale_in_train'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_bias_dropout_residual_layer_norm
        >>> x, residual = oar.randn([2, 3, 4]), oar.randn([2, 3, 4])
        >>> out = fused_bias_dropout_residual_layer_norm(x, residual, dropout_rate=0.0)
        >>> print(out.shape)
        [2, 3, 4]
    """
    check_dropout(dropout_rate, mode)
    if list(x.shape) != list(residual.shape):
        raise ValueError("fused_bias_dropout_residual_layer_norm: x and residual should have the same shape, "
                         f"got {list(x.shape)} and {list(residual.shape)}")
    h = x if bias is None else x + bias
    return layer_norm(residual + dropout(h, dropout_rate, training, mode), ln_scale, ln_bias, ln_epsilon)


def additive_mask(mask, dtype):
    """A float mask as is; a bool / int mask (True / 1 attends) as 0 / -inf."""
    if mask is None or mask.dtype.name in ("float16", "bfloat16", "float32", "float64"):
        return mask
    keep = mask if mask.dtype.name == "bool" else _C.not_equal(mask, _C.zeros([], mask.dtype))
    return _C.where(keep, _C.zeros([], dtype), _C.full([], float("-inf"), dtype))


def attention(q, k, v, mask, dropout_rate, training, mode, scale):
    """softmax(q k^T * scale + mask) v over [batch, heads, seq, head_dim]."""
    scores = _C.matmul(q * scale, k, False, True)
    probs = softmax_mask(scores, mask)
    return _C.matmul(dropout(probs, dropout_rate, training, mode), v)


def fused_multi_head_attention(x, qkv_weight, linear_weight, pre_layer_norm=False, pre_ln_scale=None,
                               pre_ln_bias=None, ln_scale=None, ln_bias=None, pre_ln_epsilon=1e-05, qkv_bias=None,
                               linear_bias=None, cache_kv=None, attn_mask=None, dropout_rate=0.5,
                               attn_dropout_rate=0.5, ln_epsilon=1e-05, training=True, mode="upscale_in_train",
                               ring_id=-1, add_residual=True, num_heads=-1, transpose_qkv_wb=False, name=None):
    """The self-attention block of a transformer layer.

    h = pre_ln(x) if pre_layer_norm else x; q, k, v = heads of h @ qkv_weight + qkv_bias (with
    cache_kv, k and v are appended to the cached ones); out = softmax(q k^T / sqrt(head_dim) +
    attn_mask), dropped out by attn_dropout_rate, times v; heads merged; out = out @ linear_weight
    + linear_bias; out = x + dropout(out) (without x when add_residual=False); ln(out) unless
    pre_layer_norm.

    Args:
        x (Tensor): [batch, seq_len, embed_dim].
        qkv_weight (Tensor): [3, num_heads, head_dim, embed_dim]; [embed_dim, 3 * embed_dim] with
            transpose_qkv_wb.
        linear_weight (Tensor): [embed_dim, embed_dim].
        pre_layer_norm (bool, optional): Norm before (True) or after (False). Default: False.
        pre_ln_scale, pre_ln_bias (Tensor, optional): The pre layer norm's. Default: None.
        ln_scale, ln_bias (Tensor, optional): The post layer norm's. Default: None.
        pre_ln_epsilon (float, optional): Default: 1e-05.
        qkv_bias (Tensor, optional): [3, num_heads, head_dim]; [3 * embed_dim] with transpose_qkv_wb.
            Default: None.
        linear_bias (Tensor, optional): [embed_dim]. Default: None.
        cache_kv (Tensor, optional): [2, batch, num_heads, cache_len, head_dim], the cached keys and
            values. Default: None.
        attn_mask (Tensor, optional): Broadcast to [batch, num_heads, seq_len, kv_len]; float
            (added), bool (True attends) or int (1 attends). Default: None.
        dropout_rate (float, optional): Dropout of the output. Default: 0.5.
        attn_dropout_rate (float, optional): Dropout of the attention weights. Default: 0.5.
        ln_epsilon (float, optional): Default: 1e-05.
        training (bool, optional): Whether dropout drops. Default: True.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'. Default: 'upscale_in_train'.
        ring_id (int, optional): Tensor-parallel ring; only -1 supported. Default: -1.
        add_residual (bool, optional): Whether to add x. Default: True.
        num_heads (int, optional): The number of heads, needed with transpose_qkv_wb. Default: -1.
        transpose_qkv_wb (bool, optional): qkv_weight / qkv_bias in the [embed_dim, 3 * embed_dim]
            layout. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x's shape and dtype; with cache_kv, (out, cache_kv_out), cache_kv_out
        [2, batch, num_heads, cache_len + seq_len, head_dim].

    Examples:
        >>> import oar
        >>> from oar.incubate.nn.functional import fused_multi_head_attention
        >>> x = oar.randn([2, 3, 8])
        >>> qkv_weight, linear_weight = oar.randn([3, 2, 4, 8]), oar.randn([8, 8])
        >>> out = fused_multi_head_attention(x, qkv_weight, linear_weight, training=False)
        >>> print(out.shape)
        [2, 3, 8]
    """
    fn = "fused_multi_head_attention"
    check_dropout(dropout_rate, mode)
    check_dropout(attn_dropout_rate, mode)
    if ring_id != -1:
        raise NotImplementedError(f"{fn}: ring_id (tensor model parallel) is not supported")
    if x.ndim != 3:
        raise ValueError(f"{fn}: x should be 3-D [batch, seq_len, embed_dim], got shape {list(x.shape)}")
    batch, seq, embed = x.shape
    if transpose_qkv_wb:
        if num_heads <= 0:
            raise ValueError(f"{fn}: num_heads should be given (> 0) with transpose_qkv_wb, got {num_heads}")
        if list(qkv_weight.shape) != [embed, 3 * embed]:
            raise ValueError(f"{fn}: qkv_weight should be [embed_dim, 3 * embed_dim] = {[embed, 3 * embed]} "
                             f"with transpose_qkv_wb, got {list(qkv_weight.shape)}")
        heads, head_dim = num_heads, embed // num_heads
        w = qkv_weight
    else:
        if qkv_weight.ndim != 4 or qkv_weight.shape[0] != 3 or qkv_weight.shape[3] != embed:
            raise ValueError(f"{fn}: qkv_weight should be [3, num_heads, head_dim, embed_dim], got "
                             f"{list(qkv_weight.shape)}")
        heads, head_dim = qkv_weight.shape[1], qkv_weight.shape[2]
        w = _C.transpose(_C.reshape(qkv_weight, [3 * heads * head_dim, embed]), [1, 0])
    h = layer_norm(x, pre_ln_scale, pre_ln_bias, pre_ln_epsilon) if pre_layer_norm else x
    qkv = linear(h, w, None if qkv_bias is None else _C.reshape(qkv_bias, [-1]))
    qkv = _C.transpose(_C.reshape(qkv, [batch, seq, 3, heads, head_dim]), [2, 0, 3, 1, 4])
    q, k, v = qkv[0], qkv[1], qkv[2]
    cache_out = None
    if cache_kv is not None:
        k = _C.concat([cache_kv[0], k], 2)
        v = _C.concat([cache_kv[1], v], 2)
        cache_out = _C.stack([k, v], 0)
    out = attention(q, k, v, additive_mask(attn_mask, x.dtype), attn_dropout_rate, training, mode,
                    head_dim ** -0.5)
    out = _C.reshape(_C.transpose(out, [0, 2, 1, 3]), [batch, seq, heads * head_dim])
    out = dropout(linear(out, linear_weight, linear_bias), dropout_rate, training, mode)
    if add_residual:
        out = x + out
    if not pre_layer_norm:
        out = layer_norm(out, ln_scale, ln_bias, ln_epsilon)
    return out if cache_kv is None else (out, cache_out)
