"""The strong-Wolfe line search of minimize_bfgs and minimize_lbfgs, step for step as Paddle's
(paddle.incubate.optimizer.functional.line_search): scalars are 1-element tensors of the chosen
dtype, so every value rounds as Paddle's does; control flow reads them on the host."""


def _oar():
    import oar
    return oar


def _true(t):
    return bool(t.all().item())


def value_and_gradient(f, x):
    """f(x) and df/dx, both detached."""
    oar = _oar()
    x = x.detach()
    x.stop_gradient = False
    value = f(x)
    gradient = oar.grad([value], [x], create_graph=False)[0]
    return value.detach(), gradient.detach()


def _cubic_min(x1, f1, g1, x2, f2, g2):
    """The minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to [x1, x2]; their
    midpoint when the cubic has none."""
    oar = _oar()
    x1_first = _true(x1 <= x2)
    xmin, xmax = (x1, x2) if x1_first else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if _true(d2_square >= 0.0):
        d2 = d2_square.sqrt()
        if x1_first:
            pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return oar.minimum(oar.maximum(pos, xmin), xmax)
    return (xmin + xmax) / 2.0


def strong_wolfe(f, xk, pk, max_iters=20, tolerance_change=1e-8, initial_step_length=1.0, c1=1e-4, c2=0.9,
                 alpha_max=10, dtype="float32"):
    """A step length along pk that satisfies the strong Wolfe conditions. Returns (alpha, f(xk +
    alpha pk), its gradient, the number of function evaluations counted as Paddle counts them);
    alpha is 0 when the search gave up."""
    oar = _oar()

    def phi_and_derphi(a):
        value, grad = value_and_gradient(f, xk + a * pk)
        return value, grad, oar.dot(grad, pk)

    def zoom(a_lo, phi_lo, derphi_lo, derf_lo, a_hi, phi_hi, derphi_hi, phi_0, derphi_0):
        j = 0
        done_zoom = False
        while True:
            done_zoom = done_zoom or _true(oar.abs(a_hi - a_lo) < tolerance_change)
            if not (j < max_iters and not done_zoom):
                break
            aj = _cubic_min(a_lo, phi_lo, derphi_lo, a_hi, phi_hi, derphi_hi)
            min_change = 0.1 * oar.abs(a_hi - a_lo)
            if _true(oar.minimum(oar.abs(aj - a_lo), oar.abs(aj - a_hi)) < min_change):
                aj = 0.5 * (a_lo + a_hi)
            phi_j, derf_j, derphi_j = phi_and_derphi(aj)
            if _true((phi_j > phi_0 + c1 * aj * derphi_0) | (phi_j >= phi_lo)):
                a_hi, phi_hi, derphi_hi = aj, phi_j, derphi_j
            else:
                done_zoom = _true(oar.abs(derphi_j) <= -c2 * derphi_0)
                if not done_zoom and _true(derphi_j * (a_hi - a_lo) >= 0):
                    a_hi, phi_hi, derphi_hi = a_lo, phi_lo, derphi_lo
                a_lo, phi_lo, derphi_lo, derf_lo = aj, phi_j, derphi_j, derf_j
            if not done_zoom:
                j += 1
        return a_lo, phi_lo, derf_lo, j

    alpha_max = oar.full([1], alpha_max, dtype=dtype)
    a1 = oar.full([1], 0.0, dtype=dtype)
    a2 = oar.full([1], initial_step_length, dtype=dtype)
    phi_1, derf_1, derphi_1 = phi_and_derphi(a1)
    phi_0, derphi_0 = phi_1, derphi_1
    calls = 1
    a_star, phi_star, derf_star = oar.full([1], 0, dtype=dtype), phi_1, derf_1
    i = 0
    done = False
    while i < max_iters and not done:
        phi_2, derf_2, derphi_2 = phi_and_derphi(a2)
        calls += 1
        done = done or _true(oar.isinf(phi_2).any())
        # As Paddle's: derphi_1 keeps the slope at 0 (it is not advanced with a1 and phi_1).
        if not done and _true((phi_2 > phi_0 + c1 * a2 * derphi_0) | ((phi_2 >= phi_1) & oar.to_tensor(i > 1))):
            done = True
            a_star, phi_star, derf_star, j = zoom(a1, phi_1, derphi_1, derf_1, a2, phi_2, derphi_2, phi_0,
                                                  derphi_0)
            calls += j
        if not done and _true(oar.abs(derphi_2) <= -c2 * derphi_0):
            done = True
            a_star, phi_star, derf_star = a2, phi_2, derf_2
        if not done and _true(derphi_2 >= 0):
            done = True
            a_star, phi_star, derf_star, j = zoom(a2, phi_2, derphi_2, derf_2, a1, phi_1, derphi_1, phi_0,
                                                  derphi_0)
            calls += j
        if not done:
            a1, phi_1, derf_1 = a2, phi_2, derf_2
            a2 = oar.minimum(2 * a2, alpha_max)
            i += 1
    return a_star, phi_star, derf_star, calls
