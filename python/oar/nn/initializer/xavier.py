"""Xavier (Glorot) and Kaiming (He) initializers, with Paddle's fan convention (compute_fans)."""
import math

from .initializer import Initializer, calculate_gain, compute_fans
from .random import Normal, Uniform


class XavierNormal(Initializer):
    """Xavier (Glorot) normal initializer: N(0, std) with std = gain * sqrt(2 / (fan_in + fan_out)).
    Fans follow Paddle: a 2-D weight is [in, out]; a conv weight [out, in, *kernel] has
    fan_in = in * kernel size and fan_out = out * kernel size.

    Args:
        fan_in (int, optional): Overrides the computed fan_in. Default: None.
        fan_out (int, optional): Overrides the computed fan_out. Default: None.
        gain (float, optional): Scale factor. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.XavierNormal())
        >>> w = oar.nn.Linear(4, 3, weight_attr=attr).weight
        >>> print(w.shape)
        [4, 3]
    """

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _values(self, shape, dtype):
        fi, fo = compute_fans(shape)
        fi = self.fan_in if self.fan_in is not None else fi
        fo = self.fan_out if self.fan_out is not None else fo
        return Normal(0.0, self.gain * math.sqrt(2.0 / (fi + fo)))._values(shape, dtype)


class XavierUniform(Initializer):
    """Xavier (Glorot) uniform initializer: U(-b, b) with b = gain * sqrt(6 / (fan_in + fan_out)).
    Fans follow Paddle: a 2-D weight is [in, out]; a conv weight [out, in, *kernel] has
    fan_in = in * kernel size and fan_out = out * kernel size.

    Args:
        fan_in (int, optional): Overrides the computed fan_in. Default: None.
        fan_out (int, optional): Overrides the computed fan_out. Default: None.
        gain (float, optional): Scale factor. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.XavierUniform())
        >>> w = oar.nn.Linear(4, 3, weight_attr=attr).weight
        >>> print(bool((w.abs() <= (6 / 7) ** 0.5).all()))
        True
    """

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _values(self, shape, dtype):
        fi, fo = compute_fans(shape)
        fi = self.fan_in if self.fan_in is not None else fi
        fo = self.fan_out if self.fan_out is not None else fo
        bound = self.gain * math.sqrt(6.0 / (fi + fo))
        return Uniform(-bound, bound)._values(shape, dtype)


def _kaiming_fan(init, shape):
    if init.mode not in ("fan_in", "fan_out"):
        raise ValueError(f"{type(init).__name__}: 'mode' must be 'fan_in' or 'fan_out', but got {init.mode!r}")
    fi, fo = compute_fans(shape)
    if init.fan_in is not None:
        return init.fan_in
    return fi if init.mode == "fan_in" else fo


class KaimingNormal(Initializer):
    """Kaiming (He) normal initializer: N(0, std) with std = gain / sqrt(fan), gain from
    calculate_gain(nonlinearity, negative_slope). Fans follow Paddle: a 2-D weight is [in, out]; a
    conv weight [out, in, *kernel] has
    fan_in = in * kernel size and fan_out = out * kernel size.

    Args:
        fan_in (int, optional): Overrides the fan (whatever the mode). Default: None.
        negative_slope (float, optional): Slope of leaky_relu, used for its gain. Default: 0.0.
        nonlinearity (str, optional): The activation after the layer, e.g. 'relu', 'leaky_relu',
            'tanh'. Default: 'relu'.
        mode (str, optional): 'fan_in' or 'fan_out', the fan used. Default: 'fan_in'.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.KaimingNormal())
        >>> w = oar.nn.Linear(4, 3, weight_attr=attr).weight
        >>> print(w.shape)
        [4, 3]
    """

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        self.fan_in, self.negative_slope, self.nonlinearity, self.mode = fan_in, negative_slope, nonlinearity, mode

    def _values(self, shape, dtype):
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        return Normal(0.0, gain / math.sqrt(_kaiming_fan(self, shape)))._values(shape, dtype)


class KaimingUniform(Initializer):
    """Kaiming (He) uniform initializer: U(-b, b) with b = gain * sqrt(3 / fan), gain from
    calculate_gain(nonlinearity, negative_slope). Fans follow Paddle: a 2-D weight is [in, out]; a
    conv weight [out, in, *kernel] has
    fan_in = in * kernel size and fan_out = out * kernel size.

    Args:
        fan_in (int, optional): Overrides the fan (whatever the mode). Default: None.
        negative_slope (float, optional): Slope of leaky_relu, used for its gain. Default: 0.0.
        nonlinearity (str, optional): The activation after the layer, e.g. 'relu', 'leaky_relu',
            'tanh'. Default: 'relu'.
        mode (str, optional): 'fan_in' or 'fan_out', the fan used. Default: 'fan_in'.

    Examples:
        >>> import oar
        >>> attr = oar.ParamAttr(initializer=oar.nn.initializer.KaimingUniform())
        >>> w = oar.nn.Linear(4, 3, weight_attr=attr).weight
        >>> print(bool((w.abs() <= (6 / 4) ** 0.5).all()))
        True
    """

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        self.fan_in, self.negative_slope, self.nonlinearity, self.mode = fan_in, negative_slope, nonlinearity, mode

    def _values(self, shape, dtype):
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        bound = gain * math.sqrt(3.0 / _kaiming_fan(self, shape))
        return Uniform(-bound, bound)._values(shape, dtype)
