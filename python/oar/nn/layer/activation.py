"""Activation layers, as paddle.nn's: each keeps its arguments, forwards to the op of the same
name in oar.nn.functional, and prints them as Paddle does (extra_repr).

Most are declared by one table-like line, `class CELU(_Activation, alpha=1.0)`: the class keywords
are the constructor's arguments with their defaults, in Paddle's order, and `_functional` names the
op they are passed to (positionally, in that order, then name=). _Activation writes the rest."""
import functools
import types

from ... import _C
from .. import functional as F
from ..functional.activation import _inplace
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


_REQUIRED = object()  # a constructor argument with no default (Maxout's groups)


def _renamed(function, owner, wrap=None):
    """A copy of `function` that names `owner` (so a wrong call reads 'ReLU.forward() got ...', as
    Paddle's own methods do), optionally passed through the decorator `wrap`."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    copy.__qualname__ = f"{owner.__qualname__}.{function.__name__}"
    copy.__module__ = owner.__module__
    return wrap(copy) if wrap else copy


def _constructor(cls):
    """cls.__init__ with the real signature (args..., name=None) of cls's argument table, so that
    inspect.signature and the TypeError of a wrong call are Paddle's. Written as source and
    compiled, as dataclasses does: Python has no other way to give a function named parameters."""
    names = list(cls._arg_defaults)
    namespace = {"_keep": _Activation._keep}
    exec(f"def __init__(self, {''.join(n + ', ' for n in names)}name=None):\n"
         f"    _keep(self, locals())\n", namespace)
    init = namespace["__init__"]
    init.__defaults__ = tuple(d for d in cls._arg_defaults.values() if d is not _REQUIRED) + (None,)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _alias_property(canonical):
    """A property that reads and writes the stored argument `canonical` under another name."""
    attribute = "_" + canonical
    return property(lambda self: getattr(self, attribute),
                    lambda self, value: setattr(self, attribute, value))


class _Activation(Layer):
    """Base of the table-declared activations: keeps each argument as `_<arg>` (and name as
    `_name`, or as the class's _name_attribute), forwards them to oar.nn.functional.<_functional>
    and prints them as 'arg=value, ...' then ', name=...'.

    Class-body settings: _alias = (canonical, alias) accepts the argument under a second name
    (constructor keyword and property) and the input as `input`; _name_attribute = "name" for
    the layers Paddle keeps the name on as `.name`."""

    _functional = None
    _arg_defaults = {}
    _alias = None
    _name_attribute = "_name"

    def __init_subclass__(cls, **arg_defaults):
        super().__init_subclass__()
        if _Activation not in cls.__bases__:  # a user's subclass of ReLU etc.: plain inheritance
            return
        cls._arg_defaults = arg_defaults
        alias_init = alias_input = None
        if cls._alias:
            canonical, alias = cls._alias
            setattr(cls, alias, _alias_property(canonical))
            alias_init, alias_input = _param_alias(canonical, alias), _param_alias("x", "input")
        if "__init__" not in vars(cls):
            cls.__init__ = alias_init(_constructor(cls)) if alias_init else _constructor(cls)
        if "forward" not in vars(cls):
            cls.forward = _renamed(_Activation.forward, cls, alias_input)

    def _keep(self, args):
        Layer.__init__(self)
        for arg in self._arg_defaults:
            setattr(self, "_" + arg, args[arg])
        setattr(self, self._name_attribute, args["name"])

    def _args(self):
        return [getattr(self, "_" + arg) for arg in self._arg_defaults]

    def _layer_name(self):
        return getattr(self, self._name_attribute)

    def forward(self, x):
        return getattr(F, self._functional)(x, *self._args(), name=self._layer_name())

    def extra_repr(self):
        text = ", ".join(f"{arg}={value}" for arg, value in zip(self._arg_defaults, self._args()))
        return _with_name(text, self._layer_name())


class CELU(_Activation, alpha=1.0):
    """max(0, x) + min(0, alpha (exp(x / alpha) - 1))."""
    _functional = "celu"


class ELU(_Activation, alpha=1.0):
    """x for x > 0, alpha (exp(x) - 1) otherwise."""
    _functional = "elu"


class GELU(_Activation, approximate=False):
    """x Phi(x); approximate (True or 'tanh') uses the tanh approximation."""

    def forward(self, x):
        approximate = self._approximate
        if isinstance(approximate, str):
            if approximate not in ("tanh", "none"):
                raise ValueError(f"GELU: argument 'approximate' must be a bool, 'tanh' or 'none', "
                                 f"got {approximate!r}")
            approximate = approximate == "tanh"
        return F.gelu(x, approximate, self._name)


class GLU(_Activation, axis=-1):
    """a * sigmoid(b), a and b the halves of x along axis (also spelled dim)."""
    _functional, _alias = "glu", ("axis", "dim")


class Hardshrink(_Activation, threshold=0.5):
    """x where |x| > threshold (also spelled lambd), else 0."""
    _functional, _alias = "hardshrink", ("threshold", "lambd")


class Hardsigmoid(_Activation):
    """clip(x / 6 + 1 / 2, 0, 1)."""
    _functional, _name_attribute = "hardsigmoid", "name"


class Hardswish(_Activation):
    """x * relu6(x + 3) / 6."""
    _functional = "hardswish"


class Hardtanh(_Activation, min=-1.0, max=1.0):
    """x clamped to [min, max]."""
    _functional = "hardtanh"


class LeakyReLU(_Activation, negative_slope=0.01):
    """x for x >= 0, negative_slope * x otherwise."""
    _functional = "leaky_relu"


class LogSigmoid(_Activation):
    """log(sigmoid(x))."""
    _functional = "log_sigmoid"


class LogSoftmax(_Activation, axis=-1):
    """log(softmax(x)) along axis."""
    _functional = "log_softmax"


class Maxout(_Activation, groups=_REQUIRED, axis=1):
    """The max over each run of `groups` channels along axis (1, or -1 / 3 for channels last)."""
    _functional = "maxout"


class Mish(_Activation):
    """x tanh(softplus(x))."""
    _functional = "mish"


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


class ReLU(_Activation):
    """max(x, 0)."""
    _functional = "relu"


class ReLU6(_Activation):
    """min(max(x, 0), 6)."""
    _functional = "relu6"


class RReLU(_Activation, lower=1.0 / 8.0, upper=1.0 / 3.0):
    """Leaky ReLU with a random slope in [lower, upper] per element while training, and the
    fixed slope (lower + upper) / 2 in evaluation (layer.eval())."""

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return _with_name(f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                          f"dtype={_dtype_name(self._dtype)}", self._name)


class SELU(_Activation, scale=1.0507009873554805, alpha=1.6732632423543772):
    """scale x for x > 0, scale alpha (exp(x) - 1) otherwise."""
    _functional = "selu"

    def extra_repr(self):
        return _with_name(f"scale={self._scale:.16f}, alpha={self._alpha:.16f}", self._name)


class Sigmoid(_Activation):
    """1 / (1 + exp(-x))."""
    _functional, _name_attribute = "sigmoid", "name"


class Silu(_Activation, inplace=False):
    """x sigmoid(x); inplace writes the result into x (a tensor that is not a leaf needing
    gradient, as every in-place op)."""

    def forward(self, x):
        if self._inplace:
            # oar.nn.functional.silu has no inplace flag yet: the generic in-place helper. It
            # writes x's own memory and history, so x itself is the result (as Paddle returns).
            _inplace("silu", x, _C.silu)
            return x
        return F.silu(x, self._name)


SiLU = Silu


class Softmax(_Activation, axis=-1):
    """exp(x) / sum(exp(x)) along axis."""
    _functional = "softmax"


class Softmax2D(_Activation):
    """Softmax over the channels (axis -3) of a [C, H, W] or [N, C, H, W] input."""

    def forward(self, x):
        if x.ndim not in (3, 4):
            # AssertionError, as Paddle raises here
            raise AssertionError(f"Softmax2D: argument 'x' must be 3-D or 4-D, got {x.ndim}-D "
                                 f"(shape {list(x.shape)})")
        return F.softmax(x, axis=-3, name=self._name)


class Softplus(_Activation, beta=1, threshold=20):
    """log(1 + exp(beta x)) / beta, x itself where beta x > threshold."""
    _functional = "softplus"


class Softshrink(_Activation, threshold=0.5):
    """x - threshold above threshold (also spelled lambd), x + threshold below -threshold, else 0."""
    _functional, _alias = "softshrink", ("threshold", "lambd")


class Softsign(_Activation):
    """x / (1 + |x|)."""
    _functional = "softsign"


class Swish(_Activation):
    """x sigmoid(x)."""
    _functional = "swish"


class Tanh(_Activation):
    """tanh(x)."""
    _functional = "tanh"


class Tanhshrink(_Activation):
    """x - tanh(x)."""
    _functional = "tanhshrink"


class ThresholdedReLU(_Activation, threshold=1.0, value=0.0):
    """x where x > threshold, else value."""
    _functional = "thresholded_relu"
