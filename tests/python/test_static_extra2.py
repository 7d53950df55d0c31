"""paddle.static's ExponentialMovingAverage and ctr_metric_bundle (state kept between Executor.run
calls through Program._add_after_run / _write_back), and paddle.static.nn's spectral_norm, nce,
sparse_embedding and deform_conv2d. Parameter names, shapes and the literal outputs are Paddle
3.3.1's legacy static mode (paddle.pir_utils.OldIrGuard); ExponentialMovingAverage fails to build
in Paddle 3.3.1 (both IRs), so it is checked against a NumPy reference of its documented rule."""
import math

import numpy as np
import pytest

import oar
from oar import static

SPARSE_NOTE = "With sparse mode, if your models has only small parameter prefetch may cause speed down"


@pytest.fixture
def prog():
    main, startup = static.Program(), static.Program()
    oar.enable_static()
    try:
        with oar.utils.unique_name.guard(), static.program_guard(main, startup):
            yield main
    finally:
        oar.disable_static()


def _names(main):
    return [(p.name, list(p.shape)) for p in main.all_parameters()]


def _param(main, name):
    return [p for p in main.all_parameters() if p.name == name][0]


# ---- the write-back mechanism ----

def test_write_back_keeps_state_between_runs(prog):
    x = static.data("x", [None, 2], "float32")
    with static.mode.eager():
        acc = oar.zeros([2], "float32")
    total = acc + oar.sum(x, 0)
    prog._write_back(acc, total)
    test = prog.clone(for_test=True)
    exe = static.Executor()
    feed = {"x": np.array([[1, 2], [3, 4]], "float32")}
    np.testing.assert_allclose(exe.run(prog, feed=feed, fetch_list=[total])[0], [4, 6])
    np.testing.assert_allclose(exe.run(prog, feed=feed, fetch_list=[total])[0], [8, 12])
    # A for_test clone keeps plain writes (they are forward ops in Paddle).
    np.testing.assert_allclose(exe.run(test, feed=feed, fetch_list=[total])[0], [12, 18])
    np.testing.assert_allclose(acc.numpy(), [12, 18])


def test_write_back_order_and_for_test_clone(prog):
    x = static.data("x", [None, 1], "float32")
    w = oar.create_parameter([1], "float32", default_initializer=oar.nn.initializer.Constant(1.0))
    loss = oar.mean(x * w)
    with static.mode.eager():
        seen_before, seen_after = oar.zeros([1]), oar.zeros([1])
    prog._add_after_run([], lambda: seen_before.copy_(w, False), optimize=True)
    oar.optimizer.SGD(0.5).minimize(loss)
    prog._add_after_run([], lambda: seen_after.copy_(w, False), optimize=True)
    test = prog.clone(for_test=True)
    exe = static.Executor()
    exe.run(prog, feed={"x": np.ones([2, 1], "float32")}, fetch_list=[loss])
    # the first write ran before the SGD update, the second after it
    np.testing.assert_allclose(seen_before.numpy(), [1.0])
    np.testing.assert_allclose(seen_after.numpy(), [0.5])
    assert test._after_run == [] and prog._after_run != []
    with pytest.raises(ValueError, match="shape"):
        prog._write_back(seen_before, oar.sum(x, 0) * oar.ones([1, 1]))


# ---- ctr_metric_bundle ----

def test_ctr_metric_bundle_matches_paddle(prog):
    x = static.data("x", [None, 1], "float32")
    lab = static.data("l", [None, 1], "float32")
    w = static.data("w", [None, 1], "float32")
    outs = static.ctr_metric_bundle(x, lab, w)
    assert [list(o.shape) for o in outs] == [[1], [1], [1], [1, 1], [1], [1, 1]]
    assert all(o.dtype == oar.float32 for o in outs)
    exe = static.Executor()
    xs = np.array([[0.9], [0.2], [0.6]], "float32")
    ls = np.array([[1], [0], [0]], "float32")
    got = [exe.run(prog, feed={"x": xs, "l": ls, "w": np.array([[wv], [5.0], [5.0]], "float32")},
                   fetch_list=list(outs)) for wv in (1.0, 0.0, 2.0)]
    # Paddle 3.3.1, legacy static mode
    paddle = [[[0.41], [0.9], [1.7], [[1.9064397811889648]], [1.0], [[3.0]]],
              [[0.82], [1.8], [3.4], [[1.9064397811889648]], [2.0], [[3.0]]],
              [[1.23], [2.7], [5.1], [[5.7193193435668945]], [3.0], [[9.0]]]]
    for run, want in zip(got, paddle):
        for a, b in zip(run, want):
            np.testing.assert_allclose(a, np.array(b), rtol=1e-5)


def test_ctr_metric_bundle_default_weight_and_errors(prog):
    x = static.data("x", [None, 1], "float32")
    lab = static.data("l", [None, 1], "float32")
    sq, ab, pr, q, pos, ins = static.ctr_metric_bundle(x, lab)
    out = static.Executor().run(prog, feed={"x": np.array([[0.5], [0.25]], "float32"),
                                            "l": np.array([[1.], [0.]], "float32")}, fetch_list=[sq, q, ins])
    np.testing.assert_allclose(out[0], [0.3125])
    np.testing.assert_allclose(out[1], [[1 / (1 + math.exp(-0.5)) + 1 / (1 + math.exp(-0.25))]], rtol=1e-6)
    np.testing.assert_allclose(out[2], [[2.0]])
    with pytest.raises(TypeError, match="floating"):
        static.ctr_metric_bundle(x, static.data("li", [None, 1], "int32"))
    with pytest.raises(AssertionError):
        static.ctr_metric_bundle(x, static.data("l2", [None, 2], "float32"))
    oar.disable_static()
    try:
        with pytest.raises(RuntimeError, match="static mode"):
            static.ctr_metric_bundle(oar.ones([2, 1]), oar.ones([2, 1]))
    finally:
        oar.enable_static()


# ---- ExponentialMovingAverage ----

def _ema_net(prog, thres):
    x = static.data("x", [None, 3], "float32")
    init = oar.nn.initializer.Assign(np.arange(6).reshape(3, 2).astype("float32") / 10)
    h = static.nn.fc(x, 2, weight_attr=oar.ParamAttr(initializer=init))
    cost = oar.mean(h * h)
    test = prog.clone(for_test=True)
    oar.optimizer.SGD(0.1).minimize(cost)
    step = static.data("step", [1], "float32") if thres else None
    ema = static.ExponentialMovingAverage(0.9, thres_steps=step)
    ema.update()
    return x, h, cost, test, ema


@pytest.mark.parametrize("thres", [False, True])
def test_ema_follows_the_updated_parameters(prog, thres):
    x, h, cost, test, ema = _ema_net(prog, thres)
    assert _names(prog) == [("fc_0.w_0", [3, 2]), ("fc_0.b_0", [2])]
    assert [v.name for v in ema._ema_vars.values()] == ["fc_0.w_0_ema_0", "fc_0.b_0_ema_0"]
    assert [t.name for _, t in ema._params_tmps] == ["fc_0.w_0.ema_tmp_0", "fc_0.b_0.ema_tmp_0"]
    w, b = _param(prog, "fc_0.w_0"), _param(prog, "fc_0.b_0")
    exe = static.Executor()
    xv = np.array([[1., 2., 3.], [-1., 0.5, 2.]], "float32")
    ema_w, ema_b, decay = np.zeros([3, 2]), np.zeros([2]), 0.9
    for i in range(3):
        feed = {"x": xv * (i + 1)}
        if thres:
            feed["step"] = np.array([float(i)], "float32")
            decay = min(0.9, (i + 1.0) / (i + 10.0))
        exe.run(prog, feed=feed, fetch_list=[cost])
        # the average uses the parameters after this run's SGD update
        ema_w = decay * ema_w + (1 - decay) * w.numpy()
        ema_b = decay * ema_b + (1 - decay) * b.numpy()
        np.testing.assert_allclose(ema._ema_vars["fc_0.w_0"].numpy(), ema_w, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(ema._ema_vars["fc_0.b_0"].numpy(), ema_b, rtol=1e-5, atol=1e-7)
    assert int(ema._step_counter.numpy()[0]) == 3
    np.testing.assert_allclose(ema._decay_var.numpy(), [decay], rtol=1e-6)
    trained_w, trained_b = w.numpy(), b.numpy()
    corr = 1 - decay ** 3
    with ema.apply(exe):
        np.testing.assert_allclose(w.numpy(), ema_w / corr, rtol=1e-5, atol=1e-7)
        out = exe.run(test, feed={"x": xv}, fetch_list=[h])[0]
        np.testing.assert_allclose(out, xv @ (ema_w / corr) + ema_b / corr, rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(w.numpy(), trained_w)
    with ema.apply(exe, need_restore=False):
        pass
    np.testing.assert_allclose(b.numpy(), ema_b / corr, rtol=1e-5, atol=1e-7)
    ema.restore(exe)
    np.testing.assert_array_equal(b.numpy(), trained_b)


def test_ema_test_program_does_not_update(prog):
    x, h, cost, test, ema = _ema_net(prog, False)
    exe = static.Executor()
    exe.run(test, feed={"x": np.ones([2, 3], "float32")}, fetch_list=[h])
    assert not ema._ema_vars["fc_0.w_0"].numpy().any()
    assert int(ema._step_counter.numpy()[0]) == 0
    # apply before any training step: the averages themselves (no bias correction)
    w = _param(prog, "fc_0.w_0")
    with ema.apply(exe):
        assert not w.numpy().any()
    np.testing.assert_allclose(w.numpy(), np.arange(6).reshape(3, 2) / 10, rtol=1e-6)


def test_ema_refuses_dygraph_and_skips_unaveraged_params(prog):
    x = static.data("x", [None, 3], "float32")
    static.nn.fc(x, 2, weight_attr=oar.ParamAttr(do_model_average=False))
    ema = static.ExponentialMovingAverage()
    assert list(ema._ema_vars) == ["fc_0.b_0"]
    with pytest.raises(TypeError, match="thres_steps"):
        static.ExponentialMovingAverage(thres_steps=3)
    oar.disable_static()
    try:
        with pytest.raises(Exception, match="In dygraph, don't support ExponentialMovingAverage."):
            static.ExponentialMovingAverage(0.99)
    finally:
        oar.enable_static()


# ---- spectral_norm ----

def _spectral_ref(w, u, v, dim, iters, eps=1e-12):
    mat = np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1)
    for _ in range(iters):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + eps)
        u = mat @ v
        u = u / (np.linalg.norm(u) + eps)
    return w / (u @ mat @ v), u, v


def test_spectral_norm_matches_reference(prog):
    w = static.data("w", [3, 4, 2], "float64")
    out = static.nn.spectral_norm(w, dim=1, power_iters=2)
    assert list(out.shape) == [3, 4, 2]
    assert _names(prog) == [("spectral_norm_0.w_0", [4]), ("spectral_norm_0.w_1", [6])]
    u, v = _param(prog, "spectral_norm_0.w_0"), _param(prog, "spectral_norm_0.w_1")
    assert u.stop_gradient and v.stop_gradient
    u0, v0 = u.numpy().copy(), v.numpy().copy()
    wv = np.random.RandomState(0).randn(3, 4, 2)
    exe = static.Executor()
    got = exe.run(prog, feed={"w": wv}, fetch_list=[out])[0]
    np.testing.assert_allclose(got, _spectral_ref(wv, u0, v0, 1, 2)[0], rtol=1e-10)
    # as Paddle's static op, u and v are not written back: a second run gives the same
    np.testing.assert_array_equal(exe.run(prog, feed={"w": wv}, fetch_list=[out])[0], got)
    np.testing.assert_array_equal(u.numpy(), u0)


def test_spectral_norm_gradient_treats_u_v_as_constants(monkeypatch):
    from oar.static.nn import common
    made = []

    def record(*args, **kwargs):
        made.append(real(*args, **kwargs))
        return made[-1]
    real = common._param
    monkeypatch.setattr(common, "_param", record)
    wv = np.random.RandomState(1).randn(4, 3)
    weight = oar.to_tensor(wv, stop_gradient=False)
    out = static.nn.spectral_norm(weight, dim=0, power_iters=3)   # eagerly, as Paddle allows
    g = np.random.RandomState(2).randn(4, 3)
    oar.sum(out * oar.to_tensor(g)).backward()
    want_out, u, v = _spectral_ref(wv, made[0].numpy(), made[1].numpy(), 0, 3)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-10)
    sigma = u @ wv @ v
    want = g / sigma - np.sum(g * wv) / sigma ** 2 * np.outer(u, v)
    np.testing.assert_allclose(weight.grad.numpy(), want, rtol=1e-8)


def test_spectral_norm_errors(prog):
    w = static.data("w", [4, 3], "float32")
    with pytest.raises(ValueError, match="must be 0 .* or 1"):
        static.nn.spectral_norm(w, dim=2)
    with pytest.raises(TypeError, match="'eps'"):
        static.nn.spectral_norm(w, eps=1)
    with pytest.raises(TypeError, match="'power_iters'"):
        static.nn.spectral_norm(w, power_iters=1.0)
    with pytest.raises(TypeError, match="'weight'"):
        static.nn.spectral_norm(static.data("wi", [4, 3], "int32"))


# ---- nce ----

W5 = np.array([[-0.13, -0.95, 0.1, -0.13], [-0.16, -0.34, -0.59, 0.24], [-0.4, -0.47, 0.24, 0.06],
               [-0.73, 0.03, -0.63, 0.57], [0.71, -0.01, 0.69, -0.84]], "float32")
B5 = np.array([[0.01], [-0.87], [-0.14], [-0.81], [-0.75]], "float32")
X3 = np.array([[-1.39, 0.49, -0.22, -0.31], [-0.46, -2.12, 0.55, -1.17], [1.08, -3.49, 1.27, -0.49]], "float32")
L3 = np.array([[2, 1], [0, 2], [4, 3]])
SW3 = np.array([[1.], [0.5], [2.]], "float32")


def _nce_ref(x, labels, w, b, probs, k, sw=None):
    """NumPy reference of Paddle's nce kernel for fixed sample labels [B, T + k]."""
    num_true = labels.shape[1] - k
    logits = np.einsum("bd,bsd->bs", x, w[labels]) + (b[labels, 0] if b is not None else 0)
    o = 1 / (1 + np.exp(-logits))
    bb = probs[labels] * k
    with np.errstate(divide="ignore"):   # b = 0 for a true class of probability 0: its cost is 0
        cost = np.where(np.arange(labels.shape[1]) < num_true, -np.log(o / (o + bb)), -np.log(bb / (o + bb)))
    cost = cost.sum(1, keepdims=True) * (sw if sw is not None else 1)
    return cost / (k + 1)


def test_nce_custom_dist_matches_paddle(prog, capsys):
    x = static.data("x", [None, 4], "float32")
    lab = static.data("l", [None, 2], "int64")
    sw = static.data("sw", [None, 1], "float32")
    A = oar.ParamAttr
    # all the mass on class 2: every negative is 2, so the loss is deterministic
    loss = static.nn.nce(x, lab, 5, sample_weight=sw, num_neg_samples=3, sampler="custom_dist",
                         custom_dist=[0., 0., 1., 0., 0.], param_attr=A(initializer=oar.nn.initializer.Assign(W5)),
                         bias_attr=A(initializer=oar.nn.initializer.Assign(B5)))
    assert capsys.readouterr().out.strip() == SPARSE_NOTE
    assert list(loss.shape) == [-1, 1]
    assert _names(prog) == [("nce_0.w_0", [5, 4]), ("nce_0.b_0", [5, 1]), ("nce_0.w_1", [5]),
                            ("nce_0.w_2", [5]), ("nce_0.w_3", [5])]
    assert _param(prog, "nce_0.w_2").dtype == oar.int32
    np.testing.assert_array_equal(_param(prog, "nce_0.w_2").numpy(), [2, 2, -1, 2, 2])
    got = static.Executor().run(prog, feed={"x": X3, "l": L3, "sw": SW3}, fetch_list=[loss])[0]
    # Paddle 3.3.1, legacy static mode
    np.testing.assert_allclose(got.ravel(), [0.596333384513855, 0.28483620285987854, 0.3518560528755188],
                               rtol=1e-5)
    labels = np.concatenate([L3, np.full([3, 3], 2)], 1)
    np.testing.assert_allclose(got, _nce_ref(X3, labels, W5, B5, np.array([0, 0, 1, 0, 0.]), 3, SW3), rtol=1e-5)


def test_nce_alias_table_is_paddles():
    from oar.static.nn.loss import _alias_table
    # Paddle 3.3.1's CustomDistAlias / CustomDistAliasProbs for this distribution
    alias, probs = _alias_table([0.25, 0., 0., 0.75, 0.])
    assert alias == [3, 0, 3, -1, 3]
    np.testing.assert_allclose(probs, [0.25, 0.0, 0.0, 1.0, 0.0])


def test_nce_uniform_with_zero_weights_is_exact(prog):
    x = static.data("x", [None, 4], "float64")
    lab = static.data("l", [None, 1], "int64")
    loss = static.nn.nce(x, lab, 8, num_neg_samples=4, param_attr=oar.nn.initializer.Constant(0.0))
    got = static.Executor().run(prog, feed={"x": np.ones([5, 4]), "l": np.arange(5)[:, None]}, fetch_list=[loss])[0]
    b = 4 / 8
    np.testing.assert_allclose(got, np.full([5, 1], (math.log((0.5 + b) / 0.5) + 4 * math.log((0.5 + b) / b)) / 5))


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform", "custom_dist"])
def test_nce_samplers_draw_their_distribution(sampler):
    from oar.static.nn.loss import _alias_table, _sample, _uniform
    n = 6
    if sampler == "uniform":
        p = np.full(n, 1 / n)
    elif sampler == "log_uniform":
        c = np.arange(n)
        p = np.log((c + 2) / (c + 1)) / math.log(n)
        p[n - 1] = 0       # floor(exp(u log n)) - 1 < n - 1: the formula's mass sums to 1 below it
    else:
        p = np.array([0.1, 0.0, 0.4, 0.2, 0.25, 0.05])
    tables = None
    if sampler == "custom_dist":
        alias, aprobs = _alias_table(p)
        tables = (oar.to_tensor(np.array(alias, "int32")), oar.to_tensor(np.array(aprobs, "float32")))
    ref = oar.zeros([20000, 3])
    u = _uniform(ref, 2 if tables else 1, 0)
    s = _sample(sampler, u, n, tables).numpy().ravel()
    assert s.min() >= 0 and s.max() < n
    freq = np.bincount(s, minlength=n) / s.size
    np.testing.assert_allclose(freq, p, atol=0.015)


def test_nce_seed_repeats_samples_and_random_varies(prog):
    x = static.data("x", [None, 3], "float32")
    lab = static.data("l", [None, 1], "int64")
    seeded = static.nn.nce(x, lab, 50, sampler="log_uniform", seed=7)
    fresh = static.nn.nce(x, lab, 50, sampler="log_uniform")
    exe = static.Executor()
    feed = {"x": np.random.RandomState(0).randn(6, 3).astype("float32"), "l": np.arange(6)[:, None]}
    a = exe.run(prog, feed=feed, fetch_list=[seeded, fresh])
    b = exe.run(prog, feed=feed, fetch_list=[seeded, fresh])
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[1], b[1])
    assert np.all(np.isfinite(a[1])) and np.all(a[1] > 0)


def test_nce_cost_gradient_numeric():
    from oar.static.nn.loss import _nce_cost
    rs = np.random.RandomState(3)
    xv, wv, bv = rs.randn(3, 4), rs.randn(6, 4), rs.randn(6, 1)
    labels = oar.to_tensor(np.array([[1, 4, 0, 2], [3, 3, 5, 1], [0, 2, 2, 4]]))
    probs = oar.to_tensor(np.array([0.1, 0.2, 0.3, 0.1, 0.2, 0.1], "float32"))
    x, w, b = (oar.to_tensor(a, stop_gradient=False) for a in (xv, wv, bv))
    cost = _nce_cost(x, labels, 1, w, b, probs, 3)
    np.testing.assert_allclose(cost.numpy() / 4, _nce_ref(xv, labels.numpy(), wv, bv, probs.numpy().astype("float64"),
                                                          3), rtol=1e-6)
    oar.sum(cost).backward()

    def f(xa, wa, ba):
        return _nce_ref(xa, labels.numpy(), wa, ba, probs.numpy().astype("float64"), 3).sum() * 4

    for t, arr, args in ((x, xv, 0), (w, wv, 1), (b, bv, 2)):
        num = np.zeros_like(arr)
        for idx in np.ndindex(arr.shape):
            vals = [xv.copy(), wv.copy(), bv.copy()]
            vals[args][idx] += 1e-6
            hi = f(*vals)
            vals[args][idx] -= 2e-6
            num[idx] = (hi - f(*vals)) / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), num, rtol=1e-5, atol=1e-8)


def test_nce_errors(prog):
    x = static.data("x", [None, 4], "float32")
    lab = static.data("l", [None, 1], "int64")
    with pytest.raises(Exception, match="Unsupported sampler type."):
        static.nn.nce(x, lab, 5, sampler="foo")
    with pytest.raises(AssertionError):
        static.nn.nce(x, lab, 5, sampler="custom_dist")
    with pytest.raises(TypeError, match="'label' in nce must be \\['int64'\\]"):
        static.nn.nce(x, static.data("li", [None, 1], "int32"), 5)
    with pytest.raises(ValueError, match="The rank of `input` must be 2, but received 3."):
        static.nn.nce(static.data("x3", [None, 4, 2], "float32"), lab, 5)
    oar.disable_static()
    try:
        with pytest.raises(AssertionError, match="'nce\\(\\)' is only supported in static graph mode"):
            static.nn.nce(oar.ones([2, 3]), oar.ones([2, 1], "int64"), 5)
    finally:
        oar.enable_static()


# ---- sparse_embedding ----

def test_sparse_embedding_lookup_and_padding(prog):
    ids = static.data("ids", [None, 2, 1], "int64")
    table = np.arange(40, dtype="float32").reshape(10, 4)
    emb = static.nn.sparse_embedding(ids, [10, 4], padding_idx=-1,
                                     param_attr=oar.ParamAttr(initializer=oar.nn.initializer.Assign(table)))
    plain = static.nn.sparse_embedding(static.data("ids1", [3, 1], "int64"), [10, 4], dtype="float64")
    assert list(emb.shape) == [-1, 2, 4] and list(plain.shape) == [3, 4]
    assert _names(prog) == [("sparse_embedding_0.w_0", [10, 4]), ("sparse_embedding_1.w_0", [10, 4])]
    assert plain.dtype == oar.float64
    iv = np.array([[1, 2], [9, 9], [3, 0]])[..., None]
    got = static.Executor().run(prog, feed={"ids": iv, "ids1": np.array([[1], [9], [3]])}, fetch_list=[emb, plain])
    want = table[iv[..., 0]]
    want[iv[..., 0] == 9] = 0    # padding_idx -1 is vocab_size - 1
    np.testing.assert_array_equal(got[0], want)
    np.testing.assert_allclose(got[1], _param(prog, "sparse_embedding_1.w_0").numpy()[[1, 9, 3]])


def test_sparse_embedding_errors(prog):
    with pytest.raises(ValueError, match="The last dimensions of the 'Ids' tensor must be 1"):
        static.nn.sparse_embedding(static.data("a", [3, 2], "int64"), [10, 3])
    with pytest.raises(TypeError, match="'input' in paddle.incubate.layers.sparse_embedding must be"):
        static.nn.sparse_embedding(static.data("b", [3, 1], "int32"), [10, 3])
    e = static.data("e", [3, 1], "int64")
    with pytest.raises(ValueError, match="table_class must be in"):
        static.nn.sparse_embedding(e, [10, 3], table_class="x")
    with pytest.raises(TypeError, match="'dtype'"):
        static.nn.sparse_embedding(e, [10, 3], dtype="int32")
    with pytest.raises(ValueError, match="entry must be instance in"):
        static.nn.sparse_embedding(e, [10, 3], entry=3)


# ---- deform_conv2d ----

def test_deform_conv2d_layer_matches_the_op(prog):
    x = static.data("x", [None, 4, 5, 5], "float64")
    off = static.data("off", [None, 2 * 2 * 9, 5, 5], "float64")
    m = static.data("m", [None, 2 * 9, 5, 5], "float64")
    y = static.nn.deform_conv2d(x, off, m, 6, 3, padding=1, groups=2, deformable_groups=2)
    y1 = static.nn.deform_conv2d(x, off[:, :18], None, 3, [3, 3], padding=1, bias_attr=False)
    assert list(y.shape) == [-1, 6, 5, 5] and list(y1.shape) == [-1, 3, 5, 5]
    assert _names(prog) == [("deformable_conv_0.w_0", [6, 2, 3, 3]), ("deformable_conv_0.b_0", [6]),
                            ("deformable_conv_1.w_0", [3, 4, 3, 3])]
    w0, b0, w1 = (_param(prog, n) for n in ("deformable_conv_0.w_0", "deformable_conv_0.b_0", "deformable_conv_1.w_0"))
    with static.mode.eager():
        b0.set_value(np.arange(6, dtype="float64"))
    exe = static.Executor()
    rs = np.random.RandomState(0)
    for n in (1, 3):    # the batch is -1 in the program
        xv, ov, mv = rs.randn(n, 4, 5, 5), rs.randn(n, 36, 5, 5) * 0.5, rs.rand(n, 18, 5, 5)
        got = exe.run(prog, feed={"x": xv, "off": ov, "m": mv}, fetch_list=[y, y1])
        oar.disable_static()
        try:
            from oar.vision.ops import deform_conv2d
            t = oar.to_tensor
            want = deform_conv2d(t(xv), t(ov), t(w0.numpy()), t(b0.numpy()), padding=1, groups=2,
                                 deformable_groups=2, mask=t(mv)).numpy()
            want1 = deform_conv2d(t(xv), t(ov[:, :18]), t(w1.numpy()), padding=1).numpy()
        finally:
            oar.enable_static()
        np.testing.assert_allclose(got[0], want, rtol=1e-10)
        np.testing.assert_allclose(got[1], want1, rtol=1e-10)


def test_deform_conv2d_errors(prog):
    x = static.data("x", [None, 4, 5, 5], "float32")
    off = static.data("off", [None, 18, 5, 5], "float32")
    with pytest.raises(ValueError, match="groups should not be 0."):
        static.nn.deform_conv2d(x, off, None, 6, 3, groups=0)
    with pytest.raises(ValueError, match="num_channels must be divisible by groups."):
        static.nn.deform_conv2d(x, off, None, 6, 3, groups=3)
    with pytest.raises(AssertionError, match="param_attr should not be False here."):
        static.nn.deform_conv2d(x, off, None, 6, 3, weight_attr=False)
    with pytest.raises(TypeError, match="'mask' in deformable_conv"):
        static.nn.deform_conv2d(x, off, np.ones(3), 6, 3)
    oar.disable_static()
    try:
        with pytest.raises(AssertionError, match="'deform_conv2d\\(\\)' is only supported in static graph mode"):
            static.nn.deform_conv2d(oar.ones([1, 1, 3, 3]), oar.ones([1, 18, 3, 3]), None, 2, 3, padding=1)
    finally:
        oar.enable_static()
