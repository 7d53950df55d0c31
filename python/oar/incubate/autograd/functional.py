"""vjp, jvp, Jacobian and Hessian (paddle.incubate.autograd) over oar's autograd: every product
is one or two oar.grad calls with create_graph=True, so the results are differentiable again.

The inputs are detached first (sharing memory, stop_gradient=False), so the results do not
connect to the caller's graph and the caller's tensors keep their stop_gradient, as in Paddle.
jvp uses the double-vjp identity: g(u) = J^T u is linear in u, so the vjp of g at any u, taken
with v, is J v.
"""
from ... import _C
from ...framework import mode

Tensor = _C.Tensor

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]


class _ArgumentError(ValueError, RuntimeError):
    """A bad argument that Paddle reports with RuntimeError (the v of vjp/jvp, Hessian's func)."""


def _grad(outputs, inputs, grad_outputs, api):
    from ...autograd import grad
    outs = [(o, g) for o, g in zip(outputs, grad_outputs) if not o.stop_gradient]
    if not outs:  # nothing depends on the inputs
        return [None] * len(inputs)
    return grad([o for o, _ in outs], inputs, [g for _, g in outs], retain_graph=True, create_graph=True,
                allow_unused=True)


def _as_tensors(api, arg, xs):
    """(list of tensors, whether xs was one Tensor)."""
    if isinstance(xs, Tensor):
        return [xs], True
    if isinstance(xs, (list, tuple)) and all(isinstance(x, Tensor) for x in xs):
        return list(xs), False
    raise TypeError(f"{api}: expected '{arg}' is a Tensor|Sequence[Tensor], but got {type(xs).__name__}"
                    + (f" holding {[type(x).__name__ for x in xs]}" if isinstance(xs, (list, tuple)) else ""))


def _outputs(api, ys):
    try:
        return _as_tensors(api, "the output of func", ys)
    except TypeError:
        raise TypeError(f"{api}: func must return a Tensor or a sequence of Tensors, but it returned "
                        f"{type(ys).__name__}") from None


def _separate(xs):
    """xs detached (the same memory) as new leaves that record autograd history."""
    out = []
    for x in xs:
        d = x.detach()
        d.stop_gradient = False
        out.append(d)
    return out


def _check_dynamic(api):
    if mode.in_static_mode():
        raise NotImplementedError(f"{api}: oar runs it in dynamic mode only; call it outside "
                                  "oar.enable_static() (static programs differentiate with oar.static.gradients)")


def _vectors(api, v, like, what):
    """v as a list matching the tensors `like` (None: ones)."""
    if v is None:
        return [_C.ones_like(t) for t in like]
    vs, _ = _as_tensors(api, "v", v)
    if len(vs) != len(like):
        raise _ArgumentError(f"{api}: the argument v is a sequence of invalid length: it should match "
                             f"{what} ({len(like)}), but got {len(vs)}")
    for k, (a, b) in enumerate(zip(vs, like)):
        if list(a.shape) != list(b.shape):
            raise _ArgumentError(f"{api}: v[{k}] has shape {list(a.shape)}, but {what}[{k}] has shape "
                                 f"{list(b.shape)}")
    return [a.detach() for a in vs]


def _fill(grads, like):
    return [_C.zeros_like(t) if g is None else g for g, t in zip(grads, like)]


def vjp(func, xs, v=None):
    """The vector-Jacobian product v^T J of func at xs: reverse-mode differentiation
    (paddle.incubate.autograd.vjp).

    Args:
        func (Callable): Takes the tensors of xs as positional arguments and returns a Tensor or
            a sequence of Tensors.
        xs (Tensor|Sequence[Tensor]): Where to evaluate func.
        v (Tensor|Sequence[Tensor], optional): The cotangent, one tensor per output of func,
            each of that output's shape. None means ones. Default: None.

    Returns:
        tuple: (func_out, vjp). func_out is func(*xs) (a Tensor, or a tuple for several
        outputs); vjp has one tensor per input, shaped as it (a Tensor when xs is a Tensor, else
        a tuple). An input that func does not use gets zeros.

    Examples:
        >>> import oar
        >>> x = oar.ones([2, 2])
        >>> _, g = oar.incubate.autograd.vjp(lambda x: oar.matmul(x, x), x)
        >>> print(g.numpy())
        [[4. 4.]
         [4. 4.]]
    """
    _check_dynamic("vjp")
    xs_list, single_x = _as_tensors("vjp", "xs", xs)
    xs_d = _separate(xs_list)
    ys = func(*xs_d)
    ys_list, single_y = _outputs("vjp", ys)
    vs = _vectors("vjp", v, ys_list, "func's outputs")
    grads = _fill(_grad(ys_list, xs_d, vs, "vjp"), xs_d)
    out = ys_list[0] if single_y else tuple(ys_list)
    return out, (grads[0] if single_x else tuple(grads))


def jvp(func, xs, v=None):
    """The Jacobian-vector product J v of func at xs: forward-mode differentiation, computed
    with two reverse passes (paddle.incubate.autograd.jvp).

    Args:
        func (Callable): Takes the tensors of xs as positional arguments and returns a Tensor or
            a sequence of Tensors.
        xs (Tensor|Sequence[Tensor]): Where to evaluate func.
        v (Tensor|Sequence[Tensor], optional): The tangent, one tensor per input, each of that
            input's shape. None means ones. Default: None.

    Returns:
        tuple: (func_out, jvp). func_out is func(*xs) (a Tensor, or a tuple for several
        outputs); jvp has one tensor per output, shaped as it (a Tensor when func returns one
        Tensor, else a tuple).

    Examples:
        >>> import oar
        >>> x = oar.ones([2, 2])
        >>> v = oar.to_tensor([[1.0, 0.0], [0.0, 0.0]])
        >>> _, t = oar.incubate.autograd.jvp(lambda x: oar.matmul(x, x), x, v)
        >>> print(t.numpy())
        [[2. 1.]
         [1. 0.]]
    """
    _check_dynamic("jvp")
    xs_list, _ = _as_tensors("jvp", "xs", xs)
    xs_d = _separate(xs_list)
    vs = _vectors("jvp", v, xs_d, "xs")
    ys = func(*xs_d)
    ys_list, single_y = _outputs("jvp", ys)
    us = []
    for y in ys_list:  # the dummy cotangents: g = J^T u is linear in them
        u = _C.zeros_like(y)
        u.stop_gradient = False
        us.append(u)
    gs = _grad(ys_list, xs_d, us, "jvp")
    pairs = [(g, t) for g, t in zip(gs, vs) if g is not None]
    if pairs:
        tangents = _fill(_grad([g for g, _ in pairs], us, [t for _, t in pairs], "jvp"), ys_list)
    else:
        tangents = [_C.zeros_like(y) for y in ys_list]
    out = ys_list[0] if single_y else tuple(ys_list)
    return out, (tangents[0] if single_y else tuple(tangents))


def _flatten(ts, batched):
    if batched:
        parts = [t.reshape([t.shape[0], -1]) for t in ts]
        return parts[0] if len(parts) == 1 else _C.concat(parts, 1)
    parts = [t.reshape([-1]) for t in ts]
    return parts[0] if len(parts) == 1 else _C.concat(parts, 0)


class Jacobian:
    """The Jacobian matrix of func at xs, evaluated row by row when indexed
    (paddle.incubate.autograd.Jacobian).

    The inputs are flattened and concatenated into one vector of N elements, and so are the
    outputs (M elements): J has shape [M, N], or [B, M, N] with is_batched=True (the first axis
    of every input and output is the batch axis, kept). Indexing J with ints and slices, as a
    tensor (J[:], J[i, :], J[:, j], J[:, i, j] batched), computes only the rows (outputs) it
    needs, one vjp each, and caches them. Ellipsis is not supported.

    Args:
        func (Callable): Takes the tensors of xs as positional arguments and returns a Tensor or
            a sequence of Tensors.
        xs (Tensor|Sequence[Tensor]): Where to evaluate func.
        is_batched (bool, optional): Whether the first axis of inputs and outputs is a batch
            axis (samples independent of each other). Default: False.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> J = oar.incubate.autograd.Jacobian(lambda x, y: oar.matmul(x, y), [x, x])
        >>> print(J.shape)
        (4, 8)
        >>> print(J[0, :].numpy())
        [1. 3. 0. 0. 1. 0. 2. 0.]
        >>> print(J[:, 0].numpy())
        [1. 2. 0. 0.]
    """

    _api = "Jacobian"

    def __init__(self, func, xs, is_batched=False):
        _check_dynamic(self._api)
        if not callable(func):
            raise TypeError(f"{self._api}: func must be callable, but got {type(func).__name__}")
        if not isinstance(is_batched, bool):
            raise TypeError(f"{self._api}: is_batched must be a bool, but got {type(is_batched).__name__}")
        xs_list, _ = _as_tensors(self._api, "xs", xs)
        self._xs = _separate(xs_list)
        ys_list, _ = _outputs(self._api, func(*self._xs))
        self._ys = ys_list
        self._is_batched = is_batched
        if is_batched:
            for what, ts in (("input", self._xs), ("output", ys_list)):
                for t in ts:
                    if t.ndim == 0:
                        raise ValueError(f"{self._api}: with is_batched=True every {what} needs a batch axis "
                                         f"(its first), but one is 0-D")
            sizes = {t.shape[0] for t in self._xs + ys_list}
            if len(sizes) != 1:
                raise ValueError(f"{self._api}: with is_batched=True inputs and outputs must share the batch "
                                 f"size (their first dim), but got {sorted(sizes)}")
        self._flat_y = _flatten(ys_list, is_batched)
        n = sum(int(_numel(t, is_batched)) for t in self._xs)
        m = int(self._flat_y.shape[-1]) if self._flat_y.ndim else 1
        self._shape = (int(self._xs[0].shape[0]), m, n) if is_batched else (m, n)
        self._rows = {}

    @property
    def shape(self):
        """The matrix's shape: (M, N), or (B, M, N) with is_batched=True."""
        return self._shape

    def _row(self, i):
        hit = self._rows.get(i)
        if hit is None:
            target = self._flat_y[:, i] if self._is_batched else self._flat_y.reshape([-1])[i]
            grads = _fill(_grad([target], self._xs, [_C.ones_like(target)], self._api), self._xs)
            hit = _flatten(grads, self._is_batched)
            self._rows[i] = hit
        return hit

    def __getitem__(self, indexes):
        if not isinstance(indexes, tuple):
            indexes = (indexes,)
        ndim = len(self._shape)
        if any(i is Ellipsis for i in indexes):
            raise IndexError(f"{self._api}: Ellipsis index is not supported")
        if len(indexes) > ndim:
            raise IndexError(f"{self._api}: too many indices ({len(indexes)}) for a matrix of shape {self._shape}")
        for i in indexes:
            if isinstance(i, bool) or not isinstance(i, (int, slice)):
                raise TypeError(f"{self._api}: indices must be ints or slices, but got {type(i).__name__}")
        indexes = indexes + (slice(None),) * (ndim - len(indexes))
        axis = 1 if self._is_batched else 0
        r, m = indexes[axis], self._shape[axis]
        if isinstance(r, int):
            if not -m <= r < m:
                raise IndexError(f"{self._api}: index {r} is out of range for the {m} rows (outputs)")
            rows, rest = [r % m], 0
        else:
            rows, rest = list(range(m)[r]), slice(None)
        if rows:
            block = _C.stack([self._row(i) for i in rows], axis)
        else:
            shape = list(self._shape)
            shape[axis] = 0
            block = _C.zeros(shape, self._flat_y.dtype)
        indexes = indexes[:axis] + (rest,) + indexes[axis + 1:]
        return block[indexes]


def _numel(t, batched):
    n = 1
    for d in (t.shape[1:] if batched else t.shape):
        n *= int(d)
    return n


class Hessian:
    """The Hessian matrix of a scalar func at xs, evaluated lazily as Jacobian is
    (paddle.incubate.autograd.Hessian): the Jacobian of func's gradient. The inputs are flattened
    and concatenated (N elements): H has shape [N, N], or [B, N, N] with is_batched=True.

    Args:
        func (Callable): Takes the tensors of xs as positional arguments and returns one Tensor of
            one element (shape [1] or [], or [batch_size, 1] with is_batched=True).
        xs (Tensor|Sequence[Tensor]): Where to evaluate func.
        is_batched (bool, optional): Whether the first axis is a batch axis. Default: False.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> H = oar.incubate.autograd.Hessian(lambda x: (x * x).sum(), x)
        >>> print(H[:].numpy())
        [[2. 0. 0. 0.]
         [0. 2. 0. 0.]
         [0. 0. 2. 0.]
         [0. 0. 0. 2.]]
    """

    def __init__(self, func, xs, is_batched=False):
        if not callable(func):
            raise TypeError(f"Hessian: func must be callable, but got {type(func).__name__}")

        def gradient(*xs_d):
            y = func(*xs_d)
            if not isinstance(y, Tensor):
                raise TypeError(f"Hessian: func must return a Tensor, but it returned {type(y).__name__}")
            per_sample = _numel(y, True) if is_batched and y.ndim else y.size
            if per_sample != 1 or (is_batched and y.ndim == 0):
                raise _ArgumentError(
                    "Hessian: the function given to Hessian should return a single element Tensor "
                    f"(or a batched one, [batch_size, 1], with is_batched=True), but it returned shape {list(y.shape)}")
            grads = _fill(_grad([y], list(xs_d), [_C.ones_like(y)], "Hessian"), xs_d)
            return grads[0] if len(grads) == 1 else tuple(grads)

        jac = Jacobian.__new__(Jacobian)
        jac._api = "Hessian"
        jac.__init__(gradient, xs, is_batched)
        self._jacobian = jac

    @property
    def shape(self):
        """The matrix's shape: (N, N), or (B, N, N) with is_batched=True."""
        return self._jacobian.shape

    def __getitem__(self, indexes):
        return self._jacobian[indexes]
