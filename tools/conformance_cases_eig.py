"""Conformance cases for linalg.eig / eigvals (oar/kernels/cpu/eig.h), in paddle.linalg and as Tensor
methods. Outputs only: the generic loss weights every eigenvector entry, which depends on each
vector's phase and so has no well-defined gradient; tests/python/test_linalg_eig.py checks the
gradient of phase-invariant losses against central differences and Paddle."""
from conformance_cases import Case, lazy_table, own_stream

arr, carr = own_stream(4242)


def _table():
    inputs = [arr((3, 3), "float32"), arr((2, 4, 4), "float64"), carr((3, 3), "complex64"),
              carr((2, 4, 4), "complex128")]
    return {"eig": [Case([a], grad=False) for a in inputs], "eigvals": [Case([a], grad=False) for a in inputs]}


cases = lazy_table(_table, ("paddle.linalg", "paddle.Tensor"))

_ORDER = ("Paddle 3.3.1's eigvals orders the eigenvalues unlike its own eig (and NumPy's eigvals) for real "
          "input; oar's eigvals is LAPACK's ?geev without vectors, as NumPy's; the values agree as sets "
          "(tests/python/test_linalg_eig.py)")
KNOWN = {"paddle.linalg.eigvals": _ORDER, "paddle.Tensor.eigvals": _ORDER}
