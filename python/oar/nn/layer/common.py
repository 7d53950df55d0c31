"""Common layers, as paddle.nn: Linear, Bilinear, Identity, Flatten/Unflatten, the dropouts, Embedding,
Upsample, the Pad family, pixel/channel shuffles, Fold/Unfold and the two distance layers."""
from ... import _C
from .. import functional as F
from .layers import Layer


class Identity(Layer):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Layer):
    """y = x @ weight + bias with weight [in_features, out_features] (Paddle's layout)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._dtype = _C.get_default_dtype()
        self.in_features, self.out_features, self.name = in_features, out_features, name
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr, dtype=self._dtype)
        self.bias = self.create_parameter([out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        name = f", name={self.name}" if self.name else ""
        return f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, dtype={self.weight.dtype.name}{name}"


class Bilinear(Layer):
    """out[:, k] = x1 @ weight[k] @ x2^T + bias[k]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._dtype = _C.get_default_dtype()
        self._in1_features, self._in2_features, self._out_features = in1_features, in2_features, out_features
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr,
                                            dtype=self._dtype)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, dtype=self._dtype, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype.name}")


class Flatten(Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return _C.flatten(input, self.start_axis, self.stop_axis)


class Unflatten(Layer):
    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape = axis, shape

    def forward(self, input):
        from ... import unflatten
        return unflatten(input, self.axis, self.shape)

    def extra_repr(self):
        return f"axis={self.axis}, shape={list(self.shape)}"


class Dropout(Layer):
    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None, inplace=False):
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"Dropout: 'p' must be a float in [0, 1], but got {p!r}")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"Dropout: 'mode' must be 'upscale_in_train' or 'downscale_in_infer', but got {mode!r}")
        self.p, self.axis, self.mode, self.inplace = p, axis, mode, inplace

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode)

    def extra_repr(self):
        return f"p={self.p}, axis={self.axis}, mode={self.mode}, inplace={self.inplace}"


class Dropout2D(Layer):
    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, input):
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}"


class Dropout3D(Dropout2D):
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format)

    def forward(self, input):
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format)


class AlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        if not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: 'p' must be a float in [0, 1], but got {p!r}")
        self.p = p

    def forward(self, input):
        return F.alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        return f"p={self.p}"


class FeatureAlphaDropout(AlphaDropout):
    def forward(self, input):
        return F.feature_alpha_dropout(input, p=self.p, training=self.training)


class Embedding(Layer):
    """A lookup table [num_embeddings, embedding_dim]; the padding_idx row starts at zero."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0, *,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None,
                 weight_attr=None, name=None):
        super().__init__()
        if num_embeddings <= 0 or embedding_dim <= 0:
            raise ValueError(f"Embedding: num_embeddings and embedding_dim must be positive, but got "
                             f"{num_embeddings} and {embedding_dim}")
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"padding_idx must be within [-{num_embeddings}, {num_embeddings})")
        self._num_embeddings, self._embedding_dim = num_embeddings, embedding_dim
        self._padding_idx = None if padding_idx is None else padding_idx % num_embeddings
        self._padding_idx_arg = padding_idx
        self._max_norm, self._norm_type = max_norm, norm_type
        self._sparse, self._scale_grad_by_freq = sparse, scale_grad_by_freq
        self._dtype = dtype or _C.get_default_dtype()
        from ..initializer import Assign
        default = Assign(_weight) if _weight is not None else None
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                            dtype=self._dtype, default_initializer=default)
        if _freeze:
            self.weight.stop_gradient = True
        if self._padding_idx is not None and _weight is None:
            from ...autograd import no_grad
            with no_grad():
                self.weight[self._padding_idx] = 0.0

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx, max_norm=self._max_norm,
                           norm_type=self._norm_type, sparse=self._sparse,
                           scale_grad_by_freq=self._scale_grad_by_freq)

    def extra_repr(self):
        text = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx_arg is not None:
            text += f", padding_idx={self._padding_idx_arg}"
        return text + f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"


class Upsample(Layer):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False, align_mode=0,
                 data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format = align_corners, align_mode, data_format
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format, recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        what = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return (f"{what}, mode={self.mode}, align_corners={self.align_corners}, align_mode={self.align_mode}, "
                f"data_format={self.data_format}")


class UpsamplingNearest2D(Layer):
    _mode = "nearest"

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__()
        self.size, self.scale_factor, self.data_format = size, scale_factor, data_format

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self._mode,
                             align_corners=self._mode == "bilinear", align_mode=0, data_format=self.data_format)

    def extra_repr(self):
        what = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else f"size={self.size}"
        return f"{what}, data_format={self.data_format}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    _mode = "bilinear"


def _expand_padding(padding, dims):
    if isinstance(padding, int):
        return [padding] * (2 * dims)
    if isinstance(padding, _C.Tensor):
        return padding
    padding = list(padding)
    if len(padding) != 2 * dims:
        raise ValueError(f"padding: expected an int or {2 * dims} values, but got {padding}")
    return padding


class _PadND(Layer):
    _dims, _mode, _default_format = 1, "constant", "NCL"

    def __init__(self, padding, mode=None, value=0.0, data_format=None, name=None):
        super().__init__()
        self._pad = _expand_padding(padding, self._dims)
        self._mode = mode or type(self)._mode
        self._value = float(value)
        self._data_format = data_format or self._default_format

    def forward(self, x):
        return F.pad(x, self._pad, mode=self._mode, value=self._value, data_format=self._data_format)

    def extra_repr(self):
        return f"padding={self._pad}, mode={self._mode}, value={self._value}, data_format={self._data_format}"


class Pad1D(_PadND):
    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadND):
    _dims, _default_format = 2, "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad3D(_PadND):
    _dims, _default_format = 3, "NCDHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format)


def _fixed_mode_pad(dims, mode, fmt, with_value=False):
    """Pad classes whose mode is part of the name (ZeroPad2D, ReflectionPad1D, ...)."""
    if with_value:
        def __init__(self, padding, value, data_format=fmt, name=None):
            _PadND.__init__(self, padding, mode, value, data_format)
    else:
        def __init__(self, padding, data_format=fmt, name=None):
            _PadND.__init__(self, padding, mode, 0.0, data_format)
    return {"_dims": dims, "_mode": mode, "_default_format": fmt, "__init__": __init__}


_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}
for _d in (1, 2, 3):
    for _prefix, _mode in (("Zero", "constant"), ("Reflection", "reflect"), ("Replication", "replicate"),
                           ("Circular", "circular")):
        globals()[f"{_prefix}Pad{_d}D"] = type(f"{_prefix}Pad{_d}D", (_PadND,),
                                               _fixed_mode_pad(_d, _mode, _FORMATS[_d]))
    globals()[f"ConstantPad{_d}D"] = type(f"ConstantPad{_d}D", (_PadND,),
                                          _fixed_mode_pad(_d, "constant", _FORMATS[_d], with_value=True))


class PixelShuffle(Layer):
    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self):
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"upscale_factor={self._upscale_factor}{fmt}"


class PixelUnshuffle(Layer):
    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._downscale_factor, self._data_format = downscale_factor, data_format

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self):
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"downscale_factor={self._downscale_factor}{fmt}"


class ChannelShuffle(Layer):
    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"groups={self._groups}{fmt}"


class Unfold(Layer):
    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides

    def forward(self, input):
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}")


class Fold(Unfold):
    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__(kernel_sizes, dilations, paddings, strides)
        self.output_sizes = output_sizes

    def forward(self, input):
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides, self.paddings, self.dilations)


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class PairwiseDistance(Layer):
    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim = p, epsilon, keepdim

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self):
        text = f"p={self.p}"
        if self.epsilon != 1e-6:
            text += f", epsilon={self.epsilon}"
        if self.keepdim:
            text += ", keepdim=True"
        return text
