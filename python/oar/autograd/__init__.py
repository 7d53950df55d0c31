"""Autograd: backward, grad, no_grad, PyLayer (Paddle's dygraph semantics)."""
import functools

from .. import _C
from ..profiler.events import in_phase
from .py_layer import PyLayer, PyLayerContext, saved_tensors_hooks  # noqa: F401
from .functional import Hessian, Jacobian, hessian, jacobian  # noqa: F401

# paddle.autograd.Function: PyLayer under torch's name (the same class).
Function = PyLayer


@in_phase("Backward")
def backward(tensors, grad_tensors=None, retain_graph=False):
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    if grad_tensors is None:
        grad_tensors = [None] * len(tensors)
    elif not isinstance(grad_tensors, (list, tuple)):
        grad_tensors = [grad_tensors]
    _C._run_backward(list(tensors), list(grad_tensors), retain_graph)


@in_phase("Backward")
def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """d(outputs)/d(inputs) as a list, without touching .grad (paddle.grad)."""
    single = not isinstance(outputs, (list, tuple))
    outputs = [outputs] if single else list(outputs)
    inputs_list = [inputs] if not isinstance(inputs, (list, tuple)) else list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif not isinstance(grad_outputs, (list, tuple)):
        grad_outputs = [grad_outputs]
    if retain_graph is None:
        retain_graph = create_graph
    return _C._grad(outputs, inputs_list, list(grad_outputs), bool(retain_graph),
                    bool(create_graph), bool(allow_unused))


class no_grad:
    """Context manager and decorator that turns off gradient recording."""

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class enable_grad(no_grad):
    """Context manager and decorator that turns gradient recording on (inside no_grad, for example);
    the previous mode comes back on exit.

    Examples:
        >>> import oar
        >>> x = oar.ones([2])
        >>> x.stop_gradient = False
        >>> with oar.no_grad():
        ...     with oar.enable_grad():
        ...         y = x * 2
        >>> print(y.stop_gradient)
        False
    """

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)


class set_grad_enabled(no_grad):
    """Turns gradient recording on or off. Called, it sets the mode at once; used in a with block,
    the previous mode comes back at the end of the block.

    Args:
        mode (bool): True to record gradients, False not to.

    Examples:
        >>> import oar
        >>> x = oar.ones([2])
        >>> x.stop_gradient = False
        >>> with oar.set_grad_enabled(False):
        ...     y = x * 2
        >>> print(y.stop_gradient, oar.is_grad_enabled())
        True True
    """

    def __init__(self, mode):
        self._mode = bool(mode)
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        pass


is_grad_enabled = _C.is_grad_enabled
