"""Conformance cases for the later linalg names: eig / eigvals (oar/kernels/cpu/eig.h) and the
Householder products householder_product / ormqr (python/oar/linalg.py), in paddle.linalg and as
Tensor methods. eig's cases compare outputs only: the generic loss weights every eigenvector entry,
which depends on each vector's phase and so has no well-defined gradient;
tests/python/test_linalg_eig.py checks the gradient of phase-invariant losses against central
differences and Paddle. (svd_lowrank / pca_lowrank draw random sketches: compared on exactly
low-rank inputs in tests/python/test_linalg_householder_lowrank.py.)"""
from conformance_cases import Case, lazy_table, own_stream

arr, carr = own_stream(4242)


def _table():
    inputs = [arr((3, 3), "float32"), arr((2, 4, 4), "float64"), carr((3, 3), "complex64"),
              carr((2, 4, 4), "complex128")]
    table = {"eig": [Case([a], grad=False) for a in inputs], "eigvals": [Case([a], grad=False) for a in inputs]}
    reflectors = [(arr((4, 3), dt), arr((3,), dt)) for dt in ("float32", "float64")] + \
        [(arr((2, 5, 3), "float64"), arr((2, 3), "float64"))]
    table["householder_product"] = [Case([x, t]) for x, t in reflectors]
    table["ormqr"] = [Case([x, t, arr(x.shape[:-2] + (x.shape[-1], 2), str(x.dtype))]) for x, t in reflectors] + \
        [Case([x, t, arr(x.shape[:-2] + (x.shape[-2], 2), str(x.dtype))], {"transpose": True}) for x, t in reflectors]
    return table


cases = lazy_table(_table, ("paddle.linalg", "paddle.Tensor"))

_ORDER = ("Paddle 3.3.1's eigvals orders the eigenvalues unlike its own eig (and NumPy's eigvals) for real "
          "input; oar's eigvals is LAPACK's ?geev without vectors, as NumPy's; the values agree as sets "
          "(tests/python/test_linalg_eig.py)")
_HOUSEHOLDER_BWD = ("Paddle 3.3.1's householder_product (and ormqr, which calls it) cannot be differentiated: its "
                    "loop writes Q in place, and backward raises PermissionDenied ('modified by an inplace "
                    "operation'); oar's gradient is checked by central differences in "
                    "tests/python/test_linalg_householder_lowrank.py")
KNOWN = {"paddle.linalg.eigvals": _ORDER, "paddle.Tensor.eigvals": _ORDER}
for _name in ("householder_product", "ormqr"):
    KNOWN[f"paddle.linalg.{_name}"] = KNOWN[f"paddle.Tensor.{_name}"] = _HOUSEHOLDER_BWD
