"""Common layers, as paddle.nn: Linear, Bilinear, Identity, Flatten/Unflatten, the dropouts, Embedding,
Upsample, the Pad family, pixel/channel shuffles, Fold/Unfold and the two distance layers."""
from ... import _C
from .. import functional as F
from .layers import Layer


class Identity(Layer):
    """A placeholder layer that returns its input unchanged.

    Args:
        *args, **kwargs: Accepted and ignored, so that Identity can stand in for any layer.

    Shape:
        - input: a Tensor of any shape.
        - output: the same Tensor.

    Examples:
        >>> import oar
        >>> m = oar.nn.Identity(54, unused="argument")
        >>> print(m(oar.to_tensor([1.0, 2.0])))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 2.])
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Layer):
    """Fully connected layer: ``out = x @ weight + bias``.

    The weight has shape [in_features, out_features] (Paddle's layout, the transpose of PyTorch's)
    and is Xavier-initialised by default; the bias has shape [out_features] and starts at zero.

    Args:
        in_features (int): Size of the last dimension of the input.
        out_features (int): Size of the last dimension of the output.
        weight_attr (ParamAttr, optional): Attribute of the weight (initializer, name, ...).
            Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias; False for no bias.
            Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Attributes:
        weight (Parameter): The learnable weight, [in_features, out_features].
        bias (Parameter): The learnable bias, [out_features] (None when bias_attr is False).

    Shape:
        - input: [batch_size, *, in_features].
        - output: [batch_size, *, out_features].

    Examples:
        >>> import oar
        >>> init = oar.nn.initializer.Constant
        >>> linear = oar.nn.Linear(2, 3, weight_attr=oar.ParamAttr(initializer=init(0.5)),
        ...                        bias_attr=oar.ParamAttr(initializer=init(1.0)))
        >>> print(linear)
        Linear(in_features=2, out_features=3, dtype=float32)
        >>> print(linear(oar.to_tensor([[1.0, 2.0]])))
        Tensor(shape=[1, 3], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[2.50000000, 2.50000000, 2.50000000]])
    """

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
    """Bilinear layer: ``out[:, k] = x1 @ weight[k] @ x2^T + bias[k]`` for each output feature k.

    Args:
        in1_features (int): Size of the last dimension of the first input.
        in2_features (int): Size of the last dimension of the second input.
        out_features (int): Number of output features.
        weight_attr (ParamAttr, optional): Attribute of the weight [out_features, in1_features,
            in2_features]. Default: None.
        bias_attr (ParamAttr|bool, optional): Attribute of the bias [1, out_features]; False for
            no bias. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - x1: [batch_size, in1_features]; x2: [batch_size, in2_features].
        - output: [batch_size, out_features].

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.Bilinear(3, 4, 5)
        >>> out = m(oar.randn([2, 3]), oar.randn([2, 4]))
        >>> print(out.shape)
        [2, 5]
    """

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
    """Flattens the dimensions ``start_axis`` to ``stop_axis`` (inclusive) into one.

    Args:
        start_axis (int, optional): First dimension to flatten. Default: 1.
        stop_axis (int, optional): Last dimension to flatten. Default: -1.

    Shape:
        - input: a Tensor of any shape.
        - output: the same dimensions, with start_axis..stop_axis replaced by their product.

    Examples:
        >>> import oar
        >>> m = oar.nn.Flatten()
        >>> print(m(oar.zeros([2, 3, 4, 5])).shape)
        [2, 60]
    """

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return _C.flatten(input, self.start_axis, self.stop_axis)


class Unflatten(Layer):
    """Splits dimension ``axis`` of the input into ``shape``; the inverse of Flatten.

    Args:
        axis (int): The dimension to split.
        shape (list|tuple|Tensor): The sizes it is split into; their product must equal the
            size of ``axis`` (one entry may be -1).
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape.
        - output: the input's shape with ``axis`` replaced by ``shape``.

    Examples:
        >>> import oar
        >>> m = oar.nn.Unflatten(1, [2, 3])
        >>> print(m(oar.zeros([4, 6])).shape)
        [4, 2, 3]
    """

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape = axis, shape

    def forward(self, input):
        from ... import unflatten
        return unflatten(input, self.axis, self.shape)

    def extra_repr(self):
        return f"axis={self.axis}, shape={list(self.shape)}"


class Dropout(Layer):
    """Dropout: while training, zeroes each element with probability ``p``.

    In 'upscale_in_train' mode the kept elements are scaled by ``1 / (1 - p)`` while training and
    the layer is the identity in evaluation; in 'downscale_in_infer' mode nothing is scaled while
    training and the output is multiplied by ``1 - p`` in evaluation.

    Args:
        p (float, optional): Probability of zeroing an element, in [0, 1]. Default: 0.5.
        axis (int|list|tuple, optional): Axes along which one mask is drawn and broadcast over
            the others; None draws one per element. Default: None.
        mode (str, optional): 'upscale_in_train' or 'downscale_in_infer'.
            Default: 'upscale_in_train'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape.
        - output: a Tensor of the same shape.

    Examples:
        >>> import oar
        >>> m = oar.nn.Dropout(p=0.5)
        >>> oar.seed(2024)
        >>> print(m(oar.ones([2, 3])).shape)
        [2, 3]
        >>> m.eval()
        Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)
        >>> print(m(oar.ones([3])))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 1., 1.])
    """

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
    """Channel-wise dropout for 4-D input: while training, zeroes whole channels with
    probability ``p`` and scales the others by ``1 / (1 - p)``; the identity in evaluation.

    Args:
        p (float, optional): Probability of zeroing a channel. Default: 0.5.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.Dropout2D(p=0.5)
        >>> print(m(oar.ones([2, 3, 4, 4])).shape)
        [2, 3, 4, 4]
    """

    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format = p, data_format

    def forward(self, input):
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self):
        return f"p={self.p}, data_format={self.data_format}"


class Dropout3D(Dropout2D):
    """Channel-wise dropout for 5-D input: while training, zeroes whole channels with
    probability ``p`` and scales the others by ``1 / (1 - p)``; the identity in evaluation.

    Args:
        p (float, optional): Probability of zeroing a channel. Default: 0.5.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W] (or [N, D, H, W, C]).
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.Dropout3D(p=0.5)
        >>> print(m(oar.ones([2, 3, 2, 4, 4])).shape)
        [2, 3, 2, 4, 4]
    """

    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format)

    def forward(self, input):
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format)


class AlphaDropout(Layer):
    """Alpha dropout, for SELU networks: drops elements to SELU's negative saturation value
    and applies an affine correction, so that the mean and variance of the input are kept.
    The identity in evaluation.

    Args:
        p (float, optional): Probability of dropping an element, in [0, 1]. Default: 0.5.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape.
        - output: a Tensor of the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.AlphaDropout(p=0.2)
        >>> print(m(oar.ones([2, 3])).shape)
        [2, 3]
    """

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
    """Alpha dropout of whole channels: as AlphaDropout, but one draw per channel (dimension 1)
    of each sample. The identity in evaluation.

    Args:
        p (float, optional): Probability of dropping a channel, in [0, 1]. Default: 0.5.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, *].
        - output: the same shape.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> m = oar.nn.FeatureAlphaDropout(p=0.2)
        >>> print(m(oar.ones([2, 3, 4])).shape)
        [2, 3, 4]
    """

    def forward(self, input):
        return F.feature_alpha_dropout(input, p=self.p, training=self.training)


class Embedding(Layer):
    """Embedding lookup: maps integer ids to rows of a learnable table [num_embeddings, embedding_dim].

    Args:
        num_embeddings (int): Size of the vocabulary (rows of the table).
        embedding_dim (int): Size of each embedding vector.
        padding_idx (int, optional): An id whose row starts at zero and gets no gradient;
            negative values count from num_embeddings. Default: None.
        max_norm (float, optional): Rows looked up are renormalised to at most this norm.
            Default: None.
        norm_type (float, optional): The p of the max_norm norm. Default: 2.0.
        sparse (bool, optional): Keyword-only. Gradient as a sparse update (Paddle's flag; the
            result is the same). Default: False.
        weight_attr (ParamAttr, optional): Keyword-only. Attribute of the table (initializer,
            name, ...); Xavier-initialised by default. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: an int32/int64 Tensor of any shape.
        - output: the input's shape followed by [embedding_dim].

    Examples:
        >>> import oar
        >>> emb = oar.nn.Embedding(10, 3, padding_idx=0)
        >>> ids = oar.to_tensor([[0, 2], [4, 0]])
        >>> print(emb(ids).shape)
        [2, 2, 3]
        >>> print(emb(oar.to_tensor([0])))
        Tensor(shape=[1, 3], dtype=float32, place=Place(cpu), stop_gradient=False,
               [[0., 0., 0.]])
    """

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
    """Resizes a batch of 1-D, 2-D or 3-D signals to ``size`` or by ``scale_factor``.

    Args:
        size (int|list|tuple|Tensor, optional): Output spatial size. Give size or scale_factor.
            Default: None.
        scale_factor (float|list|tuple|Tensor, optional): Multiplier of the spatial size.
            Default: None.
        mode (str, optional): 'nearest', 'linear', 'bilinear', 'bicubic', 'trilinear' or 'area'.
            Default: 'nearest'.
        align_corners (bool, optional): Align the corner pixels of input and output (linear
            modes). Default: False.
        align_mode (int, optional): 0 (half-pixel) or 1 (asymmetric) source coordinates for the
            linear modes when align_corners is False. Default: 0.
        data_format (str, optional): 'NCW', 'NWC', 'NCHW', 'NHWC', 'NCDHW' or 'NDHWC'; None
            picks the channels-first format of the input's rank. Default: None.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, W], [N, C, H, W] or [N, C, D, H, W] (or channels last).
        - output: the same N and C, resized spatial dimensions.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> m = oar.nn.Upsample(scale_factor=2, mode="nearest")
        >>> print(m(x))
        Tensor(shape=[1, 1, 4, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.],
                  [3., 3., 4., 4.],
                  [3., 3., 4., 4.]]]])
    """

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
    """Nearest-neighbour upsampling of 4-D input to ``size`` or by ``scale_factor``.

    Args:
        size (int|list|tuple, optional): Output [H, W]. Give size or scale_factor. Default: None.
        scale_factor (float|list|tuple, optional): Multiplier of H and W. Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> m = oar.nn.UpsamplingNearest2D(scale_factor=2)
        >>> print(m(x).shape)
        [1, 1, 4, 4]
    """
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
    """Bilinear upsampling of 4-D input (corners aligned) to ``size`` or by ``scale_factor``.

    Args:
        size (int|list|tuple, optional): Output [H, W]. Give size or scale_factor. Default: None.
        scale_factor (float|list|tuple, optional): Multiplier of H and W. Default: None.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H_out, W_out].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
        >>> m = oar.nn.UpsamplingBilinear2D(size=[3, 3])
        >>> print(m(x))
        Tensor(shape=[1, 1, 3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[1.        , 1.50000000, 2.        ],
                  [2.        , 2.50000000, 3.        ],
                  [3.        , 3.50000000, 4.        ]]]])
    """
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
    """Pads the last dimension of a 3-D input.

    Args:
        padding (int|list|Tensor): [left, right], or one int for both.
        mode (str, optional): 'constant' (fill with ``value``), 'reflect' (mirror, edge excluded),
            'replicate' (repeat the edge) or 'circular' (wrap around). Default: 'constant'.
        value (float, optional): The fill value of 'constant' mode. Default: 0.0.
        data_format (str, optional): 'NCL' or 'NLC'. Default: 'NCL'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, L] (or [N, L, C]).
        - output: [N, C, L + left + right].

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[[1.0, 2.0, 3.0]]])
        >>> print(oar.nn.Pad1D([1, 2], value=9.0)(x))
        Tensor(shape=[1, 1, 6], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[9., 1., 2., 3., 9., 9.]]])
        >>> print(oar.nn.Pad1D(1, mode="reflect")(x))
        Tensor(shape=[1, 1, 5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[2., 1., 2., 3., 2.]]])
    """

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad2D(_PadND):
    """Pads the last two (spatial) dimensions of a 4-D input.

    Args:
        padding (int|list|Tensor): [left, right, top, bottom], or one int for all four.
        mode (str, optional): 'constant', 'reflect', 'replicate' or 'circular' (see Pad1D).
            Default: 'constant'.
        value (float, optional): The fill value of 'constant' mode. Default: 0.0.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: [N, C, H + top + bottom, W + left + right].

    Examples:
        >>> import oar
        >>> x = oar.arange(4, dtype="float32").reshape([1, 1, 2, 2])
        >>> print(oar.nn.Pad2D([1, 0, 0, 1])(x))
        Tensor(shape=[1, 1, 3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[0., 0., 1.],
                  [0., 2., 3.],
                  [0., 0., 0.]]]])
    """
    _dims, _default_format = 2, "NCHW"

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format)


class Pad3D(_PadND):
    """Pads the last three (spatial) dimensions of a 5-D input.

    Args:
        padding (int|list|Tensor): [left, right, top, bottom, front, back], or one int for all.
        mode (str, optional): 'constant', 'reflect', 'replicate' or 'circular' (see Pad1D).
            Default: 'constant'.
        value (float, optional): The fill value of 'constant' mode. Default: 0.0.
        data_format (str, optional): 'NCDHW' or 'NDHWC'. Default: 'NCDHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, D, H, W] (or [N, D, H, W, C]).
        - output: [N, C, D + front + back, H + top + bottom, W + left + right].

    Examples:
        >>> import oar
        >>> m = oar.nn.Pad3D(1)
        >>> print(m(oar.ones([1, 1, 1, 2, 2])).shape)
        [1, 1, 3, 4, 4]
    """
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


_PAD_SIDES = {1: "[left, right]", 2: "[left, right, top, bottom]",
              3: "[left, right, top, bottom, front, back]"}
_PAD_MODES = {"constant": "with a constant", "reflect": "by reflection (mirrored, edge excluded)",
              "replicate": "by repeating the edge values", "circular": "circularly (wrapping around)"}
_PAD_EXAMPLE_INPUT = {1: [1, 1, 3], 2: [1, 1, 2, 3], 3: [1, 1, 2, 2, 3]}


def _fixed_mode_pad_doc(cls_name, dims, mode, fmt, with_value):
    """The docstring of ZeroPad2D, ReflectionPad1D, ...: arguments, shape and a running example."""
    what = "with zeros" if cls_name.startswith("Zero") else _PAD_MODES[mode]
    last = fmt[0] + fmt[2:] + fmt[1]
    shape_in = _PAD_EXAMPLE_INPUT[dims]
    shape_out = shape_in[:2] + [n + 2 for n in shape_in[2:]]
    value_arg = "\n    value (float): The fill value." if with_value else ""
    value_call = ", 0.5" if with_value else ""
    which = f"last {dims} (spatial) dimensions" if dims > 1 else "last dimension"
    return f"""Pads the {which} of a {dims + 2}-D input {what}.

Args:
    padding (int|list|Tensor): {_PAD_SIDES[dims]}, or one int for every side.{value_arg}
    data_format (str, optional): '{fmt}' or '{last}'. Default: '{fmt}'.
    name (str, optional): Layer name; usually left unset. Default: None.

Shape:
    - input: a {dims + 2}-D Tensor in data_format.
    - output: each padded dimension grows by the padding of its two sides.

Examples:
    >>> import oar
    >>> m = oar.nn.{cls_name}(1{value_call})
    >>> print(m(oar.ones({shape_in})).shape)
    {shape_out}
"""


_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}
for _d in (1, 2, 3):
    for _prefix, _mode in (("Zero", "constant"), ("Reflection", "reflect"), ("Replication", "replicate"),
                           ("Circular", "circular")):
        _cls = f"{_prefix}Pad{_d}D"
        globals()[_cls] = type(_cls, (_PadND,), dict(
            _fixed_mode_pad(_d, _mode, _FORMATS[_d]),
            __doc__=_fixed_mode_pad_doc(_cls, _d, _mode, _FORMATS[_d], False)))
    globals()[f"ConstantPad{_d}D"] = type(f"ConstantPad{_d}D", (_PadND,), dict(
        _fixed_mode_pad(_d, "constant", _FORMATS[_d], with_value=True),
        __doc__=_fixed_mode_pad_doc(f"ConstantPad{_d}D", _d, "constant", _FORMATS[_d], True)))


class PixelShuffle(Layer):
    """Rearranges [N, C * r^2, H, W] into [N, C, H * r, W * r], r the upscale factor
    (sub-pixel convolution).

    Args:
        upscale_factor (int): The factor r.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C * r^2, H, W] (or [N, H, W, C * r^2]).
        - output: [N, C, H * r, W * r] (or [N, H * r, W * r, C]).

    Examples:
        >>> import oar
        >>> m = oar.nn.PixelShuffle(2)
        >>> print(m(oar.zeros([1, 8, 3, 3])).shape)
        [1, 2, 6, 6]
    """

    def __init__(self, upscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self):
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"upscale_factor={self._upscale_factor}{fmt}"


class PixelUnshuffle(Layer):
    """Rearranges [N, C, H * r, W * r] into [N, C * r^2, H, W], r the downscale factor;
    the inverse of PixelShuffle.

    Args:
        downscale_factor (int): The factor r; H and W must be divisible by it.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H * r, W * r] (or channels last).
        - output: [N, C * r^2, H, W] (or channels last).

    Examples:
        >>> import oar
        >>> m = oar.nn.PixelUnshuffle(2)
        >>> print(m(oar.zeros([1, 1, 4, 4])).shape)
        [1, 4, 2, 2]
    """

    def __init__(self, downscale_factor, data_format="NCHW", name=None):
        super().__init__()
        self._downscale_factor, self._data_format = downscale_factor, data_format

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self):
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"downscale_factor={self._downscale_factor}{fmt}"


class ChannelShuffle(Layer):
    """Shuffles channels across groups (ShuffleNet): the channels, viewed as [groups, C / groups],
    are transposed to [C / groups, groups].

    Args:
        groups (int): Number of groups; C must be divisible by it.
        data_format (str, optional): 'NCHW' or 'NHWC'. Default: 'NCHW'.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W] (or [N, H, W, C]).
        - output: the same shape.

    Examples:
        >>> import oar
        >>> x = oar.arange(4, dtype="float32").reshape([1, 4, 1, 1])
        >>> m = oar.nn.ChannelShuffle(2)
        >>> print(m(x).flatten())
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 2., 1., 3.])
    """

    def __init__(self, groups, data_format="NCHW", name=None):
        super().__init__()
        self._groups, self._data_format = groups, data_format

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"groups={self._groups}{fmt}"


class Unfold(Layer):
    """Extracts sliding blocks (im2col): each column of the output is one flattened
    kernel-sized patch of the input.

    Args:
        kernel_sizes (int|list): Block size [k_h, k_w], or one int for both.
        dilations (int|list, optional): Spacing of the block's elements. Default: 1.
        paddings (int|list, optional): Zero padding: one int, [pad_h, pad_w] or
            [top, left, bottom, right]. Default: 0.
        strides (int|list, optional): Step between blocks. Default: 1.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C, H, W].
        - output: [N, C * k_h * k_w, L], L the number of blocks.

    Examples:
        >>> import oar
        >>> m = oar.nn.Unfold(kernel_sizes=2)
        >>> print(m(oar.zeros([1, 3, 4, 4])).shape)
        [1, 12, 9]
    """

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations, self.paddings, self.strides = kernel_sizes, dilations, paddings, strides

    def forward(self, input):
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, padding={self.paddings}, "
                f"stride={self.strides}")


class Fold(Unfold):
    """Combines sliding blocks into an image (col2im), summing where blocks overlap; the
    reverse of Unfold.

    Args:
        output_sizes (int|list): Output spatial size [H, W], or one int for both.
        kernel_sizes (int|list): Block size [k_h, k_w], or one int for both.
        dilations (int|list, optional): Spacing of the block's elements. Default: 1.
        paddings (int|list, optional): Padding as in Unfold. Default: 0.
        strides (int|list, optional): Step between blocks. Default: 1.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - input: [N, C * k_h * k_w, L].
        - output: [N, C, H, W].

    Examples:
        >>> import oar
        >>> m = oar.nn.Fold(output_sizes=[3, 3], kernel_sizes=2)
        >>> print(m(oar.ones([1, 4, 4])))
        Tensor(shape=[1, 1, 3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__(kernel_sizes, dilations, paddings, strides)
        self.output_sizes = output_sizes

    def forward(self, input):
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides, self.paddings, self.dilations)


class CosineSimilarity(Layer):
    """Cosine similarity of two inputs along ``axis``: ``sum(x1 * x2) / max(|x1| * |x2|, eps)``.

    Args:
        axis (int, optional): The axis the vectors lie along. Default: 1.
        eps (float, optional): Lower bound of the denominator. Default: 1e-8.

    Shape:
        - x1, x2: Tensors of broadcastable shapes.
        - output: their broadcast shape without ``axis``.

    Examples:
        >>> import oar
        >>> m = oar.nn.CosineSimilarity(axis=1)
        >>> x1 = oar.to_tensor([[1.0, 0.0], [1.0, 1.0]])
        >>> x2 = oar.to_tensor([[2.0, 0.0], [-1.0, -1.0]])
        >>> print(m(x1, x2))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 1., -1.])
    """

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class PairwiseDistance(Layer):
    """The p-norm distance between matching rows of two inputs: ``||x - y + epsilon||_p``.

    Args:
        p (float, optional): The order of the norm. Default: 2.0.
        epsilon (float, optional): Added to ``x - y`` to avoid a zero norm. Default: 1e-6.
        keepdim (bool, optional): Keep the last dimension (size 1) in the output. Default: False.
        name (str, optional): Layer name; usually left unset. Default: None.

    Shape:
        - x, y: [N, D] or [D] (broadcastable).
        - output: [N] (or [N, 1] with keepdim).

    Examples:
        >>> import oar
        >>> m = oar.nn.PairwiseDistance()
        >>> x = oar.to_tensor([[0.0, 0.0], [1.0, 1.0]])
        >>> y = oar.to_tensor([[3.0, 4.0], [1.0, 1.0]])
        >>> print(m(x, y))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4.99999..., 0.00000...])
    """

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
