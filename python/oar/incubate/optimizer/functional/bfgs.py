"""minimize_bfgs (paddle.incubate.optimizer.functional.minimize_bfgs)."""
from ._checks import check_dtype, check_inverse_hessian, check_line_search, check_tensor
from ._line_search import strong_wolfe, value_and_gradient


def minimize_bfgs(objective_func, initial_position, max_iters=50, tolerance_grad=1e-7, tolerance_change=1e-9,
                  initial_inverse_hessian_estimate=None, line_search_fn="strong_wolfe", max_line_search_iters=50,
                  initial_step_length=1.0, dtype="float32", name=None):
    """Minimises objective_func by BFGS (paddle.incubate.optimizer.functional.minimize_bfgs): the
    direction -H g from an inverse-Hessian estimate H, a strong-Wolfe line search along it, then
    Paddle's update H <- (I - rho y s^T) H (I - rho s y^T) + rho s s^T (rho = 1/(y.s), 1000 when y.s is
    0). Stops after max_iters, when the gradient's or the direction's largest magnitude falls below
    tolerance_grad or tolerance_change (converged), or when the line search finds no step.

    Args:
        objective_func (Callable[[Tensor], Tensor]): f of a 1-D tensor, returning a scalar tensor.
        initial_position (Tensor): The 1-D starting point.
        max_iters (int, optional): Iterations at most. Default: 50.
        tolerance_grad (float, optional): Converged when max|g| < this. Default: 1e-7.
        tolerance_change (float, optional): Converged when max|direction| < this. Default: 1e-9.
        initial_inverse_hessian_estimate (Tensor, optional): A symmetric positive definite H0; None
            is the identity. Default: None.
        line_search_fn (str, optional): Only 'strong_wolfe'. Default: 'strong_wolfe'.
        max_line_search_iters (int, optional): Line-search iterations at most. Default: 50.
        initial_step_length (float, optional): The first step tried. Default: 1.0.
        dtype (str, optional): 'float32' or 'float64'. Default: 'float32'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (is_converge: bool [1], num_func_calls: int64 [1], position, objective value, gradient,
        inverse Hessian estimate).

    Examples:
        >>> import oar
        >>> from oar.incubate.optimizer.functional import minimize_bfgs
        >>> def f(x):
        ...     return oar.dot(x, x)
        >>> ok, calls, x, value, grad, h = minimize_bfgs(f, oar.to_tensor([1.0, 2.0]))
        >>> print(bool(ok), x.numpy(), value.item())
        True [0. 0.] 0.0
    """
    import oar
    check_dtype(dtype)
    check_tensor(initial_position, "initial_position")
    eye = oar.eye(initial_position.shape[0], dtype=dtype)
    if initial_inverse_hessian_estimate is None:
        initial_inverse_hessian_estimate = eye
    else:
        check_tensor(initial_inverse_hessian_estimate, "initial_inverse_hessian_estimate")
        check_inverse_hessian(initial_inverse_hessian_estimate)
    check_line_search(line_search_fn)
    hk = initial_inverse_hessian_estimate.clone()
    xk = initial_position.detach().clone()
    value, g1 = value_and_gradient(objective_func, xk)
    calls = 1
    k = 0
    done = is_converge = False
    while k < max_iters and not done:
        pk = -oar.matmul(hk, g1)
        alpha, value, g2, ls_calls = strong_wolfe(f=objective_func, xk=xk, pk=pk, max_iters=max_line_search_iters,
                                                  initial_step_length=initial_step_length, dtype=dtype)
        calls += ls_calls
        sk = alpha * pk
        yk = g2 - g1
        xk = xk + sk
        g1 = g2
        sk = sk.unsqueeze(0)
        yk = yk.unsqueeze(0)
        rhok_inv = (yk * sk).sum(axis=1)
        if bool((rhok_inv == 0.0).all().item()):
            rhok = oar.full([1], 1000.0, dtype=dtype)
        else:
            rhok = 1.0 / rhok_inv
        vk_t = eye - rhok * sk * yk.t()
        vk = eye - rhok * yk * sk.t()
        hk = oar.matmul(oar.matmul(vk_t, hk), vk) + rhok * sk * sk.t()
        k += 1
        gnorm = oar.abs(g1).max()
        pk_norm = oar.abs(pk).max()
        done = done or bool((gnorm < tolerance_grad).item()) or bool((pk_norm < tolerance_change).item())
        is_converge = done
        done = done or bool((alpha == 0.0).all().item())
    return (oar.full([1], is_converge, dtype="bool"), oar.full([1], calls, dtype="int64"), xk, value, g1, hk)
