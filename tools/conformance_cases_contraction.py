"""Conformance cases for einsum, tensordot, the distance functions, statistics and the small
constructions (python/oar/tensor/{contraction,statistics,creation,manipulation}.py)."""
import numpy as np

from conformance_cases import _F32_ATTR, FLOATS, Case, arr, lazy_table

KNOWN = {"paddle.cdist": _F32_ATTR + " (here 1/p for p=3)", "paddle.Tensor.cdist": _F32_ATTR + " (here 1/p for p=3)"}


def _table():
    f = FLOATS
    return {
        "einsum": [Case([eq] + [arr(s, dt) for s in shapes]) for dt in f for eq, shapes in (
            ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
            ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->", [(3, 4)]), ("...j,j", [(2, 3, 4), (4,)]),
            ("i,j->ij", [(3,), (4,)]), ("ijk,ikl,lm->jm", [(2, 3, 4), (2, 4, 5), (5, 2)]),
            ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]))],
        "tensordot": [Case([arr((2, 3, 4), dt), arr((3, 4, 5), dt)], {"axes": ax}) for dt in f
                      for ax in (2, [[1, 2], [0, 1]], [[1], [0]])],
        "addmm": [Case([arr((3, 5), dt), arr((3, 4), dt), arr((4, 5), dt)], {"beta": 0.5, "alpha": 2.0}) for dt in f],
        "baddbmm": [Case([arr((2, 3, 5), dt), arr((2, 3, 4), dt), arr((2, 4, 5), dt)], {"beta": 0.5, "alpha": 2.0})
                    for dt in f],
        "add_n": [Case([[arr((3, 4), dt), arr((3, 4), dt), arr((3, 4), dt)]]) for dt in f],
        "cdist": [Case([arr((2, 3, 4), dt), arr((2, 5, 4), dt)], {"p": p}) for dt in f for p in (2.0, 1.0, 3.0)],
        "dist": [Case([arr((3, 4), dt), arr((4,), dt)], {"p": p}) for dt in f for p in (2, 1, 0, float("inf"))],
        "pdist": [Case([arr((4, 3), dt)], {"p": p}) for dt in f for p in (2.0, 1.0)],
        "block_diag": [Case([[arr((2, 3), dt), arr((1, 2), dt)]]) for dt in f],
        "cartesian_prod": [Case([[arr((3,), dt), arr((2,), dt)]]) for dt in f],
        "combinations": [Case([arr((4,), dt)], kw) for dt in f for kw in ({}, {"r": 3}, {"with_replacement": True})],
        "vander": [Case([arr((4,), dt)], kw) for dt in f for kw in ({}, {"n": 3, "increasing": True})],
        "quantile": [Case([arr((3, 5), dt)], kw) for dt in f for kw in (
            {"q": 0.3}, {"q": 0.3, "axis": 1}, {"q": [0.1, 0.9], "axis": 0, "keepdim": True},
            {"q": 0.5, "axis": 1, "interpolation": "lower"}, {"q": 0.5, "axis": 1, "interpolation": "midpoint"},
            {"q": 0.4, "axis": 1, "interpolation": "higher"}, {"q": 0.4, "axis": 1, "interpolation": "nearest"})],
        "nanquantile": [Case([np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, 4.0, 0.5, 1.0]], dt)], kw, grad=False)
                        for dt in f for kw in ({"q": 0.5, "axis": 1}, {"q": [0.25, 0.75]})],
        "nanmedian": [Case([np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, 4.0, 0.5, 1.0]], dt)], kw, grad=False)
                      for dt in f for kw in ({}, {"axis": 1})],
        "bincount": [Case([np.array([1, 2, 1, 5])], kw, grad=False) for kw in ({}, {"minlength": 8})],
        "histogram": [Case([arr((20,), dt, 0, 3)], kw, grad=False) for dt in f
                      for kw in ({"bins": 4, "min": 0, "max": 3}, {"bins": 5})],
        "trapezoid": [Case([arr((3, 5), dt)], kw) for dt in f for kw in ({}, {"dx": 0.5, "axis": 0})],
        "cumulative_trapezoid": [Case([arr((3, 5), dt)], kw) for dt in f for kw in ({}, {"dx": 0.5, "axis": 0})],
        "renorm": [Case([arr((3, 4), dt), 2.0, 0, 1.0]) for dt in f],
        "rot90": [Case([arr((2, 3, 4), dt)], kw) for dt in f for kw in ({}, {"k": 2}, {"k": 3, "axes": [1, 2]}, {"k": -1})],
        "take_along_dim": [Case([arr((3, 4), dt), np.array([[0], [3], [1]]), 1]) for dt in f],
        "tril_indices": [Case([4, 3], kw, grad=False) for kw in ({}, {"offset": 1})],
        "triu_indices": [Case([4, 3], kw, grad=False) for kw in ({}, {"offset": -1})],
        "range": [Case([0, 5, 2], grad=False), Case([1.0, 2.0, 0.25], grad=False)],
        "kron": [Case([arr((2, 3), dt), arr((3, 2), dt)]) for dt in f],
    }


cases = lazy_table(_table, ("paddle", "paddle.Tensor"))
