"""Activations of paddle.nn.functional. The common ones (relu, relu6, leaky_relu, elu, gelu, silu,
sigmoid, hardsigmoid, hardswish, softplus, tanh, softmax, log_softmax) are the generated C++ ops
under Paddle's names and arguments. The other elementwise ones (celu, selu, mish, softsign,
softshrink, hardshrink, hardtanh, tanhshrink, thresholded_relu, log_sigmoid, swish) are C++ ops
with vectorised kernels (oar/ops/specs/activation2.yaml); the rest are compositions of ops, so
their gradients come from the ops they use. Random ones draw from oar's Philox generator."""
from ... import _C
from ...framework.dtype import convert_dtype

__all__ = ["relu", "relu6", "leaky_relu", "elu", "gelu", "silu", "sigmoid", "hardsigmoid",
           "hardswish", "softplus", "tanh", "softmax", "log_softmax", "relu_", "softmax_",
           "celu", "selu", "mish", "softsign", "softshrink", "hardshrink", "hardtanh",
           "hardtanh_", "tanhshrink", "thresholded_relu", "thresholded_relu_", "log_sigmoid",
           "logsigmoid", "swish", "prelu", "rrelu", "glu", "swiglu", "maxout", "gumbel_softmax",
           "rms_norm", "label_smooth", "sequence_mask", "alpha_dropout", "feature_alpha_dropout",
           "dropout1d", "elu_", "leaky_relu_", "tanh_"]

relu = _C.relu
relu6 = _C.relu6
leaky_relu = _C.leaky_relu
elu = _C.elu
gelu = _C.gelu
silu = _C.silu
sigmoid = _C.sigmoid
hardsigmoid = _C.hardsigmoid
hardswish = _C.hardswish
softplus = _C.softplus
tanh = _C.tanh
softmax = _C.softmax
log_softmax = _C.log_softmax
relu_ = _C.relu_
softmax_ = _C.softmax_


# ---- activations with their own kernels (activation2.yaml) and compositions ----


def _float_arg(op, name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}: argument '{name}' must be a float, got {type(v).__name__}")
    return float(v)


def celu(x, alpha=1.0, name=None):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1)); alpha must not be 0."""
    return _C.celu(x, _float_arg("celu", "alpha", alpha))


def selu(x, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
    """scale x for x > 0, scale alpha (exp(x) - 1) otherwise (scale > 1, alpha >= 0)."""
    return _C.selu(x, _float_arg("selu", "scale", scale), _float_arg("selu", "alpha", alpha))


def mish(x, name=None):
    """x tanh(softplus(x)) (softplus(x) = x above 20, as Paddle)."""
    return _C.mish(x)


def softsign(x, name=None):
    """Softsign activation, x / (1 + |x|), elementwise.

    Args:
        x (Tensor): The input, a floating-point tensor.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x, values in (-1, 1).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> print(oar.nn.functional.softsign(x).numpy())
        [-0.6666667   0.33333334  0.75      ]
    """
    return _C.softsign(x)


def softshrink(x, threshold=0.5, name=None):
    """x - threshold above threshold, x + threshold below -threshold, 0 between."""
    return _C.softshrink(x, _float_arg("softshrink", "threshold", threshold))


def hardshrink(x, threshold=0.5, name=None):
    """x where |x| > threshold, else 0."""
    return _C.hardshrink(x, _float_arg("hardshrink", "threshold", threshold))


def hardtanh(x, min=-1.0, max=1.0, name=None):
    """x clamped to [min, max] (gradient 1 strictly inside)."""
    return _C.hardtanh(x, _float_arg("hardtanh", "min", min), _float_arg("hardtanh", "max", max))


def hardtanh_(x, min=-1.0, max=1.0, name=None):
    """In-place hardtanh: x clipped to [min, max], written into x.

    Args:
        x (Tensor): The input, a floating-point tensor; it is overwritten.
        min (float, optional): Lower bound. Default: -1.0.
        max (float, optional): Upper bound. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> _ = oar.nn.functional.hardtanh_(x)
        >>> print(x.numpy())
        [-1.   0.5  1. ]
    """
    return _C.hardtanh_(x, _float_arg("hardtanh_", "min", min), _float_arg("hardtanh_", "max", max))


def tanhshrink(x, name=None):
    """Tanhshrink activation, x - tanh(x), elementwise.

    Args:
        x (Tensor): The input, a floating-point tensor.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: same shape and dtype as x.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> print(oar.nn.functional.tanhshrink(x).numpy())
        [-1.0359724   0.03788283  2.0049453 ]
    """
    return _C.tanhshrink(x)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """x where x > threshold, else value."""
    return _C.thresholded_relu(x, _float_arg("thresholded_relu", "threshold", threshold),
                               _float_arg("thresholded_relu", "value", value))


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """In-place thresholded ReLU: x where x > threshold, value otherwise, written into x.

    Args:
        x (Tensor): The input, a floating-point tensor; it is overwritten.
        threshold (float, optional): The threshold. Default: 1.0.
        value (float, optional): The value below or at the threshold. Default: 0.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> _ = oar.nn.functional.thresholded_relu_(x)
        >>> print(x.numpy())
        [0. 0. 3.]
    """
    return _C.thresholded_relu_(x, _float_arg("thresholded_relu_", "threshold", threshold),
                                _float_arg("thresholded_relu_", "value", value))


def log_sigmoid(x, name=None):
    """log(1 / (1 + exp(-x))), computed as min(x, 0) - log1p(exp(-|x|))."""
    return _C.log_sigmoid(x)


logsigmoid = log_sigmoid


def swish(x, name=None):
    """x sigmoid(x)."""
    return _C.swish(x)


def _inplace(op, x, fn):
    """The in-place form of an op defined in another family's spec: x becomes fn(x), in x's
    memory, with fn's gradient. fn runs on a copy of x (its backward may need the old values);
    the result goes in through an in-place masked_scatter with an all-true mask."""
    if _C.is_grad_enabled() and not x.stop_gradient and x.is_leaf:
        raise ValueError(f"{op}: Leaf Tensor that doesn't stop gradient can't use inplace "
                         "strategy. Wrap the update in oar.no_grad() or set stop_gradient=True first")
    out = fn(_C.assign(x))
    return _C.masked_scatter_(x, _C.full(list(x.shape), True, "bool"), out)


def elu_(x, alpha=1.0, name=None):
    """In-place ELU: x where x > 0, alpha * (exp(x) - 1) otherwise, written into x.

    Args:
        x (Tensor): The input, a floating-point tensor; it is overwritten.
        alpha (float, optional): Scale of the negative part. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> _ = oar.nn.functional.elu_(x)
        >>> print(x.numpy())
        [-0.86466473  0.5         3.        ]
    """
    alpha = _float_arg("elu_", "alpha", alpha)
    return _inplace("elu_", x, lambda t: _C.elu(t, alpha))


def leaky_relu_(x, negative_slope=0.01, name=None):
    """In-place leaky ReLU: x where x >= 0, negative_slope * x otherwise, written into x.

    Args:
        x (Tensor): The input, a floating-point tensor; it is overwritten.
        negative_slope (float, optional): Slope of the negative part. Default: 0.01.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding the result.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> _ = oar.nn.functional.leaky_relu_(x, 0.1)
        >>> print(x.numpy())
        [-0.2  0.5  3. ]
    """
    slope = _float_arg("leaky_relu_", "negative_slope", negative_slope)
    return _inplace("leaky_relu_", x, lambda t: _C.leaky_relu(t, slope))


def tanh_(x, name=None):
    """In-place hyperbolic tangent, written into x.

    Args:
        x (Tensor): The input, a floating-point tensor; it is overwritten.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: x, holding tanh(x).

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, 0.5, 3.0])
        >>> _ = oar.nn.functional.tanh_(x)
        >>> print(x.numpy())
        [-0.9640276   0.46211714  0.9950548 ]
    """
    return _C.tanh_(x)


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def prelu(x, weight, data_format="NCHW", name=None):
    """x where x > 0, weight * x otherwise; weight has one slope ([1]) or one per channel
    ([C], channels on dim 1 for N C ... formats and on the last dim for N ... C)."""
    op = "prelu"
    if weight.ndim > 1:
        raise ValueError(f"{op}: argument 'weight' must be 0-D or 1-D, got shape {list(weight.shape)}")
    w = weight
    if weight.ndim == 1 and weight.shape[0] > 1:
        if data_format not in _PRELU_FORMATS:
            raise ValueError(f"{op}: argument 'data_format' must be one of "
                             f"{', '.join(map(repr, _PRELU_FORMATS))}, got {data_format!r}")
        if x.ndim < 2:
            raise ValueError(f"{op}: argument 'x' must be at least 2-D when 'weight' has more than "
                             f"one slope, got shape {list(x.shape)}")
        ch = 1 if data_format[1] == "C" else x.ndim - 1
        if weight.shape[0] != x.shape[ch]:
            raise ValueError(f"{op}: argument 'weight' expected {x.shape[ch]} slopes (the channels "
                             f"of x on dim {ch}), got {weight.shape[0]}")
        s = [1] * x.ndim
        s[ch] = weight.shape[0]
        w = _C.reshape(weight, s)
    elif weight.ndim == 1 or weight.ndim == 0:
        w = _C.reshape(weight, [])
    return _C.where(_C.greater_than(x, _C.zeros_like(x)), x, x * w)


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """x where x >= 0, else slope * x: in training a slope per element drawn uniformly from
    [lower, upper] (oar's Philox generator), in evaluation (lower + upper) / 2."""
    op = "rrelu"
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError(f"{op}: arguments 'lower' and 'upper' must be floats, got lower {lower!r}, "
                        f"upper {upper!r}")
    if lower < 0 or lower > 1:
        raise ValueError(f"{op}: argument 'lower' must be in [0, 1], got {lower}")
    if upper < lower:
        raise ValueError(f"{op}: argument 'upper' must be >= lower ({lower}), got {upper}")
    if upper > 1:
        raise ValueError(f"{op}: argument 'upper' must be <= 1, got {upper}")
    neg = _C.less_than(x, _C.zeros_like(x))
    if not training:
        return _C.where(neg, x * ((lower + upper) / 2.0), x)
    slope = _C.uniform(list(x.shape), x.dtype, lower, upper, 0)
    return _C.where(neg, x * slope, x)


def _axis(op, axis, ndim):
    ax = axis + ndim if axis < 0 else axis
    if not 0 <= ax < ndim:
        raise ValueError(f"{op}: argument 'axis' must be in [{-ndim}, {ndim}), got {axis}")
    return ax


def glu(x, axis=-1, name=None):
    """a * sigmoid(b) with a, b the two halves of x along axis."""
    op = "glu"
    ax = _axis(op, axis, x.ndim)
    if x.shape[ax] % 2:
        raise ValueError(f"{op}: the size of x along axis {axis} must be even, got {x.shape[ax]}")
    a, b = _C.chunk(x, 2, ax)
    return a * _C.sigmoid(b)


def swiglu(x, y=None, name=None):
    """silu(x) * y; without y, x is split in halves along its last axis (silu(first) * second).
    One fused kernel, forward and backward (oar/kernels/cpu/swiglu.h)."""
    if y is None:
        if x.ndim == 0 or x.shape[-1] % 2:
            raise ValueError(f"swiglu: without 'y' the last dim of x must be even, got shape {list(x.shape)}")
    elif list(x.shape) != list(y.shape):
        raise ValueError(f"swiglu: arguments 'x' and 'y' must have the same shape, got "
                         f"{list(x.shape)} and {list(y.shape)}")
    return _C.swiglu_base(x, y)


def maxout(x, groups, axis=1, name=None):
    """Channel c of the output is the max of input channels [c * groups, (c + 1) * groups) along
    axis (1 or -1 / 3 for a 4-D x)."""
    op = "maxout"
    if x.ndim != 4:
        raise ValueError(f"{op}: argument 'x' must be 4-D, got shape {list(x.shape)}")
    if axis not in (1, -1, 3):
        raise ValueError(f"{op}: argument 'axis' must be 1, -1 or 3, got {axis}")
    ax = 3 if axis == -1 else axis
    C = x.shape[ax]
    if groups <= 0 or C % groups:
        raise ValueError(f"{op}: the channels of x ({C}) must be a multiple of argument 'groups', "
                         f"got {groups}")
    s = list(x.shape)
    s[ax:ax + 1] = [C // groups, groups]
    return _C.max(_C.reshape(x, s), [ax + 1], False)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """softmax((x + g) / temperature) with g standard Gumbel noise (-log(-log(u)), u uniform from
    oar's Philox generator); hard: the one-hot of its argmax in the forward with the soft
    gradient (y_hard - stop_gradient(y) + y)."""
    op = "gumbel_softmax"
    if temperature <= 0:
        raise ValueError(f"{op}: argument 'temperature' must be > 0, got {temperature}")
    ax = _axis(op, axis, x.ndim) if x.ndim else 0
    tiny = 1e-20 if x.dtype.name == "float64" else 1e-12
    u = _C.uniform(list(x.shape), x.dtype, tiny, 1.0, 0)
    g = -_C.log(-_C.log(u))
    y = _C.softmax((x + g) / float(temperature), ax)
    if not hard:
        return y
    idx = _C.argmax(y, ax, True)
    y_hard = _C.put_along_axis(_C.zeros_like(y), idx, _C.ones_like(idx).astype(y.dtype), ax)
    return y_hard - y.detach() + y


def rms_norm(input, normalized_shape, weight=None, eps=1e-05, name=None):
    """x / sqrt(mean(x^2 over the normalized dims) + eps) * weight; returns (out, invvar) with
    invvar the per-row 1 / rms, of shape [rows] (the leading dims flattened)."""
    op = "rms_norm"
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    ns = [int(s) for s in normalized_shape]
    k = len(ns)
    if k == 0 or k > input.ndim or list(input.shape[input.ndim - k:]) != ns:
        raise ValueError(f"{op}: argument 'normalized_shape' {ns} must match the trailing dims of "
                         f"input, got input shape {list(input.shape)}")
    if weight is not None and list(weight.shape) != ns:
        raise ValueError(f"{op}: argument 'weight' expected shape {ns}, got {list(weight.shape)}")
    axes = list(range(input.ndim - k, input.ndim))
    inv = _C.rsqrt(_C.mean(_C.square(input), axes, True) + eps)
    out = input * inv
    if weight is not None:
        out = out * weight
    rows = 1
    for s in input.shape[:input.ndim - k]:
        rows *= s
    return out, _C.reshape(inv, [rows])


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon * prior_dist (uniform 1 / C without prior_dist)."""
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"label_smooth: argument 'epsilon' must be in [0, 1], got {epsilon}")
    if prior_dist is None:
        return label * (1.0 - epsilon) + epsilon / label.shape[-1]
    # as Paddle, prior_dist is a constant (no gradient)
    return label * (1.0 - epsilon) + prior_dist.detach() * epsilon


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """out[..., j] = j < x[...], with j in [0, maxlen) (maxlen = max(x) when None)."""
    i64 = convert_dtype("int64")
    if maxlen is None or isinstance(maxlen, _C.Tensor):
        # maxlen from values: an op (a static program reads them when it runs); max(x, 0)
        # truncated to an integer, 0 for an empty x.
        if maxlen is None:
            top = _C.max(_C.concat([_C.reshape(x, [-1]), _C.zeros([1], x.dtype)], 0), [], False)
            n = _C.cast(top, i64)
        else:
            n = _C.maximum(_C.cast(maxlen, i64), _C.zeros_like(maxlen, i64))
        zero = _C.zeros([], i64)
        r = _C.arange_tensor(zero, n, zero + 1, x.dtype)
    else:
        r = _C.arange(0, max(int(maxlen), 0), 1, x.dtype)
    return _C.less_than(r, _C.unsqueeze(x, [-1])).astype(dtype)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _alpha_dropout(op, x, p, training, mask_shape):
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{op}: argument 'p' must be a float, got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise ValueError(f"{op}: argument 'p' must be in [0, 1], got {p}")
    if not training or p == 0:
        return x
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p * alpha_p)) ** -0.5 if p < 1 else 0.0
    b = -a * alpha_p * p
    keep = _C.cast(_C.greater_equal(_C.uniform(mask_shape, x.dtype, 0.0, 1.0, 0),
                                    _C.full(mask_shape, float(p), x.dtype)), x.dtype)
    return (x * keep + (1.0 - keep) * alpha_p) * a + b


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout keeping SELU's self-normalisation: dropped elements become -alpha * scale, then
    an affine map restores mean and variance."""
    return _alpha_dropout("alpha_dropout", x, p, training, list(x.shape))


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """alpha_dropout with one draw per (sample, channel) of an [N, C, ...] input."""
    if x.ndim < 2:
        raise ValueError(f"feature_alpha_dropout: argument 'x' must be at least 2-D [N, C, ...], "
                         f"got shape {list(x.shape)}")
    return _alpha_dropout("feature_alpha_dropout", x, p, training,
                          list(x.shape[:2]) + [1] * (x.ndim - 2))


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of a [C, L] or [N, C, L] input with probability p (kept ones scaled
    by 1 / (1 - p))."""
    from .common import dropout
    if input.ndim not in (2, 3):
        raise ValueError(f"dropout1d: argument 'input' must be 2-D [C, L] or 3-D [N, C, L], got "
                         f"shape {list(input.shape)}")
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"dropout1d: argument 'p' must be a float, got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise ValueError(f"dropout1d: argument 'p' must be in [0, 1], got {p}")
    axis = [0] if input.ndim == 2 else [0, 1]
    return dropout(input, p, axis, training, inplace, "upscale_in_train")
