"""Contractions and products built from matmul: einsum, tensordot, addmm, baddbmm, add_n, the
distance functions (cdist, dist, pdist) and small constructions (block_diag, cartesian_prod,
combinations, vander). All go through oar's C++ ops, so autograd sees through them."""
import builtins
import itertools

from .. import _C
from ..framework.dtype import convert_dtype
from .creation import meshgrid, to_tensor
from .linalg import diagonal

Tensor = _C.Tensor


# ---- einsum ----

def _parse_einsum(equation, operands):
    """Per-operand letter lists (ellipsis expanded to upper-case letters) and the output letters."""
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise ValueError(f"einsum: the equation '{equation}' has {len(terms)} operands, "
                         f"but {len(operands)} tensors were given")
    ell_dims = 0
    for t, x in zip(terms, operands):
        if "..." in t:
            ell_dims = builtins.max(ell_dims, x.ndim - len(t.replace("...", "")))
    ell = [chr(ord("A") + i) for i in range(ell_dims)]
    subs = []
    for t, x in zip(terms, operands):
        if not all(c.isalpha() for c in t.replace("...", "")):
            raise ValueError(f"einsum: invalid subscripts '{t}' in '{equation}' (letters and '...' only)")
        if "..." in t:
            before, after = t.split("...")
            n = x.ndim - len(before) - len(after)
            letters = list(before) + ell[ell_dims - n:] + list(after)
        else:
            letters = list(t)
        if len(letters) != x.ndim:
            raise ValueError(f"einsum: subscripts '{t}' name {len(letters)} dims, but the operand "
                             f"has shape {x.shape}")
        subs.append(letters)
    if arrow:
        out = list(rhs.replace("...", "".join(ell)))
    else:  # implicit: the letters used once, sorted, after the ellipsis dims
        counts = {}
        for s in subs:
            for c in s:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, k in counts.items() if k == 1 and c not in ell)
    return subs, out


def _take_diagonals(x, letters):
    """Repeated letters in one operand (e.g. 'ii') become one dim through diagonal()."""
    while True:
        seen = {}
        for i, c in enumerate(letters):
            if c in seen:
                x = diagonal(x, 0, seen[c], i)  # diagonal dim goes last
                letters = [l for k, l in enumerate(letters) if k not in (seen[c], i)] + [c]
                break
            seen[c] = i
        else:
            return x, letters


def _sum_out(x, letters, keep):
    axes = [i for i, c in enumerate(letters) if c not in keep]
    if axes:
        x = _C.sum(x, axes, None, False)
        letters = [c for c in letters if c in keep]
    return x, letters


def _contract(a, la, b, lb, keep):
    """a (letters la) times b (lb), summing the shared letters not in keep: one batched matmul."""
    batch = [c for c in la if c in lb and c in keep]
    contract = [c for c in la if c in lb and c not in keep]
    a_only = [c for c in la if c not in lb]
    b_only = [c for c in lb if c not in la]
    size = {c: a.shape[i] for i, c in enumerate(la)}
    size.update({c: b.shape[i] for i, c in enumerate(lb)})

    def dims(ls, src):
        return [src.index(c) for c in ls]

    def prod(ls):
        p = 1
        for c in ls:
            p *= size[c]
        return p

    at = _C.transpose(a, dims(batch + a_only + contract, la))
    bt = _C.transpose(b, dims(batch + contract + b_only, lb))
    # Broadcast size-1 batch dims between the operands.
    bshape = [builtins.max(at.shape[i], bt.shape[i]) for i in range(len(batch))]
    for i, c in enumerate(batch):
        size[c] = bshape[i]
    at = _C.broadcast_to(at, bshape + list(at.shape[len(batch):]))
    bt = _C.broadcast_to(bt, bshape + list(bt.shape[len(batch):]))
    am = _C.reshape(at, [prod(batch), prod(a_only), prod(contract)])
    bm = _C.reshape(bt, [prod(batch), prod(contract), prod(b_only)])
    out = _C.matmul(am, bm, False, False)
    letters = batch + a_only + b_only
    return _C.reshape(out, [size[c] for c in letters]), letters


def einsum(equation, *operands):
    """Einstein summation as Paddle: explicit ('ij,jk->ik') or implicit output, '...' for
    broadcast dims, repeated letters for diagonals. Operands are contracted left to right, each
    pair as one batched matmul."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subs, out = _parse_einsum(equation, operands)
    if len(set(out)) != len(out):
        raise ValueError(f"einsum: output subscripts of '{equation}' repeat a letter")
    for c in out:
        if not any(c in s for s in subs):
            raise ValueError(f"einsum: output letter '{c}' of '{equation}' appears in no operand")
    terms = []
    for k, (x, letters) in enumerate(zip(operands, subs)):
        x, letters = _take_diagonals(x, letters)
        later = set(out).union(*[set(s) for j, s in enumerate(subs) if j != k])
        x, letters = _sum_out(x, letters, later)
        terms.append((x, letters))
    x, letters = terms[0]
    for k in range(1, len(terms)):
        keep = set(out).union(*[set(t[1]) for t in terms[k + 1:]])
        y, ly = terms[k]
        x, letters = _contract(x, letters, y, ly, keep)
    x, letters = _sum_out(x, letters, set(out))
    if not out:
        return x if x.ndim == 0 else _C.sum(x, [], None, False)
    return _C.transpose(x, [letters.index(c) for c in out])


def tensordot(x, y, axes=2, name=None):
    """Sums over the last `axes` dims of x and the first of y, or over the listed axes pairs."""
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, int):
        ax = list(range(x.ndim - axes, x.ndim)), list(range(axes))
    else:
        axes = list(axes)
        if len(axes) == 1:
            axes = [axes[0], axes[0]]
        ax = [[a] if isinstance(a, int) else list(a) for a in axes]
    ax_x = [a + x.ndim if a < 0 else a for a in ax[0]]
    ax_y = [a + y.ndim if a < 0 else a for a in ax[1]]
    if len(ax_x) != len(ax_y):
        raise ValueError(f"tensordot: x and y must contract the same number of axes, got {ax_x} and {ax_y}")
    free_x = [d for d in range(x.ndim) if d not in ax_x]
    free_y = [d for d in range(y.ndim) if d not in ax_y]
    k = 1
    for a, b in zip(ax_x, ax_y):
        if x.shape[a] != y.shape[b]:
            raise ValueError(f"tensordot: dim {a} of x ({x.shape[a]}) and dim {b} of y ({y.shape[b]}) differ")
        k *= x.shape[a]
    xm = _C.reshape(_C.transpose(x, free_x + ax_x), [-1, k])
    ym = _C.reshape(_C.transpose(y, ax_y + free_y), [k, -1])
    return _C.reshape(_C.matmul(xm, ym, False, False), [x.shape[d] for d in free_x] + [y.shape[d] for d in free_y])


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """beta * input + alpha * (x @ y).

    Args:
        input (Tensor): Added term, broadcastable to [M, N].
        x (Tensor): Shape [M, K].
        y (Tensor): Shape [K, N].
        beta (float, optional): Scale of input. Default: 1.0.
        alpha (float, optional): Scale of the product. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [M, N].

    Examples:
        >>> import oar
        >>> x, y = oar.ones([2, 3]), oar.ones([3, 2])
        >>> out = oar.addmm(oar.ones([2, 2]), x, y, beta=0.5, alpha=2.0)
        >>> print(out.numpy())
        [[6.5 6.5]
         [6.5 6.5]]
    """
    return input * beta + _C.matmul(x, y, False, False) * alpha


def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    """Batched beta * input + alpha * (x @ y).

    Args:
        input (Tensor): Added term, broadcastable to [B, M, N].
        x (Tensor): Shape [B, M, K].
        y (Tensor): Shape [B, K, N].
        beta (float, optional): Scale of input. Default: 1.0.
        alpha (float, optional): Scale of the product. Default: 1.0.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [B, M, N].

    Examples:
        >>> import oar
        >>> out = oar.baddbmm(oar.zeros([1, 2, 2]), oar.ones([1, 2, 3]), oar.ones([1, 3, 2]))
        >>> print(out.numpy())
        [[[3. 3.]
          [3. 3.]]]
    """
    return input * beta + _C.matmul(x, y, False, False) * alpha


def add_n(inputs, name=None):
    """Elementwise sum of a list of tensors.

    Args:
        inputs (Tensor|list of Tensor): Tensors of one shape and dtype; a single tensor is returned
            as is.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: the sum.

    Examples:
        >>> import oar
        >>> xs = [oar.to_tensor([1, 2]), oar.to_tensor([3, 4]), oar.to_tensor([5, 6])]
        >>> print(oar.add_n(xs).numpy())
        [ 9 12]
    """
    if isinstance(inputs, Tensor):
        return inputs
    out = inputs[0]
    for t in inputs[1:]:
        out = out + t
    return out


# ---- distances ----

def _pnorm_last(d, p):
    if p == 0:  # a count: zero gradient, but still connected to d (as Paddle)
        count = _C.sum(_C.cast(_C.not_equal(d, _C.zeros_like(d)), d.dtype), [-1], None, False)
        return count + _C.sum(d, [-1], None, False) * 0.0
    if p == float("inf"):
        return _C.max(_C.abs(d), [-1], False)
    return _C.p_norm(d, float(p), [-1], False)


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """Pairwise p-norm distances between the rows of x [..., P, M] and y [..., R, M]."""
    diff = _C.unsqueeze(x, [-2]) - _C.unsqueeze(y, [-3])
    return _pnorm_last(diff, p)


def dist(x, y, p=2, name=None):
    """The p-norm of x - y (flattened).

    Args:
        x (Tensor): The first input, floating point.
        y (Tensor): The second input, broadcastable with x.
        p (float, optional): Order of the norm (inf and 0 allowed). Default: 2.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 0-D, x's dtype.

    Examples:
        >>> import oar
        >>> print(oar.dist(oar.to_tensor([1.0, 2.0]), oar.to_tensor([4.0, 6.0])).numpy())
        5.0
    """
    d = _C.reshape(x - y, [-1])
    return _pnorm_last(d, p)


def pdist(x, p=2.0, name=None):
    """Distances between every pair of rows i < j of x [N, M], in row-major order."""
    n = x.shape[0]
    i, j = zip(*itertools.combinations(range(n), 2)) if n > 1 else ((), ())
    a = _C.index_select(x, to_tensor(list(i), dtype="int64"), 0)
    b = _C.index_select(x, to_tensor(list(j), dtype="int64"), 0)
    return _pnorm_last(a - b, p)


# ---- constructions ----

def block_diag(inputs, name=None):
    """A block-diagonal matrix with the inputs on its diagonal and zeros elsewhere.

    Args:
        inputs (list|tuple of Tensor): 0-D, 1-D (a row) or 2-D tensors of one dtype.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: 2-D, its size the sums of the blocks' sizes.

    Examples:
        >>> import oar
        >>> print(oar.block_diag([oar.to_tensor([[1, 2]]), oar.to_tensor([[3], [4]])]).numpy())
        [[1 2 0]
         [0 0 3]
         [0 0 4]]
    """
    mats = [t if t.ndim == 2 else _C.reshape(t, [1, -1] if t.ndim == 1 else [1, 1]) for t in inputs]
    cols = builtins.sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        parts = []
        if left:
            parts.append(_C.zeros([m.shape[0], left], m.dtype))
        parts.append(m)
        right = cols - left - m.shape[1]
        if right:
            parts.append(_C.zeros([m.shape[0], right], m.dtype))
        rows.append(_C.concat(parts, 1) if len(parts) > 1 else m)
        left += m.shape[1]
    return _C.concat(rows, 0)


def cartesian_prod(x, name=None):
    """Cartesian product of 1-D tensors: every combination, one a row.

    Args:
        x (list|tuple of Tensor): 1-D tensors of one dtype.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [prod of sizes, len(x)]; the input itself for one tensor.

    Examples:
        >>> import oar
        >>> print(oar.cartesian_prod([oar.to_tensor([1, 2]), oar.to_tensor([3, 4])]).numpy())
        [[1 3]
         [1 4]
         [2 3]
         [2 4]]
    """
    if len(x) == 1:
        return x[0]
    grids = meshgrid(*x)
    return _C.stack([_C.reshape(g, [-1]) for g in grids], 1)


def combinations(x, r=2, with_replacement=False, name=None):
    """The r-length combinations of the elements of a 1-D tensor, in lexicographic order of
    position.

    Args:
        x (Tensor): 1-D input.
        r (int, optional): Combination length. Default: 2.
        with_replacement (bool, optional): Let an element repeat. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [number of combinations, r], x's dtype.

    Examples:
        >>> import oar
        >>> print(oar.combinations(oar.to_tensor([1, 2, 3])).numpy())
        [[1 2]
         [1 3]
         [2 3]]
    """
    n = x.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(gen(range(n), r))
    if not idx:
        return _C.zeros([0, r], x.dtype)
    cols = [_C.index_select(x, to_tensor([c[k] for c in idx], dtype="int64"), 0) for k in range(r)]
    return _C.stack(cols, 1)


def vander(x, n=None, increasing=False, name=None):
    """Vandermonde matrix: column j is x ** (n - 1 - j), or x ** j when increasing.

    Args:
        x (Tensor): 1-D input; integer inputs give int64.
        n (int, optional): Number of columns; None means len(x). Default: None.
        increasing (bool, optional): Powers from 0 upwards. Default: False.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        Tensor: shape [len(x), n].

    Examples:
        >>> import oar
        >>> print(oar.vander(oar.to_tensor([1, 2, 3])).numpy())
        [[1 1 1]
         [4 2 1]
         [9 3 1]]
    """
    n = x.shape[0] if n is None else n
    powers = list(range(n)) if increasing else list(range(n - 1, -1, -1))
    xs = x if x.dtype.name.startswith(("float", "complex")) else _C.cast(x, convert_dtype("int64"))
    p = to_tensor(powers, dtype=xs.dtype.name)
    return _C.elementwise_pow(_C.unsqueeze(xs, [-1]), p)


__all__ = ["einsum", "tensordot", "addmm", "baddbmm", "add_n", "cdist", "dist", "pdist",
           "block_diag", "cartesian_prod", "combinations", "vander"]
