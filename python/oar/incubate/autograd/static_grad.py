"""oar.incubate.autograd.grad (paddle.incubate.autograd.grad): reverse-mode gradients inside a
static program. Paddle lowers the program to primitive operators first when enable_prim() is on;
oar's static gradients come from the same vjp rules either way (see primapi.py), so the result is
the same with the switch on or off. Dynamic mode raises, as in Paddle."""
from ... import _C
from .primapi import _require_static


def grad(outputs, inputs, grad_outputs=None):
    """Gradients of outputs with respect to inputs in the current static program
    (paddle.incubate.autograd.grad): adds the backward computation to the program and returns the
    values that hold d(outputs)/d(inputs), weighted by grad_outputs (ones when None).

    Args:
        outputs (Tensor|Sequence[Tensor]): Values of the program.
        inputs (Tensor|Sequence[Tensor]): Values the gradients are taken with respect to.
        grad_outputs (Tensor|Sequence[Tensor], optional): The cotangents of outputs. Default: None.

    Returns:
        Tensor|list[Tensor]: One gradient for a Tensor `inputs`, a list for a sequence.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [2], 'float32')
        ...     x.stop_gradient = False
        ...     y = x * x
        ...     dx = oar.incubate.autograd.grad(y, x)
        >>> out = oar.static.Executor().run(main, feed={'x': np.array([1., 3.], 'float32')}, fetch_list=[dx])
        >>> print(out[0])
        [2. 6.]
        >>> oar.disable_static()
    """
    _require_static("grad")
    for arg, value in (("outputs", outputs), ("inputs", inputs)):
        if not isinstance(value, (_C.Tensor, list, tuple)):
            raise TypeError(f"Expected {arg} is Tensor|Sequence[Tensor], but got {type(value)}.")
    from ...static import gradients
    ys = [outputs] if isinstance(outputs, _C.Tensor) else list(outputs)
    xs = [inputs] if isinstance(inputs, _C.Tensor) else list(inputs)
    if grad_outputs is not None and isinstance(grad_outputs, _C.Tensor):
        grad_outputs = [grad_outputs]
    result = gradients(ys, xs, None if grad_outputs is None else list(grad_outputs))
    if isinstance(inputs, _C.Tensor):
        return result[0]
    return result
