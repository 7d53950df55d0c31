"""Xavier (Glorot) and Kaiming (He) initializers, with Paddle's fan convention (compute_fans)."""
import math

from .initializer import Initializer, calculate_gain, compute_fans
from .random import Normal, Uniform


class XavierNormal(Initializer):
    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in, self.fan_out, self.gain = fan_in, fan_out, gain

    def _values(self, shape, dtype):
        fi, fo = compute_fans(shape)
        fi = self.fan_in if self.fan_in is not None else fi
        fo = self.fan_out if self.fan_out is not None else fo
        return Normal(0.0, self.gain * math.sqrt(2.0 / (fi + fo)))._values(shape, dtype)


class XavierUniform(Initializer):
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
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        self.fan_in, self.negative_slope, self.nonlinearity, self.mode = fan_in, negative_slope, nonlinearity, mode

    def _values(self, shape, dtype):
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        return Normal(0.0, gain / math.sqrt(_kaiming_fan(self, shape)))._values(shape, dtype)


class KaimingUniform(Initializer):
    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu", mode="fan_in"):
        self.fan_in, self.negative_slope, self.nonlinearity, self.mode = fan_in, negative_slope, nonlinearity, mode

    def _values(self, shape, dtype):
        gain = calculate_gain(self.nonlinearity, self.negative_slope)
        bound = gain * math.sqrt(3.0 / _kaiming_fan(self, shape))
        return Uniform(-bound, bound)._values(shape, dtype)
