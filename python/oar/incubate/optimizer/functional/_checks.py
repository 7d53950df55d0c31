"""Argument checks shared by minimize_bfgs and minimize_lbfgs."""
from .... import _C


def check_dtype(dtype):
    if dtype not in ("float32", "float64"):
        raise ValueError(f"The dtype must be 'float32' or 'float64', but the specified is {dtype}.")


def check_tensor(value, name):
    if not isinstance(value, _C.Tensor):
        raise ValueError(f"The input: {value} must be tensor.")


def check_line_search(line_search_fn):
    if line_search_fn != "strong_wolfe":
        raise NotImplementedError(f"Currently only support line_search_fn = 'strong_wolfe', but the specified is "
                                  f"'{line_search_fn}'")


def check_inverse_hessian(h0):
    """H0 must be symmetric positive definite (ValueError otherwise, as Paddle)."""
    import oar
    message = ("The initial_inverse_hessian_estimate should be symmetric and positive definite, but the specified "
               "is not.")
    if not bool(oar.all(oar.equal(h0, h0.t())).item()):
        raise ValueError(message)
    try:
        oar.linalg.cholesky(h0)
    except (RuntimeError, ValueError):
        raise ValueError(message) from None
    import numpy as np
    if not np.all(np.isfinite(oar.linalg.cholesky(h0).numpy())):
        raise ValueError(message)
