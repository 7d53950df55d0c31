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
    """CELU activation, elementwise.

    ``celu(x) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``

    Args:
        alpha (float, optional): The alpha of the formula; must not be 0. Default: 1.0.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.CELU(alpha=0.5)
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.49084..., -0.31606...,  0.        ,  1.50000000])
    """
    _functional = "celu"


class ELU(_Activation, alpha=1.0):
    """ELU (exponential linear unit) activation, elementwise.

    ``elu(x) = x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Args:
        alpha (float, optional): Scale of the negative part. Default: 1.0.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.ELU(alpha=0.5)
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.43233..., -0.19673...,  0.        ,  1.50000000])
    """
    _functional = "elu"


class GELU(_Activation, approximate=False):
    """GELU (Gaussian error linear unit) activation, elementwise.

    ``gelu(x) = x * Phi(x)``, Phi the standard normal CDF; with ``approximate`` the tanh form
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))`` is used instead.

    Args:
        approximate (bool|str, optional): Use the tanh approximation: True or 'tanh'; False or
            'none' for the exact erf form. Default: False.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.GELU()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.04550..., -0.15426...,  0.        ,  1.39978...])
    """

    def forward(self, x):
        approximate = self._approximate
        if isinstance(approximate, str):
            if approximate not in ("tanh", "none"):
                raise ValueError(f"GELU: argument 'approximate' must be a bool, 'tanh' or 'none', "
                                 f"got {approximate!r}")
            approximate = approximate == "tanh"
        return F.gelu(x, approximate, self._name)


class GLU(_Activation, axis=-1):
    """Gated linear unit: splits the input in two halves ``a, b`` along ``axis`` and returns
    ``a * sigmoid(b)``.

    Args:
        axis (int, optional): The axis to split; its size must be even. PyTorch's spelling ``dim``
            is accepted too. Default: -1.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a Tensor whose size along ``axis`` is even.
        - output: the same shape, except that ``axis`` is halved.

    Examples:
        >>> import oar
        >>> m = oar.nn.GLU()
        >>> print(m(oar.to_tensor([[1.0, 2.0, 0.0, 0.0]])))
        Tensor(shape=[1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.50000000, 1.        ]])
    """
    _functional, _alias = "glu", ("axis", "dim")


class Hardshrink(_Activation, threshold=0.5):
    """Hardshrink activation, elementwise.

    ``hardshrink(x) = x`` where ``|x| > threshold``, else 0.

    Args:
        threshold (float, optional): The cut-off; PyTorch's spelling ``lambd`` is accepted
            too. Default: 0.5.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Hardshrink(threshold=0.5)
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-2.        ,  0.        ,  0.        ,  1.50000000])
    """
    _functional, _alias = "hardshrink", ("threshold", "lambd")


class Hardsigmoid(_Activation):
    """Hardsigmoid activation, a piecewise-linear approximation of the sigmoid.

    ``hardsigmoid(x) = clip(x / 6 + 0.5, 0, 1)``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Hardsigmoid()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.16666..., 0.41666..., 0.50000000, 0.75000...])
    """
    _functional, _name_attribute = "hardsigmoid", "name"


class Hardswish(_Activation):
    """Hardswish activation, elementwise.

    ``hardswish(x) = x * relu6(x + 3) / 6``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Hardswish()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.33333..., -0.20833...,  0.        ,  1.12500000])
    """
    _functional = "hardswish"


class Hardtanh(_Activation, min=-1.0, max=1.0):
    """Hardtanh activation: the input clamped to ``[min, max]``.

    ``hardtanh(x) = min(max(x, min), max)``.

    Args:
        min (float, optional): The lower bound. Default: -1.0.
        max (float, optional): The upper bound. Default: 1.0.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Hardtanh()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.        , -0.50000000,  0.        ,  1.        ])
    """
    _functional = "hardtanh"


class LeakyReLU(_Activation, negative_slope=0.01):
    """Leaky ReLU activation, elementwise.

    ``leaky_relu(x) = x`` where ``x >= 0``, else ``negative_slope * x``.

    Args:
        negative_slope (float, optional): Slope for negative inputs. Default: 0.01.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.LeakyReLU(negative_slope=0.1)
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.20000000, -0.05000000,  0.        ,  1.50000000])
    """
    _functional = "leaky_relu"


class LogSigmoid(_Activation):
    """LogSigmoid activation, elementwise.

    ``log_sigmoid(x) = log(1 / (1 + exp(-x)))``, computed without overflow.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.LogSigmoid()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-2.12692..., -0.97407..., -0.69314..., -0.20141...])
    """
    _functional = "log_sigmoid"


class LogSoftmax(_Activation, axis=-1):
    """Log of the softmax along ``axis``: ``x - log(sum(exp(x), axis))``, computed stably.

    Args:
        axis (int, optional): The axis the softmax runs along. Default: -1.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> m = oar.nn.LogSoftmax()
        >>> print(m(oar.to_tensor([[0.0, 0.0], [1.0, 1.0]])))
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[-0.69314..., -0.69314...],
                [-0.69314..., -0.69314...]])
    """
    _functional = "log_softmax"


class Maxout(_Activation, groups=_REQUIRED, axis=1):
    """Maxout activation: the maximum over each run of ``groups`` consecutive channels.

    The channel axis of size C becomes C / groups.

    Args:
        groups (int): How many channels each output channel takes the maximum of; C must be
            divisible by it.
        axis (int, optional): The channel axis: 1 for NCHW input, -1 or 3 for NHWC. Default: 1.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a 4-D Tensor [N, C, H, W] (or [N, H, W, C] with axis -1 or 3).
        - output: [N, C / groups, H, W] (or [N, H, W, C / groups]).

    Examples:
        >>> import oar
        >>> x = oar.arange(8, dtype="float32").reshape([1, 4, 1, 2])
        >>> m = oar.nn.Maxout(groups=2)
        >>> print(m(x))
        Tensor(shape=[1, 2, 1, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[2., 3.]],
                 [[6., 7.]]]])
    """
    _functional = "maxout"


class Mish(_Activation):
    """Mish activation, elementwise.

    ``mish(x) = x * tanh(softplus(x))``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Mish()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.25250..., -0.22074...,  0.        ,  1.40337...])
    """
    _functional = "mish"


class PReLU(Layer):
    """PReLU activation: a leaky ReLU whose negative slope is a learnable weight.

    ``prelu(x) = x`` where ``x >= 0``, else ``weight * x``, with one slope shared by all elements
    (``num_parameters=1``) or one per channel.

    Args:
        num_parameters (int, optional): Number of slopes: 1, or the number of input channels.
            Default: 1.
        init (float, optional): Initial value of the slopes (unless weight_attr sets an
            initializer). Default: 0.25.
        weight_attr (ParamAttr, optional): Attribute of the slope parameter. Default: None.
        data_format (str, optional): Where the channels are, for per-channel slopes: 'NC', 'NCL',
            'NCHW', 'NCDHW' (channels first) or 'NLC', 'NHWC', 'NDHWC' (channels last).
            Default: 'NCHW'.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape (with at least two dims for per-channel slopes).
        - output: a Tensor of the same shape.

    Examples:
        >>> import oar
        >>> m = oar.nn.PReLU(num_parameters=1, init=0.25)
        >>> print(m(oar.to_tensor([-2.0, -0.5, 0.0, 1.5])))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,
               [-0.50000000, -0.12500000,  0.        ,  1.50000000])
    """

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
    """ReLU (rectified linear unit) activation, elementwise.

    ``relu(x) = max(x, 0)``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.ReLU()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.        , 0.        , 1.50000000])
    """
    _functional = "relu"


class ReLU6(_Activation):
    """ReLU6 activation: ReLU capped at 6.

    ``relu6(x) = min(max(x, 0), 6)``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.ReLU6()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.        , 0.        , 1.50000000])
    """
    _functional = "relu6"


class RReLU(_Activation, lower=1.0 / 8.0, upper=1.0 / 3.0):
    """Randomized leaky ReLU: negative inputs are scaled by a random slope.

    While training, each element ``x < 0`` becomes ``a * x`` with ``a`` drawn uniformly from
    ``[lower, upper]``; in evaluation (``layer.eval()``) the fixed slope ``(lower + upper) / 2``
    is used.

    Args:
        lower (float, optional): Lower bound of the slope. Default: 1/8.
        upper (float, optional): Upper bound of the slope. Default: 1/3.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> m = oar.nn.RReLU(lower=0.1, upper=0.3)
        >>> m.eval()
        RReLU(lower=0.1, upper=0.3, training=False, dtype=float32)
        >>> print(m(oar.to_tensor([-2.0, -0.5, 0.0, 1.5])))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.40000..., -0.10000...,  0.        ,  1.50000000])
    """

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return _with_name(f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                          f"dtype={_dtype_name(self._dtype)}", self._name)


class SELU(_Activation, scale=1.0507009873554805, alpha=1.6732632423543772):
    """SELU (scaled exponential linear unit) activation, elementwise.

    ``selu(x) = scale * x`` where ``x > 0``, else ``scale * alpha * (exp(x) - 1)``.

    Args:
        scale (float, optional): The scale; must be > 1. Default: 1.0507009873554805.
        alpha (float, optional): The alpha; must be >= 0. Default: 1.6732632423543772.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.SELU()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.52016..., -0.69175...,  0.        ,  1.57605...])
    """
    _functional = "selu"

    def extra_repr(self):
        return _with_name(f"scale={self._scale:.16f}, alpha={self._alpha:.16f}", self._name)


class Sigmoid(_Activation):
    """Sigmoid activation, elementwise.

    ``sigmoid(x) = 1 / (1 + exp(-x))``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Sigmoid()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.11920..., 0.37754..., 0.50000000, 0.81757...])
    """
    _functional, _name_attribute = "sigmoid", "name"


class Silu(_Activation, inplace=False):
    """SiLU activation (also called Swish), elementwise.

    ``silu(x) = x * sigmoid(x)``.
    ``oar.nn.SiLU`` is the same class.

    Args:
        inplace (bool, optional): Write the result into the input tensor and return it (the
            input must not be a leaf that needs a gradient). Default: False.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Silu()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.23840..., -0.18877...,  0.        ,  1.22636...])
    """

    def forward(self, x):
        if self._inplace:
            # oar.nn.functional.silu has no inplace flag yet: the generic in-place helper. It
            # writes x's own memory and history, so x itself is the result (as Paddle returns).
            _inplace("silu", x, _C.silu)
            return x
        return F.silu(x, self._name)


SiLU = Silu


class Softmax(_Activation, axis=-1):
    """Softmax along ``axis``: ``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        axis (int, optional): The axis the softmax runs along. Default: -1.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a Tensor of any shape.
        - output: a Tensor of the same shape and dtype; entries along ``axis`` sum to 1.

    Examples:
        >>> import oar
        >>> m = oar.nn.Softmax()
        >>> print(m(oar.to_tensor([[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0]])))
        Tensor(shape=[2, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.25000000, 0.25000000, 0.25000000, 0.25000000],
                [0.25000000, 0.25000000, 0.25000000, 0.25000000]])
    """
    _functional = "softmax"


class Softmax2D(_Activation):
    """Softmax over the channels of each spatial position (axis -3).

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a 3-D [C, H, W] or 4-D [N, C, H, W] Tensor.
        - output: a Tensor of the same shape; at each (h, w) the C values sum to 1.

    Examples:
        >>> import oar
        >>> m = oar.nn.Softmax2D()
        >>> print(m(oar.zeros([1, 2, 1, 1])))
        Tensor(shape=[1, 2, 1, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[[0.50000000]],
                 [[0.50000000]]]])
    """

    def forward(self, x):
        if x.ndim not in (3, 4):
            # AssertionError, as Paddle raises here
            raise AssertionError(f"Softmax2D: argument 'x' must be 3-D or 4-D, got {x.ndim}-D "
                                 f"(shape {list(x.shape)})")
        return F.softmax(x, axis=-3, name=self._name)


class Softplus(_Activation, beta=1, threshold=20):
    """Softplus activation, a smooth ReLU.

    ``softplus(x) = log(1 + exp(beta * x)) / beta``, and ``x`` itself where
    ``beta * x > threshold`` (for numerical stability).

    Args:
        beta (float, optional): The beta of the formula. Default: 1.
        threshold (float, optional): Above this value of ``beta * x`` the result is ``x``.
            Default: 20.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Softplus()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.12692..., 0.47407..., 0.69314..., 1.70141...])
    """
    _functional = "softplus"


class Softshrink(_Activation, threshold=0.5):
    """Softshrink activation, elementwise.

    ``softshrink(x) = x - threshold`` where ``x > threshold``, ``x + threshold`` where
    ``x < -threshold``, else 0.

    Args:
        threshold (float, optional): The cut-off, >= 0; PyTorch's spelling ``lambd`` is
            accepted too. Default: 0.5.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Softshrink()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.50000000,  0.        ,  0.        ,  1.        ])
    """
    _functional, _alias = "softshrink", ("threshold", "lambd")


class Softsign(_Activation):
    """Softsign activation, elementwise.

    ``softsign(x) = x / (1 + |x|)``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Softsign()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.66666..., -0.33333...,  0.        ,  0.60000...])
    """
    _functional = "softsign"


class Swish(_Activation):
    """Swish activation, elementwise.

    ``swish(x) = x * sigmoid(x)``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Swish()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.23840..., -0.18877...,  0.        ,  1.22636...])
    """
    _functional = "swish"


class Tanh(_Activation):
    """Tanh activation, elementwise.

    ``tanh(x) = (exp(x) - exp(-x)) / (exp(x) + exp(-x))``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Tanh()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.96402..., -0.46211...,  0.        ,  0.90514...])
    """
    _functional = "tanh"


class Tanhshrink(_Activation):
    """Tanhshrink activation, elementwise.

    ``tanhshrink(x) = x - tanh(x)``.

    Args:
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.Tanhshrink()
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.03597..., -0.03788...,  0.        ,  0.59485...])
    """
    _functional = "tanhshrink"


class ThresholdedReLU(_Activation, threshold=1.0, value=0.0):
    """Thresholded ReLU activation, elementwise.

    ``thresholded_relu(x) = x`` where ``x > threshold``, else ``value``.

    Args:
        threshold (float, optional): The threshold. Default: 1.0.
        value (float, optional): What inputs at or below the threshold become.
            Default: 0.0.
        name (str, optional): Layer name, shown when it is printed; usually left unset. Default: None.

    Shape:
        - input: a floating-point Tensor of any shape.
        - output: a Tensor of the same shape and dtype.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([-2.0, -0.5, 0.0, 1.5])
        >>> m = oar.nn.ThresholdedReLU(threshold=0.5)
        >>> print(m(x))
        Tensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.        , 0.        , 1.50000000])
    """
    _functional = "thresholded_relu"
