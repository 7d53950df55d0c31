"""Attention and the Transformer family, as paddle.nn: MultiHeadAttention (with its incremental
Cache and StaticCache for decoding), TransformerEncoderLayer/Encoder, TransformerDecoderLayer/
Decoder and Transformer. Sublayer names (q_proj, self_attn, linear1, norm1, ...) are Paddle's, so
state dicts load both ways."""
import collections
import copy

from ... import _C
from ...framework.dtype import get_default_dtype
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


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over num_heads heads with q/k/v/out projections.

    forward returns out, plus the attention weights when need_weights, plus the updated cache
    when a cache is given (a tuple when more than one)."""

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
        x = _C.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return _C.transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):
        """StaticCache: k/v projected once from key/value (cross attention). Cache with no value:
        empty k/v ([B, heads, 0, head_dim]) that forward grows step by step. Cache with a value:
        (key, value) taken as the cached k/v."""
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
        q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = _C.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = _C.transpose(_C.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(_C.reshape(out, [0, 0, out.shape[2] * out.shape[3]]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


def _activation(where, name):
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if fn is None:
        raise ValueError(f"{where}: unknown activation {name!r} (a name in oar.nn.functional, e.g. "
                         f"'relu' or 'gelu')")
    return fn


class TransformerEncoderLayer(Layer):
    """Self attention then a feed-forward block, each with a residual connection and LayerNorm
    (after, or before with normalize_before)."""

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
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """num_layers encoder layers (the first is encoder_layer, the others fresh copies of its
    configuration), then an optional final norm."""

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
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self attention, cross attention over the encoder's memory, then a feed-forward block, each
    with a residual connection and LayerNorm."""

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
        incremental = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static = self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache)
        return incremental, static


class TransformerDecoder(Layer):
    """num_layers decoder layers (copies of decoder_layer's configuration), then an optional norm."""

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
    """An encoder-decoder Transformer (each stack ending in a LayerNorm)."""

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
        """[length, length] additive causal mask: 0 on and below the diagonal, -inf above."""
        if isinstance(length, _C.Tensor):
            length = int(length.item())
        return _C.triu(_C.full([length, length], -float("inf"), get_default_dtype()), 1)
