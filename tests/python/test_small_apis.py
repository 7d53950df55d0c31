"""Small public names of Paddle 3.3: oar.device.xpu and the GPU-only cuda names (Paddle's CPU-build
behaviour), oar.nn.attention, oar.incubate.asp (n:m masks against Paddle's algorithms),
histogramdd, autograd.saved_tensors_hooks, incubate.autograd.grad, incubate.optimizer.LBFGS and
functional.minimize_bfgs/minimize_lbfgs, Tensor.resize_/reconstruct_from_/top_p_sampling,
oar.callbacks, get_autocast_*_dtype. Compared with NumPy and, where it imports, the real Paddle
(or its results recorded as literals)."""
import importlib.util
import warnings

import numpy as np
import pytest

import oar

HAVE_PADDLE = importlib.util.find_spec("paddle") is not None
needs_paddle = pytest.mark.skipif(not HAVE_PADDLE, reason="paddle is not importable")
rng = np.random.default_rng(11)


def _paddle():
    import paddle
    return paddle


def T(a, **kw):
    return oar.to_tensor(a, **kw)


# ---------------------------------------------------------------- devices

@pytest.mark.host_only
def test_xpu_is_absent_as_in_paddles_cpu_build():
    xpu = oar.device.xpu
    assert xpu.device_count() == 0
    with pytest.raises(RuntimeError, match="XPUStream"):
        xpu.Stream()
    with pytest.raises(RuntimeError, match="XPUStream"):
        xpu.Stream(0)
    with pytest.raises(TypeError):
        xpu.Stream("xpu:0")
    with pytest.raises(RuntimeError, match="XPUEvent"):
        xpu.Event()
    with pytest.warns(UserWarning, match="deprecated"):
        with pytest.raises(RuntimeError, match="not compiled with XPU"):
            xpu.synchronize()
    for name in ("set_debug_level", "empty_cache", "max_memory_allocated", "max_memory_reserved",
                 "reset_max_memory_allocated", "reset_max_memory_reserved", "memory_allocated", "memory_reserved",
                 "memory_total", "memory_used"):
        with pytest.raises(ValueError, match=f"oar.device.xpu.{name} is only supported on XPU"):
            getattr(xpu, name)()
    with pytest.raises(TypeError):
        xpu.device_count(0)


@pytest.mark.host_only
def test_gpu_only_cuda_names_without_a_gpu():
    if oar.device.cuda.device_count() > 0:
        pytest.skip("a GPU is present")
    with pytest.raises(ValueError, match="vmm_compact"):
        oar.device.cuda.vmm_compact()
    with pytest.raises(ValueError, match="memory_summary"):
        oar.device.cuda.memory_summary(0)
    with pytest.raises(AttributeError):  # Paddle's CPU build: AttributeError
        oar.device.cuda.memory_summary()
    with pytest.raises(AttributeError):
        oar.cuda.cudart()
    with pytest.raises(AttributeError):
        oar.cuda.check_error(0)


def test_gpu_only_cuda_names_with_a_gpu(capsys):
    if oar.device.cuda.device_count() == 0:
        pytest.skip("no GPU")
    assert oar.device.cuda.vmm_compact(0) == 0
    oar.device.cuda.memory_summary(0)
    assert "Total memory" in capsys.readouterr().out
    rt = oar.cuda.cudart()
    assert rt.cudaError.success == 0
    oar.cuda.check_error(rt.cudaProfilerStart())
    oar.cuda.check_error(rt.cudaProfilerStop())
    oar.cuda.check_error(0)
    with pytest.raises(RuntimeError, match=r"\(1\)"):
        oar.cuda.check_error(1)


def test_sdpa_kernel_backends():
    from oar.nn.attention import SDPBackend, sdpa_kernel
    q = oar.rand([1, 3, 2, 4])
    base = oar.nn.functional.scaled_dot_product_attention(q, q, q).numpy()
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH], set_priority=True):
        np.testing.assert_array_equal(oar.nn.functional.scaled_dot_product_attention(q, q, q).numpy(), base)
    for backends in (SDPBackend.FLASH_ATTENTION, [SDPBackend.EFFICIENT_ATTENTION, SDPBackend.FLASH_ATTENTION]):
        with sdpa_kernel(backends):
            with pytest.raises(RuntimeError, match="No available backend"):
                oar.nn.functional.scaled_dot_product_attention(q, q, q)
    oar.nn.functional.scaled_dot_product_attention(q, q, q)  # restored
    assert oar.nn.attention._current() == [SDPBackend.MATH]
    with pytest.raises(ValueError, match="At least one backend"):
        with sdpa_kernel([]):
            pass
    with pytest.raises(AssertionError, match="must be an instance of SDPBackend"):
        with sdpa_kernel((SDPBackend.MATH,)):
            pass
    with pytest.raises(TypeError, match="All backends must be SDPBackend"):
        with sdpa_kernel([1]):
            pass
    assert [int(b) for b in SDPBackend] == [-1, 0, 1, 2]


def test_top_level_names():
    assert oar.get_autocast_cpu_dtype() == "float16" and oar.get_autocast_gpu_dtype() == "float16"
    with oar.amp.auto_cast(dtype="bfloat16"):
        assert oar.get_autocast_cpu_dtype() == oar.amp.get_autocast_dtype()
    import oar.callbacks as cb
    from oar.callbacks import EarlyStopping
    assert EarlyStopping is oar.hapi.callbacks.EarlyStopping
    assert cb.__all__ == ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
                          "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]
    assert oar.callbacks is cb


# ---------------------------------------------------------------- asp

@pytest.fixture
def fresh_asp():
    from oar.incubate.asp import asp
    saved = dict(asp._infos)
    asp._infos.clear()
    yield
    asp._infos.clear()
    asp._infos.update(saved)


def test_asp_masks_match_paddles_algorithms():
    from oar.incubate.asp import utils as U
    w = rng.standard_normal((6, 8))
    m1 = U.get_mask_1d(w, 2, 4)
    groups = np.abs(w).reshape(-1, 4)
    expect = np.ones_like(groups)
    for i, g in enumerate(groups):
        expect[i, np.argsort(g)[:2]] = 0
    np.testing.assert_array_equal(m1, expect.reshape(6, 8))
    assert U.check_mask_1d(w * m1, 2, 4) and not U.check_mask_1d(w, 2, 4)
    for algo in (U.get_mask_2d_greedy, U.get_mask_2d_best):
        mask = algo(w, 2, 4)
        blocks = mask.reshape(2, 3, 2, 4).transpose(0, 2, 1, 3)  # [bi, bj] 3x4 corners only where full
        assert mask.shape == w.shape
        assert U.check_mask_2d(w * mask, 2, 4)
        full = mask[:4].reshape(4, 2, 4).transpose(1, 0, 2)  # the two full 4x4 blocks of the first rows
        assert np.all(full.sum(axis=2) <= 2) and np.all(full.sum(axis=1) <= 2)
        del blocks
    best = U.get_mask_2d_best(np.abs(w[:4, :4]), 2, 4)
    assert best.sum() == 8  # n kept in every row
    # mask_2d_best maximises the kept sum over all valid patterns of the block
    pats = U._valid_2d_patterns(2, 4)
    scores = (pats * np.abs(w[:4, :4])).sum(axis=(1, 2))
    assert np.isclose((best * np.abs(w[:4, :4])).sum(), scores.max())
    assert U.calculate_density(np.array([[0, 1, 3, 0], [1, 1, 0, 1]])) == 0.625
    with pytest.raises(ValueError, match="Only dimension < 4"):
        U.create_mask(np.ones((2, 2, 2, 2, 2)))


@needs_paddle
def test_asp_create_mask_equals_paddle():
    from paddle.incubate.asp import utils as PU

    from oar.incubate.asp import utils as U
    for shape in ((8, 6), (5, 7), (4, 4, 3, 3), (3, 2, 9)):
        w = rng.standard_normal(shape).astype("float32")
        for algo in ("MASK_1D", "MASK_2D_GREEDY", "MASK_2D_BEST"):
            for n, m in ((2, 4), (1, 4), (2, 3)):
                ours = U.create_mask(w, getattr(U.MaskAlgo, algo), n=n, m=m)
                theirs = PU.create_mask(w, getattr(PU.MaskAlgo, algo), n=n, m=m)
                np.testing.assert_array_equal(ours, theirs)
                assert ours.dtype == theirs.dtype
                for check in ("CHECK_1D", "CHECK_2D"):
                    assert (U.check_sparsity(w * ours, getattr(U.CheckMethod, check), n=n, m=m)
                            == PU.check_sparsity(w * ours, getattr(PU.CheckMethod, check), n=n, m=m))


def test_asp_prune_decorate_and_train(fresh_asp):
    from oar.incubate import asp

    class Net(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = oar.nn.Linear(8, 6)
            self.conv = oar.nn.Conv2D(4, 4, 3)
            self.small = oar.nn.Linear(2, 4)

        def forward(self, x):
            return self.fc(x)

    net = Net()
    bias = net.fc.bias.numpy().copy()
    opt = oar.optimizer.SGD(0.1, parameters=net.parameters())
    with pytest.raises(AssertionError, match="decorate"):
        asp.prune_model(net)
    opt = asp.decorate(opt)
    masks = asp.prune_model(net, mask_algo="mask_1d")
    assert sorted(masks) == sorted([net.fc.weight.name, net.conv.weight.name, net.small.weight.name])
    assert asp.calculate_density(net.fc.weight.numpy()) == 0.5
    assert asp.calculate_density(net.conv.weight.numpy()) == 0.5
    assert asp.calculate_density(net.small.weight.numpy()) == 1.0  # input size 2 < m: left dense
    np.testing.assert_array_equal(net.fc.bias.numpy(), bias)  # biases are not pruned
    w = net.fc.weight.numpy().copy()
    assert np.all((np.abs(w.T).reshape(-1, 4) > 0).sum(1) == 2)  # 2 of each 4 inputs kept
    cw = net.conv.weight.numpy()  # groups of 4 input channels at each (out, kh, kw)
    assert np.all((np.abs(cw.transpose(0, 2, 3, 1)).reshape(-1, 4) > 0).sum(1) == 2)
    before = w != 0
    for _ in range(3):
        net(oar.rand([4, 8])).sum().backward()
        opt.step()
        opt.clear_grad()
    after = net.fc.weight.numpy()
    assert np.all(after[~before] == 0) and np.any(after[before] != w[before])
    state = opt.state_dict()
    assert net.fc.weight.name + ".asp_mask" in state
    opt.set_state_dict(state)
    asp.set_excluded_layers([net.fc.weight.name.split(".")[0]])
    assert not asp.asp._is_supported(net.fc.weight.name)
    asp.reset_excluded_layers()
    assert asp.asp._is_supported(net.fc.weight.name)
    with pytest.raises(AssertionError, match="mask_algo"):
        asp.prune_model(net, mask_algo="mask_3d")
    with pytest.raises(TypeError, match="paddle.nn.Layer"):
        asp.prune_model("net")
    asp.add_supported_layer("custom")
    assert asp.asp._is_supported("custom_0.w_0") and not asp.asp._is_supported("custom_0.b_0")
    calls = []
    asp.add_supported_layer(oar.nn.Conv1D, lambda w, m, n, algo, name: calls.append(name) or (w, np.ones_like(w)))
    conv1 = oar.nn.Conv1D(4, 4, 3)
    asp.prune_model(conv1, with_mask=False)
    assert calls == [conv1.weight.name]


# ---------------------------------------------------------------- histogramdd

def _np_histogramdd(x, bins, ranges=None, weights=None, density=False):
    d = x.shape[-1]
    pts = x.reshape(-1, d)
    rng_ = None if ranges is None else [(ranges[2 * i], ranges[2 * i + 1]) for i in range(d)]
    w = None if weights is None else weights.reshape(-1)
    return np.histogramdd(pts, bins=bins, range=rng_, weights=w, density=density)


def test_histogramdd_against_numpy():
    x = rng.standard_normal((40, 3))
    w = rng.random(40)
    for kw in (dict(bins=4), dict(bins=[2, 3, 5]), dict(bins=3, ranges=[-1.0, 1.0, -2.0, 2.0, 0.0, 1.0]),
               dict(bins=3, density=True), dict(bins=3, weights=w), dict(bins=[2, 2, 4], weights=w, density=True)):
        wt = None if kw.get("weights") is None else T(kw["weights"])
        hist, edges = oar.histogramdd(T(x), bins=kw["bins"], ranges=kw.get("ranges"), density=kw.get("density", False),
                                      weights=wt)
        ref, ref_edges = _np_histogramdd(x, kw["bins"], kw.get("ranges"), kw.get("weights"), kw.get("density", False))
        np.testing.assert_allclose(hist.numpy(), ref, rtol=1e-10)
        for e, r in zip(edges, ref_edges):
            np.testing.assert_allclose(e.numpy(), r, rtol=1e-12, atol=1e-12)
        assert hist.dtype == oar.float64
    edges = (T([0.0, 1.0, 2.0]), T([0.0, 0.5, 2.0]))
    pts = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [3.0, 0.0]])
    hist, _ = oar.histogramdd(T(pts, dtype="float32"), bins=edges)
    assert hist.numpy().tolist() == [[0.0, 1.0], [2.0, 1.0]]  # the last edge is inside, 3.0 is out
    hist, _ = T(rng.random((2, 4, 2)).astype("float32")).histogramdd(bins=2)  # Tensor method, 3-D input
    assert hist.shape == [2, 2] and hist.sum().item() == 8


def test_histogramdd_matches_paddle_literals_and_errors():
    x = T([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    hist, edges = oar.histogramdd(x, bins=[3, 3])
    assert hist.numpy().tolist() == [[0, 1, 0], [1, 0, 0], [1, 0, 1]]
    # Paddle's edges, rounded in float32 as its linspace kernel rounds them.
    assert edges[0].numpy().tolist() == [0.0, 0.6666666865348816, 1.3333332538604736, 2.0]
    hist, _ = oar.histogramdd(x, bins=2, ranges=[0.0, 1.0, 0.0, 1.0], density=True)
    assert hist.numpy().tolist() == [[0.0, 2.0], [2.0, 0.0]]
    hist, edges = oar.histogramdd(T([[1.0, 1.0], [1.0, 1.0]]), bins=2)
    assert hist.numpy().tolist() == [[0.0, 0.0], [0.0, 2.0]] and edges[0].numpy().tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="0-th element in bins list must be int"):
        oar.histogramdd(x, bins=[2.0, 2])
    with pytest.raises(AssertionError, match="length of bins"):
        oar.histogramdd(x, bins=[3])
    with pytest.raises(AssertionError, match="length of ranges"):
        oar.histogramdd(x, ranges=[0.0, 1.0])
    with pytest.raises(AssertionError, match="same shape as the input"):
        oar.histogramdd(x, weights=oar.ones([3]))
    with pytest.raises(TypeError, match="float32"):
        oar.histogramdd(T([[1, 2]]))
    with pytest.raises(AssertionError, match="at least 2 dimensions"):
        oar.histogramdd(T([1.0, 2.0]))
    with pytest.raises(TypeError, match="density"):
        oar.histogramdd(x, density=1)


@needs_paddle
def test_histogramdd_equals_paddle():
    paddle = _paddle()
    x = rng.standard_normal((30, 2)).astype("float32")
    w = rng.random(30).astype("float32")
    for kw in (dict(bins=5), dict(bins=[3, 4], density=True), dict(bins=4, ranges=[-1.0, 1.0, -1.5, 0.5])):
        a, ae = oar.histogramdd(T(x), weights=T(w), **kw)
        b, be = paddle.histogramdd(paddle.to_tensor(x), weights=paddle.to_tensor(w), **kw)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
        for e1, e2 in zip(ae, be):
            np.testing.assert_array_equal(e1.numpy(), e2.numpy())


# ---------------------------------------------------------------- saved_tensors_hooks

class _Mul(oar.autograd.PyLayer):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b, None)
        return a * b

    @staticmethod
    def backward(ctx, dy):
        a, b, nothing = ctx.saved_tensor()
        assert nothing is None
        return dy * b, dy * a


def test_saved_tensors_hooks_pack_and_unpack():
    log = []

    def pack(t):
        log.append(("pack", t.shape))
        return {"data": t.numpy()}

    def unpack(p):
        log.append("unpack")
        return oar.to_tensor(p["data"] * 10)

    a = oar.to_tensor([1.0, 2.0], dtype="float64")
    b = oar.to_tensor([3.0, 4.0], dtype="float64")
    a.stop_gradient = b.stop_gradient = False
    with oar.autograd.saved_tensors_hooks(pack, unpack):
        y = _Mul.apply(a, b)
        assert log == [("pack", [2]), ("pack", [2])]  # None is kept as it is, not packed
        z = oar.multiply(a, b)  # built-in operators' saved tensors do not reach the hooks
    assert len(log) == 2
    y.sum().backward()  # backward outside the block still unpacks
    assert log[2:] == ["unpack", "unpack"]
    assert a.grad.numpy().tolist() == [30.0, 40.0] and b.grad.numpy().tolist() == [10.0, 20.0]
    del z
    with oar.autograd.saved_tensors_hooks(lambda t: t, lambda t: 5):
        y = _Mul.apply(a, b)
    with pytest.raises(ValueError, match="unpack_hook must return a Tensor"):
        y.sum().backward()
    with oar.autograd.saved_tensors_hooks(pack, unpack):
        with pytest.raises(ValueError, match="only one pair of hooks"):
            with oar.autograd.saved_tensors_hooks(pack, unpack):
                pass
    y = _Mul.apply(a, b)  # no hooks after the block
    n = len(log)
    y.sum().backward()
    assert len(log) == n


def test_saved_tensors_hooks_on_an_output():
    class Exp(oar.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = oar.exp(x)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            (y,) = ctx.saved_tensors
            return dy * y

    x = oar.to_tensor([0.0, 1.0], dtype="float64")
    x.stop_gradient = False
    with oar.autograd.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = Exp.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))


# ---------------------------------------------------------------- incubate.autograd.grad

def test_incubate_autograd_grad_static_only():
    with pytest.raises(AssertionError, match="static graph mode"):
        oar.incubate.autograd.grad(oar.ones([1]), oar.ones([1]))
    oar.enable_static()
    try:
        for prim in (False, True):
            if prim:
                oar.incubate.autograd.enable_prim()
            main, startup = oar.static.Program(), oar.static.Program()
            with oar.static.program_guard(main, startup):
                x = oar.static.data("x", [2, 3], "float64")
                x.stop_gradient = False
                y = oar.tanh(x) * x
                dx = oar.incubate.autograd.grad(y, x)
                dxs = oar.incubate.autograd.grad([y], [x], [oar.full([2, 3], 2.0, dtype="float64")])
                with pytest.raises(TypeError, match="Expected inputs"):
                    oar.incubate.autograd.grad(y, 3)
            xv = rng.standard_normal((2, 3))
            out = oar.static.Executor().run(main, feed={"x": xv}, fetch_list=[dx, dxs[0]])
            ref = np.tanh(xv) + xv * (1 - np.tanh(xv) ** 2)
            np.testing.assert_allclose(out[0], ref, rtol=1e-12)
            np.testing.assert_allclose(out[1], 2 * ref, rtol=1e-12)
            assert isinstance(dxs, list)
            if prim:
                oar.incubate.autograd.disable_prim()
    finally:
        oar.disable_static()


# ---------------------------------------------------------------- incubate.optimizer

def test_incubate_lbfgs_is_the_deprecated_alias():
    layer = oar.nn.Linear(2, 1)
    with pytest.warns(UserWarning, match='deprecated since 2.5.0.*paddle.optimizer.LBFGS'):
        opt = oar.incubate.optimizer.LBFGS(learning_rate=0.5, parameters=layer.parameters())
    assert isinstance(opt, oar.optimizer.LBFGS)


A = np.array([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]])
B = np.array([1.0, -2.0, 0.5])


def _quadratic(fw, dtype):
    a, b = fw.to_tensor(A.astype(dtype)), fw.to_tensor(B.astype(dtype))
    return lambda x: 0.5 * fw.dot(x, fw.matmul(a, x)) - fw.dot(b, x)


def _rosenbrock(fw):
    return lambda x: fw.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@pytest.mark.host_only  # the custom_cpu test device has no eye kernel
def test_minimize_bfgs_and_lbfgs_find_the_optimum():
    from oar.incubate.optimizer.functional import minimize_bfgs, minimize_lbfgs
    opt = np.linalg.solve(A, B)
    x0 = T(np.ones(3))
    ok, calls, x, value, g, h = minimize_bfgs(_quadratic(oar, "float64"), x0, dtype="float64")
    assert bool(ok) and calls.dtype == oar.int64 and list(calls.shape) == [1] and ok.dtype == oar.bool
    np.testing.assert_allclose(x.numpy(), opt, atol=1e-7)
    np.testing.assert_allclose(value.numpy(), 0.5 * opt @ A @ opt - B @ opt, rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), h.numpy().T, atol=1e-12)  # Paddle's update keeps H symmetric
    assert calls.item() == 41  # Paddle 3.3.1: 41
    ok, calls, x, value, g = minimize_lbfgs(_quadratic(oar, "float64"), x0, dtype="float64")
    np.testing.assert_allclose(x.numpy(), opt, atol=1e-7)
    r0 = T(np.array([-1.2, 1.0, 0.5]))
    ok, calls, x, *_ = minimize_bfgs(_rosenbrock(oar), r0, dtype="float64", max_iters=100)
    assert not bool(ok) and calls.item() == 1217  # Paddle 3.3.1: False, 1217, and this x
    np.testing.assert_allclose(x.numpy(), [-0.9129373963744578, 0.9996134172880663, 1.1298814873802594], rtol=1e-8)
    ok, calls, x, *_ = minimize_lbfgs(_rosenbrock(oar), r0, dtype="float64", max_iters=50, history_size=30)
    assert bool(ok) and calls.item() == 98  # Paddle 3.3.1: True, 98
    np.testing.assert_allclose(x.numpy(), np.ones(3), atol=1e-6)
    ok, calls, x, *_ = minimize_lbfgs(_rosenbrock(oar), r0, dtype="float64", max_iters=6, history_size=4)
    assert calls.item() == 38  # Paddle 3.3.1: 38 (a ring of 4: the last 2 pairs)
    np.testing.assert_allclose(x.numpy(), [-0.550822654775425, 0.3152476212802881, 0.10358458143701978], rtol=1e-8)


@pytest.mark.host_only
def test_minimize_argument_errors():
    from oar.incubate.optimizer.functional import minimize_bfgs, minimize_lbfgs
    f = _quadratic(oar, "float32")
    x0 = T(np.ones(3, "float32"))
    with pytest.raises(ValueError, match="dtype must be 'float32' or 'float64'"):
        minimize_bfgs(f, x0, dtype="float16")
    with pytest.raises(ValueError, match="must be tensor"):
        minimize_lbfgs(f, [1.0, 1.0, 1.0])
    with pytest.raises(NotImplementedError, match="strong_wolfe"):
        minimize_bfgs(f, x0, line_search_fn="hager_zhang")
    with pytest.raises(ValueError, match="symmetric and positive definite"):
        minimize_bfgs(f, x0, initial_inverse_hessian_estimate=T(np.triu(np.ones((3, 3), "float32"))))
    with pytest.raises(ValueError, match="symmetric and positive definite"):
        minimize_lbfgs(f, x0, initial_inverse_hessian_estimate=T(-np.eye(3, dtype="float32")))
    ok, _, x, *_ = minimize_bfgs(f, x0, initial_inverse_hessian_estimate=T(0.5 * np.eye(3, dtype="float32")))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A, B), atol=1e-4)


@needs_paddle
def test_minimize_matches_paddle():
    paddle = _paddle()
    from paddle.incubate.optimizer.functional import minimize_bfgs as pb, minimize_lbfgs as pl

    from oar.incubate.optimizer.functional import minimize_bfgs as ob, minimize_lbfgs as ol
    x0 = np.array([-1.2, 1.0, 0.5])
    for ours, theirs, kw in ((ob, pb, dict(max_iters=100)), (ol, pl, dict(max_iters=40, history_size=30))):
        a = ours(_rosenbrock(oar), T(x0), dtype="float64", **kw)
        b = theirs(_rosenbrock(paddle), paddle.to_tensor(x0), dtype="float64", **kw)
        assert bool(a[0]) == bool(b[0]) and a[1].item() == b[1].item()
        np.testing.assert_allclose(a[2].numpy(), b[2].numpy(), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------- Tensor methods

def test_resize_():
    x = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    same = x.resize_([2, 2])
    assert same is x and x.numpy().tolist() == [[1, 2], [3, 4]]
    x.resize_([3, 3], fill_zero=True)
    assert x.numpy().tolist() == [[1, 2, 3], [4, 0, 0], [0, 0, 0]]
    x.resize_([0])
    assert x.shape == [0]
    y = T([1, 2, 3])
    y.resize_([5])  # grown elements: zeros (Paddle leaves them uninitialised)
    assert y.numpy().tolist()[:3] == [1, 2, 3] and y.shape == [5]
    with pytest.raises(ValueError, match="no less than 0"):
        T([1.0]).resize_([-1, 2])
    with pytest.raises(ValueError, match="list or tuple"):
        T([1.0]).resize_(3)
    w = T([1.0, 2.0])
    w.stop_gradient = False
    with pytest.raises(ValueError, match="inplace"):
        w.resize_([3])


def test_reconstruct_from_():
    x = T([1.0, 2.0, 3.0])
    other = T([5, 6], dtype="int32")
    assert x.reconstruct_from_(other) is None
    assert x.dtype == oar.int32 and x.numpy().tolist() == [5, 6]
    other[0] = 9
    assert x.numpy().tolist() == [9, 6]  # shares other's storage
    w = T([1.0, 2.0])
    w.stop_gradient = False
    z = T([0.0])
    z.reconstruct_from_(w * 2)  # takes other's history too (as Paddle)
    assert not z.stop_gradient
    (z * 1).sum().backward()
    assert w.grad.numpy().tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="must be Tensor"):
        x.reconstruct_from_(3)


def test_top_p_sampling():
    x = T([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    v, i = oar.tensor.top_p_sampling(x, T([0.5, 0.4]))
    assert i.numpy().ravel().tolist() == [1, 0] and np.allclose(v.numpy().ravel(), [0.6, 0.5])
    assert v.shape == [2, 1] and i.dtype == oar.int64
    probs = oar.nn.functional.softmax(T(rng.standard_normal((3, 50)).astype("float32")))
    p = probs.numpy()
    ps = T([0.3, 0.6, 0.9])
    for mode in ("truncated", "non-truncated"):
        seen = [set() for _ in range(3)]
        for s in range(60):
            v, i = probs.top_p_sampling(ps, seed=s, mode=mode)
            for r in range(3):
                seen[r].add(int(i.numpy()[r, 0]))
                assert np.isclose(v.numpy()[r, 0], p[r, i.numpy()[r, 0]])
        for r, top in enumerate((0.3, 0.6, 0.9)):
            order = np.argsort(-p[r], kind="stable")
            before = np.cumsum(p[r][order]) - p[r][order]
            nucleus = set(order[before < top].tolist())
            assert seen[r] <= nucleus and len(seen[r]) >= min(2, len(nucleus))
    a = probs.top_p_sampling(ps, seed=7)[1].numpy()
    b = probs.top_p_sampling(ps, seed=7)[1].numpy()
    np.testing.assert_array_equal(a, b)
    c = probs.top_p_sampling(ps, topp_seed=T([7, 8, 9]))[1].numpy()
    d = probs.top_p_sampling(ps, topp_seed=T([7, 8, 9]))[1].numpy()
    np.testing.assert_array_equal(c, d)
    thr = T([0.5, 0.5, 0.5])  # above every probability: falls back to the most probable token
    _, i = probs.top_p_sampling(T([0.99, 0.99, 0.99]), threshold=thr, seed=1)
    np.testing.assert_array_equal(i.numpy().ravel(), p.argmax(1))
    _, i = probs.top_p_sampling(T([0.99, 0.99, 0.99]), threshold=thr, seed=1, mode="non-truncated")
    np.testing.assert_array_equal(i.numpy().ravel(), p.argmax(1))
    out = probs.top_p_sampling(ps, k=4, return_top=True)
    assert len(out) == 4
    np.testing.assert_array_equal(out[3].numpy(), np.argsort(-p, axis=1, kind="stable")[:, :4])
    np.testing.assert_allclose(out[2].numpy(), -np.sort(-p, axis=1)[:, :4])
    with pytest.raises(ValueError, match="mode"):
        probs.top_p_sampling(ps, mode="greedy")
    with pytest.raises(ValueError, match="2-D"):
        oar.tensor.top_p_sampling(T([0.5, 0.5]), T([0.5]))
    with pytest.raises(ValueError, match="one top-p per row"):
        probs.top_p_sampling(T([0.5]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probs.top_p_sampling(ps)
