"""Conformance cases for the small composites in python/oar/tensor/ (creation.diagflat,
math.reduce_as, manipulation.slice_scatter, diagonal_scatter, crop, shard_index, math.multiplex,
increment) and the
deterministic parts of python/oar/tensor/random.py."""
import numpy as np

from conformance_cases import FLOATS, Case, arr, lazy_table

_DIAG_SCATTER = ("Paddle 3.3's diagonal_scatter gives no gradient for y (paddle.grad returns None); oar's "
                 "is checked numerically in tests/python/test_misc_random.py")
KNOWN = {"paddle.diagonal_scatter": _DIAG_SCATTER, "paddle.Tensor.diagonal_scatter": _DIAG_SCATTER}
# Not compared: multiplex with an int64 index, which Paddle 3.3 rejects ("the type of data we are
# trying to retrieve (int32) does not match ... (int64)") although it documents int64; oar takes both.


def _table():
    f = FLOATS
    return {
        "diagflat": [Case([arr((2, 2), dt)], kw) for dt in f for kw in ({}, {"offset": 1}, {"offset": -1})],
        "reduce_as": [Case([arr((2, 3, 4), dt), arr((3, 1), dt)], diff_args=[0]) for dt in f],
        "slice_scatter": [Case([arr((3, 4), dt), arr((3, 2), dt), [1], [0], [4], [2]]) for dt in f],
        "diagonal_scatter": [Case([arr((3, 4), dt), arr((3,), dt)], {"offset": 1}) for dt in f]
                            + [Case([arr((2, 3, 3), dt), arr((2, 3), dt)], {"axis1": 1, "axis2": 2}) for dt in f]
                            # axis1 > axis2 on a non-square pair: the mask must follow the axes' order.
                            + [Case([arr((2, 3, 4), dt), arr((2, 2), dt)], {"offset": 1, "axis1": 2, "axis2": 1})
                               for dt in f],
        "crop": [Case([arr((3, 4), dt)], {"shape": [2, 2], "offsets": [1, 1]}) for dt in f],
        "multiplex": [Case([[arr((2, 3), dt), arr((2, 3), dt)], np.array([[1], [0]], np.int32)]) for dt in f],
        "increment": [Case([arr((1,), dt)], {"value": 2.0}) for dt in f],
        "shard_index": [Case([np.array([[1], [6], [12], [19]]), 20, 2, 0], grad=False),
                        Case([np.array([[1], [6], [12], [19]]), 20, 2, 1], grad=False)],
    }


cases = lazy_table(_table, ("paddle", "paddle.Tensor"))
