"""The autograd methods of Tensor written in Python: x.backward() and x.register_hook(hook), which
returns a handle whose remove() takes the hook off again."""
from ..profiler.events import in_phase

__all__ = ["backward", "register_hook", "HookHandle"]


class HookHandle:
    def __init__(self, tensor, hook_id):
        self._tensor, self._id = tensor, hook_id

    def remove(self):
        if self._tensor is not None:
            self._tensor._remove_hook(self._id)
            self._tensor = None
        return True


@in_phase("Backward")
def backward(self, grad_tensor=None, retain_graph=False):
    """Computes the gradients of this tensor with respect to the graph leaves and accumulates them
    into their .grad.

    Args:
        self (Tensor): The tensor. A scalar (or pass grad_tensor).
        grad_tensor (Tensor, optional): The gradient of the final output with respect to self; None
            means
            ones. Default: None.
        retain_graph (bool, optional): Keep the graph for another backward. Default: False.

    Returns:
        None

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([2.0, 3.0])
        >>> x.stop_gradient = False
        >>> (x * x).sum().backward()
        >>> print(x.grad.numpy())
        [4. 6.]
    """
    self._backward(grad_tensor, retain_graph)


def register_hook(self, hook):
    """Registers hook(grad), called with the tensor's gradient during backward; a non-None return
    value replaces the gradient.

    Args:
        self (Tensor): The tensor.
        hook (callable): Takes a Tensor, returns a Tensor or None.

    Returns:
        HookHandle: its remove() unregisters the hook.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([2.0])
        >>> x.stop_gradient = False
        >>> handle = x.register_hook(lambda g: g * 3)
        >>> (x * x).sum().backward()
        >>> print(x.grad.numpy())
        [12.]
        >>> _ = handle.remove()
    """
    return HookHandle(self, self._register_hook(hook))
