"""paddle.Tensor's sparse methods on dense tensors: the conversions to_sparse_coo/to_sparse_csr,
and the sparse accessors (values, indices, crows, cols, nnz, ...), which raise for a dense
tensor as Paddle's do (with the same error types, and messages that say what to do)."""


def to_sparse_coo(self, sparse_dim):
    """This dense tensor as a sparse COO tensor whose first sparse_dim dims are sparse.

    Args:
        self (Tensor): The dense tensor.
        sparse_dim (int): How many leading dims are sparse (1..ndim).

    Returns:
        SparseCooTensor: the nonzero elements (or rows of the dense dims with a nonzero), coalesced.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_coo(2)
        >>> print(x.indices().numpy().tolist(), x.values().numpy().tolist())
        [[0, 1], [1, 0]] [1.0, 2.0]
    """
    from oar.sparse._tensor import dense_to_coo
    return dense_to_coo(self, sparse_dim)


def to_sparse_csr(self):
    """This dense 2-D or 3-D tensor as a sparse CSR tensor of its nonzero elements.

    Args:
        self (Tensor): The dense tensor.

    Returns:
        SparseCsrTensor: the nonzero elements.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[0.0, 1.0], [2.0, 0.0]]).to_sparse_csr()
        >>> print(x.crows().numpy().tolist(), x.cols().numpy().tolist())
        [0, 1, 2] [1, 0]
    """
    from oar.sparse._tensor import dense_to_csr
    return dense_to_csr(self)


def _only_sparse(method, kind, error):
    def fn(self, *args, **kwargs):
        raise error(f"{method}: this method is only effective for {kind}, got a dense Tensor (convert it with "
                    f"to_sparse_coo(sparse_dim) or to_sparse_csr())")
    fn.__name__ = method
    fn.__doc__ = (f"The {method} of a sparse tensor; a dense tensor raises {error.__name__} (as in Paddle).\n\n"
                  "Examples:\n    >>> import oar\n"
                  f"    >>> x = oar.to_tensor([[0.0, 1.0]]).to_sparse_{'csr' if 'Csr' in kind else 'coo'}"
                  f"({'' if 'Csr' in kind else '2'})\n    >>> _ = x.{method}()\n")
    return fn


# Paddle raises NotImplementedError (no kernel), SystemError (method only for sparse) or TypeError.
values = _only_sparse("values", "SparseCooTensor or SparseCsrTensor", NotImplementedError)
to_dense = _only_sparse("to_dense", "SparseCooTensor or SparseCsrTensor", NotImplementedError)
coalesce = _only_sparse("coalesce", "SparseCooTensor", NotImplementedError)
indices = _only_sparse("indices", "SparseCooTensor", SystemError)
crows = _only_sparse("crows", "SparseCsrTensor", SystemError)
cols = _only_sparse("cols", "SparseCsrTensor", SystemError)
nnz = _only_sparse("nnz", "SparseCooTensor or SparseCsrTensor", SystemError)
is_coalesced = _only_sparse("is_coalesced", "SparseCooTensor", TypeError)


def sparse_dim(self):
    """The number of sparse dims: 0 for a dense tensor.

    Examples:
        >>> import oar
        >>> print(oar.ones([2, 3]).sparse_dim())
        0
    """
    return 0


def dense_dim(self):
    """The number of dense dims: every dim of a dense tensor.

    Examples:
        >>> import oar
        >>> print(oar.ones([2, 3]).dense_dim())
        2
    """
    return self.ndim
