"""The Initializer base, fan computation, the global default and how a layer makes a parameter."""
import math

from ... import _C
from ...framework import dtype as D
from ...framework.mode import eager

_global_weight_initializer = None
_global_bias_initializer = None


class Initializer:
    """Fills a parameter in place: `init(param)`. Subclasses implement `_values(shape, dtype)`."""

    def __call__(self, param, block=None):
        values = self._values(list(param.shape), param.dtype)
        if values.dtype != param.dtype:
            values = _C.cast(values, param.dtype)
        from ...autograd import no_grad
        with no_grad():
            param.copy_(values)
        return param

    def _values(self, shape, dtype):
        raise NotImplementedError(f"{type(self).__name__} does not define how to fill a parameter")


def compute_fans(shape):
    """Paddle's fan convention: a 2-D weight is [in, out]; a conv weight is [out, in, *kernel]."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def draw_dtype(dtype):
    """Random draws happen in float32 for half types (then cast) and in the parameter's type otherwise."""
    return dtype if dtype in (D.float32, D.float64) else D.float32


def calculate_gain(nonlinearity, param=None):
    """paddle.nn.initializer.calculate_gain: the recommended gain for a nonlinearity."""
    unit = ("sigmoid", "linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
            "conv3d_transpose")
    if nonlinearity in unit:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"nonlinearity function {nonlinearity} is not supported now.")


def set_global_initializer(weight_init, bias_init=None):
    """Initializers used by every layer whose ParamAttr names none (None restores the defaults)."""
    global _global_weight_initializer, _global_bias_initializer
    for arg, what in ((weight_init, "weight_init"), (bias_init, "bias_init")):
        if arg is not None and not isinstance(arg, Initializer):
            raise TypeError(f"set_global_initializer: '{what}' must be an Initializer or None, "
                            f"but got {type(arg).__name__}")
    _global_weight_initializer, _global_bias_initializer = weight_init, bias_init


def make_parameter(shape, dtype, attr, is_bias, default_initializer, default_name):
    """A Parameter of `shape` and `dtype` named and initialised as `attr` says (with values, also
    in static mode)."""
    with eager():
        return _make_parameter(shape, dtype, attr, is_bias, default_initializer, default_name)


def _make_parameter(shape, dtype, attr, is_bias, default_initializer, default_name):
    from ...framework.parameter import Parameter
    from ...utils import unique_name
    from .constant import Constant
    from .xavier import XavierUniform
    shape = [int(s) for s in shape]
    for s in shape:
        if s < 0:
            raise ValueError(f"create_parameter: every dimension of 'shape' must be >= 0, but got {shape}")
    # Paddle's priority: the ParamAttr's initializer, then the global one, then the layer's default
    init = attr.initializer or (_global_bias_initializer if is_bias else _global_weight_initializer)
    init = init or default_initializer
    if init is None:
        init = Constant(0.0) if is_bias else XavierUniform()
    dtype = D.convert_dtype(dtype) if dtype is not None else _C.get_default_dtype()
    # Our initializers produce the values directly (no zero fill and copy); a user's Paddle-style
    # initializer that only defines __call__(param, block) fills a zero tensor in place.
    fills_in_place = type(init)._values is Initializer._values
    from ...framework import lazy_init
    lazy = lazy_init.active()  # under LazyGuard: zeros now, the initializer at param.initialize()
    values = _C.zeros(shape, dtype) if fills_in_place or lazy else init._values(shape, dtype)
    if values.dtype != dtype:
        values = _C.cast(values, dtype)
    param = Parameter(values, name=attr.name or unique_name.generate(default_name),
                      trainable=attr.trainable, learning_rate=attr.learning_rate,
                      regularizer=attr.regularizer, need_clip=attr.need_clip,
                      do_model_average=attr.do_model_average)
    from ...framework import mode
    if mode.in_static_mode():
        # The program keeps the parameters made while it is built (as Paddle's global block
        # holds them): static layers drop their Layer objects, and Program.all_parameters()
        # finds the captured tensors' Parameters through these.
        from ...static.program import default_main_program
        default_main_program()._created_parameters.append(param)
    if lazy:
        lazy_init.defer(param, init if fills_in_place else
                        lambda p: p.copy_(_C.cast(init._values(shape, dtype), dtype), False))
    elif fills_in_place:
        init(param)
    return param
