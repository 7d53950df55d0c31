"""oar.optimizer: state_dict / set_state_dict (round trip and from Paddle), float16 parameters
with multi_precision master weights, standalone clipping and regularizers, minimize, argument
errors."""
import re

import numpy as np
import pytest

import oar

X = (np.arange(12, dtype=np.float64).reshape(4, 3) / 7.0 - 0.6)
T = np.array([[0.5, -1.0], [0.2, 0.3], [-0.7, 0.9], [1.1, -0.4]])
W0 = np.array([[0.3, -0.2], [0.1, 0.4], [-0.5, 0.25]])
B0 = np.array([0.05, -0.1])


def param(a, dtype='float32', name=None):
    t = oar.to_tensor(np.asarray(a).astype('float32' if dtype == 'bfloat16' else dtype))
    if dtype == 'bfloat16':
        t = t.astype('bfloat16')
    t.stop_gradient = False
    if name:
        t.name = name
    return t


def train(ns, opt, w, b, steps, sched=None):
    x, t = ns.to_tensor(X.astype('float32')), ns.to_tensor(T.astype('float32'))
    for _ in range(steps):
        y = ns.matmul(x, w) + b
        (((y - t) * (y - t)).sum() * 0.5).backward()
        opt.step()
        opt.clear_grad()
        if sched is not None:
            sched.step()
    return w.numpy().copy(), b.numpy().copy()


def snapshot(sd):
    """A deep copy of a state dict with arrays for tensors."""
    out = {}
    for k, v in sd.items():
        if isinstance(v, dict):
            out[k] = {kk: (vv.numpy().copy() if hasattr(vv, 'numpy') else vv) for kk, vv in v.items()}
        else:
            out[k] = v.numpy().copy()
    return out


OPTIMIZERS = [
    lambda ns, p, lr: ns.optimizer.Adam(lr, parameters=p, amsgrad=True),
    lambda ns, p, lr: ns.optimizer.AdamW(lr, parameters=p),
    lambda ns, p, lr: ns.optimizer.Momentum(lr, parameters=p, use_nesterov=True),
    lambda ns, p, lr: ns.optimizer.RMSProp(lr, parameters=p, centered=True, momentum=0.3),
    lambda ns, p, lr: ns.optimizer.Adadelta(lr, parameters=p),
    lambda ns, p, lr: ns.optimizer.Adagrad(lr, parameters=p),
    lambda ns, p, lr: ns.optimizer.Adamax(lr, parameters=p),
    lambda ns, p, lr: ns.optimizer.Lamb(lr, parameters=p),
    lambda ns, p, lr: ns.optimizer.NAdam(lr, parameters=p),
    lambda ns, p, lr: ns.optimizer.RAdam(lr, parameters=p, beta2=0.9),
    lambda ns, p, lr: ns.optimizer.ASGD(lr, batch_num=2, parameters=p),
    lambda ns, p, lr: ns.optimizer.Rprop(0.05, parameters=p),  # its lr only seeds its rates
]


@pytest.mark.parametrize('make', OPTIMIZERS)
def test_state_dict_round_trip(make):
    # Uninterrupted: 6 steps. Interrupted: 3 steps, state saved, a fresh optimizer loads it.
    w, b = param(W0), param(B0)
    sched = oar.optimizer.lr.ExponentialDecay(0.05, 0.9)
    full = train(oar, make(oar, [w, b], sched), w, b, 6, sched)

    w, b = param(W0), param(B0)
    sched = oar.optimizer.lr.ExponentialDecay(0.05, 0.9)
    opt = make(oar, [w, b], sched)
    train(oar, opt, w, b, 3, sched)
    saved = snapshot(opt.state_dict())
    if opt._learning_rate is sched:
        assert saved['LR_Scheduler'] == {'last_epoch': 3, 'last_lr': sched.last_lr}
    assert len([k for k in saved if k != 'LR_Scheduler']) > 0
    sched2 = oar.optimizer.lr.ExponentialDecay(0.05, 0.9)
    opt2 = make(oar, [w, b], sched2)
    opt2.set_state_dict(saved)
    if opt._learning_rate is sched:
        assert sched2.last_epoch == 3
    got = train(oar, opt2, w, b, 3, sched2)
    np.testing.assert_allclose(got[0], full[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], full[1], rtol=1e-6)


def assert_same_states(got, want):
    """Two state dicts (tensors or arrays; 'master_weights' a dict of them) hold the same keys
    and values."""
    assert set(got) == set(want)
    for k, v in want.items():
        if k == 'LR_Scheduler':
            assert got[k] == v
        elif isinstance(v, dict):
            assert_same_states(got[k], v)
        else:
            arrays = [np.asarray(x.numpy() if hasattr(x, 'numpy') else x) for x in (got[k], v)]
            np.testing.assert_array_equal(*arrays, err_msg=k)


@pytest.mark.parametrize('make', OPTIMIZERS + [lambda ns, p, lr: ns.optimizer.SGD(lr, parameters=p)])
def test_state_dict_after_load_before_step(make):
    """A state loaded by set_state_dict is reported by state_dict() before any step, with the
    same keys and values (as Paddle does): a checkpoint loaded and saved again keeps every
    state, and training resumed from the re-saved copy matches an uninterrupted run."""
    w, b = param(W0), param(B0)
    sched = oar.optimizer.lr.ExponentialDecay(0.05, 0.9)
    full = train(oar, make(oar, [w, b], sched), w, b, 6, sched)

    w, b = param(W0), param(B0)
    sched = oar.optimizer.lr.ExponentialDecay(0.05, 0.9)
    opt = make(oar, [w, b], sched)
    train(oar, opt, w, b, 3, sched)
    saved = snapshot(opt.state_dict())

    loaded = make(oar, [w, b], oar.optimizer.lr.ExponentialDecay(0.05, 0.9))
    loaded.set_state_dict(saved)
    resaved = snapshot(loaded.state_dict())
    assert_same_states(resaved, saved)

    sched3 = oar.optimizer.lr.ExponentialDecay(0.05, 0.9)
    opt3 = make(oar, [w, b], sched3)
    opt3.set_state_dict(resaved)
    got = train(oar, opt3, w, b, 3, sched3)
    np.testing.assert_allclose(got[0], full[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], full[1], rtol=1e-6)


def test_state_dict_keeps_states_no_step_used_yet():
    """After a step that updates only some parameters, the loaded states of the others are
    still reported (not dropped until their first gradient)."""
    w, b = param(W0), param(B0)
    opt = oar.optimizer.Adam(0.05, parameters=[w, b])
    train(oar, opt, w, b, 2)
    saved = snapshot(opt.state_dict())

    opt2 = oar.optimizer.Adam(0.05, parameters=[w, b])
    opt2.set_state_dict(saved)
    opt2.clear_grad(set_to_zero=False)
    (w * w).sum().backward()  # b gets no gradient
    opt2.step()
    # Names are compared without the counter: w's states were created anew (a new counter).
    after = {_strip(k): v for k, v in snapshot(opt2.state_dict()).items()}
    saved = {_strip(k): v for k, v in saved.items()}
    assert set(after) == set(saved)
    for k in saved:
        if k.startswith(b.name + '_'):
            np.testing.assert_array_equal(after[k], saved[k])
        else:
            assert not np.array_equal(after[k], saved[k]), k


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_master_weights_after_load_before_step(dtype):
    w = param([1.0, -0.5, 0.25, 2.0], dtype)
    opt = oar.optimizer.Adam(0.01, parameters=[w], multi_precision=True)
    for _ in range(3):
        (w * w.astype('float32').astype(dtype)).sum().backward()
        opt.step()
        opt.clear_grad()
    saved = snapshot(opt.state_dict())
    assert set(saved['master_weights']) == {w.name}

    opt2 = oar.optimizer.Adam(0.01, parameters=[w], multi_precision=True)
    opt2.set_state_dict(saved)
    assert_same_states(snapshot(opt2.state_dict()), saved)


def _strip(k):
    return re.sub(r'_\d+$', '', k)


@pytest.mark.parametrize('make', OPTIMIZERS)
def test_state_from_paddle(make):
    """A state dict saved by Paddle (after 3 steps) loads into oar by parameter name; the next
    3 steps then match Paddle's, and oar's key names are Paddle's."""
    paddle = pytest.importorskip("paddle")
    paddle.set_device('cpu')
    mk = lambda a: paddle.create_parameter(list(a.shape), 'float32',  # noqa: E731
                                           default_initializer=paddle.nn.initializer.Assign(a.astype('float32')))
    pw, pb = mk(W0), mk(B0)
    psched = paddle.optimizer.lr.StepDecay(0.05, 2, 0.5)
    popt = make(paddle, [pw, pb], psched)
    train(paddle, popt, pw, pb, 3, psched)
    saved = snapshot(popt.state_dict())

    w, b = param(pw.numpy(), name=pw.name), param(pb.numpy(), name=pb.name)
    sched = oar.optimizer.lr.StepDecay(0.05, 2, 0.5)
    opt = make(oar, [w, b], sched)
    opt.set_state_dict(saved)
    # Before a step, the loaded states are reported as loaded (Paddle's keys, unchanged).
    assert_same_states(snapshot(opt.state_dict()), saved)
    got = train(oar, opt, w, b, 3, sched)
    want = train(paddle, popt, pw, pb, 3, psched)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    ours = {_strip(k): v for k, v in opt.state_dict().items() if k != 'LR_Scheduler'}
    theirs = {_strip(k): v for k, v in popt.state_dict().items() if k != 'LR_Scheduler'}
    assert set(ours) == set(theirs)
    for k in ours:
        assert list(ours[k].shape) == list(theirs[k].shape), k
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-5, atol=1e-6)


def test_state_dict_names():
    w = param(W0, name='linear_9.w_0')
    opt = oar.optimizer.Adam(0.1, parameters=[w])
    (w * w).sum().backward()
    opt.step()
    keys = {_strip(k) for k in opt.state_dict()}
    assert keys == {'linear_9.w_0_moment1', 'linear_9.w_0_moment2', 'linear_9.w_0_beta1_pow_acc',
                    'linear_9.w_0_beta2_pow_acc'}
    sd = opt.state_dict()
    pow1 = [v for k, v in sd.items() if 'beta1_pow' in k][0]
    assert pow1.shape == [1]
    np.testing.assert_allclose(pow1.numpy(), [0.81], rtol=1e-6)  # beta1^(steps + 1)


def test_set_state_dict_errors():
    w = param(W0, name='linear_8.w_0')
    opt = oar.optimizer.Momentum(0.1, parameters=[w])
    (w * w).sum().backward()
    opt.step()
    with pytest.raises(ValueError, match="not found"):
        opt.set_state_dict({})
    key = next(iter(opt.state_dict()))
    with pytest.raises(ValueError, match="shape"):
        opt.set_state_dict({key: np.zeros([5])})
    with pytest.raises(TypeError):
        opt.set_state_dict([1, 2])


# ---------------- float16 / bfloat16 with master weights ----------------
def adam_np(w, g, steps, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
    w = w.astype(np.float32)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * m / (np.sqrt(v) + eps * np.sqrt(1 - b2 ** t))
    return w


@pytest.mark.parametrize('dtype', ['float16', 'bfloat16'])
def test_multi_precision_master_weights(dtype):
    w0 = np.array([1.0, -0.5, 0.25, 2.0], np.float32)
    c = np.array([0.3, -0.2, 0.1, 0.05], np.float32)  # exactly representable enough; the grad
    w = param(w0, dtype)
    opt = oar.optimizer.Adam(0.01, parameters=[w], multi_precision=True)
    cg = oar.to_tensor(c).astype(dtype)
    for _ in range(5):
        (w * cg).sum().backward()
        opt.step()
        opt.clear_grad()
    master = opt.state_dict()['master_weights'][w.name]
    assert master.dtype == oar.float32 and w.dtype.name == dtype
    g = cg.astype('float32').numpy()
    np.testing.assert_allclose(master.numpy(), adam_np(w0, g, 5), rtol=1e-6)
    # The parameter is the master rounded to its dtype.
    np.testing.assert_array_equal(w.astype('float32').numpy(), master.astype(dtype).astype('float32').numpy())
    # Small steps accumulate in the master even when they vanish in half precision.
    assert not np.array_equal(master.numpy(), w.astype('float32').numpy())
    states = opt.state_dict()
    assert all(v.dtype == oar.float32 for k, v in states.items() if k != 'master_weights')
    assert all('_fp32_master_' in k for k in states if k != 'master_weights')


# No live Paddle comparison for half parameters: Paddle's CPU build registers its optimizer
# kernels (adam, momentum, ...) for float32 and float64 only.


def test_float16_without_master():
    w = param([1.0, 2.0], 'float16')
    opt = oar.optimizer.SGD(0.5, parameters=[w])
    (w * w).sum().backward()
    opt.step()
    np.testing.assert_array_equal(w.astype('float32').numpy(), [0.0, 0.0])
    assert w.dtype == oar.float16


# ---------------- the op path of device parameters, checked on the host ----------------
# Device parameters take each optimizer's _update_on_device, the fused kernel's rule written with
# ops (tests/python/test_device_custom_cpu.py compares the two on the custom_cpu device). That
# device has no float16 kernels, so here the op path runs on host tensors, against the kernel, for
# float64 and for half parameters with and without float32 master weights.
OP_PATH_CASES = [
    ('SGD', dict(learning_rate=0.1, weight_decay=oar.regularizer.L1Decay(0.01)), True),
    ('Momentum', dict(learning_rate=0.05, use_nesterov=True, weight_decay=0.01), True),
    ('Adam', dict(learning_rate=0.05, amsgrad=True, weight_decay=0.01), True),
    ('AdamW', dict(learning_rate=0.05), True),
    ('Adagrad', dict(learning_rate=0.1, weight_decay=0.01), False),
    ('RMSProp', dict(learning_rate=0.01, centered=True, momentum=0.3, weight_decay=0.01), False),
    ('Adadelta', dict(learning_rate=1.0, weight_decay=0.01), False),
    ('Adamax', dict(learning_rate=0.05, weight_decay=0.01), False),
    ('Lamb', dict(learning_rate=0.05, grad_clip=oar.nn.ClipGradByGlobalNorm(1.0)), True),
    ('NAdam', dict(learning_rate=0.05, weight_decay=0.01), False),
    ('RAdam', dict(learning_rate=0.05, beta2=0.9, weight_decay=0.01), False),
    ('ASGD', dict(learning_rate=0.1, batch_num=2, weight_decay=0.01), True),
    ('Rprop', dict(learning_rate=0.05), True),
]


@pytest.mark.parametrize('dtype', ['float64', 'float16', 'bfloat16'])
@pytest.mark.parametrize('case', OP_PATH_CASES, ids=[c[0] for c in OP_PATH_CASES])
def test_op_path_matches_the_fused_kernel(case, dtype):
    name, kw, has_master = case

    def run(op_path, multi_precision):
        w, b = param(W0, dtype), param(B0, dtype)
        extra = {'multi_precision': True} if multi_precision else {}
        opt = getattr(oar.optimizer, name)(parameters=[w, b], **kw, **extra)
        if op_path:
            opt._update = opt._update_on_device  # what a device parameter takes
        x = oar.to_tensor(X.astype('float32')).astype(dtype)
        t = oar.to_tensor(T.astype('float32')).astype(dtype)
        for _ in range(8):
            y = oar.matmul(x, w) + b
            (((y - t) * (y - t)).sum() * 0.5).backward()
            opt.step()
            opt.clear_grad()
        sd = snapshot(opt.state_dict())
        masters = list(sd.pop('master_weights', {}).values())
        return [w.astype('float64').numpy(), b.astype('float64').numpy()], masters, list(sd.values())

    for multi_precision in ([False, True] if has_master and dtype != 'float64' else [False]):
        (params_o, masters_o, states_o) = run(True, multi_precision)
        (params_k, masters_k, states_k) = run(False, multi_precision)
        assert len(masters_o) == len(masters_k) == (2 if multi_precision else 0)
        assert len(states_o) == len(states_k) > 0 or name == 'SGD'
        rtol = 1e-12 if dtype == 'float64' else 1e-5
        for got, want in zip(masters_o + states_o, masters_k + states_k):
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
        # Half parameters: the same rounding of the same float32 weight, up to one unit.
        half_tol = 1e-12 if dtype == 'float64' else (1e-3 if dtype == 'float16' else 8e-3)
        for got, want in zip(params_o, params_k):
            np.testing.assert_allclose(got, want, rtol=half_tol, atol=half_tol)


# ---------------- clipping and regularizers on their own ----------------
def test_clip_standalone():
    p1, p2 = param([1.0]), param([1.0])
    g1, g2 = oar.to_tensor([3.0, 4.0]), oar.to_tensor([0.0, 12.0])
    out = oar.nn.ClipGradByGlobalNorm(6.5)([(p1, g1), (p2, g2)])
    np.testing.assert_allclose(out[0][1].numpy(), [1.5, 2.0], rtol=1e-6)   # norm 13 -> 6.5
    np.testing.assert_allclose(out[1][1].numpy(), [0.0, 6.0], rtol=1e-6)
    np.testing.assert_allclose(g1.numpy(), [3.0, 4.0])  # inputs untouched
    p2.need_clip = False
    out = oar.nn.ClipGradByGlobalNorm(2.5)([(p1, g1), (p2, g2)])  # norm over g1 only: 5
    np.testing.assert_allclose(out[0][1].numpy(), [1.5, 2.0], rtol=1e-6)
    assert out[1][1] is g2
    out = oar.nn.ClipGradByGlobalNorm(100.0, auto_skip_clip=True)([(p1, g1)])
    assert out[0][1] is g1
    out = oar.nn.ClipGradByNorm(1.0)([(p1, g1), (p1, None)])
    assert len(out) == 1
    np.testing.assert_allclose(out[0][1].numpy(), [0.6, 0.8], rtol=1e-6)
    out = oar.nn.ClipGradByValue(1.0, -0.5)([(p1, oar.to_tensor([3.0, -4.0, 0.2]))])
    np.testing.assert_allclose(out[0][1].numpy(), [1.0, -0.5, 0.2])
    assert str(oar.nn.ClipGradByValue(1.0)) == "Clip Gradient By Value, min = -1.000000, max=1.000000"
    assert str(oar.nn.ClipGradByGlobalNorm(1.0)) == "Gradient Clip By GlobalNorm, global_norm=1.000000"
    with pytest.raises(ValueError, match="max"):
        oar.nn.ClipGradByValue(-1.0)
    with pytest.raises(TypeError, match="clip_norm"):
        oar.nn.ClipGradByNorm("1")
    with pytest.raises(TypeError, match="pairs"):
        oar.nn.ClipGradByNorm(1.0)([g1])


def test_squared_norms_kernel():
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(n) for n in (0, 1, 7, 40000)]
    got = oar._C._optim_squared_norms([oar.to_tensor(a) for a in arrays] +
                                      [oar.to_tensor(arrays[2]).astype('float16')])
    want = [float((a * a).sum()) for a in arrays] + [float((arrays[2].astype(np.float16).astype(np.float64) ** 2).sum())]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_regularizers():
    x = oar.to_tensor([1.0, -2.0, 0.0])
    np.testing.assert_allclose(oar.regularizer.L1Decay(0.5)(x, x).numpy(), [0.5, -0.5, 0.0])
    np.testing.assert_allclose(oar.regularizer.L2Decay(0.5)(x, x).numpy(), [0.5, -1.0, 0.0])
    assert str(oar.regularizer.L1Decay(0.1)) == "L1Decay, coeff=0.100000"
    with pytest.raises(TypeError, match="coeff"):
        oar.regularizer.L2Decay("x")


# ---------------- the optimizer API ----------------
def test_minimize_clear_grad_and_lr():
    w = param([1.0, 2.0])
    opt = oar.optimizer.SGD(0.1, parameters=[w])
    loss = (w * w).sum()
    loss.backward()
    ops, pg = opt.minimize(loss)
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)
    assert len(pg) == 1 and pg[0][0] is w
    opt.clear_grad()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    opt.clear_grad(set_to_zero=False)
    assert w.grad is None
    opt.step()  # no gradients: nothing happens
    np.testing.assert_allclose(w.numpy(), [0.8, 1.6], rtol=1e-6)
    opt.set_lr(0.5)
    assert opt.get_lr() == 0.5
    sched = oar.optimizer.lr.NoamDecay(16, 4)
    opt.set_lr_scheduler(sched)
    assert opt.get_lr() == sched()
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.1)
    with pytest.raises(TypeError, match="scheduler"):
        opt.set_lr_scheduler(0.1)


class Parameter(oar.Tensor):
    """What nn.Layer's parameters look like to an optimizer: a Tensor with attributes."""

    def __init__(self, value, name, lr=1.0, regularizer=None, need_clip=True):
        super().__init__(oar.to_tensor(np.asarray(value, np.float32)))
        self.stop_gradient = False
        self.name, self.trainable = name, True
        self.optimize_attr = {'learning_rate': lr}
        self.regularizer, self.need_clip = regularizer, need_clip


def test_parameter_subclass_and_training():
    """A hand-written model y = x @ W + b fits a linear target with Adam; parameter attributes
    (lr multiplier, own regularizer, need_clip) are honoured; minimize and apply_gradients."""
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    true_w = np.array([[1.0], [-2.0], [0.5]], np.float32)
    ys = xs @ true_w + 0.3
    w = Parameter(np.zeros((3, 1)), 'linear_0.w_0')
    b = Parameter(np.zeros(1), 'linear_0.b_0', lr=2.0, need_clip=False)
    opt = oar.optimizer.Adam(0.05, parameters=[w, b], grad_clip=oar.nn.ClipGradByGlobalNorm(5.0))
    x, y = oar.to_tensor(xs), oar.to_tensor(ys)
    for _ in range(300):
        loss = ((oar.matmul(x, w) + b - y) ** 2).mean()
        loss.backward()
        opt.minimize(loss)
        opt.clear_grad()
    np.testing.assert_allclose(w.numpy(), true_w, atol=2e-2)
    np.testing.assert_allclose(b.numpy(), [0.3], atol=2e-2)
    assert type(w) is Parameter
    assert {_strip(k) for k in opt.state_dict()} >= {'linear_0.w_0_moment1', 'linear_0.b_0_moment2'}

    # Own regularizer beats the optimizer's weight_decay; apply_gradients takes explicit pairs.
    p = Parameter([1.0, -1.0], 'fc.w', regularizer=oar.regularizer.L1Decay(0.5))
    q = Parameter([1.0, -1.0], 'fc.v')
    sgd = oar.optimizer.SGD(0.1, parameters=[p, q], weight_decay=0.5)
    sgd.apply_gradients([(p, oar.to_tensor([0.0, 0.0])), (q, oar.to_tensor([0.0, 0.0]))])
    np.testing.assert_allclose(p.numpy(), [0.95, -0.95], rtol=1e-6)   # L1: 0.5 * sign
    np.testing.assert_allclose(q.numpy(), [0.95, -0.95], rtol=1e-6)   # L2: 0.5 * w


def test_group_grad_clip_and_minimize():
    w, b = param([3.0, 4.0]), param([3.0, 4.0])
    opt = oar.optimizer.SGD(1.0, parameters=[{'params': [w], 'grad_clip': oar.nn.ClipGradByNorm(1.0)},
                                            {'params': [b], 'learning_rate': 0.5}])
    loss = (w * w).sum() * 0.5 + (b * b).sum() * 0.5   # grads equal the values
    loss.backward()
    opt.minimize(loss)
    np.testing.assert_allclose(w.numpy(), [2.4, 3.2], rtol=1e-6)   # grad clipped to norm 1
    np.testing.assert_allclose(b.numpy(), [1.5, 2.0], rtol=1e-6)   # lr 1.0 * 0.5


def test_stop_gradient_params_are_skipped():
    w, frozen = param([1.0]), param([1.0])
    opt = oar.optimizer.Adam(0.1, parameters=[w, frozen])
    (w * frozen).sum().backward()
    frozen.stop_gradient = True
    opt.step()
    assert w.numpy()[0] != 1.0 and frozen.numpy()[0] == 1.0


def test_beta_as_tensor():
    """A tensor beta1 is read at each step; as in Paddle, its power accumulator starts at 0.9
    (Paddle's fill value for tensor betas), not at beta1."""
    w = param([1.0, -1.0])
    o = oar.optimizer.Adam(0.1, beta1=oar.to_tensor([0.8]), parameters=[w])
    ref = np.array([1.0, -1.0])
    m = v = np.zeros(2)
    b1p, b2p = 0.9, 0.999
    for _ in range(3):
        (w * w).sum().backward()
        o.step()
        o.clear_grad()
        g = 2 * ref
        m = 0.8 * m + 0.2 * g
        v = 0.999 * v + 0.001 * g * g
        ref = ref - 0.1 * np.sqrt(1 - b2p) / (1 - b1p) * m / (np.sqrt(v) + 1e-8 * np.sqrt(1 - b2p))
        b1p, b2p = b1p * 0.8, b2p * 0.999
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-5)


def test_beta_as_tensor_matches_paddle():
    paddle = pytest.importorskip("paddle")
    out = []
    for ns in (oar, paddle):
        w = ns.to_tensor([1.0, -1.0])
        w.stop_gradient = False
        o = ns.optimizer.Adam(0.1, beta1=ns.to_tensor([0.8]), beta2=ns.to_tensor([0.95]), parameters=[w])
        for _ in range(3):
            (w * w).sum().backward()
            o.step()
            o.clear_grad()
        out.append(w.numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5)


def test_argument_errors():
    w = param([1.0])
    with pytest.raises(AttributeError, match="parameters"):
        oar.optimizer.SGD(0.1)
    with pytest.raises(TypeError, match="learning rate"):
        oar.optimizer.SGD(1, parameters=[w])
    with pytest.raises(TypeError, match="iterable"):
        oar.optimizer.SGD(0.1, parameters=w)
    with pytest.raises(TypeError, match="grad_clip"):
        oar.optimizer.SGD(0.1, parameters=[w], grad_clip=1.0)
    with pytest.raises(TypeError, match="weight_decay"):
        oar.optimizer.SGD(0.1, parameters=[w], weight_decay="l2")
    with pytest.raises(ValueError, match="beta1"):
        oar.optimizer.Adam(0.1, beta1=1.5, parameters=[w])
    with pytest.raises(ValueError, match="epsilon"):
        oar.optimizer.Adamax(0.1, epsilon=-1.0, parameters=[w])
    with pytest.raises(ValueError, match="rho"):
        oar.optimizer.RMSProp(0.1, rho=-0.1, parameters=[w])
    with pytest.raises(TypeError, match="weight_decay"):
        oar.optimizer.AdamW(0.1, parameters=[w], weight_decay=oar.regularizer.L2Decay(0.1))
    with pytest.raises(ValueError, match="more than one"):
        oar.optimizer.SGD(0.1, parameters=[{'params': [w]}, {'params': [w]}])
    with pytest.raises(TypeError, match="set"):
        oar.optimizer.SGD(0.1, parameters=[{'params': {w}}])
    with pytest.raises(ValueError, match="momentum"):
        oar.optimizer.Momentum(0.1, momentum=None, parameters=[w])
    with pytest.raises(TypeError, match="item 1"):
        oar.optimizer.SGD(0.1, parameters=[w, 3.0])


def test_kernel_argument_errors():
    w, g = oar.to_tensor([1.0, 2.0]), oar.to_tensor([1.0])
    with pytest.raises(ValueError, match="gradient 0"):
        oar._C._optim_sgd([w], [g], [], [None], [0.1], [0.0], [0.0], [])
    with pytest.raises(ValueError, match="1 parameters but 0 gradients"):
        oar._C._optim_sgd([w], [], [], [None], [0.1], [0.0], [0.0], [])
    with pytest.raises(ValueError, match="state 0"):
        oar._C._optim_momentum([w], [w], [[g]], [None], [0.1], [0.0], [0.0], [], 0.9, False, 1.0)
    with pytest.raises(ValueError, match="beta1_pow"):
        oar._C._optim_adam([w], [w], [[w], [w]], [None], [0.1], [0.0], [0.0], [], [w], [w],
                           0.9, 0.999, 1e-8, False, [])
    with pytest.raises(ValueError, match="gradient scales"):
        oar._C._optim_sgd([w], [w], [], [None], [0.1], [0.0], [0.0], [1.0, 2.0])
    i = oar.to_tensor([1, 2])
    with pytest.raises(ValueError, match="float16, bfloat16, float32 or float64"):
        oar._C._optim_sgd([i], [i], [], [None], [0.1], [0.0], [0.0], [])


def test_with_layers_and_checkpoint(tmp_path):
    """nn.Linear parameters (oar.nn.Parameter): Paddle's state names, and a state saved with
    oar.save / loaded with oar.load resumes training exactly."""
    def make():
        oar.seed(3)
        with oar.utils.unique_name.guard():  # the same parameter names each time, as in a new process
            return oar.nn.Sequential(oar.nn.Linear(3, 4), oar.nn.Tanh(), oar.nn.Linear(4, 2))

    def fit(model, opt, steps):
        x, t = oar.to_tensor(X.astype('float32')), oar.to_tensor(T.astype('float32'))
        for _ in range(steps):
            ((model(x) - t) ** 2).mean().backward()
            opt.step()
            opt.clear_grad()

    model = make()
    sched = oar.optimizer.lr.CosineAnnealingDecay(0.05, 5)
    opt = oar.optimizer.Adam(sched, parameters=model.parameters(), weight_decay=0.01)
    fit(model, opt, 3)
    names = [p.name for p in model.parameters()]
    keys = {_strip(k) for k in opt.state_dict() if k != 'LR_Scheduler'}
    assert keys == {f"{n}_{s}" for n in names for s in ('moment1', 'moment2', 'beta1_pow_acc', 'beta2_pow_acc')}
    oar.save(model.state_dict(), str(tmp_path / "m.pdparams"))
    oar.save(opt.state_dict(), str(tmp_path / "m.pdopt"))
    fit(model, opt, 3)
    want = [p.numpy() for p in model.parameters()]

    model2 = make()
    model2.set_state_dict(oar.load(str(tmp_path / "m.pdparams")))
    opt2 = oar.optimizer.Adam(oar.optimizer.lr.CosineAnnealingDecay(0.05, 5),
                              parameters=model2.parameters(), weight_decay=0.01)
    opt2.set_state_dict(oar.load(str(tmp_path / "m.pdopt")))
    fit(model2, opt2, 3)
    for a, b in zip(want, model2.parameters()):
        np.testing.assert_allclose(b.numpy(), a, rtol=1e-6)

    # Parameters named differently from the saved state: an error, not a silent fresh start.
    with oar.utils.unique_name.guard('other_'):
        model3 = oar.nn.Sequential(oar.nn.Linear(3, 4), oar.nn.Tanh(), oar.nn.Linear(4, 2))
    opt3 = oar.optimizer.Adam(0.05, parameters=model3.parameters())
    opt3.set_state_dict(oar.load(str(tmp_path / "m.pdopt")))
    ((model3(oar.to_tensor(X.astype('float32')))) ** 2).mean().backward()
    with pytest.raises(ValueError, match="not in the state dict"):
        opt3.step()


def test_checkpoint_file_from_paddle(tmp_path):
    """A .pdopt written by paddle.save loads with oar.load into an oar optimizer."""
    paddle = pytest.importorskip("paddle")
    paddle.set_device('cpu')
    mk = lambda a: paddle.create_parameter(list(a.shape), 'float32',  # noqa: E731
                                           default_initializer=paddle.nn.initializer.Assign(a.astype('float32')))
    pw, pb = mk(W0), mk(B0)
    popt = paddle.optimizer.Adam(0.05, parameters=[pw, pb], amsgrad=True)
    train(paddle, popt, pw, pb, 2)
    paddle.save(popt.state_dict(), str(tmp_path / "p.pdopt"))
    w, b = param(pw.numpy(), name=pw.name), param(pb.numpy(), name=pb.name)
    opt = oar.optimizer.Adam(0.05, parameters=[w, b], amsgrad=True)
    opt.set_state_dict(oar.load(str(tmp_path / "p.pdopt")))
    got = train(oar, opt, w, b, 2)
    want = train(paddle, popt, pw, pb, 2)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)


def test_optimizer_names():
    paddle = pytest.importorskip("paddle")
    assert set(paddle.optimizer.__all__) <= set(oar.optimizer.__all__)
    assert set(oar.optimizer.__all__) <= set(paddle.optimizer.__all__)
