"""paddle.autograd.jacobian and hessian: the Jacobian and Hessian matrices of computed outputs
with respect to the inputs they came from, as lazy Jacobian/Hessian objects.

Unlike oar.incubate.autograd.Jacobian (which takes a function and flattens all inputs into one
vector), each (ys, xs) pair here gets its own matrix: sequences of ys or xs give tuples
(nested, ys outer, when both are sequences). Without batch_axis, ys and xs are 0-D or 1-D and
J[i, j] = d ys[i] / d xs[j] (a 0-D side drops its axis); with batch_axis=0 they are 1-D or 2-D,
[B] or [B, M], and J[b, i, j] = d ys[b, i] / d xs[b, j]. The matrix is computed on the first
index (J[:], J[i], J[i, j]) and kept."""
from .. import _C

__all__ = ["jacobian", "hessian", "Jacobian", "Hessian"]


def _check_batch_axis(batch_axis):
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    return batch_axis is not None


def _grad_or_zeros(y, x, create_graph):
    if y.stop_gradient:
        return _C.zeros_like(x)
    g = _C._grad([y], [x], [_C.ones_like(y)], True, create_graph, True)[0]
    return _C.zeros_like(x) if g is None else g


class Jacobian:
    """The Jacobian matrix of ys with respect to xs (what paddle.autograd.jacobian returns for one
    pair): `shape` is its shape, indexing (ints and slices, no Ellipsis) gives its entries.

    Args:
        ys (Tensor): The outputs, computed from xs.
        xs (Tensor): The inputs.
        is_batched (bool, optional): Whether axis 0 of both is a batch axis. Default: False.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> J = oar.autograd.Jacobian(x * x, x)
        >>> print(J.shape, J[:].numpy().tolist())
        [2, 2] [[2.0, 0.0], [0.0, 4.0]]
    """

    def __init__(self, ys, xs, is_batched=False, _create_graph=False):
        low, high = (1, 2) if is_batched else (0, 1)
        for name, t in ((("ys", ys), ("xs", xs)) if is_batched else (("xs", xs), ("ys", ys))):
            if not isinstance(t, _C.Tensor):
                raise TypeError(f"jacobian: {name} must be a Tensor or a sequence of Tensors, but got "
                                f"{type(t).__name__}")
            if not low <= t.ndim <= high:
                raise ValueError(f"{name}.ndim should be {low} or {high} when is_batched={is_batched} but got "
                                 f"{t.ndim}")
        if is_batched and ys.shape[0] != xs.shape[0]:
            raise ValueError(f"jacobian: ys and xs must share the batch size (axis 0), but got {ys.shape[0]} and "
                             f"{xs.shape[0]}")
        self._ys, self._xs, self._batched, self._create_graph = ys, xs, is_batched, _create_graph
        self._matrix = None
        if is_batched:
            self.shape = [xs.shape[0]] + ys.shape[1:] + xs.shape[1:]
        else:
            self.shape = ys.shape + xs.shape

    def _evaluate(self):
        ys, xs = self._ys, self._xs
        if self._batched:
            b = ys.shape[0]
            flat = ys.reshape([b, -1])
            rows = [_grad_or_zeros(flat[:, i], xs, self._create_graph).reshape([b, -1])
                    for i in range(flat.shape[1])]
            full = _C.stack(rows, 1)                       # [B, M, N]
        else:
            flat = ys.reshape([-1])
            rows = [_grad_or_zeros(flat[i], xs, self._create_graph).reshape([-1]) for i in range(flat.shape[0])]
            full = _C.stack(rows, 0)                       # [M, N]
        return full.reshape(self.shape)

    def __getitem__(self, indexes):
        if not self.shape:
            raise IndexError("0-D tensor can not be indexed.")
        items = indexes if isinstance(indexes, tuple) else (indexes,)
        if any(i is Ellipsis for i in items):
            raise IndexError("Ellipsis index currently is not supported.")
        if self._matrix is None:
            self._matrix = self._evaluate()
        return self._matrix[indexes]


class Hessian(Jacobian):
    """The Hessian matrix of a one-element ys (a [B] or [B, 1] ys with batch_axis=0) with respect
    to xs and xs2: the Jacobian, with respect to xs2, of the gradient of ys with respect to xs (what
    paddle.autograd.hessian returns for one pair).

    Args:
        ys (Tensor): The output, computed from xs.
        xs (Tensor): The input of the gradient.
        xs2 (Tensor, optional): The input of the second derivative. Default: None, xs.
        is_batched (bool, optional): Whether axis 0 is a batch axis. Default: False.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0], stop_gradient=False)
        >>> H = oar.autograd.Hessian((x * x * x).sum(), x)
        >>> print(H.shape, H[:].numpy().tolist())
        [2, 2] [[6.0, 0.0], [0.0, 12.0]]
    """

    def __init__(self, ys, xs, xs2=None, is_batched=False):
        target = ys.sum() if is_batched else ys
        super().__init__(_grad_or_zeros(target, xs, True), xs if xs2 is None else xs2, is_batched)


def _is_seq(v):
    return isinstance(v, (list, tuple))


def _check_hessian_ys(ys, batched):
    if not isinstance(ys, _C.Tensor):
        raise TypeError(f"hessian: ys must be a Tensor, but got {type(ys).__name__}")
    if not batched and ys.size != 1:
        raise ValueError(f"Only support ys.numel()({ys.size})==1 when batch_axis is None.")
    if batched and not (ys.ndim == 1 or ys.ndim == 2 and ys.shape[1] == 1):
        raise ValueError(f"Only support ys.shape=[B] or [B, 1] when batch_axis is 0, but got {list(ys.shape)}.")


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian matrices of ys (computed from xs) with respect to xs, as paddle.autograd.jacobian:
    a Jacobian for a Tensor pair, a tuple when ys or xs is a sequence (a tuple of tuples, ys outer,
    when both are). Without batch_axis ys and xs are 0-D or 1-D; with batch_axis=0 they are 1-D or
    2-D with the batch on axis 0. Entries are computed when first indexed.

    Args:
        ys (Tensor|Sequence[Tensor]): The outputs.
        xs (Tensor|Sequence[Tensor]): The inputs (stop_gradient=False).
        batch_axis (int, optional): None or 0. Default: None.

    Returns:
        Jacobian|tuple

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        >>> J = oar.autograd.jacobian(x * x, x)
        >>> print(J.shape)
        [3, 3]
        >>> print(J[:].numpy())
        [[2. 0. 0.]
         [0. 4. 0.]
         [0. 0. 6.]]
        >>> print(J[1].numpy())
        [0. 4. 0.]
    """
    batched = _check_batch_axis(batch_axis)
    if _is_seq(ys) and _is_seq(xs):
        return tuple(tuple(Jacobian(y, x, batched) for x in xs) for y in ys)
    if _is_seq(ys):
        return tuple(Jacobian(y, xs, batched) for y in ys)
    if _is_seq(xs):
        return tuple(Jacobian(ys, x, batched) for x in xs)
    return Jacobian(ys, xs, batched)


def hessian(ys, xs, batch_axis=None):
    """The Hessian matrices of a one-element ys (computed from xs) with respect to xs, as
    paddle.autograd.hessian: a Hessian for one input, a tuple of tuples (H[i][j] = second
    derivatives by xs[i] then xs[j]) for a sequence. With batch_axis=0, ys is [B] or [B, 1] and
    each matrix is [B, N, N].

    Args:
        ys (Tensor): The output: one element (or one per sample with batch_axis=0).
        xs (Tensor|Sequence[Tensor]): The inputs (stop_gradient=False), 0-D or 1-D (1-D or 2-D
            with batch_axis=0).
        batch_axis (int, optional): None or 0. Default: None.

    Returns:
        Hessian|tuple

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
        >>> H = oar.autograd.hessian((x * x * x).sum(), x)
        >>> print(H[:].numpy())
        [[ 6.  0.  0.]
         [ 0. 12.  0.]
         [ 0.  0. 18.]]
    """
    batched = _check_batch_axis(batch_axis)
    _check_hessian_ys(ys, batched)
    if _is_seq(xs):
        return tuple(tuple(Hessian(ys, xi, xj, batched) for xj in xs) for xi in xs)
    return Hessian(ys, xs, None, batched)
