"""paddle.Generator: the handle on oar's one random-number generator (the C++ Philox generator that
oar.seed, oar.get_rng_state and every random op use).

As in Paddle, Generator() does not make an independent generator: it returns the default CPU
generator, so g.manual_seed(5) is oar.seed(5). Its state is (seed, offset): Philox draws depend
only on them, so restoring a state replays the same draws.
"""
import secrets

from .. import _C
from .dtype import convert_dtype
from .place import Place, available

_U64 = 1 << 64


class GeneratorState(tuple):
    """A saved generator state: the pair (seed, offset), with Paddle's current_seed()."""

    def __new__(cls, seed, offset):
        return super().__new__(cls, (int(seed), int(offset)))

    def current_seed(self):
        return self[0]

    def __repr__(self):
        return f"GeneratorState(seed={self[0]}, offset={self[1]})"


def _check_device(device):
    """Paddle's device argument: None, 'cpu', an int or a CPU place; accelerators raise."""
    if device is None or isinstance(device, int) and not isinstance(device, bool):
        return
    if isinstance(device, Place):
        # Draws happen on the host for every place (the same numbers everywhere), so any device
        # that exists may own a generator.
        if device._kind != "cpu" and not available(device._key()):
            raise ValueError(f"Generator: oar has no generator for {device}: it is built for the CPU only")
        return
    if isinstance(device, str):
        name = device.lower()
        if name == "cpu" or available(name if ":" in name else name + ":0"):
            return
        if name.split(":")[0] in ("gpu", "dcu", "xpu", "npu"):
            raise ValueError(f"Generator: the device should not be {device!r}, since oar is not compiled "
                             "with accelerator support")
        raise ValueError("Generator: the device must be a string like 'cpu', 'gpu', 'gpu:x', 'xpu', "
                         f"'xpu:x', 'npu', 'npu:x', but got {device!r}")
    raise TypeError(f"Generator: argument 'device' must be a str, an int or a Place, but got "
                    f"{type(device).__name__}")


class Generator:
    """paddle.Generator(device=None): the default (CPU) generator; every call returns the same one."""
    _default = None

    def __new__(cls, device=None):
        _check_device(device)
        if cls._default is None:
            cls._default = super().__new__(cls)
        return cls._default

    def manual_seed(self, seed):
        """Seeds the generator (seed: an int in [0, 2**64)); returns the generator."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"Generator.manual_seed: argument 'seed' must be an int, but got "
                            f"{type(seed).__name__}")
        if not 0 <= seed < _U64:
            raise TypeError(f"Generator.manual_seed: argument 'seed' must be in [0, 2**64), but got {seed}")
        _C.seed(seed - _U64 if seed >= 1 << 63 else seed)  # the binding takes int64; same 64 bits
        return self

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        return int(_C._get_rng_state()[0])

    def seed(self):
        """Seeds the generator from the operating system's entropy and returns that seed."""
        s = secrets.randbits(53)
        self.manual_seed(s)
        return s

    def random(self):
        """A random 64-bit unsigned int drawn from the generator (advances its state)."""
        halves = _C.randint(0, 1 << 32, [2], _int64())
        hi, lo = (int(v) for v in halves.numpy())
        return (hi << 32) | lo

    def get_state(self):
        return GeneratorState(*_C._get_rng_state())

    def set_state(self, state):
        if not isinstance(state, GeneratorState):
            raise TypeError("Generator.set_state: argument 'state' must be a GeneratorState (from "
                            f"get_state() or oar.get_rng_state()[0]), but got {type(state).__name__}")
        _C._set_rng_state(state[0], state[1])

    def __repr__(self):
        return f"<oar.Generator (cpu) seed={self.initial_seed()}>"


def _int64():
    return convert_dtype("int64")
