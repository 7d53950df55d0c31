"""Parameters as one flat vector and back (paddle.nn.utils.parameters_to_vector /
vector_to_parameters)."""
import math

from ... import _C
from ...autograd import no_grad
from ...framework.errors import AssertValueError

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters, name=None):
    """Concatenates the parameters, each flattened, into one 1-D tensor.

    The result is a copy (not tied to the parameters by autograd) with ``stop_gradient=False``,
    as Paddle's.

    Args:
        parameters (Iterable[Tensor]): The parameters, e.g. ``layer.parameters()``.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: a 1-D tensor of all their elements, in order.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(10, 15)
        >>> print(oar.nn.utils.parameters_to_vector(linear.parameters()).shape)
        [165]
    """
    with no_grad():
        out = _C.concat([_C.reshape(p, [-1]) for p in parameters], 0)
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None):
    """Copies consecutive slices of the 1-D ``vec`` into the parameters, in order, each reshaped to
    its parameter's shape (the inverse of :func:`parameters_to_vector`). Elements of vec beyond
    the parameters' total are ignored.

    Unlike Paddle, which makes each parameter share vec's memory (and dtype), the values are
    copied, cast to each parameter's dtype.

    Args:
        vec (Tensor): A 1-D tensor with at least as many elements as the parameters together.
        parameters (Iterable[Tensor]): The parameters to fill.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> linear1 = oar.nn.Linear(10, 15)
        >>> linear2 = oar.nn.Linear(10, 15)
        >>> vec = oar.nn.utils.parameters_to_vector(linear1.parameters())
        >>> oar.nn.utils.vector_to_parameters(vec, linear2.parameters())
        >>> print(bool((linear1.weight == linear2.weight).all()))
        True
    """
    if len(vec.shape) != 1:
        raise AssertValueError(f"vector_to_parameters: 'vec' must be 1-D, but got shape {list(vec.shape)}")
    parameters = list(parameters)
    sizes = [math.prod(p.shape) for p in parameters]
    if sum(sizes) > vec.shape[0]:
        raise ValueError("The total_elements of vec should be equal to or larger than the number of elements "
                         "in parameters.")
    start = 0
    with no_grad():
        for p, size in zip(parameters, sizes):
            piece = _C.reshape(vec[start:start + size], list(p.shape))
            p.copy_(piece if piece.dtype == p.dtype else _C.cast(piece, p.dtype))
            start += size
