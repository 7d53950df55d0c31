"""oar.optimizer.LBFGS against Paddle 3.3.1: the parameters after each step() and the loss it
returns, on a quadratic, the Rosenbrock function and a small logistic regression, with and
without the strong-Wolfe line search. MEASURED holds Paddle's numbers (so the test means something
without Paddle); the live tests rerun the same problems in Paddle."""
import numpy as np
import pytest

import oar

A = np.array([[4., 1., 0.5], [1., 3., -0.5], [0.5, -0.5, 2.]])
B = np.array([1., -2., 0.5])
_rng = np.random.RandomState(0)
X = _rng.randn(24, 3)
Y = (X @ np.array([1.5, -2., 0.7]) + 0.3 * _rng.randn(24) > 0).astype('float64')


def _param(fw, value, dtype):
    init = fw.nn.initializer.Assign(np.asarray(value, dtype=dtype))
    return fw.create_parameter([len(value)], dtype, default_initializer=init)


def problem(fw, kind, dtype):
    """(parameters, loss function) written once for both frameworks (same API)."""
    if kind == 'quadratic':
        w = _param(fw, [1., -2., 0.5], dtype)
        a, b = fw.to_tensor(A.astype(dtype)), fw.to_tensor(B.astype(dtype))
        return [w], lambda: 0.5 * (w * fw.matmul(a, w)).sum() - (b * w).sum()
    if kind == 'rosenbrock':
        w = _param(fw, [-1.2, 1.0], dtype)
        return [w], lambda: (1 - w[0]) ** 2 + 100 * (w[1] - w[0] ** 2) ** 2
    assert kind == 'logistic'
    w = _param(fw, [0.1, 0.2, -0.1], dtype)
    c = _param(fw, [0.0], dtype)
    x, y = fw.to_tensor(X.astype(dtype)), fw.to_tensor(Y.astype(dtype))

    def f():
        z = fw.matmul(x, w) + c
        return fw.nn.functional.binary_cross_entropy_with_logits(z, y) + 0.01 * (w * w).sum()
    return [w, c], f


def make(fw, kind, dtype, **opts):
    params, f = problem(fw, kind, dtype)
    opt = fw.optimizer.LBFGS(parameters=params, **opts)

    def closure():
        opt.clear_grad()
        loss = f()
        loss.backward()
        return loss
    return params, opt, closure


def run(fw, kind, dtype, steps=3, **opts):
    params, opt, closure = make(fw, kind, dtype, **opts)
    out = []
    for _ in range(steps):
        loss = opt.step(closure)
        out.append((float(loss), np.concatenate([p.numpy().ravel() for p in params])))
    return out, opt


# Measured from paddle 3.3.1 (tests/python/test_lbfgs.py's problems, 3 steps each):
# (problem, dtype, LBFGS options, state func_evals, state n_iter, [(returned loss, parameters)]).
MEASURED = [
    ('quadratic', 'float64', {'max_iter': 4}, 9, 9,
     [(1.75, [0.4798337647225491, -0.8420145172151384, -0.09424014741262618]),
      (-1.050210549944813, [0.468354201646924, -0.8354432275332939, -0.07594908733278831]),
      (-1.0506329113921304, [0.468354201646924, -0.8354432275332939, -0.07594908733278831])]),
    ('quadratic', 'float64', {'max_iter': 4, 'learning_rate': 0.05, 'line_search_fn': 'strong_wolfe'}, 15, 6,
     [(1.75, [0.6833352794945422, -1.315096384220056, 0.10230904993099338]),
      (-0.6225264059555493, [0.5266679306051071, -0.9620582924049329, -0.04664248679896409]),
      (-1.0235994917917224, [0.4837370822894305, -0.8682602882469486, -0.0722496693630988])]),
    ('rosenbrock', 'float64', {'max_iter': 6, 'history_size': 3}, 18, 18,
     [(24.199999999999996, [-0.9951156742890359, 0.9931369658067166]),
      (3.981317008204175, [-0.19814864605591914, -0.3075173835233287]),
      (13.461215706521088, [-0.5056501511718867, 0.2605445631671113])]),
    ('rosenbrock', 'float64', {'max_iter': 6, 'history_size': 3, 'line_search_fn': 'strong_wolfe'}, 22, 16,
     [(24.199999999999996, [-1.0202985244456986, 1.0352565141554502]),
      (4.084915328090515, [-0.5378302256216594, 0.29610990173221047]),
      (2.369612066737526, [0.018827210061647892, -0.010779896381105505])]),
    ('logistic', 'float64', {'max_iter': 3, 'line_search_fn': 'strong_wolfe'}, 9, 6,
     [(0.7475257382925131, [0.7056255157303457, -1.336343711827323, 0.1795982824682843, -0.1632735135589381]),
      (0.33305061261793206, [1.3659737480141338, -2.5999929668948827, 0.5533369938670348, -0.09454351727242907]),
      (0.2508503962515325, [1.5857856621407562, -2.6688845973548134, 0.5586341474767417, -0.0880196031886781])]),
    ('logistic', 'float32', {'max_iter': 3, 'line_search_fn': 'strong_wolfe'}, 9, 6,
     [(0.7475257515907288, [0.7056258916854858, -1.3363430500030518, 0.17959806323051453, -0.16327349841594696]),
      (0.3330506384372711, [1.3659731149673462, -2.5999934673309326, 0.5533368587493896, -0.09454376995563507]),
      (0.2508504390716553, [1.5857856273651123, -2.668884754180908, 0.5586341619491577, -0.08801954984664917])]),
    ('rosenbrock', 'float32', {'max_iter': 6, 'line_search_fn': 'strong_wolfe'}, 21, 15,
     [(24.20000457763672, [-1.0203090906143188, 1.035278558731079]),
      (4.084957122802734, [-0.516024112701416, 0.22654040157794952]),
      (2.4562597274780273, [-0.04619096964597702, -0.018009889870882034])]),
]

_IDS = [f"{k}-{d}-{'wolfe' if 'line_search_fn' in o else 'fixed'}-{i}"
        for i, (k, d, o, *_r) in enumerate(MEASURED)]


def _tol(dtype):
    return dict(rtol=1e-10, atol=1e-12) if dtype == 'float64' else dict(rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("kind,dtype,opts,func_evals,n_iter,expected", MEASURED, ids=_IDS)
def test_trajectory_matches_measured_paddle(kind, dtype, opts, func_evals, n_iter, expected):
    got, opt = run(oar, kind, dtype, **opts)
    for (loss, params), (want_loss, want_params) in zip(got, expected):
        np.testing.assert_allclose(loss, want_loss, **_tol(dtype))
        np.testing.assert_allclose(params, want_params, **_tol(dtype))
    state = opt.state_dict()['state']
    assert (state['func_evals'], state['n_iter']) == (func_evals, n_iter)


LIVE = [(k, d, o) for k, d, o, *_r in MEASURED] + [
    ('rosenbrock', 'float64', dict(max_iter=5, learning_rate=0.5, line_search_fn='strong_wolfe')),
    ('rosenbrock', 'float32', dict(max_iter=6)),
    ('logistic', 'float64', dict(max_iter=3, history_size=2, tolerance_change=1e-4)),
    ('quadratic', 'float64', dict(max_iter=7, max_eval=9, line_search_fn='strong_wolfe')),
]


@pytest.mark.parametrize("kind,dtype,opts", LIVE)
def test_trajectory_matches_paddle_live(kind, dtype, opts):
    paddle = pytest.importorskip("paddle")
    want, popt = run(paddle, kind, dtype, steps=4, **opts)
    got, opt = run(oar, kind, dtype, steps=4, **opts)
    for (loss, params), (want_loss, want_params) in zip(got, want):
        np.testing.assert_allclose(loss, want_loss, **_tol(dtype))
        np.testing.assert_allclose(params, want_params, **_tol(dtype))
    pstate, state = popt.state_dict()['state'], opt.state_dict()['state']
    assert (state['func_evals'], state['n_iter']) == (pstate['func_evals'], pstate['n_iter'])
    np.testing.assert_allclose(state['d'].numpy(), pstate['d'].numpy(), **_tol(dtype))
    assert len(state['old_yk']) == len(pstate['old_yk'])


@pytest.mark.parametrize("line_search_fn", [None, 'strong_wolfe'])
def test_quadratic_reaches_the_numpy_minimizer(line_search_fn):
    (w,), opt, closure = make(oar, 'quadratic', 'float64', max_iter=50, tolerance_grad=1e-12,
                              tolerance_change=1e-15, line_search_fn=line_search_fn)
    opt.step(closure)
    np.testing.assert_allclose(w.numpy(), np.linalg.solve(A, B), rtol=1e-6)


def test_step_returns_the_first_loss_of_the_closure():
    (w,), opt, f = make(oar, 'quadratic', 'float64', max_iter=3)
    seen = []

    def closure():
        seen.append(f())
        return seen[-1]
    out = opt.step(closure)
    assert out is seen[0] and len(seen) == 3
    assert not out.stop_gradient   # computed with gradients on, although step runs without
    np.testing.assert_allclose(float(out), 1.75)   # 0.5 w'Aw - b'w at the start


def test_stationary_start_returns_at_once():
    w = _param(oar, [0.0, 0.0], 'float64')
    opt = oar.optimizer.LBFGS(parameters=[w], line_search_fn='strong_wolfe')
    calls = []

    def closure():
        opt.clear_grad()
        loss = (w * w).sum()
        loss.backward()
        calls.append(1)
        return loss
    opt.step(closure)
    assert len(calls) == 1 and opt.state_dict()['state'] == {'func_evals': 1, 'n_iter': 0}
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])


def test_history_is_bounded_and_max_eval_defaults():
    params, opt, closure = make(oar, 'rosenbrock', 'float64', max_iter=8, history_size=2)
    assert opt.max_eval == 10   # max_iter * 5 // 4
    opt.step(closure)
    state = opt.state_dict()['state']
    assert len(state['old_yk']) == len(state['old_sk']) == len(state['ro']) == 2
    assert state['func_evals'] <= 10


def test_state_dict_round_trip_continues_the_same_trajectory():
    kind, dtype, opts, _, _, expected = MEASURED[3]   # rosenbrock, strong Wolfe, history 3
    params, opt, closure = make(oar, kind, dtype, **opts)
    opt.step(closure)
    opt.step(closure)
    saved = opt.state_dict()
    params2, opt2, closure2 = make(oar, kind, dtype, **opts)
    for p, q in zip(params2, params):
        p.set_value(q.numpy())
    opt2.set_state_dict(saved)
    loss = opt2.step(closure2)
    np.testing.assert_allclose(float(loss), expected[2][0], rtol=1e-10)
    np.testing.assert_allclose(params2[0].numpy(), expected[2][1], rtol=1e-10)


def test_loads_paddles_state_dict():
    paddle = pytest.importorskip("paddle")
    kind, dtype, opts = 'logistic', 'float64', dict(max_iter=3, line_search_fn='strong_wolfe')
    pparams, popt, pclosure = make(paddle, kind, dtype, **opts)
    popt.step(pclosure)
    params, opt, closure = make(oar, kind, dtype, **opts)
    for p, q in zip(params, pparams):
        p.set_value(q.numpy())
    opt.set_state_dict(popt.state_dict())
    want, got = float(popt.step(pclosure)), float(opt.step(closure))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    for p, q in zip(params, pparams):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.host_only  # device mode meets a missing kernel before the argument checks
def test_errors():
    w = _param(oar, [1.0], 'float32')
    with pytest.raises(AttributeError, match="should not be None"):
        oar.optimizer.LBFGS()
    with pytest.raises(TypeError, match="iterable of Tensors"):
        oar.optimizer.LBFGS(parameters=w)
    opt = oar.optimizer.LBFGS(parameters=[w])
    with pytest.raises(NotImplementedError, match="step\\(closure\\)"):
        opt.minimize((w * w).sum())
    with pytest.raises(TypeError, match="closure"):
        opt.step(None)
    with pytest.raises(TypeError, match="set_state_dict"):
        opt.set_state_dict([1])
    with pytest.raises(ValueError, match="'state'"):
        opt.set_state_dict({'d': 1})

    bad = oar.optimizer.LBFGS(parameters=[w], line_search_fn='backtracking')

    def closure():
        bad.clear_grad()
        loss = ((w - 3) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="strong_wolfe"):
        bad.step(closure)


@pytest.mark.parametrize("line_search_fn", [None, 'strong_wolfe'])
def test_layer_with_matrix_weight_and_unused_parameter_matches_paddle_live(line_search_fn):
    """2-D weights go through the flat vector and back; a parameter without a gradient counts
    as a zero gradient (and stays put)."""
    paddle = pytest.importorskip("paddle")
    rng = np.random.RandomState(2)
    x_np = rng.randn(16, 4).astype('float32')
    y_np = (x_np @ rng.randn(4, 2) + 0.1).astype('float32')

    def run_layer(fw):
        lin = fw.nn.Linear(4, 2)
        lin.weight.set_value(np.linspace(-1, 1, 8).reshape(4, 2).astype('float32'))
        lin.bias.set_value(np.array([0.2, -0.1], 'float32'))
        unused = _param(fw, [1.0, 2.0, 3.0], 'float32')
        opt = fw.optimizer.LBFGS(parameters=list(lin.parameters()) + [unused], max_iter=5,
                                 history_size=4, line_search_fn=line_search_fn)
        x, y = fw.to_tensor(x_np), fw.to_tensor(y_np)

        def closure():
            opt.clear_grad()
            loss = fw.nn.functional.mse_loss(lin(x), y)
            loss.backward()
            return loss
        out = [(float(opt.step(closure)), lin.weight.numpy().copy(), lin.bias.numpy().copy())
               for _ in range(3)]
        np.testing.assert_array_equal(unused.numpy(), [1.0, 2.0, 3.0])
        return out
    for (l, w, b), (pl, pw, pb) in zip(run_layer(oar), run_layer(paddle)):
        np.testing.assert_allclose(l, pl, rtol=1e-5, atol=1e-8)
        np.testing.assert_allclose(w, pw, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(b, pb, rtol=1e-4, atol=1e-5)
