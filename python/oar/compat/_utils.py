"""Helpers shared by oar.compat's PyTorch-style functions and layers: the keyword guard that points a
caller who passed Paddle's argument names (x, axis, ...) at the Paddle function, and the check of an
`out=` argument."""
import functools
import warnings

from .. import _C
from ..framework import mode


def reject_keywords(illegal, func_name, correct_name, doc_suffix=""):
    """Decorator: a call that passes any of the keywords in `illegal` raises TypeError naming them and
    the Paddle-style function to use instead (as Paddle's compat functions do). With `doc_suffix`,
    that first misuse also warns (UserWarning) that the API differs from PyTorch's."""
    illegal = frozenset(illegal)

    def wrap(fn):
        state = {"warn": bool(doc_suffix)}

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            found = sorted(k for k in kwargs if k in illegal)
            if found:
                if state["warn"]:
                    state["warn"] = False
                    warnings.warn(
                        f"The API '{func_name}' may behave differently from its PyTorch counterpart. "
                        "Refer to the compatibility guide for details:\n"
                        "https://www.paddlepaddle.org.cn/documentation/docs/en/develop/guides/model_convert/"
                        f"convert_from_pytorch/api_difference/invok_only_diff/{doc_suffix}.html",
                        UserWarning, stacklevel=2)
                names = ", ".join(f"'{k}'" for k in found)
                plural = "s" if len(found) > 1 else ""
                raise TypeError(f"{func_name}() received unexpected keyword argument{plural} {names}. "
                                f"\nDid you mean to use {correct_name}() instead?")
            return fn(*args, **kwargs)
        return wrapper
    return wrap


def check_out(out, expect_pair=False):
    """out=None, a Tensor, or (with expect_pair) a list or tuple of two Tensors; static mode takes none."""
    if out is None:
        return
    if not mode.in_dynamic_mode():
        raise RuntimeError("Using `out` in static graph mode is not supported. "
                           "Directly return the tensor tuple instead.\n")
    if expect_pair:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"Expected a list or tuple of two tensors, got {type(out)} instead.")
        if not (isinstance(out[0], _C.Tensor) and isinstance(out[1], _C.Tensor)):
            raise TypeError(f"Expected Tensor type in the tuple/list, got ({type(out[0])}, {type(out[1])}) "
                            "instead.")
    elif not isinstance(out, _C.Tensor):
        raise TypeError(f"Expected a Tensor, got {type(out)} instead.")
