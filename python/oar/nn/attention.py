"""oar.nn.attention (paddle.nn.attention): which implementation scaled_dot_product_attention may
use. oar has one, the fused math kernel (SDPBackend.MATH); Paddle's flash and memory-efficient
kernels are GPU builds' and, as in Paddle's CPU build, never available here. Inside
sdpa_kernel(...) without MATH, oar.nn.functional.scaled_dot_product_attention raises RuntimeError
("No available backend ..."), as Paddle's does."""
import contextlib
from enum import IntEnum

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(IntEnum):
    """The implementations of scaled dot-product attention (paddle.nn.attention.SDPBackend).

    Examples:
        >>> import oar
        >>> print(int(oar.nn.attention.SDPBackend.MATH), oar.nn.attention.SDPBackend.FLASH_ATTENTION.name)
        0 FLASH_ATTENTION
    """
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2


# Enabled backends (MATH only: the others do not exist in oar) and their order of preference.
_enabled = {SDPBackend.MATH: True, SDPBackend.FLASH_ATTENTION: False, SDPBackend.EFFICIENT_ATTENTION: False}
_priority = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]


def _current(with_priority=False):
    backends = [b for b, on in _enabled.items() if on]
    if with_priority:
        backends.sort(key=lambda b: _priority.index(b) if b in _priority else len(_priority))
    return backends


def _apply(backends, set_priority):
    global _priority
    for b in _enabled:
        _enabled[b] = False
    for b in backends:
        if b in _enabled:
            _enabled[b] = True
    if set_priority:
        order = list(backends)
        order += [b for b in _priority if b not in order]
        _priority = order


def _select():
    """The backend scaled_dot_product_attention runs: the first enabled one, in priority order, that
    oar implements (only MATH); RuntimeError when there is none."""
    for b in _priority:
        if _enabled.get(b) and b == SDPBackend.MATH:
            return "math"
    raise RuntimeError("No available backend for scaled_dot_product_attention was found.")


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """A with block in which scaled_dot_product_attention may use only `backends` (with
    set_priority, in that order of preference); the previous choice comes back afterwards.

    Args:
        backends (SDPBackend|list[SDPBackend]): The allowed backends (at least one).
        set_priority (bool, optional): Also make their order the order of preference. Default: False.

    Examples:
        >>> import oar
        >>> from oar.nn.attention import SDPBackend, sdpa_kernel
        >>> q = oar.rand([1, 4, 2, 8])
        >>> with sdpa_kernel(SDPBackend.MATH):
        ...     print(oar.nn.functional.scaled_dot_product_attention(q, q, q).shape)
        [1, 4, 2, 8]
        >>> with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        ...     oar.nn.functional.scaled_dot_product_attention(q, q, q)
        Traceback (most recent call last):
        RuntimeError: No available backend for scaled_dot_product_attention was found.
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    for b in backends:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"All backends must be SDPBackend instances, got {type(b)}")
    backends = list(dict.fromkeys(backends))
    if not backends:
        raise ValueError("At least one backend must be specified")
    previous = _current(with_priority=set_priority)
    try:
        _apply(backends, set_priority)
        yield {}
    finally:
        _apply(previous, set_priority)
