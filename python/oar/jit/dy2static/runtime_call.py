"""Runtime of converted calls: user functions reached from a converted function are converted too.

As in Paddle, a call `f(...)` inside a converted function runs `convert_call(f)(...)`: plain Python
functions and methods of user code, and the `forward` of user Layers, are converted (once, cached);
everything else (builtins, classes, C functions, lambdas, generators, code of oar, paddle, numpy
and the standard library, functions marked with `not_to_static`) is called as it is.
"""
import inspect
import sys
import types

_LIBRARY_ROOTS = frozenset({"oar", "paddle", "numpy", "scipy", "torch", "_pytest", "pytest"}) \
    | frozenset(sys.stdlib_module_names)


_ignored_modules = set()


def not_to_static(fn):
    """Decorator: calls to `fn` from converted code run it unconverted (Paddle's not_to_static)."""
    fn._oar_not_to_static = True
    return fn


def ignore_module(modules):
    """Functions of these modules (and their submodules) are called unconverted
    (paddle.jit.ignore_module)."""
    for module in modules if isinstance(modules, (list, tuple, set)) else [modules]:
        _ignored_modules.add(module if isinstance(module, str) else module.__name__)


def _is_user_function(fn):
    if getattr(fn, "_oar_not_to_static", False) or fn.__name__ == "<lambda>":
        return False
    module = fn.__module__ or ""
    if module.split(".")[0] in _LIBRARY_ROOTS or any(
            module == m or module.startswith(m + ".") for m in _ignored_modules):
        return False
    return not (inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn))


def convert_call(fn):
    from .function_converter import convert_layer_call, converted_or_none
    if isinstance(fn, types.FunctionType):
        return (converted_or_none(fn) or fn) if _is_user_function(fn) else fn
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        converted = convert_call(fn.__func__)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    inner = getattr(fn, "dygraph_function", None)       # a to_static function called from here
    if isinstance(inner, types.FunctionType) and getattr(fn, "_layer", None) is None:
        return convert_call(inner)
    from oar.nn import Layer
    if isinstance(fn, Layer):
        forward = type(fn).forward
        if isinstance(forward, types.FunctionType) and _is_user_function(forward):
            return convert_layer_call(fn)
    return fn
