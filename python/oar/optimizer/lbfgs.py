"""LBFGS: limited-memory BFGS with an optional strong-Wolfe line search (paddle.optimizer.LBFGS).

The method is Nocedal & Wright, Numerical Optimization (2nd ed.): the two-loop recursion for the
inverse-Hessian product (Algorithm 7.4/7.5), the bracketing-and-zoom line search for the strong
Wolfe conditions (Algorithms 3.5/3.6) with the cubic interpolation of eq. 3.59.

All parameters are seen as one flat vector; vectors (gradient, direction, history pairs) are
tensors, the scalars derived from them (slopes, curvatures, step sizes) are NumPy scalars of the
same dtype. NumPy's scalar arithmetic rounds like Paddle's 0-d tensor arithmetic (float32 stays
float32, Python floats are weak), so the iterates follow Paddle's, float32 included.

As in Paddle, `weight_decay` and `grad_clip` are accepted but not applied (the closure's own
gradients drive the method), and with parameter groups only the last group is optimized.
"""
import numpy as np

from .. import _C
from ..autograd import enable_grad, no_grad
from ..tensor.creation import to_tensor
from .optimizer import Optimizer

__all__ = ['LBFGS']


def _scalar(t):
    """A 0-d tensor as a NumPy scalar of its dtype."""
    return np.asarray(t.numpy())[()]


def _dot(x, y):
    return _scalar((x * y).sum(-1))


def _abs_max(x):
    return _scalar(x.abs().max())


def _cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped to
    bounds (default: the interval between x1 and x2); the interval's midpoint when the cubic has
    no minimizer (negative discriminant)."""
    if bounds is None:
        bounds = (x1, x2) if x1 <= x2 else (x2, x1)
    lo, hi = bounds
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    discriminant = d1 * d1 - g1 * g2
    if discriminant < 0:
        return (lo + hi) / 2.0
    d2 = np.sqrt(discriminant)
    # Written from the right end of the interval so that the ratio stays well conditioned.
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


class _Point:
    """One trial of the line search: step, loss, flat gradient, slope along the direction."""
    __slots__ = ('step', 'loss', 'grad', 'slope')

    def __init__(self, step, loss, grad, slope):
        self.step, self.loss, self.grad, self.slope = step, loss, grad, slope


def _strong_wolfe_search(evaluate, step, start, d_norm, tolerance_change, c1=1e-4, c2=0.9,
                         max_ls=25):
    """A step along the direction satisfying the strong Wolfe conditions
        f(t) <= f(0) + c1 t f'(0)   and   |f'(t)| <= -c2 f'(0).
    evaluate(t) -> _Point at step t; start is the point at t = 0. First the step grows (cubic
    extrapolation, at most 10x) until an interval is known to hold an acceptable step; then that
    interval shrinks (cubic interpolation, kept 10% away from its ends when progress stalls).
    Returns (point reached, number of evaluations); its step is 0 when nothing better was found
    within max_ls trials."""
    f0, slope0 = start.loss, start.slope

    def sufficient_decrease(p):
        return not (p.loss > f0 + c1 * p.step * slope0)

    def curvature_ok(p):
        return abs(p.slope) <= -c2 * slope0

    new = evaluate(step)
    evals, trials = 1, 0
    prev = start
    interval, found = None, False
    while trials < max_ls:
        if not sufficient_decrease(new) or (trials > 1 and new.loss >= prev.loss):
            interval = [prev, new]
            break
        if curvature_ok(new):
            interval, found = [new], True
            break
        if new.slope >= 0:
            interval = [prev, new]
            break
        # Still descending with a steep slope: extrapolate further out.
        t = new.step
        nxt = _cubic_minimizer(prev.step, prev.loss, prev.slope, t, new.loss, new.slope,
                               bounds=(t + 0.01 * (t - prev.step), t * 10))
        prev = new
        new = evaluate(nxt)
        evals += 1
        trials += 1
    if trials == max_ls:
        interval = [_Point(0, f0, start.grad, None), new]

    def ordered():
        """(index of the lower-loss end, index of the other)."""
        return (0, 1) if interval[0].loss <= interval[-1].loss else (1, 0)

    low, high = ordered()
    stalled = False
    while not found and trials < max_ls:
        a, b = interval
        if abs(b.step - a.step) * d_norm < tolerance_change:
            break
        t = _cubic_minimizer(a.step, a.loss, a.slope, b.step, b.loss, b.slope)
        left, right = min(a.step, b.step), max(a.step, b.step)
        margin = 0.1 * (right - left)
        # A trial too close to an end makes little progress: the second time in a row (or
        # when outside the interval) move it a margin inside.
        if min(right - t, t - left) < margin:
            if stalled or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        new = evaluate(t)
        evals += 1
        trials += 1
        if not sufficient_decrease(new) or new.loss >= interval[low].loss:
            interval[high] = new
            low, high = ordered()
        else:
            if curvature_ok(new):
                found = True
            elif new.slope * (interval[high].step - interval[low].step) >= 0:
                interval[high] = interval[low]
            interval[low] = new
    return interval[low], evals


class LBFGS(Optimizer):
    """L-BFGS: a quasi-Newton method that approximates the inverse Hessian from the last
    ``history_size`` steps, optionally with a strong-Wolfe line search.

    ``step(closure)`` runs up to ``max_iter`` iterations; ``closure`` must clear the gradients,
    compute the loss, call ``backward()`` and return the loss. It stops early when the largest
    gradient entry is at most tolerance_grad, or when a step or the change of the loss is below
    tolerance_change. All parameters are treated as one flat vector. As in Paddle, weight_decay
    and grad_clip are accepted but not applied, and with parameter groups only the last group
    is optimized.

    Args:
        learning_rate (float, optional): The step size (the initial trial step of the line
            search). Default: 1.0.
        max_iter (int, optional): Most iterations per step() call. Default: 20.
        max_eval (int, optional): Most closure evaluations per step() call; None means
            max_iter * 5 // 4. Default: None.
        tolerance_grad (float, optional): Stop when max |grad| is at most this. Default: 1e-7.
        tolerance_change (float, optional): Stop when a step or loss change is below this.
            Default: 1e-9.
        history_size (int, optional): Number of past updates kept. Default: 100.
        line_search_fn (str, optional): 'strong_wolfe', or None for fixed steps. Default: None.
        parameters (list, optional): The Tensors to optimize. Default: None.
        weight_decay (float, optional): Accepted, not applied. Default: None.
        grad_clip (GradientClipBase, optional): Accepted, not applied. Default: None.
        name (str, optional): Usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> w = oar.nn.Parameter(oar.to_tensor([1.0, -2.0]))
        >>> opt = oar.optimizer.LBFGS(parameters=[w], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.clear_grad()
        ...     loss = ((w - 3.0) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> print(float(opt.step(closure)))  # the loss before the step
        29.0
        >>> print(w.numpy().round(4))
        [3. 3.]
    """

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_eval = max_eval
        self.tolerance_grad = tolerance_grad
        self.tolerance_change = tolerance_change
        self.history_size = history_size
        self.line_search_fn = line_search_fn
        self.state = {}
        # The learning rate lives in self.learning_rate; the base class sees 1.0 (as Paddle's).
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        self._finish_groups()
        if self._grouped:
            self._params = list(self._param_groups[-1]['params']) if self._param_groups else []
        else:
            self._params = list(self._param_groups)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Not supported: LBFGS needs a closure that re-evaluates the loss; call ``step(closure)``."""
        raise NotImplementedError("LBFGS.minimize: LBFGS does not minimize a loss this way; call "
                                  "step(closure) with a closure that computes the loss and its "
                                  "gradients")

    # ---- the flat parameter vector ----
    def _flat_grad(self):
        parts = [_C.zeros_like(p).reshape([-1]) if p.grad is None else p.grad.reshape([-1])
                 for p in self._params]
        return _C.concat(parts, 0)

    def _move(self, step, direction):
        """params += step * direction (direction is flat)."""
        offset = 0
        for p in self._params:
            n = int(np.prod(p.shape)) if len(p.shape) else 1
            p.add_(direction[offset:offset + n].reshape(p.shape) * float(step))
            offset += n

    def _snapshot(self):
        return [p.clone() for p in self._params]

    def _restore(self, values):
        for p, v in zip(self._params, values):
            p.copy_(v)

    # ---- the iteration ----
    @no_grad()
    def step(self, closure):
        """Runs up to max_iter L-BFGS iterations.

        Args:
            closure (callable): Clears the gradients, computes the loss, calls ``backward()`` and
                returns the loss.

        Returns:
            Tensor: the loss of the first closure call.
        """
        if not callable(closure):
            raise TypeError(f"LBFGS.step: 'closure' must be a callable that computes the loss and "
                            f"its gradients, but received {type(closure).__name__}")

        def evaluate():
            with enable_grad():
                return closure()

        with np.errstate(all='ignore'):   # inf/nan scalars behave as Paddle's 0-d tensors do
            return self._run(evaluate)

    def _run(self, evaluate):
        state = self.state
        state.setdefault('func_evals', 0)
        state.setdefault('n_iter', 0)
        lr, tol_change = self.learning_rate, self.tolerance_change

        first_loss = evaluate()
        loss = float(first_loss)
        evals = 1
        state['func_evals'] += 1
        grad = self._flat_grad()
        if _abs_max(grad) <= self.tolerance_grad:
            return first_loss

        d = state.get('d')
        alpha = state.get('alpha')
        old_y, old_s, rho = state.get('old_yk'), state.get('old_sk'), state.get('ro')
        h_diag = state.get('H_diag')
        prev_grad, prev_loss = state.get('prev_flat_grad'), state.get('prev_loss')
        loss_dtype = np.dtype(first_loss.dtype.name if hasattr(first_loss, 'dtype') else 'float32')

        it = 0
        while it < self.max_iter:
            it += 1
            state['n_iter'] += 1
            if state['n_iter'] == 1:
                d = -grad
                old_y, old_s, rho = [], [], []
                h_diag = loss_dtype.type(1.0)
            else:
                d, h_diag = self._direction(grad, prev_grad, d, alpha, old_y, old_s, rho, h_diag)
            prev_grad = grad.clone()
            prev_loss = loss
            # The first step ever is scaled down to 1/|g|_1 (no curvature is known yet).
            alpha = min(1.0, 1.0 / _scalar(grad.abs().sum())) * lr if state['n_iter'] == 1 else lr

            slope = _dot(grad, d)
            if slope > -tol_change:
                break

            d_max = _abs_max(d)
            ls_evals = 0
            opt_cond = False
            if self.line_search_fn is not None:
                if self.line_search_fn != 'strong_wolfe':
                    raise RuntimeError("LBFGS.step: line_search_fn must be None or "
                                       f"'strong_wolfe', but received {self.line_search_fn!r}")
                origin = self._snapshot()

                def trial(t, origin=origin, d=d):
                    self._move(t, d)
                    f = float(evaluate())
                    g = self._flat_grad()
                    self._restore(origin)
                    return _Point(t, f, g, _dot(g, d))

                reached, ls_evals = _strong_wolfe_search(
                    trial, alpha, _Point(0, loss, grad, slope), d_max, tol_change)
                loss, grad, alpha = reached.loss, reached.grad, reached.step
                self._move(alpha, d)
                opt_cond = _abs_max(grad) <= self.tolerance_grad
            else:
                self._move(alpha, d)
                if it != self.max_iter:
                    loss = float(evaluate())
                    grad = self._flat_grad()
                    opt_cond = _abs_max(grad) <= self.tolerance_grad
                    ls_evals = 1
            evals += ls_evals
            state['func_evals'] += ls_evals

            if opt_cond:
                break
            if d_max * abs(alpha) <= tol_change:     # the step no longer moves anything
                break
            if abs(loss - prev_loss) < tol_change:
                break
            if evals >= self.max_eval or it == self.max_iter:
                break

        state.update({'d': d, 'alpha': alpha, 'old_yk': old_y, 'old_sk': old_s, 'ro': rho,
                      'H_diag': h_diag, 'prev_flat_grad': prev_grad, 'prev_loss': prev_loss})
        return first_loss

    def _direction(self, grad, prev_grad, d, alpha, old_y, old_s, rho, h_diag):
        """-H grad by the two-loop recursion, after adding the last step's (s, y) pair to the
        history when its curvature y.s is positive. Returns (direction, H_diag)."""
        y = grad - prev_grad
        s = d * float(np.dtype(d.dtype.name).type(alpha))   # alpha in d's dtype, as Paddle
        ys = _dot(y, s)
        if ys > 1e-10:
            if len(old_y) == self.history_size:
                old_y.pop(0)
                old_s.pop(0)
                rho.pop(0)
            old_y.append(y)
            old_s.append(s)
            rho.append(1.0 / ys)
            h_diag = ys / _dot(y, y)   # scales the initial inverse Hessian (N&W eq. 7.20)
        if 'al' not in self.state:
            self.state['al'] = [None] * self.history_size
        al = self.state['al']
        q = -grad
        for i in range(len(old_y) - 1, -1, -1):
            al[i] = _dot(old_s[i], q) * rho[i]
            q = q + old_y[i] * float(-al[i])
        r = q * float(h_diag)
        for i in range(len(old_y)):
            beta = _dot(old_y[i], r) * rho[i]
            r = r + old_s[i] * float(al[i] - beta)
        return r, h_diag

    # ---- state ----
    def state_dict(self):
        """The optimizer state, ``{'state': {...}}`` with Paddle's keys: func_evals, n_iter and,
        once a step ran, the last direction d, step alpha, history old_yk / old_sk / ro, H_diag,
        prev_flat_grad, prev_loss (and al); scalars derived from tensors are 0-D tensors, as in
        Paddle."""
        def out(v):
            if isinstance(v, np.generic) and not isinstance(v, np.bool_):
                return to_tensor(np.asarray(v))
            if isinstance(v, list):
                return [out(x) for x in v]
            return v
        return {'state': {k: out(v) for k, v in self.state.items()}}

    def set_state_dict(self, state_dict):
        """Loads a ``state_dict()`` of this optimizer or of Paddle's LBFGS (same keys)."""
        if not isinstance(state_dict, dict):
            raise TypeError("LBFGS.set_state_dict: expected a dict, but received "
                            f"{type(state_dict).__name__}")
        if 'state' not in state_dict or not isinstance(state_dict['state'], dict):
            raise ValueError("LBFGS.set_state_dict: expected a dict {'state': {...}} as returned "
                             f"by LBFGS.state_dict(), but received keys {sorted(state_dict)}")
        vectors = ('d', 'prev_flat_grad')
        vector_lists = ('old_yk', 'old_sk')
        scalar_lists = ('ro', 'al')

        def tensor(v):
            arr = np.asarray(v.numpy() if hasattr(v, 'numpy') else v)
            return to_tensor(np.ascontiguousarray(arr))

        def scalar(v):
            if v is None or isinstance(v, (int, float)):
                return v
            return np.asarray(v.numpy() if hasattr(v, 'numpy') else v)[()]

        state = {}
        for k, v in state_dict['state'].items():
            if k in vectors:
                state[k] = tensor(v)
            elif k in vector_lists:
                state[k] = [tensor(x) for x in v]
            elif k in scalar_lists:
                state[k] = [scalar(x) for x in v]
            elif k in ('alpha', 'H_diag', 'prev_loss'):
                state[k] = scalar(v)
            else:
                state[k] = v
        self.state = state
