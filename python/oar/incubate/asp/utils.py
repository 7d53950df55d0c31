"""n:m structured-sparsity masks (paddle.incubate.asp.utils): the mask algorithms and checks that
prune_model uses, on NumPy arrays (a mask is computed once per weight, off the autograd path).
All are vectorised over the m-element groups (or m x m blocks) of the matrix."""
import itertools
import threading
from enum import Enum

import numpy as np

__all__ = []


class MaskAlgo(Enum):
    MASK_1D = "get_mask_1d"
    MASK_2D_GREEDY = "get_mask_2d_greedy"
    MASK_2D_BEST = "get_mask_2d_best"


class CheckMethod(Enum):
    CHECK_1D = "check_mask_1d"
    CHECK_2D = "check_mask_2d"

    @staticmethod
    def get_checking_method(mask_algo):
        if not isinstance(mask_algo, MaskAlgo):
            raise AssertionError("mask_algo should be MaskAlgo type")
        return CheckMethod.CHECK_1D if mask_algo == MaskAlgo.MASK_1D else CheckMethod.CHECK_2D


def calculate_density(x):
    """The fraction of non-zero elements of x (paddle.incubate.asp.calculate_density).

    Args:
        x (numpy.ndarray|Tensor): The values.

    Returns:
        float: nonzeros / size.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> print(oar.incubate.asp.calculate_density(np.array([[0, 1, 3, 0], [1, 1, 0, 1]])))
        0.625
    """
    flat = np.asarray(x.numpy() if hasattr(x, "numpy") else x).reshape(-1)
    return float(np.count_nonzero(flat)) / flat.size


def _groups_1d(mat, m):
    """mat's rows cut into groups of m (zero-padded to a multiple of m), and the padded shape."""
    rows, cols = mat.shape
    pad = (-cols) % m
    padded = np.zeros((rows, cols + pad)) if pad else mat
    if pad:
        padded[:, :cols] = mat
    return padded.reshape(-1, m), padded.shape


def check_mask_1d(mat, n, m):
    """Whether every group of m consecutive elements of each row holds at most m - n non-zeros."""
    mat = mat.reshape(1, -1) if mat.ndim <= 1 else mat
    groups, _ = _groups_1d(mat, m)
    return bool(np.all(np.count_nonzero(groups, axis=1) <= m - n))


def get_mask_1d(mat, n, m):
    """Zeroes the n smallest magnitudes of each group of m consecutive elements of each row."""
    groups, shape = _groups_1d(mat, m)
    order = np.argsort(np.absolute(groups), axis=1)
    mask = np.ones_like(groups)
    np.put_along_axis(mask, order[:, :n], 0, axis=1)
    return mask.reshape(shape)[:, :mat.shape[1]]


def _blocks_2d(mat, m):
    """mat cut into m x m blocks (zero-padded), as [blocks, m*m] in row-major block order."""
    rows, cols = mat.shape
    pr, pc = rows + (-rows) % m, cols + (-cols) % m
    padded = np.zeros((pr, pc))
    padded[:rows, :cols] = mat
    blocks = padded.reshape(pr // m, m, pc // m, m).transpose(0, 2, 1, 3).reshape(-1, m * m)
    return blocks, (pr, pc)


def _unblock(blocks, shape, m, rows, cols):
    pr, pc = shape
    full = blocks.reshape(pr // m, pc // m, m, m).transpose(0, 2, 1, 3).reshape(pr, pc)
    return full[:rows, :cols]


def check_mask_2d(mat, n, m):
    """Whether each m x m block has at most m - n non-zeros in every row or in every column."""
    blocks, _ = _blocks_2d(mat, m)
    nz = np.absolute(blocks.reshape(-1, m, m)) > 0
    rows_bad = np.any(nz.sum(axis=2) > m - n, axis=1)
    cols_bad = np.any(nz.sum(axis=1) > m - n, axis=1)
    return bool(not np.any(rows_bad & cols_bad))


def get_mask_2d_greedy(mat, n, m):
    """In each m x m block, keeps the largest magnitudes greedily while their row and column each
    hold fewer than n kept elements."""
    blocks, shape = _blocks_2d(mat, m)
    count = blocks.shape[0]
    order = np.argsort(np.absolute(blocks), axis=1)[:, ::-1]  # largest first
    mask = np.zeros((count, m * m))
    row_used = np.zeros((count, m), dtype=np.int64)
    col_used = np.zeros((count, m), dtype=np.int64)
    every = np.arange(count)
    for step in range(m * m):  # the m*m positions in turn, all blocks at once
        pos = order[:, step]
        r, c = pos // m, pos % m
        take = (row_used[every, r] < n) & (col_used[every, c] < n)
        mask[every[take], pos[take]] = 1.0
        row_used[every[take], r[take]] += 1
        col_used[every[take], c[take]] += 1
    return _unblock(mask, shape, m, *mat.shape)


_patterns_lock = threading.Lock()
_patterns = {}


def _valid_2d_patterns(n, m):
    """Every m x m 0/1 pattern with n ones in each row and at most n in each column."""
    key = (n, m)
    with _patterns_lock:
        if key not in _patterns:
            row = [1.0] * n + [0.0] * (m - n)
            rows = sorted(set(itertools.permutations(row)))
            found = [p for p in itertools.product(rows, repeat=m) if np.all(np.sum(p, axis=0) <= n)]
            _patterns[key] = np.asarray(found, dtype=np.float64).reshape(-1, m, m)
        return _patterns[key]


def get_mask_2d_best(mat, n, m):
    """In each m x m block, the valid pattern (n per row, at most n per column) that keeps the
    largest sum of the block's values (signed values, as Paddle scores the patterns)."""
    patterns = _valid_2d_patterns(n, m)
    blocks, shape = _blocks_2d(mat, m)
    best = np.argmax(blocks @ patterns.reshape(len(patterns), m * m).T, axis=1)
    return _unblock(patterns[best].reshape(-1, m * m), shape, m, *mat.shape)


def _as_matrix(t):
    shape = t.shape
    if len(shape) == 1:
        return t.reshape(1, shape[0])
    if len(shape) == 2:
        return t
    if len(shape) == 3:
        return t.reshape(shape[0] * shape[1], shape[2])
    if len(shape) == 4:
        return t.transpose([0, 1, 3, 2]).reshape(shape[0] * shape[1] * shape[3], shape[2])
    raise ValueError(f"The dimension of input tensor is not supported in create_mask, Only dimension < 4 is "
                     f"supported but got {len(shape)}")


_ALGOS = {MaskAlgo.MASK_1D: get_mask_1d, MaskAlgo.MASK_2D_GREEDY: get_mask_2d_greedy,
          MaskAlgo.MASK_2D_BEST: get_mask_2d_best}
_CHECKS = {CheckMethod.CHECK_1D: check_mask_1d, CheckMethod.CHECK_2D: check_mask_2d}


def create_mask(tensor, func_name=MaskAlgo.MASK_1D, n=2, m=4):
    """The n:m mask of a 1-D to 4-D array (groups along its last axis; a 4-D [a, b, c, d] array
    groups along c), of tensor's dtype."""
    if not isinstance(func_name, MaskAlgo):
        raise AssertionError(f"func_name argument of create_mask is only accepted as type MaskAlgo. "
                             f"But got {type(func_name)}")
    shape, dtype = tensor.shape, tensor.dtype
    mat = _as_matrix(tensor.astype(float))
    mask = _ALGOS[func_name](mat, n=n, m=m)
    if len(shape) == 4:
        return mask.reshape([shape[0], shape[1], shape[3], shape[2]]).transpose([0, 1, 3, 2]).astype(dtype)
    return mask.reshape(shape).astype(dtype)


def check_sparsity(tensor, func_name=CheckMethod.CHECK_1D, n=2, m=4):
    """Whether a 1-D to 4-D array satisfies the n:m pattern that func_name checks."""
    if type(func_name) is not CheckMethod:
        raise AssertionError(f"func_name argument of check_sparsity is only accepted as type CheckMethod. "
                             f"But got {type(func_name)}")
    return _CHECKS[func_name](_as_matrix(tensor.astype(float)), n=n, m=m)
