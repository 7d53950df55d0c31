"""oar.optimizer trajectories: ~10 steps on y = x @ W + b with loss 0.5 * sum((y - t)^2),
from fixed weights and data, against a NumPy reference of each update rule (always) and against
the real Paddle 3.3.1 (when installed)."""
import numpy as np
import pytest

import oar

STEPS = 8
X = (np.arange(12, dtype=np.float64).reshape(4, 3) / 7.0 - 0.6)
T = np.array([[0.5, -1.0], [0.2, 0.3], [-0.7, 0.9], [1.1, -0.4]])
W0 = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.25]])
B0 = np.array([0.05, -0.1])


def grads_np(w, b):
    dy = X @ w + b - T
    return X.T @ dy, dy.sum(0)


# ---------------- NumPy references of the update rules ----------------
class Ref:
    """One rule over a list of parameters; state per parameter in dicts. opts mirror the
    optimizer's arguments; decay = ('l1'|'l2', coeff) coupled weight decay."""

    def __init__(self, kind, lr=0.01, decay=None, clip=None, mults=None, **opts):
        self.kind, self.lr, self.decay, self.clip, self.opts = kind, lr, decay, clip, opts
        self.mults = mults
        self.state = {}
        self.t = 0

    def step(self, params, grads):
        self.t += 1
        grads = [g.copy() for g in grads]
        if self.clip is not None:
            kind, c = self.clip
            if kind == 'value':
                grads = [np.clip(g, -c, c) for g in grads]
            elif kind == 'norm':
                grads = [g * (c / np.linalg.norm(g)) if np.linalg.norm(g) > c else g for g in grads]
            else:
                n = np.sqrt(sum((g * g).sum() for g in grads))
                grads = [g * (c / max(n, c)) for g in grads]
        out = []
        for i, (w, g) in enumerate(zip(params, grads)):
            lr = self.lr * (self.mults[i] if self.mults else 1.0)
            if self.decay is not None and self.kind != 'momentum':
                k, c = self.decay
                g = g + (c * np.sign(w) if k == 'l1' else c * w)
            out.append(getattr(self, self.kind)(i, w.copy(), g, lr))
        return out

    def s(self, i, name, init=0.0, shape=None):
        return self.state.setdefault((i, name), np.full(shape, init))

    def sgd(self, i, w, g, lr):
        return w - lr * g

    def momentum(self, i, w, g, lr):
        mu, nest, rs = self.opts.get('momentum', 0.9), self.opts.get('use_nesterov', False), \
            self.opts.get('rescale_grad', 1.0)
        g = g * rs
        if self.decay is not None:
            k, c = self.decay
            g = g + (c * np.sign(w) * rs if k == 'l1' else c * w)
        v = mu * self.s(i, 'v', shape=w.shape) + g
        self.state[(i, 'v')] = v
        return w - (g + mu * v) * lr if nest else w - lr * v

    def adam(self, i, w, g, lr, decoupled=0.0):
        b1, b2 = self.opts.get('beta1', 0.9), self.opts.get('beta2', 0.999)
        eps = self.opts.get('epsilon', 1e-8)
        if decoupled:
            w = w - lr * decoupled * w
        m = b1 * self.s(i, 'm', shape=w.shape) + (1 - b1) * g
        v = b2 * self.s(i, 'v', shape=w.shape) + (1 - b2) * g * g
        self.state[(i, 'm')], self.state[(i, 'v')] = m, v
        if self.opts.get('amsgrad'):
            v = np.maximum(self.s(i, 'vmax', shape=w.shape), v)
            self.state[(i, 'vmax')] = v
        b1p, b2p = b1 ** self.t, b2 ** self.t
        lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
        return w - lr_t * m / (np.sqrt(v) + eps * np.sqrt(1 - b2p))

    def adamw(self, i, w, g, lr):
        coeff = self.opts.get('weight_decay', 0.01)
        fun = self.opts.get('apply_decay')
        return self.adam(i, w, g, lr, decoupled=coeff if fun is None or fun(i) else 0.0)

    def adagrad(self, i, w, g, lr):
        m = self.s(i, 'm', self.opts.get('initial_accumulator_value', 0.0), w.shape) + g * g
        self.state[(i, 'm')] = m
        return w - lr * g / (np.sqrt(m) + self.opts.get('epsilon', 1e-6))

    def rmsprop(self, i, w, g, lr):
        rho, eps = self.opts.get('rho', 0.95), self.opts.get('epsilon', 1e-6)
        mu = self.opts.get('momentum', 0.0)
        ms = rho * self.s(i, 'ms', shape=w.shape) + (1 - rho) * g * g
        self.state[(i, 'ms')] = ms
        denom = ms + eps
        if self.opts.get('centered'):
            mg = rho * self.s(i, 'mg', shape=w.shape) + (1 - rho) * g
            self.state[(i, 'mg')] = mg
            denom = ms - mg * mg + eps
        mom = mu * self.s(i, 'mom', shape=w.shape) + lr * g / np.sqrt(denom)
        self.state[(i, 'mom')] = mom
        return w - mom

    def adadelta(self, i, w, g, lr):
        rho, eps = self.opts.get('rho', 0.95), self.opts.get('epsilon', 1e-6)
        asg = rho * self.s(i, 'asg', shape=w.shape) + (1 - rho) * g * g
        asu = self.s(i, 'asu', shape=w.shape)
        upd = -np.sqrt((asu + eps) / (asg + eps)) * g
        self.state[(i, 'asg')] = asg
        self.state[(i, 'asu')] = rho * asu + (1 - rho) * upd * upd
        return w + lr * upd

    def adamax(self, i, w, g, lr):
        b1, b2, eps = self.opts.get('beta1', 0.9), self.opts.get('beta2', 0.999), self.opts.get('epsilon', 1e-8)
        m = b1 * self.s(i, 'm', shape=w.shape) + (1 - b1) * g
        u = np.maximum(b2 * self.s(i, 'u', shape=w.shape) + eps, np.abs(g))
        self.state[(i, 'm')], self.state[(i, 'u')] = m, u
        return w - lr / (1 - b1 ** self.t) * m / u

    def nadam(self, i, w, g, lr):
        b1, b2, eps = self.opts.get('beta1', 0.9), self.opts.get('beta2', 0.999), self.opts.get('epsilon', 1e-8)
        psi = self.opts.get('momentum_decay', 0.004)
        t = self.t
        mu = b1 * (1 - 0.5 * (0.96 ** t) ** psi)
        mu_next = b1 * (1 - 0.5 * (0.96 ** (t + 1)) ** psi)
        prod = self.state.get((i, 'prod'), 1.0) * mu
        self.state[(i, 'prod')] = prod
        m = b1 * self.s(i, 'm', shape=w.shape) + (1 - b1) * g
        v = b2 * self.s(i, 'v', shape=w.shape) + (1 - b2) * g * g
        self.state[(i, 'm')], self.state[(i, 'v')] = m, v
        m_hat = mu_next * m / (1 - prod * mu_next) + (1 - mu) * g / (1 - prod)
        return w - lr * m_hat / (np.sqrt(v / (1 - b2 ** t)) + eps)

    def radam(self, i, w, g, lr):
        b1, b2, eps = self.opts.get('beta1', 0.9), self.opts.get('beta2', 0.999), self.opts.get('epsilon', 1e-8)
        t = self.t
        m = b1 * self.s(i, 'm', shape=w.shape) + (1 - b1) * g
        v = b2 * self.s(i, 'v', shape=w.shape) + (1 - b2) * g * g
        self.state[(i, 'm')], self.state[(i, 'v')] = m, v
        m_hat = m / (1 - b1 ** t)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho_t <= 5:
            return w - lr * m_hat
        l = np.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)  # noqa: E741
        r = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return w - lr * m_hat * r * l

    def asgd(self, i, w, g, lr):
        n = self.opts.get('batch_num', 1)
        ys = self.state.setdefault((i, 'y'), [np.zeros_like(w) for _ in range(n)])
        slot = (self.t - 1) % n
        d = self.s(i, 'd', shape=w.shape) - ys[slot] + g
        ys[slot] = g
        self.state[(i, 'd')] = d
        return w - lr * d / min(self.t, n)

    def rprop(self, i, w, g, lr):
        lo, hi = self.opts.get('learning_rate_range', (1e-5, 50))
        eta_neg, eta_pos = self.opts.get('etas', (0.5, 1.2))
        prev = self.s(i, 'prev', shape=w.shape)
        rate = self.s(i, 'rate', self.lr, w.shape)
        trend = g * prev
        rate = np.where(trend > 0, np.minimum(rate * eta_pos, hi),
                        np.where(trend < 0, np.maximum(rate * eta_neg, lo), rate))
        g = np.where(trend < 0, 0.0, g)
        self.state[(i, 'prev')], self.state[(i, 'rate')] = g, rate
        return w - np.sign(g) * rate

    def lamb(self, i, w, g, lr):
        b1, b2, eps = self.opts.get('beta1', 0.9), self.opts.get('beta2', 0.999), self.opts.get('epsilon', 1e-6)
        wd = self.opts.get('lamb_weight_decay', 0.01)
        if self.opts.get('exclude') and self.opts['exclude'](i):
            wd = 0.0
        m = b1 * self.s(i, 'm', shape=w.shape) + (1 - b1) * g
        v = b2 * self.s(i, 'v', shape=w.shape) + (1 - b2) * g * g
        self.state[(i, 'm')], self.state[(i, 'v')] = m, v
        r = (m / (1 - b1 ** self.t)) / (np.sqrt(v / (1 - b2 ** self.t)) + eps) + wd * w
        wn, rn = np.linalg.norm(w), np.linalg.norm(r)
        ratio = wn / rn if (wd != 0 or self.opts.get('always_adapt')) and wn > 0 and rn > 0 else 1.0
        return w - lr * ratio * r


def ref_trajectory(ref):
    w, b = W0.copy(), B0.copy()
    out = []
    for _ in range(STEPS):
        w, b = ref.step([w, b], list(grads_np(w, b)))
        out.append((w.copy(), b.copy()))
    return out


# ---------------- oar and paddle runs ----------------
def run(fw, make_opt, dtype='float32', groups=None, param_attrs=None):
    """Trajectory of (W, b) in framework fw ('oar' or 'paddle'); make_opt(ns, params) builds
    the optimizer from the framework's namespace."""
    if fw == 'paddle':
        import paddle as ns
        mk = lambda a: ns.create_parameter(list(a.shape), dtype,  # noqa: E731
                                           default_initializer=ns.nn.initializer.Assign(a.astype(dtype)))
    else:
        ns = oar

        def mk(a):
            t = oar.to_tensor(a.astype(dtype))
            t.stop_gradient = False
            return t
    w, b = mk(W0), mk(B0)
    if param_attrs:
        for p, attrs in zip((w, b), param_attrs(ns)):
            for k, v in attrs.items():
                if k == 'optimize_attr':
                    if fw == 'paddle':
                        p.optimize_attr.update(v)
                    else:
                        p.optimize_attr = dict(v)
                else:
                    setattr(p, k, v)
    params = [w, b] if groups is None else groups(w, b)
    opt = make_opt(ns, params)
    x, t = ns.to_tensor(X.astype(dtype)), ns.to_tensor(T.astype(dtype))
    out = []
    for _ in range(STEPS):
        y = ns.matmul(x, w) + b
        loss = ((y - t) * (y - t)).sum() * 0.5
        loss.backward()
        opt.step()
        opt.clear_grad()
        out.append((w.numpy().astype(np.float64), b.numpy().astype(np.float64)))
    return out


def close(a, b, rtol, atol):
    for (w1, b1), (w2, b2) in zip(a, b):
        np.testing.assert_allclose(w1, w2, rtol=rtol, atol=atol)
        np.testing.assert_allclose(b1, b2, rtol=rtol, atol=atol)


# (id, oar/paddle optimizer factory, numpy reference, extra run kwargs)
def L1(ns, c):
    return ns.regularizer.L1Decay(c)


def L2(ns, c):
    return ns.regularizer.L2Decay(c)


CASES = [
    ('sgd', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p), Ref('sgd', 0.05), {}),
    ('sgd_l2float', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, weight_decay=0.1),
     Ref('sgd', 0.05, decay=('l2', 0.1)), {}),
    ('sgd_l1', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, weight_decay=L1(ns, 0.05)),
     Ref('sgd', 0.05, decay=('l1', 0.05)), {}),
    ('sgd_clip_value', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, grad_clip=ns.nn.ClipGradByValue(0.5)),
     Ref('sgd', 0.05, clip=('value', 0.5)), {}),
    ('sgd_clip_norm', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, grad_clip=ns.nn.ClipGradByNorm(0.8)),
     Ref('sgd', 0.05, clip=('norm', 0.8)), {}),
    ('sgd_clip_global', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, grad_clip=ns.nn.ClipGradByGlobalNorm(1.0)),
     Ref('sgd', 0.05, clip=('global', 1.0)), {}),
    ('momentum', lambda ns, p: ns.optimizer.Momentum(0.05, parameters=p), Ref('momentum', 0.05), {}),
    ('momentum_nesterov_l2', lambda ns, p: ns.optimizer.Momentum(0.05, 0.8, parameters=p, use_nesterov=True,
                                                                  weight_decay=L2(ns, 0.1)),
     Ref('momentum', 0.05, decay=('l2', 0.1), momentum=0.8, use_nesterov=True), {}),
    ('momentum_rescale_l1', lambda ns, p: ns.optimizer.Momentum(0.05, parameters=p, rescale_grad=0.5,
                                                                 weight_decay=L1(ns, 0.1)),
     Ref('momentum', 0.05, decay=('l1', 0.1), rescale_grad=0.5), {}),
    ('momentum_rescale_l2', lambda ns, p: ns.optimizer.Momentum(0.05, parameters=p, rescale_grad=0.5,
                                                                 weight_decay=0.1),
     Ref('momentum', 0.05, decay=('l2', 0.1), rescale_grad=0.5), {}),
    ('adam', lambda ns, p: ns.optimizer.Adam(0.05, parameters=p), Ref('adam', 0.05), {}),
    ('adam_l2_global', lambda ns, p: ns.optimizer.Adam(0.05, 0.8, 0.9, 1e-6, parameters=p, weight_decay=0.05,
                                                        grad_clip=ns.nn.ClipGradByGlobalNorm(0.7)),
     Ref('adam', 0.05, decay=('l2', 0.05), clip=('global', 0.7), beta1=0.8, beta2=0.9, epsilon=1e-6), {}),
    ('adam_amsgrad', lambda ns, p: ns.optimizer.Adam(0.05, parameters=p, amsgrad=True),
     Ref('adam', 0.05, amsgrad=True), {}),
    ('adamw', lambda ns, p: ns.optimizer.AdamW(0.05, parameters=p), Ref('adamw', 0.05), {}),
    ('adamw_decay_fun', lambda ns, p: ns.optimizer.AdamW(0.05, parameters=p, weight_decay=0.3,
                                                          apply_decay_param_fun=lambda n: n == p[0].name),
     Ref('adamw', 0.05, weight_decay=0.3, apply_decay=lambda i: i == 0), {}),
    ('adagrad', lambda ns, p: ns.optimizer.Adagrad(0.1, parameters=p, initial_accumulator_value=0.1),
     Ref('adagrad', 0.1, initial_accumulator_value=0.1), {}),
    ('rmsprop', lambda ns, p: ns.optimizer.RMSProp(0.01, parameters=p), Ref('rmsprop', 0.01), {}),
    ('rmsprop_centered_momentum', lambda ns, p: ns.optimizer.RMSProp(0.01, 0.9, 1e-6, 0.5, True, parameters=p,
                                                                      weight_decay=0.02),
     Ref('rmsprop', 0.01, decay=('l2', 0.02), rho=0.9, momentum=0.5, centered=True), {}),
    ('adadelta', lambda ns, p: ns.optimizer.Adadelta(1.0, parameters=p), Ref('adadelta', 1.0), {}),
    ('adamax', lambda ns, p: ns.optimizer.Adamax(0.05, parameters=p, weight_decay=L1(ns, 0.01)),
     Ref('adamax', 0.05, decay=('l1', 0.01)), {}),
    ('lamb', lambda ns, p: ns.optimizer.Lamb(0.05, parameters=p), Ref('lamb', 0.05), {}),
    ('lamb_exclude', lambda ns, p: ns.optimizer.Lamb(0.05, 0.1, parameters=p,
                                                     exclude_from_weight_decay_fn=lambda q: q is p[1]),
     Ref('lamb', 0.05, lamb_weight_decay=0.1, exclude=lambda i: i == 1), {}),
    ('lamb_exclude_always_adapt', lambda ns, p: ns.optimizer.Lamb(0.05, 0.1, parameters=p, always_adapt=True,
                                                                  exclude_from_weight_decay_fn=lambda q: q is p[1]),
     Ref('lamb', 0.05, lamb_weight_decay=0.1, always_adapt=True, exclude=lambda i: i == 1), {}),
    ('nadam', lambda ns, p: ns.optimizer.NAdam(0.05, parameters=p), Ref('nadam', 0.05), {}),
    ('nadam_opts', lambda ns, p: ns.optimizer.NAdam(0.02, 0.8, 0.99, 1e-6, 0.01, parameters=p, weight_decay=0.1),
     Ref('nadam', 0.02, decay=('l2', 0.1), beta1=0.8, beta2=0.99, epsilon=1e-6, momentum_decay=0.01), {}),
    ('radam', lambda ns, p: ns.optimizer.RAdam(0.05, parameters=p), Ref('radam', 0.05), {}),
    ('radam_rectified', lambda ns, p: ns.optimizer.RAdam(0.05, 0.8, 0.9, parameters=p, weight_decay=0.1),
     Ref('radam', 0.05, decay=('l2', 0.1), beta1=0.8, beta2=0.9), {}),
    ('asgd', lambda ns, p: ns.optimizer.ASGD(0.05, parameters=p), Ref('asgd', 0.05), {}),
    ('asgd_batches', lambda ns, p: ns.optimizer.ASGD(0.05, batch_num=3, parameters=p,
                                                     grad_clip=ns.nn.ClipGradByGlobalNorm(1.0)),
     Ref('asgd', 0.05, batch_num=3, clip=('global', 1.0)), {}),
    ('rprop', lambda ns, p: ns.optimizer.Rprop(0.3, parameters=p), Ref('rprop', 0.3), {}),
    ('rprop_opts', lambda ns, p: ns.optimizer.Rprop(0.2, (0.05, 0.4), parameters=p, etas=(0.3, 1.5)),
     Ref('rprop', 0.2, learning_rate_range=(0.05, 0.4), etas=(0.3, 1.5)), {}),
    # Parameter groups: per-group lr multiplier and weight decay (the group's decay replaces the
    # optimizer's), per-group hyperparameters.
    ('sgd_groups', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, weight_decay=0.2),
     None, {'groups': lambda w, b: [{'params': [w], 'learning_rate': 0.5},
                                    {'params': [b], 'weight_decay': 0.0}]}),
    ('adam_groups', lambda ns, p: ns.optimizer.Adam(0.05, parameters=p),
     None, {'groups': lambda w, b: [{'params': [w], 'beta1': 0.5, 'learning_rate': 2.0},
                                    {'params': [b], 'epsilon': 1e-3}]}),
    ('momentum_groups', lambda ns, p: ns.optimizer.Momentum(0.05, parameters=p, weight_decay=0.1),
     None, {'groups': lambda w, b: [{'params': [w], 'momentum': 0.5, 'weight_decay': 0.3},
                                    {'params': [b], 'use_nesterov': True}]}),
    ('adamw_groups', lambda ns, p: ns.optimizer.AdamW(0.05, parameters=p, weight_decay=0.1),
     None, {'groups': lambda w, b: [{'params': [w], 'weight_decay': 0.5}, {'params': [b]}]}),
    # Per-parameter attributes: lr multiplier, own regularizer overriding weight_decay, need_clip.
    ('sgd_param_attrs', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, weight_decay=0.2,
                                                       grad_clip=ns.nn.ClipGradByValue(0.3)),
     None, {'param_attrs': lambda ns: [{'optimize_attr': {'learning_rate': 0.5}, 'regularizer': L1(ns, 0.1)},
                                       {'need_clip': False}]}),
]


# RAdam's rectification term divides by (rho_t - 4) with rho_t = 1999 - 2 t b2^t / (1 - b2^t):
# just past the rho_t > 5 threshold float32 keeps only ~1e-4 of rho_t - 4, so float32
# trajectories (oar's, Paddle's, each against float64 math) agree to ~5e-5 there.
FLOAT32_RTOL = {'radam': 1e-4}


@pytest.mark.parametrize('case', [c for c in CASES if c[2] is not None], ids=lambda c: c[0])
def test_matches_numpy_reference(case):
    name, make, ref, kw = case
    for dtype, rtol, atol in (('float64', 1e-10, 1e-12), ('float32', FLOAT32_RTOL.get(name, 2e-5), 2e-6)):
        ref.state, ref.t = {}, 0
        close(run('oar', make, dtype, **kw), ref_trajectory(ref), rtol, atol)


# Paddle's CPU clip_by_norm kernel is registered for float32 only (oar also has float64).
PADDLE_FLOAT32_ONLY = {'sgd_clip_norm'}
# Paddle's CPU momentum kernel ignores rescale_grad (its GPU kernel and its documentation scale
# the gradient by it, as oar does); these cases are checked against the NumPy reference only.
PADDLE_IGNORES = {'momentum_rescale_l1', 'momentum_rescale_l2'}
# Paddle passes most hyperparameters (momentum, rho, epsilon, weight decay coefficients) to its
# kernels as float32 attributes even for float64 parameters, so float64 trajectories agree to
# ~1e-8 relative, not to float64 rounding; its float64 Lamb also differs by ~3e-6 on a parameter
# excluded from decay.
FLOAT64_RTOL = {'lamb_exclude': 2e-5}


@pytest.mark.parametrize('case', [c for c in CASES if c[0] not in PADDLE_IGNORES], ids=lambda c: c[0])
def test_matches_paddle(case):
    paddle = pytest.importorskip("paddle")
    paddle.set_device('cpu')
    name, make, _, kw = case
    for dtype, rtol, atol in (('float32', FLOAT32_RTOL.get(name, 1e-5), 1e-6),
                              ('float64', FLOAT64_RTOL.get(name, 1e-6), 1e-9)):
        if dtype == 'float64' and name in PADDLE_FLOAT32_ONLY:
            continue
        close(run('oar', make, dtype, **kw), run('paddle', make, dtype, **kw), rtol, atol)


def test_group_reference_numbers():
    """Groups and per-parameter attributes against the NumPy reference (no paddle needed)."""
    got = run('oar', CASES[[c[0] for c in CASES].index('sgd_groups')][1], 'float64',
              groups=lambda w, b: [{'params': [w], 'learning_rate': 0.5}, {'params': [b], 'weight_decay': 0.0}])
    w, b = W0.copy(), B0.copy()
    for k in range(STEPS):
        gw, gb = grads_np(w, b)
        w = w - 0.025 * (gw + 0.2 * w)
        b = b - 0.05 * gb
        np.testing.assert_allclose(got[k][0], w, rtol=1e-12)
        np.testing.assert_allclose(got[k][1], b, rtol=1e-12)
    got = run('oar', lambda ns, p: ns.optimizer.SGD(0.05, parameters=p, weight_decay=0.2,
                                                    grad_clip=ns.nn.ClipGradByValue(0.3)), 'float64',
              param_attrs=lambda ns: [{'optimize_attr': {'learning_rate': 0.5},
                                       'regularizer': ns.regularizer.L1Decay(0.1)}, {'need_clip': False}])
    w, b = W0.copy(), B0.copy()
    for k in range(STEPS):
        gw, gb = grads_np(w, b)
        w = w - 0.025 * (np.clip(gw, -0.3, 0.3) + 0.1 * np.sign(w))
        b = b - 0.05 * (gb + 0.2 * b)
        np.testing.assert_allclose(got[k][0], w, rtol=1e-12)
        np.testing.assert_allclose(got[k][1], b, rtol=1e-12)


def test_scheduler_drives_lr():
    sched = oar.optimizer.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    w = oar.to_tensor(np.ones(3))
    w.stop_gradient = False
    opt = oar.optimizer.SGD(sched, parameters=[w])
    seen = []
    for _ in range(5):
        (w * w).sum().backward()
        seen.append(opt.get_lr())
        opt.step()
        opt.clear_grad()
        sched.step()
    assert seen == [0.1, 0.1, 0.05, 0.05, 0.025]
    expect = np.ones(3)
    for lr in seen:
        expect = expect - lr * 2 * expect
    np.testing.assert_allclose(w.numpy(), expect, rtol=1e-12)


def test_large_multi_chunk_and_mixed_dtypes():
    """Tensors spanning many kernel chunks (parallel path), several dtypes in one call: the
    fused kernels against the NumPy references (gradient = a fixed array c via sum(w * c))."""
    rng = np.random.default_rng(1)
    shapes = [(50000,), (3, 7001), (5,)]
    w0 = [rng.standard_normal(s) for s in shapes]
    cs = [rng.standard_normal(s) for s in shapes]
    cases = [
        (lambda p: oar.optimizer.Adam(0.01, parameters=p, weight_decay=0.1), Ref('adam', 0.01, decay=('l2', 0.1))),
        (lambda p: oar.optimizer.Lamb(0.01, parameters=p), Ref('lamb', 0.01)),
        (lambda p: oar.optimizer.RMSProp(0.01, parameters=p, centered=True, momentum=0.5),
         Ref('rmsprop', 0.01, centered=True, momentum=0.5)),
        (lambda p: oar.optimizer.Momentum(0.01, parameters=p, use_nesterov=True,
                                          grad_clip=oar.nn.ClipGradByGlobalNorm(10.0)),
         Ref('momentum', 0.01, use_nesterov=True, clip=('global', 10.0))),
    ]
    for make, ref in cases:
        for dtypes, rtol in ((('float64',) * 3, 1e-10), (('float32', 'float64', 'float32'), 1e-4)):
            ps = []
            for a, dt in zip(w0, dtypes):
                t = oar.to_tensor(a.astype(dt))
                t.stop_gradient = False
                ps.append(t)
            opt = make(ps)
            ref.state, ref.t = {}, 0
            ws = [a.copy() for a in w0]
            for _ in range(3):
                sum((p * oar.to_tensor(c.astype(dt))).sum() for p, c, dt in zip(ps, cs, dtypes)).backward()
                opt.step()
                opt.clear_grad()
                ws = ref.step(ws, cs)
            for p, want in zip(ps, ws):
                np.testing.assert_allclose(p.numpy().astype(np.float64), want, rtol=rtol, atol=rtol * 1e-2)


def test_same_result_for_any_thread_count():
    rng = np.random.default_rng(2)
    a, c = rng.standard_normal(70000), rng.standard_normal(70000)
    results = []
    before = oar.get_num_threads()
    try:
        for threads in (1, 2, 3):
            oar.set_num_threads(threads)
            w = oar.to_tensor(a.astype('float32'))
            w.stop_gradient = False
            opt = oar.optimizer.Lamb(0.01, parameters=[w], grad_clip=oar.nn.ClipGradByGlobalNorm(1.0))
            for _ in range(2):
                (w * oar.to_tensor(c.astype('float32'))).sum().backward()
                opt.step()
                opt.clear_grad()
            results.append(w.numpy())
    finally:
        oar.set_num_threads(before)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


def test_adam_family_checks_arguments_in_paddles_order():
    """Adam/Adamax check the betas before epsilon, RAdam/NAdam the learning rate and epsilon
    before the betas (the shared checks in _checks keep both orders): with several bad arguments
    the error names the same one as Paddle's."""
    paddle = pytest.importorskip("paddle")
    cases = [dict(beta1=2.0, epsilon=-1.0), dict(beta2=2.0, epsilon=-1.0),
             dict(learning_rate=-1.0, epsilon=-1.0, beta1=2.0)]
    for name in ("Adam", "Adamax", "RAdam", "NAdam"):
        for kwargs in cases:
            named = []
            for lib in (oar, paddle):
                with pytest.raises(ValueError) as info:
                    getattr(lib.optimizer, name)(parameters=lib.nn.Linear(2, 2).parameters(),
                                                 **kwargs)
                text = str(info.value)  # the first argument the message mentions
                named.append(min((text.find(arg), arg) for arg in
                                 ("learning rate", "beta1", "beta2", "epsilon") if arg in text)[1])
            assert named[0] == named[1], (name, kwargs, named)
