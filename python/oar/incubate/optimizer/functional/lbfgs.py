"""minimize_lbfgs (paddle.incubate.optimizer.functional.minimize_lbfgs)."""
from ._checks import check_dtype, check_inverse_hessian, check_line_search, check_tensor
from ._line_search import strong_wolfe, value_and_gradient


def minimize_lbfgs(objective_func, initial_position, history_size=100, max_iters=50, tolerance_grad=1e-8,
                   tolerance_change=1e-8, initial_inverse_hessian_estimate=None, line_search_fn="strong_wolfe",
                   max_line_search_iters=50, initial_step_length=1.0, dtype="float32", name=None):
    """Minimises objective_func by L-BFGS (paddle.incubate.optimizer.functional.minimize_lbfgs): the
    two-loop recursion over the last (s, y) pairs gives the direction, a strong-Wolfe line search
    the step. The pairs sit in Paddle's ring of history_size + 1 slots with the same head/tail
    bookkeeping, so the directions are Paddle's: all pairs while there are at most
    history_size - 2, then the last history_size - 2. (Paddle's bookkeeping stops terminating
    after about 2 * history_size iterations; oar bounds each recursion to the ring's size there.)
    Stops as minimize_bfgs does.

    Args:
        objective_func (Callable[[Tensor], Tensor]): f of a 1-D tensor, returning a scalar tensor.
        initial_position (Tensor): The 1-D starting point.
        history_size (int, optional): The ring's size. Default: 100.
        max_iters (int, optional): Iterations at most. Default: 50.
        tolerance_grad (float, optional): Converged when max|g| < this. Default: 1e-8.
        tolerance_change (float, optional): Converged when max|direction| < this. Default: 1e-8.
        initial_inverse_hessian_estimate (Tensor, optional): A symmetric positive definite H0; None
            is the identity. Default: None.
        line_search_fn (str, optional): Only 'strong_wolfe'. Default: 'strong_wolfe'.
        max_line_search_iters (int, optional): Line-search iterations at most. Default: 50.
        initial_step_length (float, optional): The first step tried. Default: 1.0.
        dtype (str, optional): 'float32' or 'float64'. Default: 'float32'.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Returns:
        tuple: (is_converge: bool [1], num_func_calls: int64 [1], position, objective value, gradient).

    Examples:
        >>> import oar
        >>> from oar.incubate.optimizer.functional import minimize_lbfgs
        >>> def f(x):
        ...     return oar.dot(x, x)
        >>> ok, calls, x, value, grad = minimize_lbfgs(f, oar.to_tensor([1.0, 2.0]))
        >>> print(bool(ok), x.numpy(), value.item())
        True [0. 0.] 0.0
    """
    import oar
    check_dtype(dtype)
    check_tensor(initial_position, "initial_position")
    if initial_inverse_hessian_estimate is None:
        h0 = oar.eye(initial_position.shape[0], dtype=dtype)
    else:
        check_tensor(initial_inverse_hessian_estimate, "initial_inverse_hessian_estimate")
        check_inverse_hessian(initial_inverse_hessian_estimate)
        h0 = initial_inverse_hessian_estimate
    check_line_search(line_search_fn)
    xk = initial_position.detach().clone()
    value, g1 = value_and_gradient(objective_func, xk)
    calls = 1
    k = 0
    done = is_converge = False
    size = history_size
    slots = size + 1
    sk_vec = [None] * slots   # the ring (Paddle's buffers of history_size + 1 rows)
    yk_vec = [None] * slots
    rhok_vec = [None] * slots
    ai_vec = [None] * slots
    head, tail = 1, 0
    while k < max_iters and not done:
        q = g1
        i = (head - 1) % size
        steps = 0
        while i != tail and steps < slots:
            ai_vec[i] = rhok_vec[i] * oar.dot(sk_vec[i], q)
            q = q - ai_vec[i] * yk_vec[i]
            i = (i - 1) % size
            steps += 1
        r = oar.matmul(h0, q)
        i = tail + 1
        steps = 0
        while i != head and steps < slots:
            if i < slots and sk_vec[i] is not None and ai_vec[i] is not None:
                beta = rhok_vec[i] * oar.dot(yk_vec[i], r)
                r = r + sk_vec[i] * (ai_vec[i] - beta)
            i = (i + 1) % size
            steps += 1
        pk = -r
        alpha, value, g2, ls_calls = strong_wolfe(f=objective_func, xk=xk, pk=pk, max_iters=max_line_search_iters,
                                                  initial_step_length=initial_step_length, dtype=dtype)
        calls += ls_calls
        sk = alpha * pk
        yk = g2 - g1
        rhok_inv = oar.dot(yk, sk)
        if bool((rhok_inv == 0.0).all().item()):
            rhok = oar.full([1], 1000.0, dtype=dtype)
        else:
            rhok = 1.0 / rhok_inv
        sk_vec[head], yk_vec[head], rhok_vec[head] = sk, yk, rhok
        head = (head + 1) % size
        if head == tail:
            tail += 1
        xk = xk + sk
        g1 = g2
        k += 1
        gnorm = oar.abs(g1).max()
        pk_norm = oar.abs(pk).max()
        done = done or bool((gnorm < tolerance_grad).item()) or bool((pk_norm < tolerance_change).item())
        is_converge = done
        done = done or bool((alpha == 0.0).all().item())
    return oar.full([1], is_converge, dtype="bool"), oar.full([1], calls, dtype="int64"), xk, value, g1
