"""Sparse tensors (paddle.sparse's COO and CSR formats).

A sparse tensor is a pattern plus a dense values tensor:
- COO: indices (int [sparse_dim, nnz]) and values ([nnz, *dense_shape]); the first sparse_dim
  dims of the shape are sparse, the rest dense (carried in each value);
- CSR: 2-D [M, N] or batched 3-D [B, M, N]: crows (int64 [B * (M + 1)], each batch's run
  starting at 0), cols (int64 [nnz]) and values ([nnz]).

Everything numeric is an oar op on the values (or an index op on the pattern), so autograd
differentiates through values: a sparse tensor's gradient has its pattern and values.grad.
Paddle's sparse tensors are paddle.Tensor objects of another layout; oar's are their own classes
(SparseCooTensor, SparseCsrTensor) with paddle.Tensor's sparse methods, so dense ops cannot
silently read them (docs/architecture.md, "Sparse tensors")."""
import numpy as np

from ._lazy import oar
from .. import _C
from ..tensor.repr import format_data

_INDENT = 7


def _as_index(t, name):
    if isinstance(t, SparseTensor):
        raise TypeError(f"sparse: argument '{name}' must be a dense integer tensor, got a sparse tensor")
    if not isinstance(t, oar.Tensor):
        arr = np.asarray(t)
        if arr.dtype.kind not in "iu" and arr.size:
            raise TypeError(f"sparse: argument '{name}' must hold integers, got {arr.dtype}")
        t = oar.to_tensor(arr.astype(np.int64))
    if t.dtype not in (oar.int32, oar.int64):
        raise TypeError(f"sparse: argument '{name}' must be an int32 or int64 tensor, got {t.dtype.name}")
    return t


def _as_values(values, dtype, place):
    if isinstance(values, SparseTensor):
        raise TypeError("sparse: argument 'values' must be a dense tensor, got a sparse tensor")
    if not isinstance(values, oar.Tensor):
        values = oar.to_tensor(values, dtype=dtype, place=place)
    elif dtype is not None and values.dtype != oar.framework.dtype.convert_dtype(dtype):
        values = values.astype(dtype)
    return values


def _leaf(values, stop_gradient):
    """values as a sparse tensor's own values: a differentiable values tensor stays in its graph;
    an inert one becomes a leaf of its own when the sparse tensor takes gradients."""
    if not stop_gradient and values.stop_gradient:
        values = values.detach()
        values.stop_gradient = False
    return values


class SparseTensor:
    """The methods COO and CSR share (paddle.Tensor's sparse methods)."""

    __array_priority__ = 100

    def __init__(self, values, shape, format_name):
        self._values = values
        self._shape = [int(d) for d in shape]
        self._format = format_name

    # ---- what a paddle.Tensor says about itself ----
    @property
    def shape(self):
        return list(self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        if not value and self._values.stop_gradient and self._values.is_leaf:
            self._values.stop_gradient = False
        elif value:
            self._values.stop_gradient = True
        else:
            self._values.stop_gradient = False

    @property
    def is_leaf(self):
        return self._values.is_leaf

    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def clear_grad(self, set_to_zero=True):
        self._values.clear_grad(set_to_zero)

    def backward(self, grad_tensor=None, retain_graph=False):
        """Backpropagates from this tensor; without grad_tensor its stored values are seeded with 1."""
        if grad_tensor is None:
            g = oar.ones_like(self._values)
        elif isinstance(grad_tensor, SparseTensor):
            g = grad_tensor._values
        else:
            g = oar.to_tensor(grad_tensor)
            if list(g.shape) != list(self._values.shape):
                raise ValueError(f"backward: grad_tensor must have the sparse values' shape "
                                 f"{list(self._values.shape)}, got {list(g.shape)}")
        self._values.backward(g, retain_graph)

    def numel(self):
        return int(np.prod(self._shape)) if self._shape else 1

    def nnz(self):
        """The number of stored elements."""
        return int(self._values.shape[0]) if self._values.ndim else 0

    def values(self):
        """The stored values (a dense tensor, [nnz, *dense_shape]); gradients flow through it."""
        return self._values

    def is_sparse(self):
        return True

    def is_dense(self):
        return False

    def is_dist(self):
        return False

    def is_sparse_coo(self):
        return self._format == "coo"

    def is_sparse_csr(self):
        return self._format == "csr"

    def detach(self):
        return self._with_values(self._values.detach())

    def clone(self):
        return self._with_values(self._values.clone())

    def astype(self, dtype):
        return self._with_values(self._values.astype(dtype))

    def numpy(self):
        raise TypeError(f"numpy() of a sparse {self._format.upper()} tensor: convert it first with to_dense() "
                        "(x.to_dense().numpy())")

    def __len__(self):
        return self._shape[0]

    def __repr__(self):
        head = (f"Tensor(shape={self.shape}, dtype=paddle.{self.dtype.name}, place={self.place}, "
                f"stop_gradient={self.stop_gradient}, ")
        parts = [f"{' ' * _INDENT}{label}={format_data(arr, indent=_INDENT + len(label) + 1)}"
                 for label, arr in self._printed_parts()]
        return head + "\n" + ", \n".join(parts) + ")"

    __str__ = __repr__

    def _values_array(self):
        v = self._values
        if v.dtype == oar.bfloat16:
            v = v.astype("float32")
        return v.numpy()

    # arithmetic: routed to oar.sparse (Paddle's operators crash on sparse tensors)
    def __neg__(self):
        return self._with_values(-self._values)

    def __add__(self, other):
        from . import _binary
        return _binary.add(self, other)

    def __sub__(self, other):
        from . import _binary
        return _binary.subtract(self, other)

    def __mul__(self, other):
        from . import _binary
        if isinstance(other, (int, float)):
            return self._with_values(self._values * other)
        return _binary.multiply(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        from . import _binary
        if isinstance(other, (int, float)):
            return self._with_values(self._values / other)
        return _binary.divide(self, other)

    def __matmul__(self, other):
        from . import _matmul
        return _matmul.matmul(self, other)


class SparseCooTensor(SparseTensor):
    """A sparse tensor in coordinate format: indices [sparse_dim, nnz] and values [nnz, *dense]."""

    def __init__(self, indices, values, shape, coalesced=False):
        super().__init__(values, shape, "coo")
        self._indices = indices
        self._coalesced = coalesced

    def _with_values(self, values):
        return SparseCooTensor(self._indices, values, self._shape, self._coalesced)

    def _printed_parts(self):
        return [("indices", self._indices.numpy()), ("values", self._values_array())]

    def indices(self):
        """The coordinates of the stored elements, [sparse_dim, nnz]."""
        # Paddle's full sum (sparse.sum with axis=None) gives its one index as a [1] tensor.
        return self._indices.reshape([-1]) if getattr(self, "_flat_indices", False) else self._indices

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return self.ndim - self.sparse_dim()

    def is_coalesced(self):
        return self._coalesced

    def crows(self):
        raise TypeError("crows: this method is only effective for SparseCsrTensor, got a SparseCooTensor")

    def cols(self):
        raise TypeError("cols: this method is only effective for SparseCsrTensor, got a SparseCooTensor")

    def coalesce(self):
        return coalesce(self)

    def to_dense(self):
        return coo_to_dense(self)

    def to_sparse_coo(self, sparse_dim=None):
        return self

    def to_sparse_csr(self):
        return coo_to_csr(self)


class SparseCsrTensor(SparseTensor):
    """A 2-D or batched 3-D sparse tensor in compressed-row format: crows, cols and values."""

    def __init__(self, crows, cols, values, shape):
        super().__init__(values, shape, "csr")
        self._crows = crows
        self._cols = cols

    def _with_values(self, values):
        return SparseCsrTensor(self._crows, self._cols, values, self._shape)

    def _printed_parts(self):
        return [("crows", self._crows.numpy()), ("cols", self._cols.numpy()), ("values", self._values_array())]

    def crows(self):
        """Where each row's stored elements start in cols and values ([B * (M + 1)] when batched)."""
        return self._crows

    def cols(self):
        """The column of each stored element, [nnz]."""
        return self._cols

    def indices(self):
        raise TypeError("indices: this method is only effective for SparseCooTensor, got a SparseCsrTensor")

    def sparse_dim(self):
        return self.ndim

    def dense_dim(self):
        return 0

    def is_coalesced(self):
        raise TypeError("is_coalesced: this method only supports sparse COO tensors, got a SparseCsrTensor")

    def coalesce(self):
        raise NotImplementedError("coalesce: supports sparse COO tensors only, got a SparseCsrTensor")

    def to_dense(self):
        return coo_to_dense(csr_to_coo(self))

    def to_sparse_coo(self, sparse_dim=None):
        if sparse_dim is not None and sparse_dim != self.ndim:
            raise ValueError(f"to_sparse_coo: a CSR tensor converts with sparse_dim = its rank {self.ndim}, "
                             f"got {sparse_dim}")
        return csr_to_coo(self)

    def to_sparse_csr(self):
        return self


# ---------------------------------------------------------------- pattern arithmetic

def linear_key(indices, dims):
    """Row-major linear position of each coordinate column of indices ([k, nnz]) in dims."""
    idx = indices.astype("int64")
    key = idx[0]
    for d in range(1, len(dims)):
        key = key * int(dims[d]) + idx[d]
    return key


def unravel(key, dims):
    """The coordinates ([k, nnz] int64) of row-major linear positions in dims."""
    rows = []
    for d in reversed(dims[1:]):
        rows.append(key % int(d))
        key = key // int(d)
    rows.append(key)
    return oar.stack(rows[::-1]) if rows else oar.zeros([0, int(key.shape[0])], "int64")


def coalesce(x, name=None):
    """A COO tensor's indices sorted and made unique; the values of repeated indices are added up.

    Args:
        x (SparseCooTensor): The input.
        name (str, optional): Unused.

    Returns:
        SparseCooTensor: coalesced (is_coalesced() is True); differentiable in x's values.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 2])
        >>> y = oar.sparse.coalesce(x)
        >>> print(y.indices().numpy().tolist(), y.values().numpy().tolist())
        [[0, 1], [1, 0]] [2.0, 4.0]
    """
    if not isinstance(x, SparseCooTensor):
        raise TypeError(f"coalesce: x must be a sparse COO tensor, got {type(x).__name__}")
    if x._coalesced:
        return x
    dims = x._shape[:x.sparse_dim()]
    if x.nnz() == 0:
        return SparseCooTensor(x._indices, x._values, x._shape, True)
    keys, inverse = oar.unique(linear_key(x._indices, dims), return_inverse=True)
    values = oar.index_add(oar.zeros([int(keys.shape[0])] + list(x._values.shape[1:]), x.dtype), inverse, 0,
                           x._values)
    return SparseCooTensor(unravel(keys, dims).astype(x._indices.dtype), values, x._shape, True)


def coo_to_dense(x):
    out = oar.zeros(x._shape, x.dtype)
    if x.nnz() == 0:
        return out
    return oar.scatter_nd_add(out, x._indices.astype("int64").t(), x._values)


def dense_to_coo(x, sparse_dim):
    if isinstance(x, SparseTensor):
        return x.to_sparse_coo(sparse_dim)
    sparse_dim = int(sparse_dim)
    if not 0 < sparse_dim <= x.ndim:
        raise ValueError(f"to_sparse_coo: sparse_dim must lie in [1, {x.ndim}] for a {x.ndim}-D tensor, "
                         f"got {sparse_dim}")
    nonzero = x != 0
    if sparse_dim < x.ndim:
        nonzero = nonzero.any(axis=list(range(sparse_dim, x.ndim)))
    indices = oar.nonzero(nonzero).t()
    values = oar.gather_nd(x, indices.t()) if indices.shape[1] else oar.zeros([0] + list(x.shape[sparse_dim:]),
                                                                              x.dtype)
    return SparseCooTensor(indices, values, list(x.shape), coalesced=True)


def _check_csr_rank(op, ndim):
    if ndim not in (2, 3):
        raise ValueError(f"{op}: CSR tensors are 2-D or batched 3-D, got a {ndim}-D tensor")


def coo_to_csr(x):
    _check_csr_rank("to_sparse_csr", x.ndim)
    if x.dense_dim():
        raise ValueError(f"to_sparse_csr: the COO tensor must have no dense dims, got sparse_dim "
                         f"{x.sparse_dim()} of {x.ndim}")
    x = coalesce(x)
    batches = 1 if x.ndim == 2 else x._shape[0]
    m = x._shape[-2]
    idx = x._indices.astype("int64")
    row = idx[-2] if x.ndim == 2 else idx[0] * m + idx[1]
    counts = oar.bincount(row, minlength=batches * m).reshape([batches, m]) if x.nnz() else \
        oar.zeros([batches, m], "int64")
    crows = oar.concat([oar.zeros([batches, 1], "int64"), oar.cumsum(counts, axis=1)], axis=1).reshape([-1])
    return SparseCsrTensor(crows, idx[-1], x._values, x._shape)


def csr_rows(x):
    """The (batch * M + row) of each stored element of a CSR tensor, int64 [nnz]."""
    batches = 1 if x.ndim == 2 else x._shape[0]
    m = x._shape[-2]
    crows = x._crows.astype("int64").reshape([batches, m + 1])
    counts = (crows[:, 1:] - crows[:, :-1]).reshape([-1])
    return oar.repeat_interleave(oar.arange(batches * m, dtype="int64"), counts)


def csr_to_coo(x):
    rows = csr_rows(x)
    m = x._shape[-2]
    cols = x._cols.astype("int64")
    parts = [rows, cols] if x.ndim == 2 else [rows // m, rows % m, cols]
    return SparseCooTensor(oar.stack(parts), x._values, x._shape, coalesced=True)


def dense_to_csr(x):
    if isinstance(x, SparseTensor):
        return x.to_sparse_csr()
    _check_csr_rank("to_sparse_csr", x.ndim)
    return coo_to_csr(dense_to_coo(x, x.ndim))


# ---------------------------------------------------------------- creation

def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """Builds a sparse tensor in COO format from indices and values.

    Args:
        indices (list|tuple|ndarray|Tensor): int32/int64 [sparse_dim, nnz], the coordinates of the stored elements.
        values (list|tuple|ndarray|Tensor): [nnz, *dense_shape], the stored elements.
        shape (list|tuple, optional): The dense shape; None: the smallest shape holding every index.
        dtype (str|paddle.dtype, optional): The values' dtype; None: values' own (lists: float32 or int64).
        place (Place, optional): Where the tensor lives.
        stop_gradient (bool): Whether autograd ignores the tensor (default True).

    Returns:
        SparseCooTensor: the sparse tensor (not coalesced: repeated indices stay until coalesce()).

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
        >>> print(x.to_dense().numpy())
        [[0. 1.]
         [2. 0.]]
    """
    indices = _as_index(indices, "indices")
    values = _as_values(values, dtype, place)
    if indices.ndim != 2:
        raise ValueError(f"sparse_coo_tensor: indices must be 2-D [sparse_dim, nnz], got shape {list(indices.shape)}")
    if values.ndim < 1 or values.shape[0] != indices.shape[1]:
        raise ValueError(f"sparse_coo_tensor: values must have one row per index column ({indices.shape[1]}), "
                         f"got shape {list(values.shape)}")
    sparse_dim = int(indices.shape[0])
    idx = indices.numpy()
    if idx.size and idx.min() < 0:
        raise ValueError("sparse_coo_tensor: indices must be non-negative, got a minimum of "
                         f"{int(idx.min())}")
    needed = [int(v) + 1 for v in idx.max(axis=1)] if idx.shape[1] else [0] * sparse_dim
    dense = list(values.shape[1:])
    if shape is None:
        shape = needed + dense
    shape = [int(d) for d in shape]
    if len(shape) != sparse_dim + len(dense) or any(a < b for a, b in zip(shape, needed)) or \
            shape[sparse_dim:] != dense:
        raise ValueError(f"sparse_coo_tensor: the minimum shape required is {needed + dense}, but get {shape}")
    return SparseCooTensor(indices, _leaf(values, stop_gradient), shape)


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    """Builds a 2-D or batched 3-D sparse tensor in CSR format.

    Args:
        crows (list|tuple|ndarray|Tensor): int32/int64 [B * (M + 1)]: where each row's elements start in cols.
        cols (list|tuple|ndarray|Tensor): int32/int64 [nnz], the column of each element.
        values (list|tuple|ndarray|Tensor): [nnz], the elements.
        shape (list|tuple): [M, N] or [B, M, N].
        dtype (str|paddle.dtype, optional): The values' dtype.
        place (Place, optional): Where the tensor lives.
        stop_gradient (bool): Whether autograd ignores the tensor (default True).

    Returns:
        SparseCsrTensor: the sparse tensor.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 2.0], [2, 2])
        >>> print(x.to_dense().numpy())
        [[0. 1.]
         [2. 0.]]
    """
    crows = _as_index(crows, "crows")
    cols = _as_index(cols, "cols")
    values = _as_values(values, dtype, place)
    shape = [int(d) for d in shape]
    _check_csr_rank("sparse_csr_tensor", len(shape))
    if crows.ndim != 1 or cols.ndim != 1 or values.ndim != 1:
        raise ValueError("sparse_csr_tensor: crows, cols and values must be 1-D, got shapes "
                         f"{list(crows.shape)}, {list(cols.shape)} and {list(values.shape)}")
    batches = 1 if len(shape) == 2 else shape[0]
    m, n = shape[-2], shape[-1]
    if crows.shape[0] != batches * (m + 1):
        raise ValueError(f"sparse_csr_tensor: crows must have {batches * (m + 1)} entries for shape {shape}, "
                         f"got {crows.shape[0]}")
    if cols.shape[0] != values.shape[0]:
        raise ValueError(f"sparse_csr_tensor: cols and values must have the same length, got {cols.shape[0]} and "
                         f"{values.shape[0]}")
    cr = crows.numpy().reshape(batches, m + 1)
    if (cr[:, 0] != 0).any() or (np.diff(cr, axis=1) < 0).any() or int(cr[:, -1].sum()) != cols.shape[0]:
        raise ValueError("sparse_csr_tensor: each batch's crows must start at 0 and not decrease, and the batches' "
                         f"last entries must add up to nnz = {cols.shape[0]}; got crows {cr.ravel().tolist()}")
    c = cols.numpy()
    if c.size and (c.min() < 0 or c.max() >= n):
        raise ValueError(f"sparse_csr_tensor: cols must lie in [0, {n}), got values in [{int(c.min())}, "
                         f"{int(c.max())}]")
    return SparseCsrTensor(crows, cols, _leaf(values, stop_gradient), shape)


def is_same_shape(x, y):
    """Whether x and y (sparse or dense) have the same shape.

    Args:
        x (Tensor): A dense or sparse tensor.
        y (Tensor): A dense or sparse tensor.

    Returns:
        bool: shape equality.

    Examples:
        >>> import oar
        >>> x = oar.sparse.sparse_coo_tensor([[0], [1]], [1.0], [2, 2])
        >>> print(oar.sparse.is_same_shape(x, oar.ones([2, 2])))
        True
    """
    return list(x.shape) == list(y.shape)
