"""Attention and the Transformer family, as paddle.nn: MultiHeadAttention (with its incremental
Cache and StaticCache for decoding), TransformerEncoderLayer/Encoder, TransformerDecoderLayer/
Decoder and Transformer. Sublayer names (q_proj, self_attn, linear1, norm1, ...) are Paddle's, so
state dicts load both ways."""
import collections
import copy

from ... import _C
from ...framework.dtype import get_default_dtype
from ...framework.mode import in_dynamic_mode
from ...framework.param_attr import ParamAttr
from .. import functional as F
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm


def _param_attr_list(param_attr, n, where):
    """One attr per sublayer group: a list/tuple of n attrs, or one attr copied n times (a named
    attr gets a _<i> suffix per copy, as Paddle)."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise ValueError(f"{where}: length of param_attr should be {n} when it is a list/tuple, "
                             f"got {len(param_attr)}")
        out = []
        for attr in param_attr:
            if isinstance(attr, bool):
                out.append(ParamAttr._to_attr(None) if attr else False)
            else:
                out.append(ParamAttr._to_attr(attr))
        return out
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if attr is not None and getattr(attr, "name", None):
            a.name = f"{a.name}_{i}"
        out.append(a)
    return out


def _convert_attention_mask(attn_mask, dtype):
    """A bool or integer mask (True/1 = attend) becomes an additive one (0 or -1e9); a float
    mask is cast to dtype and added as is."""
    if attn_mask is None or attn_mask.dtype == dtype:
        return attn_mask
    name = str(attn_mask.dtype).replace("paddle.", "").replace("oar.", "")
    if name == "bool" or "int" in name:
        return (_C.cast(attn_mask, dtype) - 1.0) * 1e9
    return _C.cast(attn_mask, dtype)


def _check_positive(where, **values):
    for name, v in values.items():
        if not isinstance(v, int) or v <= 0:
            raise ValueError(f"{where}: expected {name} to be greater than 0, but received {v}")


def _leading(x, n):
    """x's first n dims as a reshape target keeps them: known sizes as they are, 0 ("copy the input
    dim") for a program's unknown ones; a zero-size x reads 0 literally, so known sizes must not be 0s."""
    return [d if d >= 0 else 0 for d in x.shape[:n]]


class MultiHeadAttention(Layer):
    """Multi-head attention: ``num_heads`` scaled dot-product attentions over linear projections
    of query, key and value, concatenated and projected back to embed_dim.

    Args:
        embed_dim (int): Size of the query features and of the output.
        num_heads (int): Number of heads; embed_dim must be divisible by it.
        dropout (float, optional): Dropout on the attention weights while training. Default: 0.0.
        kdim (int, optional): Size of the key features; None means embed_dim. Default: None.
        vdim (int, optional): Size of the value features; None means embed_dim. Default: None.
        need_weights (bool, optional): Also return the attention weights. Default: False.
        weight_attr (ParamAttr, optional): Attribute of the projection weights. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the projection biases; False for
            none. Default: None.

    Call:
        ``forward(query, key=None, value=None, attn_mask=None, cache=None)``: query
        [batch, target_length, embed_dim]; key and value [batch, source_length, kdim / vdim]
        (None: the query, i.e. self attention); cache from ``gen_cache`` for step-by-step
        decoding. Returns the output [batch, target_length, embed_dim], followed by the weights
        [batch, num_heads, target_length, source_length] with need_weights and the updated
        cache when one is given (a tuple when there is more than one).
        Masks are broadcast to [batch, nhead, target_length, source_length]: a bool or integer
    mask keeps the True / nonzero positions (others get -1e9 before the softmax); a float mask
    is added to the attention scores.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> attn = oar.nn.MultiHeadAttention(embed_dim=16, num_heads=4, need_weights=True)
        >>> query = oar.randn([2, 4, 16])
        >>> causal = oar.tril(oar.ones([4, 4])).astype("bool")
        >>> out, weights = attn(query, attn_mask=causal)
        >>> print(out.shape, weights.shape)
        [2, 4, 16] [2, 4, 4, 4]
        >>> print(weights[0, 0, 0])
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,
               [1., 0., 0., 0.])
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False,
                 weight_attr=None, bias_attr=None):
        super().__init__()
        _check_positive("MultiHeadAttention", embed_dim=embed_dim, num_heads=num_heads)
        if embed_dim % num_heads != 0:
            raise ValueError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be divisible by "
                             f"num_heads ({num_heads})")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        """[B, L, E] -> [B, heads, L, head_dim]."""
        x = _C.reshape(x, _leading(x, 2) + [self.num_heads, self.head_dim])
        return _C.transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Projects ``key`` and ``value`` and splits them into heads.

        Returns:
            tuple: (k, v), each [batch, num_heads, source_length, embed_dim // num_heads].
        """
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """Makes a cache for ``forward``.

        With ``type=MultiHeadAttention.StaticCache``, k and v are projected once from key and value
        (for cross attention over a fixed memory). With ``type=MultiHeadAttention.Cache`` and no
        value, the cache starts empty ([batch, num_heads, 0, head_dim]) and each forward call appends
        the new step's k and v (incremental self attention); with a value, (key, value) are taken as
        the cached k and v.

        Args:
            key (Tensor): Keys, or a tensor giving the batch size.
            value (Tensor, optional): Values. Default: None.
            type (type, optional): MultiHeadAttention.Cache or MultiHeadAttention.StaticCache.
                Default: MultiHeadAttention.Cache.

        Returns:
            Cache|StaticCache: a named tuple (k, v).

        Examples:
            >>> import oar
            >>> oar.seed(2024)
            >>> attn = oar.nn.MultiHeadAttention(16, 4)
            >>> x = oar.randn([2, 4, 16])
            >>> cache = attn.gen_cache(x)
            >>> out, cache = attn(x[:, :1], cache=cache)
            >>> print(out.shape, cache.k.shape)
            [2, 1, 16] [2, 4, 1, 4]
        """
        if type == MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(_C.full(shape, 0, key.dtype), _C.full(shape, 0, key.dtype))
        return self.Cache(key, value)

    def _prepare_qkv(self, query, key, value, cache):
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _C.concat([cache.k, k], axis=2)
            v = _C.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return q, k, v, cache

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        if query.ndim != 3:
            raise ValueError(f"MultiHeadAttention: query must be 3-D [batch, length, embed_dim], "
                             f"got shape {list(query.shape)}")
        key = query if key is None else key
        value = query if value is None else value
        if self._fused_attention_applies(cache):
            return self._fused_forward(query, key, value, attn_mask)
        q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = _C.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = _C.transpose(_C.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(_C.reshape(out, _leading(out, 2) + [out.shape[2] * out.shape[3]]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


    def _fused_attention_applies(self, cache):
        """Eager training steps without a cache, returned weights or attention dropout run the
        fused attention kernel (the scores, mask, softmax and weighted sum of each head in one
        pass, and one fused backward): the same formula, without the head transposes and the
        [B, H, Lq, Lk] intermediates. Programs (to_static, jit.save) keep the composition,
        which the predictor's passes and the Paddle exporter match."""
        return (cache is None and not self.need_weights and self.training and
                (not self.dropout) and in_dynamic_mode())

    def _fused_forward(self, query, key, value, attn_mask):
        def heads(x):  # [B, L, E] -> [B, L, heads, head_dim]: a reshape, no transpose
            return _C.reshape(x, _leading(x, 2) + [self.num_heads, self.head_dim])
        q, k, v = heads(self.q_proj(query)), heads(self.k_proj(key)), heads(self.v_proj(value))
        mask = _convert_attention_mask(attn_mask, q.dtype)
        out = _C.scaled_dot_product_attention(q, k, v, mask, 0.0, False, False, self.head_dim ** -0.5)
        return self.out_proj(_C.reshape(out, _leading(out, 2) + [self.embed_dim]))


def _activation(where, name):
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if fn is None:
        raise ValueError(f"{where}: unknown activation {name!r} (a name in oar.nn.functional, e.g. "
                         f"'relu' or 'gelu')")
    return fn


class TransformerEncoderLayer(Layer):
    """One Transformer encoder layer: self attention, then a feed-forward block
    (linear - activation - linear), each with dropout, a residual connection and LayerNorm.

    Args:
        d_model (int): Size of the input and output features.
        nhead (int): Number of attention heads; d_model must be divisible by it.
        dim_feedforward (int): Hidden size of the feed-forward block.
        dropout (float, optional): Dropout on the outputs of each sub-block. Default: 0.1.
        activation (str, optional): Activation of the feed-forward block, a name in
            oar.nn.functional ('relu', 'gelu', ...). Default: 'relu'.
        attn_dropout (float, optional): Dropout on the attention weights; None uses dropout.
            Default: None.
        act_dropout (float, optional): Dropout after the activation; None uses dropout.
            Default: None.
        normalize_before (bool, optional): Apply LayerNorm before each sub-block (pre-norm)
            instead of after the residual addition (post-norm). Default: False.
        weight_attr (ParamAttr|list, optional): Attribute of the weights; a list of two gives
            the attention's and the feed-forward block's separately. Default: None.
        bias_attr (ParamAttr|bool|list, optional): Attribute of the biases, likewise.
            Default: None.
        layer_norm_eps (float, optional): epsilon of the LayerNorms. Default: 1e-5.

    Call:
        ``forward(src, src_mask=None, cache=None)``: src [batch, length, d_model]; returns the
        output of the same shape (and the updated cache when a cache from ``gen_cache`` is
        given). Masks are broadcast to [batch, nhead, target_length, source_length]: a bool or integer
    mask keeps the True / nonzero positions (others get -1e9 before the softmax); a float mask
    is added to the attention scores.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> layer = oar.nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32)
        >>> print(layer(oar.randn([2, 4, 16])).shape)
        [2, 4, 16]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        _check_positive("TransformerEncoderLayer", d_model=d_model, nhead=nhead,
                        dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _param_attr_list(weight_attr, 2, "TransformerEncoderLayer")
        bias_attrs = _param_attr_list(bias_attr, 2, "TransformerEncoderLayer")
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0], bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation("TransformerEncoderLayer", activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        """An incremental self-attention cache for ``forward``, batch size taken from ``src``."""
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """A stack of ``num_layers`` Transformer encoder layers, then an optional normalization.

    The first layer is ``encoder_layer`` itself; the others are new layers built with the same
    arguments (their parameters are initialised independently).

    Args:
        encoder_layer (TransformerEncoderLayer): The first layer, and the template of the others.
        num_layers (int): Number of layers.
        norm (Layer, optional): Applied to the output of the last layer, e.g. a LayerNorm.
            Default: None.

    Call:
        ``forward(src, src_mask=None, cache=None)``: src [batch, length, d_model]; returns the
        output of the same shape (and the new caches when a list of caches is given).

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> layer = oar.nn.TransformerEncoderLayer(16, 4, 32)
        >>> encoder = oar.nn.TransformerEncoder(layer, num_layers=2)
        >>> print(encoder(oar.randn([2, 4, 16])).shape, len(encoder.layers))
        [2, 4, 16] 2
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        _check_positive("TransformerEncoder", num_layers=num_layers)
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new_cache = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        """One incremental cache per layer (a list), batch size taken from ``src``."""
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """One Transformer decoder layer: self attention over the target, attention over the encoder's
    output (memory), then a feed-forward block, each with dropout, a residual connection and
    LayerNorm.

    Args:
        d_model (int): Size of the input and output features.
        nhead (int): Number of attention heads; d_model must be divisible by it.
        dim_feedforward (int): Hidden size of the feed-forward block.
        dropout (float, optional): Dropout on the outputs of each sub-block. Default: 0.1.
        activation (str, optional): Activation of the feed-forward block, a name in
            oar.nn.functional ('relu', 'gelu', ...). Default: 'relu'.
        attn_dropout (float, optional): Dropout on the attention weights; None uses dropout.
            Default: None.
        act_dropout (float, optional): Dropout after the activation; None uses dropout.
            Default: None.
        normalize_before (bool, optional): Apply LayerNorm before each sub-block (pre-norm)
            instead of after the residual addition (post-norm). Default: False.
        weight_attr (ParamAttr|list, optional): Attribute of the weights; a list of three gives
            the self attention's, the cross attention's and the feed-forward block's separately.
            Default: None.
        bias_attr (ParamAttr|bool|list, optional): Attribute of the biases, likewise.
            Default: None.
        layer_norm_eps (float, optional): epsilon of the LayerNorms. Default: 1e-5.

    Call:
        ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``: tgt
        [batch, target_length, d_model], memory [batch, source_length, d_model]; returns the
        output shaped as tgt (and the updated cache when one from ``gen_cache`` is given).
        Masks are broadcast to [batch, nhead, target_length, source_length]: a bool or integer
    mask keeps the True / nonzero positions (others get -1e9 before the softmax); a float mask
    is added to the attention scores.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> layer = oar.nn.TransformerDecoderLayer(d_model=16, nhead=4, dim_feedforward=32)
        >>> print(layer(oar.randn([2, 4, 16]), oar.randn([2, 6, 16])).shape)
        [2, 4, 16]
    """

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation="relu",
                 attn_dropout=None, act_dropout=None, normalize_before=False, weight_attr=None,
                 bias_attr=None, layer_norm_eps=1e-5):
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        _check_positive("TransformerDecoderLayer", d_model=d_model, nhead=nhead,
                        dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _param_attr_list(weight_attr, 3, "TransformerDecoderLayer")
        bias_attrs = _param_attr_list(bias_attr, 3, "TransformerDecoderLayer")
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                            weight_attr=weight_attrs[0], bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                             weight_attr=weight_attrs[1], bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation("TransformerDecoderLayer", activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        """The caches for ``forward``: (incremental self-attention cache, static cross-attention
        cache projected from ``memory``).
        """
        incremental = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static = self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache)
        return incremental, static


class TransformerDecoder(Layer):
    """A stack of ``num_layers`` Transformer decoder layers, then an optional normalization.

    The first layer is ``decoder_layer`` itself; the others are new layers built with the same
    arguments.

    Args:
        decoder_layer (TransformerDecoderLayer): The first layer, and the template of the others.
        num_layers (int): Number of layers.
        norm (Layer, optional): Applied to the output of the last layer. Default: None.

    Call:
        ``forward(tgt, memory, tgt_mask=None, memory_mask=None, cache=None)``: returns the
        output shaped as tgt (and the new caches when caches are given).

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> layer = oar.nn.TransformerDecoderLayer(16, 4, 32)
        >>> decoder = oar.nn.TransformerDecoder(layer, num_layers=2)
        >>> print(decoder(oar.randn([2, 4, 16]), oar.randn([2, 6, 16])).shape)
        [2, 4, 16]
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        _check_positive("TransformerDecoder", num_layers=num_layers)
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                                          cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        """One (incremental, static) cache pair per layer, from ``memory``; with ``do_zip`` the list
        is zipped into (incremental caches, static caches).
        """
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attr(attr, where, what):
    """Transformer's weight_attr/bias_attr: one attr, or a list of 1, 2 or 3 spread over the
    encoder's 2 and the decoder's 3 sublayer groups."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return attr, [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], attr
    raise ValueError(f"{where}: length of {what} should be 1 or 2 or 3 when it is a list/tuple, "
                     f"got {len(attr)}")


class Transformer(Layer):
    """The encoder-decoder Transformer of "Attention Is All You Need": a TransformerEncoder and
    a TransformerDecoder, each stack ending in a LayerNorm.

    Args:
        d_model (int, optional): Size of the input and output features. Default: 512.
        nhead (int, optional): Number of attention heads. Default: 8.
        num_encoder_layers (int, optional): Number of encoder layers. Default: 6.
        num_decoder_layers (int, optional): Number of decoder layers. Default: 6.
        dim_feedforward (int, optional): Hidden size of the feed-forward blocks. Default: 2048.
        dropout (float, optional): Dropout on the outputs of each sub-block. Default: 0.1.
        activation (str, optional): Activation of the feed-forward blocks. Default: 'relu'.
        attn_dropout (float, optional): Dropout on the attention weights; None uses dropout.
            Default: None.
        act_dropout (float, optional): Dropout after the activation; None uses dropout.
            Default: None.
        normalize_before (bool, optional): Pre-norm instead of post-norm layers. Default: False.
        weight_attr (ParamAttr|list, optional): Attribute of the weights; a list of one, two or
            three is spread over the encoder's and decoder's sub-blocks. Default: None.
        bias_attr (ParamAttr|bool|list, optional): Attribute of the biases, likewise.
            Default: None.
        custom_encoder (Layer, optional): An encoder to use instead. Default: None.
        custom_decoder (Layer, optional): A decoder to use instead. Default: None.

    Call:
        ``forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None)``: src
        [batch, source_length, d_model], tgt [batch, target_length, d_model]; returns the
        decoder output [batch, target_length, d_model]. Masks are broadcast to [batch, nhead, target_length, source_length]: a bool or integer
    mask keeps the True / nonzero positions (others get -1e9 before the softmax); a float mask
    is added to the attention scores.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> model = oar.nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2,
        ...                            num_decoder_layers=2, dim_feedforward=32)
        >>> src, tgt = oar.randn([2, 6, 16]), oar.randn([2, 4, 16])
        >>> out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4))
        >>> print(out.shape)
        [2, 4, 16]
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None):
        super().__init__()
        _check_positive("Transformer", d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        enc_bias, dec_bias = _split_attr(bias_attr, "Transformer", "bias_attr")
        enc_weight, dec_weight = _split_attr(weight_attr, "Transformer", "weight_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            attn_dropout, act_dropout, normalize_before, enc_weight,
                                            enc_bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            attn_dropout, act_dropout, normalize_before, dec_weight,
                                            dec_bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """A causal mask for the decoder: 0 on and below the diagonal, -inf above it, so that each
        position attends only to itself and earlier ones.

        Args:
            length (int|Tensor): The target length.

        Returns:
            Tensor: [length, length], the default float dtype.

        Examples:
            >>> import oar
            >>> model = oar.nn.Transformer(16, 4, 1, 1, 32)
            >>> print(model.generate_square_subsequent_mask(3))
            Tensor(shape=[3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
                   [[ 0.  , -inf., -inf.],
                    [ 0.  ,  0.  , -inf.],
                    [ 0.  ,  0.  ,  0.  ]])
        """
        if isinstance(length, _C.Tensor):
            length = int(length.item())
        return _C.triu(_C.full([length, length], -float("inf"), get_default_dtype()), 1)
