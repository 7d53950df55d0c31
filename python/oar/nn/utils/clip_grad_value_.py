"""paddle.nn.utils.clip_grad_value_: clamp gradients in place to [-clip_value, clip_value]."""
from ... import _C
from ...autograd import no_grad
from ...framework.mode import in_dynamic_mode

__all__ = ["clip_grad_value_"]


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient element of ``parameters`` to ``[-clip_value, clip_value]`` in place.
    Parameters without a gradient are skipped. Dynamic mode only.

    Args:
        parameters (Iterable[Tensor]|Tensor): The parameters whose ``.grad`` is clipped.
        clip_value (float|int): The largest magnitude kept.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(2, 2)
        >>> linear(oar.ones([4, 2]) * 10).sum().backward()
        >>> oar.nn.utils.clip_grad_value_(linear.parameters(), 1.0)
        >>> print(linear.weight.grad.numpy())
        [[1. 1.]
         [1. 1.]]
    """
    if not in_dynamic_mode():
        raise RuntimeError("this API can only run in dynamic mode.")
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clip_(min=-clip_value, max=clip_value)
