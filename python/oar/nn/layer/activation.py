"""Activation layers, as paddle.nn's: each keeps its arguments, forwards to the op of the same
name in oar.nn.functional, and prints them as Paddle does (extra_repr)."""
import functools

from ... import _C
from .. import functional as F
from ..functional.activation2 import _inplace
from ..initializer import Constant
from .layers import Layer

__all__ = ["CELU", "ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "LeakyReLU", "LogSigmoid", "LogSoftmax", "Maxout", "Mish", "PReLU", "ReLU", "ReLU6",
           "RReLU", "SELU", "Sigmoid", "Silu", "SiLU", "Softmax", "Softmax2D", "Softplus",
           "Softshrink", "Softsign", "Swish", "Tanh", "Tanhshrink", "ThresholdedReLU"]


def _param_alias(canonical, alias, reject_both=False):
    """Lets a caller spell keyword `canonical` as `alias` (the PyTorch names Paddle accepts).
    reject_both: giving both is a ValueError (otherwise the call itself rejects the extra one)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if alias in kwargs:
                if canonical not in kwargs:
                    kwargs[canonical] = kwargs.pop(alias)
                elif reject_both:
                    raise ValueError(f"{fn.__qualname__}: give argument '{canonical}' or its alias "
                                     f"'{alias}', not both")
            return fn(*args, **kwargs)
        return call
    return wrap


def _with_name(text, name):
    """Paddle's printed form: the arguments, then ', name=...' when a name was given."""
    if not name:
        return text
    return f"{text}, name={name}" if text else f"name={name}"


def _dtype_name(dtype):
    return getattr(dtype, "name", dtype)


class CELU(Layer):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha = alpha
        self._name = name

    def forward(self, x):
        return F.celu(x, self._alpha, self._name)

    def extra_repr(self):
        return _with_name(f"alpha={self._alpha}", self._name)


class ELU(Layer):
    """x for x > 0, alpha (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha = alpha
        self._name = name

    def forward(self, x):
        return F.elu(x, self._alpha, self._name)

    def extra_repr(self):
        return _with_name(f"alpha={self._alpha}", self._name)


class GELU(Layer):
    """x Phi(x); approximate (True or 'tanh') uses the tanh approximation."""

    def __init__(self, approximate=False, name=None):
        super().__init__()
        self._approximate = approximate
        self._name = name

    def forward(self, x):
        approximate = self._approximate
        if isinstance(approximate, str):
            if approximate not in ("tanh", "none"):
                raise ValueError(f"GELU: argument 'approximate' must be a bool, 'tanh' or 'none', "
                                 f"got {approximate!r}")
            approximate = approximate == "tanh"
        return F.gelu(x, approximate, self._name)

    def extra_repr(self):
        return _with_name(f"approximate={self._approximate}", self._name)


class GLU(Layer):
    """a * sigmoid(b), a and b the halves of x along axis (also spelled dim)."""

    @_param_alias("axis", "dim")
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    @_param_alias("x", "input")
    def forward(self, x):
        return F.glu(x, self._axis, self._name)

    def extra_repr(self):
        return _with_name(f"axis={self._axis}", self._name)

    @property
    def dim(self):
        return self._axis

    @dim.setter
    def dim(self, value):
        self._axis = value


class Hardshrink(Layer):
    """x where |x| > threshold (also spelled lambd), else 0."""

    @_param_alias("threshold", "lambd")
    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._threshold = threshold
        self._name = name

    @_param_alias("x", "input")
    def forward(self, x):
        return F.hardshrink(x, self._threshold, self._name)

    def extra_repr(self):
        return _with_name(f"threshold={self._threshold}", self._name)

    @property
    def lambd(self):
        return self._threshold

    @lambd.setter
    def lambd(self, value):
        self._threshold = value


class Hardsigmoid(Layer):
    """clip(x / 6 + 1 / 2, 0, 1)."""

    def __init__(self, name=None):
        super().__init__()
        self.name = name

    def forward(self, x):
        return F.hardsigmoid(x, name=self.name)

    def extra_repr(self):
        return _with_name("", self.name)


class Hardswish(Layer):
    """x * relu6(x + 3) / 6."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.hardswish(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class Hardtanh(Layer):
    """x clamped to [min, max]."""

    def __init__(self, min=-1.0, max=1.0, name=None):
        super().__init__()
        self._min = min
        self._max = max
        self._name = name

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max, self._name)

    def extra_repr(self):
        return _with_name(f"min={self._min}, max={self._max}", self._name)


class LeakyReLU(Layer):
    """x for x >= 0, negative_slope * x otherwise."""

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope
        self._name = name

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope, self._name)

    def extra_repr(self):
        return _with_name(f"negative_slope={self._negative_slope}", self._name)


class LogSigmoid(Layer):
    """log(sigmoid(x))."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.log_sigmoid(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class LogSoftmax(Layer):
    """log(softmax(x)) along axis."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    def forward(self, x):
        return F.log_softmax(x, self._axis)

    def extra_repr(self):
        return _with_name(f"axis={self._axis}", self._name)


class Maxout(Layer):
    """The max over each run of `groups` channels along axis (1, or -1 / 3 for channels last)."""

    def __init__(self, groups, axis=1, name=None):
        super().__init__()
        self._groups = groups
        self._axis = axis
        self._name = name

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis, self._name)

    def extra_repr(self):
        return _with_name(f"groups={self._groups}, axis={self._axis}", self._name)


class Mish(Layer):
    """x tanh(softplus(x))."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.mish(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class PReLU(Layer):
    """x for x > 0, weight * x otherwise, with a learnable weight of num_parameters slopes (1, or
    one per channel of data_format), initialised to `init` unless weight_attr says otherwise."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW", name=None):
        super().__init__()
        self._num_parameters = num_parameters
        self._init = init
        self._weight_attr = weight_attr
        self._name = name
        self._data_format = data_format
        try:
            start = float(init)
        except (TypeError, ValueError) as e:
            raise type(e)(f"PReLU: argument 'init' must be a float, got {init!r}") from None
        self._weight = self.create_parameter(shape=[num_parameters], attr=weight_attr,
                                             dtype=_C.get_default_dtype(), is_bias=False,
                                             default_initializer=Constant(start))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        return _with_name(f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                          f"init={self._init}, dtype={_dtype_name(self._dtype)}", self._name)


class ReLU(Layer):
    """max(x, 0)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.relu(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class ReLU6(Layer):
    """min(max(x, 0), 6)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.relu6(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class RReLU(Layer):
    """Leaky ReLU with a random slope in [lower, upper] per element while training, and the
    fixed slope (lower + upper) / 2 in evaluation (layer.eval())."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower = lower
        self._upper = upper
        self._name = name

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return _with_name(f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                          f"dtype={_dtype_name(self._dtype)}", self._name)


class SELU(Layer):
    """scale x for x > 0, scale alpha (exp(x) - 1) otherwise."""

    def __init__(self, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
        super().__init__()
        self._scale = scale
        self._alpha = alpha
        self._name = name

    def forward(self, x):
        return F.selu(x, self._scale, self._alpha, self._name)

    def extra_repr(self):
        return _with_name(f"scale={self._scale:.16f}, alpha={self._alpha:.16f}", self._name)


class Sigmoid(Layer):
    """1 / (1 + exp(-x))."""

    def __init__(self, name=None):
        super().__init__()
        self.name = name

    def forward(self, x):
        return F.sigmoid(x, self.name)

    def extra_repr(self):
        return _with_name("", self.name)


class Silu(Layer):
    """x sigmoid(x); inplace writes the result into x (a tensor that is not a leaf needing
    gradient, as every in-place op)."""

    def __init__(self, inplace=False, name=None):
        super().__init__()
        self._name = name
        self._inplace = inplace

    def forward(self, x):
        if self._inplace:
            # oar.nn.functional.silu has no inplace flag yet: the generic in-place helper. It
            # writes x's own memory and history, so x itself is the result (as Paddle returns).
            _inplace("silu", x, _C.silu)
            return x
        return F.silu(x, self._name)

    def extra_repr(self):
        return _with_name(f"inplace={self._inplace}", self._name)


SiLU = Silu


class Softmax(Layer):
    """exp(x) / sum(exp(x)) along axis."""

    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    def forward(self, x):
        return F.softmax(x, self._axis, name=self._name)

    def extra_repr(self):
        return _with_name(f"axis={self._axis}", self._name)


class Softmax2D(Layer):
    """Softmax over the channels (axis -3) of a [C, H, W] or [N, C, H, W] input."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        if x.ndim not in (3, 4):
            # AssertionError, as Paddle raises here
            raise AssertionError(f"Softmax2D: argument 'x' must be 3-D or 4-D, got {x.ndim}-D "
                                 f"(shape {list(x.shape)})")
        return F.softmax(x, axis=-3, name=self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class Softplus(Layer):
    """log(1 + exp(beta x)) / beta, x itself where beta x > threshold."""

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self._beta = beta
        self._threshold = threshold
        self._name = name

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold, self._name)

    def extra_repr(self):
        return _with_name(f"beta={self._beta}, threshold={self._threshold}", self._name)


class Softshrink(Layer):
    """x - threshold above threshold (also spelled lambd), x + threshold below -threshold, else 0."""

    @_param_alias("threshold", "lambd")
    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._threshold = threshold
        self._name = name

    @_param_alias("x", "input")
    def forward(self, x):
        return F.softshrink(x, self._threshold, self._name)

    def extra_repr(self):
        return _with_name(f"threshold={self._threshold}", self._name)

    @property
    def lambd(self):
        return self._threshold

    @lambd.setter
    def lambd(self, value):
        self._threshold = value


class Softsign(Layer):
    """x / (1 + |x|)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.softsign(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class Swish(Layer):
    """x sigmoid(x)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.swish(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class Tanh(Layer):
    """tanh(x)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.tanh(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class Tanhshrink(Layer):
    """x - tanh(x)."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.tanhshrink(x, self._name)

    def extra_repr(self):
        return _with_name("", self._name)


class ThresholdedReLU(Layer):
    """x where x > threshold, else value."""

    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__()
        self._threshold = threshold
        self._value = value
        self._name = name

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, self._value, self._name)

    def extra_repr(self):
        return _with_name(f"threshold={self._threshold}, value={self._value}", self._name)
