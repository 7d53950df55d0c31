"""oar.compat.nn (paddle.compat.nn): layers with PyTorch's constructor signatures and weight layouts
(Linear's weight is [out_features, in_features]; MultiheadAttention's parameters are named as
PyTorch names them), so that a state dict ported from PyTorch loads as it is."""
import collections.abc
import math

from ...nn.layer.common import Unfold as _UnfoldBase
from ...nn.layer.layers import Layer
from .._utils import reject_keywords
from . import functional

__all__ = ["Unfold", "Linear", "Softmax", "AvgPool1D", "AvgPool2D", "AvgPool3D", "AvgPool1d", "AvgPool2d",
           "AvgPool3d", "MultiheadAttention"]


def _oar():
    import oar
    return oar


def _single(v):
    if isinstance(v, collections.abc.Iterable):
        return tuple(v)
    return (v,)


class AvgPool1D(Layer):
    """1-D average pooling with PyTorch's arguments (torch.nn.AvgPool1d) over [N, C, L] inputs.

    Args:
        kernel_size (int|tuple): The window.
        stride (int|tuple, optional): The step; None takes kernel_size. Default: None.
        padding (int|tuple, optional): Zero padding on both sides. Default: 0.
        ceil_mode (bool, optional): Round the output length up. Default: False.
        count_include_pad (bool, optional): Divide by the whole window, padding included. Default: True.

    Examples:
        >>> import oar
        >>> pool = oar.compat.nn.AvgPool1D(3, padding=1, count_include_pad=False)
        >>> print(pool(oar.arange(6, dtype='float32').reshape([1, 1, 6])).numpy())
        [[[0.5 3. ]]]
    """

    @reject_keywords({"exclusive", "name"}, "paddle.compat.nn.AvgPool1D", "paddle.nn.AvgPool1D")
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return _oar().nn.functional.avg_pool1d(input, list(self.kernel_size), list(self.stride),
                                               list(self.padding), not self.count_include_pad, self.ceil_mode)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2D(Layer):
    """2-D average pooling with PyTorch's arguments (torch.nn.AvgPool2d) over [N, C, H, W] inputs.

    Args:
        kernel_size (int|tuple): The window.
        stride (int|tuple, optional): The step; None takes kernel_size. Default: None.
        padding (int|tuple, optional): Zero padding. Default: 0.
        ceil_mode (bool, optional): Round the output size up. Default: False.
        count_include_pad (bool, optional): Divide by the whole window, padding included. Default: True.
        divisor_override (int, optional): Divide by this instead. Default: None.

    Examples:
        >>> import oar
        >>> pool = oar.compat.nn.AvgPool2D(2)
        >>> print(pool(oar.ones([1, 1, 4, 4])).shape)
        [1, 1, 2, 2]
    """

    _pool = "avg_pool2d"

    @reject_keywords({"exclusive", "data_format", "name"}, "paddle.compat.nn.AvgPool2D", "paddle.nn.AvgPool2D")
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        pool = getattr(_oar().nn.functional, self._pool)
        return pool(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, not self.count_include_pad,
                    self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3D(AvgPool2D):
    """3-D average pooling with PyTorch's arguments (torch.nn.AvgPool3d) over [N, C, D, H, W] inputs.

    Args:
        kernel_size (int|tuple): The window.
        stride (int|tuple, optional): The step; None takes kernel_size. Default: None.
        padding (int|tuple, optional): Zero padding. Default: 0.
        ceil_mode (bool, optional): Round the output size up. Default: False.
        count_include_pad (bool, optional): Divide by the whole window, padding included. Default: True.
        divisor_override (int, optional): Divide by this instead. Default: None.

    Examples:
        >>> import oar
        >>> pool = oar.compat.nn.AvgPool3D(2, stride=1)
        >>> print(pool(oar.ones([1, 1, 3, 3, 3])).shape)
        [1, 1, 2, 2, 2]
    """

    _pool = "avg_pool3d"

    @reject_keywords({"exclusive", "data_format", "name"}, "paddle.compat.nn.AvgPool3D", "paddle.nn.AvgPool3D")
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        Layer.__init__(self)
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override


AvgPool1d = AvgPool1D
AvgPool2d = AvgPool2D
AvgPool3d = AvgPool3D


class Unfold(_UnfoldBase):
    """Sliding-block extraction with PyTorch's argument names and order (torch.nn.Unfold):
    kernel_size, dilation, padding, stride.

    Args:
        kernel_size (int|list|tuple): The block size.
        dilation (int|list|tuple, optional): Default: 1.
        padding (int|list|tuple, optional): Default: 0.
        stride (int|list|tuple, optional): Default: 1.

    Examples:
        >>> import oar
        >>> unfold = oar.compat.nn.Unfold(kernel_size=2, stride=2)
        >>> print(unfold(oar.rand([1, 3, 4, 4])).shape)
        [1, 12, 4]
    """

    @reject_keywords({"kernel_sizes", "dilations", "paddings", "strides"}, "paddle.compat.nn.Unfold",
                     "paddle.nn.Unfold")
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)

    def forward(self, input):
        return functional.unfold(input, self.kernel_sizes, self.dilations, self.paddings, self.strides)



class Linear(Layer):
    """y = x W^T + b with PyTorch's layout (torch.nn.Linear): weight [out_features, in_features].
    Initialised as Paddle's compat Linear: weight uniform in +-1/sqrt(out_features) (Kaiming uniform,
    a=sqrt(5), fan taken from the weight's first axis), bias uniform in +-1/sqrt(in_features).

    Args:
        in_features (int): Input size.
        out_features (int): Output size.
        bias (bool, optional): Add a learnable bias. Default: True.
        device (str|Place, optional): Where the parameters live. Default: None.
        dtype (str|dtype, optional): The parameters' dtype; None is the default dtype. Default: None.

    Examples:
        >>> import oar
        >>> fc = oar.compat.nn.Linear(3, 4)
        >>> print(fc.weight.shape, fc(oar.ones([2, 3])).shape)
        [4, 3] [2, 4]
    """

    @reject_keywords({"weight_attr", "bias_attr", "name"}, "paddle.compat.nn.Linear", "paddle.nn.Linear")
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        oar = _oar()
        super().__init__()
        self._dtype = oar.get_default_dtype() if dtype is None else dtype
        self.in_features = in_features
        self.out_features = out_features
        self.weight = self.create_parameter(shape=[out_features, in_features], dtype=self._dtype, is_bias=False,
                                            device=device)
        self.bias = None
        if bias:
            self.bias = self.create_parameter(shape=[out_features], dtype=self._dtype, is_bias=True, device=device)
        self.reset_parameters()

    def forward(self, input):
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"

    def reset_parameters(self):
        """Re-draws the weight (uniform in +-1/sqrt(out_features)) and the bias (uniform in
        +-1/sqrt(in_features))."""
        oar = _oar()
        fan = self.weight.shape[0]
        bound = 1.0 / math.sqrt(fan) if fan > 0 else 0.0
        with oar.no_grad():
            self.weight.set_value(oar.uniform(self.weight.shape, dtype=self.weight.dtype, min=-bound, max=bound))
            if self.bias is not None:
                fan_in = self.weight.shape[1]
                bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
                self.bias.set_value(oar.uniform(self.bias.shape, dtype=self.bias.dtype, min=-bound, max=bound))


class Softmax(Layer):
    """Softmax along dim (torch.nn.Softmax); without dim, PyTorch's legacy choice of axis (see
    oar.compat.nn.functional.softmax).

    Args:
        dim (int, optional): The axis. Default: None.

    Examples:
        >>> import oar
        >>> print(oar.compat.nn.Softmax(dim=-1)(oar.to_tensor([[1., 1.]])).numpy())
        [[0.5 0.5]]
    """

    @reject_keywords({"axis"}, "paddle.compat.nn.Softmax", "paddle.nn.Softmax")
    def __init__(self, dim=None):
        super().__init__()
        self._dim = dim
        self._dtype = None

    def forward(self, input):
        return functional.softmax(input, self._dim)

    def extra_repr(self):
        return f"dim={self._dim}"


class MultiheadAttention(Layer):
    """Multi-head attention with PyTorch's interface (torch.nn.MultiheadAttention): inputs
    [seq, batch, embed] (or [batch, seq, embed] with batch_first, or unbatched [seq, embed]),
    forward returns (output, attention weights or None). Parameters as PyTorch names them:
    in_proj_weight [3*embed, embed] and in_proj_bias when kdim == vdim == embed_dim, else
    q/k/v_proj_weight and q/k/v_proj_bias; out_proj (a compat Linear); bias_k and bias_v with
    add_bias_kv.

    Args:
        embed_dim (int): Model width.
        num_heads (int): Heads; must divide embed_dim.
        dropout (float, optional): Dropout of the attention weights in training. Default: 0.0.
        bias (bool, optional): Projection biases. Default: True.
        add_bias_kv (bool, optional): Append learned bias_k/bias_v to the key/value sequences. Default: False.
        add_zero_attn (bool, optional): Append a zero key/value position. Default: False.
        kdim (int, optional): Key width; None is embed_dim. Default: None.
        vdim (int, optional): Value width; None is embed_dim. Default: None.
        batch_first (bool, optional): Inputs are [batch, seq, embed]. Default: False.
        device (str|Place, optional): Where the parameters live. Default: None.
        dtype (str|dtype, optional): The parameters' dtype. Default: None.

    Examples:
        >>> import oar
        >>> mha = oar.compat.nn.MultiheadAttention(8, 2)
        >>> q = oar.rand([5, 3, 8])
        >>> out, weights = mha(q, q, q)
        >>> print(out.shape, weights.shape)
        [5, 3, 8] [3, 5, 5]
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        oar = _oar()
        if dtype:
            super().__init__(dtype=dtype)
        else:
            super().__init__()
        init = oar.nn.initializer
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError(f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads "
                                 f"({num_heads})")
        self.in_proj_bias = self.q_proj_bias = self.k_proj_bias = self.v_proj_bias = None

        def weight(shape, initializer):
            return self.create_parameter(shape=shape, dtype=self._dtype, is_bias=False, device=device,
                                         default_initializer=initializer)

        def bias_param(shape):
            return self.create_parameter(shape=shape, dtype=self._dtype, is_bias=True, device=device)

        if self._qkv_same_embed_dim:
            self.in_proj_weight = weight([3 * embed_dim, embed_dim], init.XavierUniform())
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
            if bias:
                self.in_proj_bias = bias_param([3 * embed_dim])
        else:
            self.q_proj_weight = weight([embed_dim, embed_dim], init.XavierUniform())
            self.k_proj_weight = weight([embed_dim, self.kdim], init.XavierUniform())
            self.v_proj_weight = weight([embed_dim, self.vdim], init.XavierUniform())
            self.in_proj_weight = None
            if bias:
                self.q_proj_bias = bias_param([embed_dim])
                self.k_proj_bias = bias_param([embed_dim])
                self.v_proj_bias = bias_param([embed_dim])
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias, dtype=self._dtype)
        self.add_bias_kv = add_bias_kv
        self.add_zero_attn = add_zero_attn
        if add_bias_kv:
            self.bias_k = self.create_parameter(shape=[1, 1, embed_dim], dtype=self._dtype, is_bias=True,
                                                device=device, default_initializer=init.XavierNormal())
            self.bias_v = self.create_parameter(shape=[1, 1, embed_dim], dtype=self._dtype, is_bias=True,
                                                device=device, default_initializer=init.XavierNormal())
        else:
            self.bias_k = self.bias_v = None

    @staticmethod
    def _bool_to_float(mask, dtype):
        oar = _oar()
        filler = oar.full([], oar.finfo(dtype).min, dtype=dtype)
        return oar.where(mask, filler, oar.zeros(mask.shape, dtype=dtype))

    def _combine(self, a, b, dtype):
        if a.dtype == _oar().bool and b.dtype == _oar().bool:
            return a | b
        if a.dtype == _oar().bool:
            a = self._bool_to_float(a, dtype)
        if b.dtype == _oar().bool:
            b = self._bool_to_float(b, dtype)
        return a + b

    @staticmethod
    def _pad_last(mask, amount):
        oar = _oar()
        return oar.concat([mask, oar.zeros([*mask.shape[:-1], amount], dtype=mask.dtype)], axis=-1)

    def _project(self, query, key, value):
        F = _oar().nn.functional
        if self._qkv_same_embed_dim:
            if query is key and key is value:
                qkv = F.linear(query, self.in_proj_weight.T, self.in_proj_bias)
                return qkv.split(3, axis=-1)
            qw, kw, vw = self.in_proj_weight.chunk(3, axis=0)
            qb, kb, vb = self.in_proj_bias.chunk(3, axis=0) if self.in_proj_bias is not None else (None,) * 3
            return F.linear(query, qw.T, qb), F.linear(key, kw.T, kb), F.linear(value, vw.T, vb)
        return (F.linear(query, self.q_proj_weight.T, self.q_proj_bias),
                F.linear(key, self.k_proj_weight.T, self.k_proj_bias),
                F.linear(value, self.v_proj_weight.T, self.v_proj_bias))

    def _heads(self, q, k, v, batch, tgt_len):
        oar = _oar()
        if self.add_bias_kv:
            k = oar.concat([k, self.bias_k.expand([batch, -1, -1])], axis=1)
            v = oar.concat([v, self.bias_v.expand([batch, -1, -1])], axis=1)
        q = q.reshape([batch, tgt_len, self.num_heads, self.head_dim]).transpose([0, 2, 1, 3])
        src_len = k.shape[1]
        k = k.reshape([batch, src_len, self.num_heads, self.head_dim]).transpose([0, 2, 1, 3])
        v = v.reshape([batch, src_len, self.num_heads, self.head_dim]).transpose([0, 2, 1, 3])
        if self.add_zero_attn:
            zeros = oar.zeros([batch, self.num_heads, 1, self.head_dim], dtype=k.dtype)
            k = oar.concat([k, zeros], axis=2)
            v = oar.concat([v, zeros], axis=2)
        return q, k, v

    def _mask(self, attn_mask, key_padding_mask, tgt_len, src_len, dtype, batch, is_causal, need_weights):
        oar = _oar()
        if (is_causal and not self.add_bias_kv and not self.add_zero_attn and key_padding_mask is None
                and not need_weights):
            return None
        if attn_mask is None and not is_causal and key_padding_mask is None:
            return None
        if attn_mask is None:
            if is_causal:
                attn_mask = oar.triu(oar.ones([tgt_len, src_len], dtype="bool"), diagonal=1)
            else:
                attn_mask = oar.zeros([tgt_len, src_len], dtype=dtype)
        extra = int(self.add_zero_attn) + int(self.add_bias_kv)
        if extra:
            attn_mask = self._pad_last(attn_mask, extra)
            if key_padding_mask is not None:
                key_padding_mask = self._pad_last(key_padding_mask, extra)
        if attn_mask.ndim == 2:
            attn_mask = attn_mask.expand([batch * self.num_heads, *attn_mask.shape])
        if attn_mask.ndim == 3:
            attn_mask = attn_mask.reshape([batch, self.num_heads, tgt_len, -1])
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze([1, 2]).tile([1, *attn_mask.shape[1:3], 1])
            attn_mask = self._combine(attn_mask, key_padding_mask, dtype)
        if attn_mask.dtype != dtype:
            attn_mask = (self._bool_to_float(attn_mask, dtype) if attn_mask.dtype == oar.bool
                         else attn_mask.astype(dtype))
        return attn_mask

    def _attend(self, q, k, v, mask, need_weights, is_causal):
        oar = _oar()
        F = oar.nn.functional
        batch, _, tgt_len, _ = q.shape
        is_causal = is_causal and mask is None
        if not need_weights:
            out = functional.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                                          dropout_p=self.dropout if self.training else 0.0,
                                                          is_causal=is_causal)
            return out.transpose([0, 2, 1, 3]).reshape([batch, tgt_len, self.embed_dim]), None
        scores = oar.matmul(q, k, transpose_y=True) / self.head_dim ** 0.5
        if mask is not None:
            if mask.dtype == oar.bool:
                mask = self._bool_to_float(mask, scores.dtype)
            scores = scores + mask
        weights = F.softmax(scores, axis=-1)
        weights = F.dropout(weights, self.dropout, training=self.training)
        ctx = oar.matmul(weights, v)
        return ctx.transpose([0, 2, 1, 3]).reshape([batch, tgt_len, self.embed_dim]), weights

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """Attention of query over key/value.

        Args:
            query (Tensor): [tgt, batch, embed] ([batch, tgt, embed] with batch_first; [tgt, embed] unbatched).
            key (Tensor): [src, batch, kdim].
            value (Tensor): [src, batch, vdim].
            key_padding_mask (Tensor, optional): [batch, src]; True (or a float added) marks padding. Default: None.
            need_weights (bool, optional): Also return the attention weights. Default: True.
            attn_mask (Tensor, optional): [tgt, src] or [batch*heads, tgt, src]; boolean True blocks,
                a float mask is added. Default: None.
            average_attn_weights (bool, optional): Average the weights over heads. Default: True.
            is_causal (bool, optional): Causal mask when attn_mask is None. Default: False.

        Returns:
            tuple: (output, weights or None).
        """
        batched = query.ndim == 3
        if not batched:
            axis = 0 if self.batch_first else 1
            query, key, value = query.unsqueeze(axis), key.unsqueeze(axis), value.unsqueeze(axis)
            if key_padding_mask is not None and key_padding_mask.ndim != 2:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        if not self.batch_first:
            query, key, value = (t.transpose([1, 0, 2]) for t in (query, key, value))
        batch, tgt_len, _ = query.shape
        src_len = key.shape[1]
        if key_padding_mask is not None and list(key_padding_mask.shape) != [batch, src_len]:
            raise AssertionError(f"MultiheadAttention: key_padding_mask must be [{batch}, {src_len}], "
                                 f"got {list(key_padding_mask.shape)}")
        q, k, v = self._project(query, key, value)
        q, k, v = self._heads(q, k, v, batch, tgt_len)
        mask = self._mask(attn_mask, key_padding_mask, tgt_len, src_len, q.dtype, batch, is_causal, need_weights)
        out, weights = self._attend(q, k, v, mask, need_weights, is_causal)
        out = self.out_proj(out)
        if not self.batch_first:
            out = out.transpose([1, 0, 2])
        if need_weights and weights is not None and average_attn_weights:
            weights = weights.mean(axis=1)
        if not batched:
            out = out.squeeze(0 if self.batch_first else 1)
            if weights is not None:
                weights = weights.squeeze(0)
        return out, weights
