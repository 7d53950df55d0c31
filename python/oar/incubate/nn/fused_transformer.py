"""The fused transformer layers of paddle.incubate.nn: FusedBiasDropoutResidualLayerNorm,
FusedMultiHeadAttention, FusedFeedForward, FusedTransformerEncoderLayer and
FusedMultiTransformer, with Paddle's parameter names and shapes (their state_dicts match)."""
from __future__ import annotations

from ...nn.initializer import Constant
from ...nn.layer.layers import Layer
from .functional.dropout_add import check_dropout
from .functional.multi_transformer import fused_multi_transformer
from .functional.transformer import (fused_bias_dropout_residual_layer_norm, fused_feedforward,
                                     fused_multi_head_attention)

__all__ = ["FusedBiasDropoutResidualLayerNorm", "FusedMultiHeadAttention", "FusedFeedForward",
           "FusedTransformerEncoderLayer", "FusedMultiTransformer"]


def _positive(what, value):
    if value <= 0:
        raise ValueError(f"Expected {what} to be greater than 0, but received {value}")


def _single_rank(nranks, ring_id):
    if nranks != 1 or ring_id != -1:
        raise NotImplementedError("tensor model parallel (nranks > 1, ring_id) is not supported")


class FusedBiasDropoutResidualLayerNorm(Layer):
    """layer_norm(residual + dropout(x + linear_bias)) as a layer.

    Args:
        embed_dim (int): The last dim of x.
        dropout_rate (float, optional): Default: 0.5.
        weight_attr (ParamAttr, optional): The layer norm scale's attribute. Default: None.
        bias_attr (ParamAttr|bool, optional): The biases' attribute. Default: None.
        epsilon (float, optional): Default: 1e-05.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Parameters: linear_bias [embed_dim], ln_scale [embed_dim] (ones), ln_bias [embed_dim].

    Examples:
        >>> import oar
        >>> layer = oar.incubate.nn.FusedBiasDropoutResidualLayerNorm(4, dropout_rate=0.0)
        >>> print(layer(oar.randn([2, 3, 4]), oar.randn([2, 3, 4])).shape)
        [2, 3, 4]
    """

    def __init__(self, embed_dim, dropout_rate=0.5, weight_attr=None, bias_attr=None, epsilon=1e-05, name=None):
        super().__init__()
        _positive("embed_dim", embed_dim)
        self.embed_dim = embed_dim
        self.dropout_rate = dropout_rate
        self._epsilon = epsilon
        self.linear_bias = self.create_parameter(shape=[embed_dim], attr=bias_attr, is_bias=True)
        self.ln_scale = self.create_parameter(shape=[embed_dim], attr=weight_attr,
                                              default_initializer=Constant(1.0))
        self.ln_bias = self.create_parameter(shape=[embed_dim], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, x, residual):
        return fused_bias_dropout_residual_layer_norm(x, residual, self.linear_bias, self.ln_scale, self.ln_bias,
                                                      self.dropout_rate, self._epsilon, self.training)

    def extra_repr(self):
        return f"embed_dim={self.embed_dim}, dropout_rate={self.dropout_rate}, epsilon={self._epsilon}"


class FusedMultiHeadAttention(Layer):
    """Multi-head self-attention with its residual add and layer norm, one fused op.

    Args:
        embed_dim (int): The model dim.
        num_heads (int): Heads; embed_dim must be a multiple.
        dropout_rate (float, optional): Dropout of the output. Default: 0.5.
        attn_dropout_rate (float, optional): Dropout of the attention weights. Default: 0.5.
        kdim, vdim (int, optional): Must equal embed_dim (self-attention). Default: None.
        normalize_before (bool, optional): Pre-norm (True) or post-norm. Default: False.
        need_weights (bool, optional): Only False supported (as Paddle). Default: False.
        qkv_weight_attr, qkv_bias_attr, linear_weight_attr, linear_bias_attr, pre_ln_scale_attr,
            pre_ln_bias_attr, ln_scale_attr, ln_bias_attr (ParamAttr, optional): The parameters'
            attributes. Default: None.
        epsilon (float, optional): The layer norm's epsilon. Default: 1e-05.
        nranks (int, optional): Only 1 supported. Default: 1.
        ring_id (int, optional): Only -1 supported. Default: -1.
        transpose_qkv_wb (bool, optional): qkv_weight as [embed_dim, 3 * embed_dim]. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Parameters: qkv_weight [3, num_heads, head_dim, embed_dim] (or [embed_dim, 3 * embed_dim]),
    qkv_bias [3, num_heads, head_dim] (or [3 * embed_dim]), linear_weight [embed_dim, embed_dim],
    linear_bias [embed_dim], and pre_ln_scale / pre_ln_bias (normalize_before) or ln_scale /
    ln_bias, [embed_dim].

    Examples:
        >>> import oar
        >>> attn = oar.incubate.nn.FusedMultiHeadAttention(8, 2)
        >>> _ = attn.eval()
        >>> print(attn(oar.randn([2, 3, 8])).shape)
        [2, 3, 8]
    """

    def __init__(self, embed_dim, num_heads, dropout_rate=0.5, attn_dropout_rate=0.5, kdim=None, vdim=None,
                 normalize_before=False, need_weights=False, qkv_weight_attr=None, qkv_bias_attr=None,
                 linear_weight_attr=None, linear_bias_attr=None, pre_ln_scale_attr=None, pre_ln_bias_attr=None,
                 ln_scale_attr=None, ln_bias_attr=None, epsilon=1e-05, nranks=1, ring_id=-1,
                 transpose_qkv_wb=False, name=None):
        super().__init__()
        _positive("embed_dim", embed_dim)
        _positive("num_heads", num_heads)
        _single_rank(nranks, ring_id)
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
        if need_weights:
            raise ValueError("Only support need_weight is False now.")
        for what, dim in (("kdim", kdim), ("vdim", vdim)):
            if dim is not None and dim != embed_dim:
                raise ValueError(f"{what} should equal embed_dim ({embed_dim}) for self-attention, got {dim}")
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self.kdim, self.vdim = kdim, vdim
        self.normalize_before = normalize_before
        self.need_weights = need_weights
        self.dropout_rate, self.attn_dropout_rate = dropout_rate, attn_dropout_rate
        self._epsilon = epsilon
        self.transpose_qkv_wb = transpose_qkv_wb
        if transpose_qkv_wb:
            qkv_shape, qkv_bias_shape = [embed_dim, 3 * embed_dim], [3 * embed_dim]
        else:
            qkv_shape, qkv_bias_shape = [3, num_heads, self.head_dim, embed_dim], [3, num_heads, self.head_dim]
        self.qkv_weight = self.create_parameter(shape=qkv_shape, attr=qkv_weight_attr)
        self.qkv_bias = self.create_parameter(shape=qkv_bias_shape, attr=qkv_bias_attr, is_bias=True)
        self.linear_weight = self.create_parameter(shape=[embed_dim, embed_dim], attr=linear_weight_attr)
        self.linear_bias = self.create_parameter(shape=[embed_dim], attr=linear_bias_attr, is_bias=True)
        if normalize_before:
            self.pre_ln_scale = self.create_parameter(shape=[embed_dim], attr=pre_ln_scale_attr,
                                                      default_initializer=Constant(1.0))
            self.pre_ln_bias = self.create_parameter(shape=[embed_dim], attr=pre_ln_bias_attr, is_bias=True)
            self.ln_scale = self.ln_bias = None
        else:
            self.pre_ln_scale = self.pre_ln_bias = None
            self.ln_scale = self.create_parameter(shape=[embed_dim], attr=ln_scale_attr,
                                                  default_initializer=Constant(1.0))
            self.ln_bias = self.create_parameter(shape=[embed_dim], attr=ln_bias_attr, is_bias=True)
        self.name = name

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        return fused_multi_head_attention(
            query, self.qkv_weight, self.linear_weight, self.normalize_before, self.pre_ln_scale, self.pre_ln_bias,
            self.ln_scale, self.ln_bias, self._epsilon, self.qkv_bias, self.linear_bias, cache, attn_mask,
            self.dropout_rate, self.attn_dropout_rate, self._epsilon, self.training,
            num_heads=self.num_heads, transpose_qkv_wb=self.transpose_qkv_wb)

    def extra_repr(self):
        return (f"embed_dim={self.embed_dim}, num_heads={self.num_heads}, dropout_rate={self.dropout_rate}, "
                f"attn_dropout_rate={self.attn_dropout_rate}, epsilon={self._epsilon}, kdim={self.kdim}, "
                f"vdim={self.vdim}, normalize_before={self.normalize_before}, need_weights={self.need_weights}")


class FusedFeedForward(Layer):
    """The feed-forward block of a transformer layer (linear, activation, linear, residual add,
    layer norm), one fused op.

    Args:
        d_model (int): The model dim.
        dim_feedforward (int): The hidden dim.
        dropout_rate (float, optional): Dropout of the output. Default: 0.1.
        epsilon (float, optional): The layer norm's epsilon. Default: 1e-05.
        activation (str, optional): 'relu' or 'gelu'. Default: 'relu'.
        act_dropout_rate (float, optional): Dropout after the activation; None: dropout_rate.
            Default: None.
        normalize_before (bool, optional): Pre-norm (True) or post-norm. Default: False.
        linear1_weight_attr, linear1_bias_attr, linear2_weight_attr, linear2_bias_attr,
            ln1_scale_attr, ln1_bias_attr, ln2_scale_attr, ln2_bias_attr (ParamAttr, optional):
            The parameters' attributes. Default: None.
        nranks (int, optional): Only 1 supported. Default: 1.
        ring_id (int, optional): Only -1 supported. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Parameters: _linear1_weight [d_model, dim_feedforward], _linear1_bias, _linear2_weight
    [dim_feedforward, d_model], _linear2_bias, and _ln1_scale / _ln1_bias (normalize_before) or
    _ln2_scale / _ln2_bias, [d_model].

    Examples:
        >>> import oar
        >>> ffn = oar.incubate.nn.FusedFeedForward(8, 16)
        >>> _ = ffn.eval()
        >>> print(ffn(oar.randn([2, 3, 8])).shape)
        [2, 3, 8]
    """

    def __init__(self, d_model, dim_feedforward, dropout_rate=0.1, epsilon=1e-05, activation="relu",
                 act_dropout_rate=None, normalize_before=False, linear1_weight_attr=None, linear1_bias_attr=None,
                 linear2_weight_attr=None, linear2_bias_attr=None, ln1_scale_attr=None, ln1_bias_attr=None,
                 ln2_scale_attr=None, ln2_bias_attr=None, nranks=1, ring_id=-1, name=None):
        super().__init__()
        _positive("d_model", d_model)
        _positive("dim_feedforward", dim_feedforward)
        _single_rank(nranks, ring_id)
        self._d_model, self._dim_feedforward = d_model, dim_feedforward
        self._dropout_rate = dropout_rate
        self._act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self._act_method = activation
        self._normalize_before = normalize_before
        self._epsilon = epsilon
        self._linear1_weight = self.create_parameter(shape=[d_model, dim_feedforward], attr=linear1_weight_attr)
        self._linear1_bias = self.create_parameter(shape=[dim_feedforward], attr=linear1_bias_attr, is_bias=True)
        self._linear2_weight = self.create_parameter(shape=[dim_feedforward, d_model], attr=linear2_weight_attr)
        self._linear2_bias = self.create_parameter(shape=[d_model], attr=linear2_bias_attr, is_bias=True)
        if normalize_before:
            self._ln1_scale = self.create_parameter(shape=[d_model], attr=ln1_scale_attr,
                                                    default_initializer=Constant(1.0))
            self._ln1_bias = self.create_parameter(shape=[d_model], attr=ln1_bias_attr, is_bias=True)
            self._ln2_scale = self._ln2_bias = None
        else:
            self._ln1_scale = self._ln1_bias = None
            self._ln2_scale = self.create_parameter(shape=[d_model], attr=ln2_scale_attr,
                                                    default_initializer=Constant(1.0))
            self._ln2_bias = self.create_parameter(shape=[d_model], attr=ln2_bias_attr, is_bias=True)
        self.name = name

    def forward(self, src, cache=None):
        return fused_feedforward(
            src, self._linear1_weight, self._linear2_weight, self._linear1_bias, self._linear2_bias,
            self._ln1_scale, self._ln1_bias, self._ln2_scale, self._ln2_bias, self._act_dropout_rate,
            self._dropout_rate, self._act_method, self._epsilon, self._epsilon, self._normalize_before,
            self.training)

    def extra_repr(self):
        return (f"d_model={self._d_model}, dim_feedforward={self._dim_feedforward}, "
                f"dropout_rate={self._dropout_rate}, epsilon={self._epsilon}, activation={self._act_method}, "
                f"act_dropout_rate={self._act_dropout_rate}, normalize_before={self._normalize_before}")


def _two(attr):
    return list(attr) if isinstance(attr, (list, tuple)) else [attr, attr]


class FusedTransformerEncoderLayer(Layer):
    """A transformer encoder layer: FusedMultiHeadAttention then FusedFeedForward.

    Args:
        d_model (int): The model dim.
        nhead (int): Attention heads.
        dim_feedforward (int): The feed-forward hidden dim.
        dropout_rate (float, optional): Default: 0.1.
        activation (str, optional): 'relu' or 'gelu'. Default: 'relu'.
        attn_dropout_rate (float, optional): None: dropout_rate. Default: None.
        act_dropout_rate (float, optional): None: dropout_rate. Default: None.
        normalize_before (bool, optional): Pre-norm (True) or post-norm. Default: False.
        weight_attr, bias_attr (ParamAttr|list, optional): One for both blocks, or a pair
            (attention, feed-forward). Default: None.

    Examples:
        >>> import oar
        >>> layer = oar.incubate.nn.FusedTransformerEncoderLayer(8, 2, 16)
        >>> _ = layer.eval()
        >>> print(layer(oar.randn([2, 3, 8])).shape)
        [2, 3, 8]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout_rate=0.1, activation="relu", attn_dropout_rate=None,
                 act_dropout_rate=None, normalize_before=False, weight_attr=None, bias_attr=None):
        super().__init__()
        _positive("d_model", d_model)
        _positive("nhead", nhead)
        _positive("dim_feedforward", dim_feedforward)
        attn_dropout_rate = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        act_dropout_rate = dropout_rate if act_dropout_rate is None else act_dropout_rate
        self.normalize_before = normalize_before
        w, b = _two(weight_attr), _two(bias_attr)
        self.fused_attn = FusedMultiHeadAttention(
            d_model, nhead, dropout_rate=dropout_rate, attn_dropout_rate=attn_dropout_rate,
            normalize_before=normalize_before, qkv_weight_attr=w[0], qkv_bias_attr=b[0], linear_weight_attr=w[0],
            linear_bias_attr=b[0], pre_ln_scale_attr=w[0], pre_ln_bias_attr=b[0], ln_scale_attr=w[0],
            ln_bias_attr=b[0])
        self.ffn = FusedFeedForward(
            d_model, dim_feedforward, dropout_rate=dropout_rate, activation=activation,
            act_dropout_rate=act_dropout_rate, normalize_before=normalize_before, linear1_weight_attr=w[1],
            linear1_bias_attr=b[1], linear2_weight_attr=w[1], linear2_bias_attr=b[1])

    def forward(self, src, src_mask=None, cache=None):
        if cache is None:
            return self.ffn(self.fused_attn(src, attn_mask=src_mask))
        out, cache_kv_out = self.fused_attn(src, attn_mask=src_mask, cache=cache)
        return self.ffn(out), cache_kv_out


class FusedMultiTransformer(Layer):
    """A stack of transformer layers for inference (fused_multi_transformer).

    Args:
        embed_dim (int): The model dim.
        num_heads (int): Attention heads.
        dim_feedforward (int): The feed-forward hidden dim.
        dropout_rate (float, optional): Default: 0.0.
        activation (str, optional): 'gelu', 'relu', 'swiglu' or 'geglu'. Default: 'gelu'.
        normalize_before (bool, optional): Pre-norm layers. Default: True.
        ln_scale_attrs, ln_bias_attrs, qkv_weight_attrs, qkv_bias_attrs, linear_weight_attrs,
            linear_bias_attrs, ffn_ln_scale_attrs, ffn_ln_bias_attrs, ffn1_weight_attrs,
            ffn1_bias_attrs, ffn2_weight_attrs, ffn2_bias_attrs (ParamAttr|list, optional): One
            attribute for every layer or one per layer; a bias is created only when its attribute
            is given (as Paddle). Default: None.
        epsilon (float, optional): Default: 1e-05.
        residual_alpha (float, optional): The residual stream's scale. Default: 1.0.
        num_layers (int, optional): Layers, when the attributes are not lists. Default: -1.
        nranks (int, optional): Only 1 supported. Default: 1.
        trans_qkvw (bool, optional): qkv weights as [3, num_heads, head_dim, embed_dim] (True) or
            [embed_dim, 3, num_heads, head_dim]. Default: True.
        ring_id (int, optional): Only -1 supported. Default: -1.
        norm_type (str, optional): 'layernorm' or 'rmsnorm'. Default: 'layernorm'.
        use_neox_rotary_style (bool, optional): Used only with rotary_embs. Default: False.
        gqa_group_size (int, optional): Key / value heads; -1: num_heads. Default: -1.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Parameters are registered under their own names ("fused_multi_transformer_0.w_0", ...), as
    Paddle; the lists ln_scales, qkv_weights, ... hold each layer's.

    Examples:
        >>> import oar
        >>> layers = oar.incubate.nn.FusedMultiTransformer(8, 2, 16, num_layers=2)
        >>> print(layers(oar.randn([1, 3, 8])).shape)
        [1, 3, 8]
    """

    def __init__(self, embed_dim, num_heads, dim_feedforward, dropout_rate=0.0, activation="gelu",
                 normalize_before=True, ln_scale_attrs=None, ln_bias_attrs=None, qkv_weight_attrs=None,
                 qkv_bias_attrs=None, linear_weight_attrs=None, linear_bias_attrs=None, ffn_ln_scale_attrs=None,
                 ffn_ln_bias_attrs=None, ffn1_weight_attrs=None, ffn1_bias_attrs=None, ffn2_weight_attrs=None,
                 ffn2_bias_attrs=None, epsilon=1e-05, residual_alpha=1.0, num_layers=-1, nranks=1, trans_qkvw=True,
                 ring_id=-1, norm_type="layernorm", use_neox_rotary_style=False, gqa_group_size=-1, name=None):
        super().__init__()
        _positive("embed_dim", embed_dim)
        _positive("num_heads", num_heads)
        _positive("dim_feedforward", dim_feedforward)
        _single_rank(nranks, ring_id)
        if embed_dim % num_heads:
            raise ValueError(f"embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
        check_dropout(dropout_rate, "upscale_in_train")
        if isinstance(qkv_weight_attrs, (list, tuple)):
            num_layers = len(qkv_weight_attrs)
        if num_layers <= 0:
            raise ValueError(f"num_layers should be > 0 (or the attributes lists), got {num_layers}")
        self.normalize_before = normalize_before
        self.embed_dim, self.num_heads = embed_dim, num_heads
        self.head_dim = embed_dim // num_heads
        self._dropout_rate, self.activation = dropout_rate, activation
        self._epsilon, self._residual_alpha = epsilon, residual_alpha
        self._trans_qkvw, self._norm_type = trans_qkvw, norm_type
        self._use_neox_rotary_style, self._gqa_group_size = use_neox_rotary_style, gqa_group_size
        norm_dtype = "float32" if norm_type == "layernorm" else None
        heads = [3, num_heads] if gqa_group_size <= 0 else [num_heads + 2 * gqa_group_size]
        ffn1 = dim_feedforward * 2 if activation.endswith("glu") else dim_feedforward
        specs = [  # list name, attrs, shape, is a bias, default_initializer, dtype
            ("ln_scales", ln_scale_attrs, [embed_dim], False, Constant(1.0), norm_dtype),
            ("ln_biases", ln_bias_attrs, [embed_dim], True, None, norm_dtype),
            ("qkv_weights", qkv_weight_attrs, heads + [self.head_dim, embed_dim] if trans_qkvw else
             [embed_dim] + heads + [self.head_dim], False, None, None),
            ("qkv_biases", qkv_bias_attrs, heads + [self.head_dim], True, None, None),
            ("linear_weights", linear_weight_attrs, [num_heads * self.head_dim, embed_dim], False, None, None),
            ("linear_biases", linear_bias_attrs, [embed_dim], True, None, None),
            ("ffn_ln_scales", ffn_ln_scale_attrs, [embed_dim], False, Constant(1.0), norm_dtype),
            ("ffn_ln_biases", ffn_ln_bias_attrs, [embed_dim], True, None, norm_dtype),
            ("ffn1_weights", ffn1_weight_attrs, [embed_dim, ffn1], False, None, None),
            ("ffn1_biases", ffn1_bias_attrs, [ffn1], True, None, None),
            ("ffn2_weights", ffn2_weight_attrs, [dim_feedforward, embed_dim], False, None, None),
            ("ffn2_biases", ffn2_bias_attrs, [embed_dim], True, None, None),
        ]
        lists = {spec[0]: [] for spec in specs}
        for i in range(num_layers):
            for key, attrs, shape, is_bias, init, dtype in specs:
                attr = attrs[i] if isinstance(attrs, (list, tuple)) else attrs
                param = None
                if not is_bias or attr:  # Paddle creates a bias only for a given attribute
                    param = self.create_parameter(shape=shape, attr=attr, dtype=dtype, is_bias=is_bias,
                                                  default_initializer=init)
                    self._parameters[param.name] = param
                lists[key].append(param)
        for key, params in lists.items():
            setattr(self, key, None if params[0] is None else params)
        self.name = name

    def forward(self, src, attn_mask=None, caches=None, pre_caches=None, rotary_embs=None, rotary_emb_dims=0,
                beam_offset=None, seq_lens=None, time_step=None):
        return fused_multi_transformer(
            src, self.ln_scales, self.ln_biases, self.qkv_weights, self.qkv_biases, self.linear_weights,
            self.linear_biases, self.ffn_ln_scales, self.ffn_ln_biases, self.ffn1_weights, self.ffn1_biases,
            self.ffn2_weights, self.ffn2_biases, pre_layer_norm=self.normalize_before, epsilon=self._epsilon,
            residual_alpha=self._residual_alpha, cache_kvs=caches, beam_offset=beam_offset, pre_caches=pre_caches,
            seq_lens=seq_lens, rotary_embs=rotary_embs, time_step=time_step, attn_mask=attn_mask,
            dropout_rate=self._dropout_rate, rotary_emb_dims=rotary_emb_dims, activation=self.activation,
            training=self.training, trans_qkvw=self._trans_qkvw, norm_type=self._norm_type,
            use_neox_rotary_style=self._use_neox_rotary_style, gqa_group_size=self._gqa_group_size)
