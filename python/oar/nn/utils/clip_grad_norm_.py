"""paddle.nn.utils.clip_grad_norm_: rescale gradients in place so that their joint norm is at
most max_norm."""
from ... import _C
from ...autograd import no_grad
from ...framework.mode import in_dynamic_mode
from ...linalg import vector_norm

__all__ = ["clip_grad_norm_"]

_NORM_TYPES = [float("inf"), 0, 1, 2]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients of ``parameters`` in place by ``min(1, max_norm / (total_norm + 1e-6))``,
    total_norm being the ``norm_type`` norm of all the gradients together (the norm of their
    per-gradient norms). Parameters without a gradient are skipped. Dynamic mode only.

    Args:
        parameters (Iterable[Tensor]|Tensor): The parameters whose ``.grad`` is clipped.
        max_norm (float|int): The largest total norm kept.
        norm_type (float|int, optional): The norm: 2, 1, 0 (count of nonzeros) or inf.
            Default: 2.0.
        error_if_nonfinite (bool, optional): Raise RuntimeError when the total norm is nan or
            inf instead of scaling by it. Default: False.

    Returns:
        Tensor: the total norm before clipping (0-D); 0.0 when no parameter has a gradient.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(3, 3)
        >>> linear(oar.ones([4, 3]) * 10).sum().backward()
        >>> total = oar.nn.utils.clip_grad_norm_(linear.parameters(), max_norm=1.0)
        >>> print(float(total) > 1.0, round(float(oar.linalg.norm(linear.weight.grad)), 3) <= 1.0)
        True True
    """
    if not in_dynamic_mode():
        raise RuntimeError("this API can only run in dynamic mode.")
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    if norm_type not in _NORM_TYPES:
        raise ValueError(f"norm_type only support {_NORM_TYPES}")
    norm_type, max_norm = float(norm_type), float(max_norm)
    with no_grad():
        grads = [p.grad for p in parameters if p.grad is not None]
        if not grads:
            return _C.full([], 0.0)
        if norm_type == float("inf"):
            norms = [_C.max(_C.abs(g)) for g in grads]
            total = norms[0] if len(norms) == 1 else _C.max(_C.stack(_same_dtype(norms)))
        else:
            norms = [vector_norm(g, norm_type) for g in grads]
            total = vector_norm(_C.stack(_same_dtype(norms)), norm_type)
        if error_if_nonfinite and not bool(_C.isfinite(total)):
            raise RuntimeError(f"The total norm of {norm_type} order of the gradients from `parameters` is "
                               "non-finite, so it cannot be clipped. In any case, disable this error and "
                               "scale the gradient by non-finite norm, set `error_if_nonfinite=False`")
        scale = _C.clip(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.multiply_(scale if scale.dtype == g.dtype else _C.cast(scale, g.dtype))
    return total


def _same_dtype(norms):
    """The per-gradient norms in the first one's dtype (mixed-precision gradients stack)."""
    return [n if n.dtype == norms[0].dtype else _C.cast(n, norms[0].dtype) for n in norms]
