"""The device path end to end on the custom_cpu test plug-in (plugins/custom_cpu): a device type
with memory of its own and asynchronous streams, loaded through the plug-in ABI. What works here
works for every backend that registers the same kernels (the CUDA one included)."""
import os

import numpy as np
import pytest


import oar

# These place their data themselves.
pytestmark = pytest.mark.host_only


def _plugin_path():
    here = os.path.dirname(oar.__file__)
    for d in (here, os.path.join(os.path.dirname(__file__), "..", "..", "build", "release")):
        p = os.path.join(d, "liboar_custom_cpu.so")
        if os.path.exists(p):
            return p
    raise FileNotFoundError("liboar_custom_cpu.so is not installed beside oar nor in build/release")


@pytest.fixture(scope="module", autouse=True)
def custom_cpu():
    oar.device.load_custom_device(_plugin_path())
    yield
    oar.device.set_device("cpu")


DEV = "custom_cpu:0"


def on_dev(a, **kw):
    return oar.to_tensor(np.asarray(a), place=oar.CustomPlace("custom_cpu", 0), **kw)


def test_discovery_and_places():
    assert "custom_cpu" in oar.device.get_all_custom_device_type()
    assert oar.device.device_count("custom_cpu") == 2
    assert "custom_cpu:1" in oar.device.get_available_device()
    assert oar.device.is_compiled_with_custom_device("custom_cpu")
    p = oar.CustomPlace("custom_cpu", 1)
    assert repr(p) == "Place(custom_cpu:1)" and p.is_custom_place() and p.get_device_id() == 1
    x = on_dev([1.0, 2.0])
    assert x.place == oar.CustomPlace("custom_cpu", 0) and str(x.place) == "Place(custom_cpu:0)"
    assert "place=Place(custom_cpu:0)" in repr(x)
    assert x.get_device() == 0 and not x.is_cuda


def test_round_trip_and_host_reads():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = on_dev(a)
    np.testing.assert_array_equal(x.numpy(), a)
    assert x[1, 2].item() == 6.0
    assert x.tolist() == a.tolist()
    y = x.cpu()
    assert y.place == oar.CPUPlace()
    np.testing.assert_array_equal(y.numpy(), a)
    with pytest.raises(RuntimeError, match="lives on Place\\(custom_cpu:0\\)"):
        x.data_ptr()


def test_ops_run_on_the_device():
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((5,)).astype(np.float32)
    x, y = on_dev(a), on_dev(b)
    for got, want in [(x + y, a + b), (x * y, a * b), (x - y, a - b), (x / (y * y + 1), a / (b * b + 1)),
                      (oar.exp(x), np.exp(a)), (oar.nn.functional.relu(x), np.maximum(a, 0)),
                      (x.sum(axis=1), a.sum(1)), (x.mean(), a.mean()),
                      (oar.matmul(x, x.T), a @ a.T), (x * 2.5 + 1, a * 2.5 + 1),
                      (x.astype("float64"), a.astype(np.float64)), (x > 0, a > 0)]:
        assert got.place == oar.CustomPlace("custom_cpu", 0)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    # views are geometry only: a transpose then a reduction reads the strided view on the device
    np.testing.assert_allclose(x.T.sum(axis=0).numpy(), a.sum(1), rtol=1e-5)
    np.testing.assert_allclose(oar.nn.functional.softmax(x, axis=-1).numpy(),
                               np.exp(a) / np.exp(a).sum(-1, keepdims=True), rtol=1e-5)


def test_host_inputs_move_to_the_device_and_two_devices_refuse():
    x = on_dev([1.0, 2.0])
    h = oar.to_tensor([10.0, 20.0])
    r = x + h
    assert r.place == oar.CustomPlace("custom_cpu", 0)
    np.testing.assert_array_equal(r.numpy(), [11.0, 22.0])
    z = oar.to_tensor([1.0, 1.0], place=oar.CustomPlace("custom_cpu", 1))
    with pytest.raises(ValueError, match="different devices.*custom_cpu:0.*custom_cpu:1"):
        x + z


def test_missing_kernel_names_op_dtype_and_device():
    x = on_dev(np.ones((2, 2), np.float32))
    with pytest.raises(NotImplementedError, match="roll.*custom_cpu.*float32"):
        oar.roll(x, 1)  # custom_cpu has no roll kernel (the CUDA backend has one)
    with pytest.raises(NotImplementedError, match="custom_cpu"):
        oar.unique(x)  # its output's shape depends on the values, and it has no device path yet


def test_check_values_raises_from_the_device():
    # The kernel waits for ok's values, then refuses them with the message
    # (OAR_STATUS_INVALID_VALUE: a ValueError, as the host kernel raises); with every value true
    # it passes x through.
    from oar import _C
    x = on_dev(np.array([1.0, -2.0], np.float32))
    with pytest.raises(ValueError, match="x must be positive"):
        _C.check_values(x, x > 0, "x must be positive")
    y = _C.check_values(x, x > -5, "unused")
    assert y.place == oar.CustomPlace("custom_cpu", 0)
    np.testing.assert_array_equal(y.numpy(), [1.0, -2.0])


def test_set_device_and_creation_ops():
    try:
        assert oar.device.set_device("custom_cpu:1") == oar.CustomPlace("custom_cpu", 1)
        assert oar.device.get_device() == "custom_cpu:1"
        z = oar.zeros([2, 3])
        assert z.place == oar.CustomPlace("custom_cpu", 1)
        np.testing.assert_array_equal(z.numpy(), np.zeros((2, 3), np.float32))
        t = oar.to_tensor([1, 2])
        assert t.place == oar.CustomPlace("custom_cpu", 1) and t.dtype == oar.int64
        # random draws happen on the host (Philox) and land on the device: same numbers everywhere
        oar.seed(7)
        r_dev = oar.rand([3])
        assert r_dev.place == oar.CustomPlace("custom_cpu", 1)
    finally:
        oar.device.set_device("cpu")
    oar.seed(7)
    np.testing.assert_array_equal(r_dev.numpy(), oar.rand([3]).numpy())
    with pytest.raises(ValueError, match="set_device"):
        oar.device.set_device("custom_cpu:5")
    with pytest.raises(ValueError, match="set_device"):
        oar.device.set_device("nosuch:0")


def test_autograd_across_devices_matches_cpu():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 2)).astype(np.float32)

    def run(place):
        x = oar.to_tensor(a, place=place)
        wt = oar.to_tensor(w, place=place, stop_gradient=False)
        loss = (oar.nn.functional.relu(oar.matmul(x, wt)) ** 2).mean()
        loss.backward()
        return loss, wt.grad

    loss_d, g_d = run(oar.CustomPlace("custom_cpu", 0))
    loss_h, g_h = run(oar.CPUPlace())
    assert g_d.place == oar.CustomPlace("custom_cpu", 0)
    np.testing.assert_allclose(loss_d.numpy(), loss_h.numpy(), rtol=1e-5)
    np.testing.assert_allclose(g_d.numpy(), g_h.numpy(), rtol=1e-5, atol=1e-6)
    # a host leaf used on the device gets its gradient back on the host
    h = oar.to_tensor(a, stop_gradient=False)
    (h.to(DEV) * 3.0).sum().backward()
    assert h.grad.place == oar.CPUPlace()
    np.testing.assert_allclose(h.grad.numpy(), np.full_like(a, 3.0))


def test_training_loop_on_the_device_matches_cpu():
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    def train(place):
        oar.seed(11)
        model = oar.nn.Linear(3, 1)
        model.to(place)
        opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        x, y = oar.to_tensor(xs, place=place), oar.to_tensor(ys, place=place)
        for _ in range(30):
            loss = oar.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        return float(loss), model.weight.numpy()

    loss_d, w_d = train(oar.CustomPlace("custom_cpu", 0))
    loss_h, w_h = train(oar.CPUPlace())
    assert loss_d < 0.05
    np.testing.assert_allclose(loss_d, loss_h, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(w_d, w_h, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layer", ["BatchNorm1D", "BatchNorm2D"])
def test_batch_norm_training_updates_running_statistics_on_the_device(layer):
    # A backend kernel writes only its outputs, so the running statistics that the host kernel
    # updates in place are updated by ops after the device kernel (ops::batch_norm_on_device).
    rng = np.random.default_rng(5)
    shape = (8, 4) if layer == "BatchNorm1D" else (8, 4, 5, 5)
    xs = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)

    def run(place):
        oar.seed(3)
        bn = getattr(oar.nn, layer)(4, momentum=0.8)
        bn.to(place)
        x = oar.to_tensor(xs, place=place, stop_gradient=False)
        for _ in range(3):
            y = bn(x)
        y.sum().backward()
        bn.eval()
        ev = bn(x)
        return [t.numpy() for t in (y, x.grad, bn._mean, bn._variance, ev)]

    for d, h in zip(run(oar.CustomPlace("custom_cpu", 0)), run(oar.CPUPlace())):
        np.testing.assert_allclose(d, h, rtol=1e-5, atol=1e-5)


def test_advanced_indexing_on_the_device_matches_cpu():
    # Index tensors and masks are read on the host (they decide the result's shape); the rows are
    # gathered and written by the device's kernels (ops::index_tensor_on_device and friends).
    def run(place):
        x = oar.to_tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4), place=place, stop_gradient=False)
        i = oar.to_tensor(np.array([1, -1, 0]), place=place)
        m = oar.to_tensor(np.array([[True, False, True], [False, True, False]]), place=place)
        a, b, c = x[i], x[:, i], x[m]
        d = x[i, oar.to_tensor(np.array([0, 2, 1]), place=place)]
        (a.sum() + (b * b).sum() + c.sum() * 2 + d.sum()).backward()
        y = x.detach().clone()
        y[m] = 5.0
        z = x.detach().clone()
        z[i] = oar.to_tensor(np.ones(4, np.float32), place=place)
        w = oar.index_put(x.detach(), [i], oar.to_tensor(np.ones(4, np.float32), place=place), True)
        ms = oar.masked_select(x.detach(), x.detach() > 10)
        nz = oar.nonzero(x.detach() > 20)
        assert all(str(t.place) == str(place) for t in (a, c, y, w, ms, nz))
        return [t.numpy() for t in (a, b, c, d, x.grad, y, z, w, ms, nz)]

    for d, h in zip(run(oar.CustomPlace("custom_cpu", 0)), run(oar.CPUPlace())):
        np.testing.assert_array_equal(d, h)
    x = on_dev(np.zeros((3, 2), np.float32))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        x[oar.to_tensor(np.array([5]))]


def test_allocator_statistics_are_per_device():
    oar.device.synchronize(DEV)
    before = oar.device.memory_allocated(DEV)
    host_before = oar.device.memory_allocated("cpu")
    x = on_dev(np.zeros((256, 256), np.float32))
    assert oar.device.memory_allocated(DEV) - before >= 256 * 256 * 4
    assert oar.device.max_memory_allocated(DEV) >= oar.device.memory_allocated(DEV)
    del x
    assert oar.device.memory_allocated(DEV) == before
    assert oar.device.memory_reserved(DEV) >= 256 * 256 * 4  # cached for reuse
    oar.device.empty_cache(DEV)
    assert oar.device.memory_reserved(DEV) == oar.device.memory_allocated(DEV)
    assert abs(oar.device.memory_allocated("cpu") - host_before) < 256 * 256 * 4


def test_streams_and_events_order_work():
    s = oar.device.Stream(DEV)
    e = oar.device.Event(DEV)
    x = on_dev(np.ones((64, 64), np.float32))
    with oar.device.stream_guard(s):
        assert oar.device.current_stream(DEV) == s
        y = x * 2.0
        e.record(s)
    e.synchronize()
    assert e.query()
    s.synchronize()
    np.testing.assert_array_equal(y.numpy(), np.full((64, 64), 2.0, np.float32))
    assert oar.device.current_stream(DEV) != s
    # another stream waits for s's work through an event before reading its result
    s2 = oar.device.Stream(DEV)
    with oar.device.stream_guard(s):
        z = y + 1.0
    s2.wait_stream(s)
    with oar.device.stream_guard(s2):
        w = z * 3.0
    np.testing.assert_array_equal(w.numpy(), np.full((64, 64), 9.0, np.float32))
    oar.device.synchronize(DEV)


def test_in_place_writes_and_setitem_on_the_device():
    x = on_dev(np.zeros((3, 4), np.float32))
    x[1] = 5.0
    x.add_(on_dev(np.ones((3, 4), np.float32)))
    want = np.ones((3, 4), np.float32)
    want[1] = 6.0
    np.testing.assert_array_equal(x.numpy(), want)
    assert x.place == oar.CustomPlace("custom_cpu", 0)


def test_tensor_to_forms():
    x = oar.to_tensor([1.0, 2.0])
    d = x.to(DEV)
    assert d.place == oar.CustomPlace("custom_cpu", 0)
    assert x.to(oar.CPUPlace()) is x
    d64 = x.to(DEV, "float64")
    assert d64.dtype == oar.float64 and d64.place == oar.CustomPlace("custom_cpu", 0)
    assert d.to("cpu").place == oar.CPUPlace()
    like = oar.to_tensor([0], place=oar.CustomPlace("custom_cpu", 1))
    assert x.to(like).place == oar.CustomPlace("custom_cpu", 1) and x.to(like).dtype == oar.int64


def _affine_program(w):
    """A static program: softmax(x @ w + 1) over feeds x[-1, 3], with w captured as a weight."""
    from oar import static
    main = static.Program()
    oar.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [None, 3], "float32")
            y = oar.nn.functional.softmax(oar.matmul(x, oar.to_tensor(w)) + 1.0, axis=-1)
    finally:
        oar.disable_static()
    return main, y


def test_static_executor_runs_on_its_place():
    from oar import static
    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    xs = rng.standard_normal((6, 3)).astype(np.float32)
    main, y = _affine_program(w)
    want, = static.Executor(oar.CPUPlace()).run(main, feed={"x": xs}, fetch_list=[y])
    exe = static.Executor(oar.CustomPlace("custom_cpu", 0))
    out, = exe.run(main, feed={"x": xs}, fetch_list=[y], return_numpy=False)
    assert out.place == oar.CustomPlace("custom_cpu", 0)  # computed there, fetched from there
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
    # A feed already on another device is moved to the executor's place.
    out, = exe.run(main, feed={"x": on_dev(xs)}, fetch_list=[y])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    # Executor(None) is the expected place, as in Paddle.
    oar.device.set_device(DEV)
    try:
        out, = static.Executor().run(main, feed={"x": xs}, fetch_list=[y], return_numpy=False)
    finally:
        oar.device.set_device("cpu")
    assert out.place == oar.CustomPlace("custom_cpu", 0)


def test_static_executor_has_no_host_fallback():
    from oar import static
    main = static.Program()
    oar.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            x = static.data("x", [2], "float32")
            y = oar.roll(x, 1)  # custom_cpu has no roll kernel
    finally:
        oar.disable_static()
    exe = static.Executor(oar.CustomPlace("custom_cpu", 0))
    with pytest.raises(NotImplementedError, match="roll.*custom_cpu"):
        exe.run(main, feed={"x": np.array([0.1, 0.2], np.float32)}, fetch_list=[y])


def test_to_static_layer_runs_where_its_inputs_are():
    oar.seed(3)
    model = oar.nn.Sequential(oar.nn.Linear(3, 5), oar.nn.ReLU(), oar.nn.Linear(5, 2))
    model.to(oar.CustomPlace("custom_cpu", 0))
    xs = np.random.default_rng(6).standard_normal((4, 3)).astype(np.float32)
    eager = model(on_dev(xs))
    eager.sum().backward()
    want_grad = model[0].weight.grad.numpy()
    model.clear_gradients()
    static_model = oar.jit.to_static(model)
    out = static_model(on_dev(xs))
    assert out.place == oar.CustomPlace("custom_cpu", 0)
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
    out.sum().backward()  # through the program, back to the device weights
    assert model[0].weight.grad.place == oar.CustomPlace("custom_cpu", 0)
    np.testing.assert_allclose(model[0].weight.grad.numpy(), want_grad, rtol=1e-5, atol=1e-6)


def _predict(config, xs):
    predictor = oar.inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.copy_from_cpu(xs)
    predictor.run()
    return predictor, predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()


def test_predictor_runs_on_a_custom_device(tmp_path):
    from oar.static import InputSpec
    oar.seed(8)
    net = oar.nn.Sequential(oar.nn.Linear(16, 64), oar.nn.ReLU(), oar.nn.Linear(64, 10), oar.nn.Softmax())
    net.eval()
    prefix = str(tmp_path / "mlp")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 16], "float32", "x")])
    xs = np.random.default_rng(9).standard_normal((5, 16)).astype(np.float32)
    _, want = _predict(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"), xs)

    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.enable_custom_device("custom_cpu", 0)
    assert config.use_custom_device() and config.custom_device_type() == "custom_cpu"
    assert config.custom_device_id() == 0 and not config.use_gpu()
    oar.device.synchronize(DEV)
    before = oar.device.memory_allocated(DEV)
    predictor, got = _predict(config, xs)
    # The weights (16*64 + 64 + 64*10 + 10 floats) moved to the device once, when it was made.
    assert oar.device.memory_allocated(DEV) - before >= (16 * 64 + 64 + 64 * 10 + 10) * 4
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # A second run and a clone give the same.
    predictor.run()
    np.testing.assert_allclose(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu(), want,
                               rtol=1e-5, atol=1e-6)

    absent = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    absent.enable_custom_device("custom_cpu", 7)
    with pytest.raises(ValueError, match="custom_cpu:7.*not available"):
        oar.inference.create_predictor(absent)


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_static_training_on_the_device_matches_cpu(optimizer):
    from oar import static
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)

    def train(place):
        oar.seed(11)
        main, startup = static.Program(), static.Program()
        oar.enable_static()
        try:
            with static.program_guard(main, startup):
                x = static.data("x", [None, 3], "float32")
                y = static.data("y", [None, 1], "float32")
                model = oar.nn.Linear(3, 1)
                loss = oar.nn.functional.mse_loss(model(x), y)
                getattr(oar.optimizer, optimizer)(learning_rate=0.1, parameters=model.parameters()).minimize(loss)
        finally:
            oar.disable_static()
        exe = static.Executor(place)
        exe.run(startup)
        for _ in range(20):
            out, = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])
        return float(out), model.weight

    loss_h, w_h = train(oar.CPUPlace())
    loss_d, w_d = train(oar.CustomPlace("custom_cpu", 0))
    # The weights moved to the executor's place (as Paddle's scope keeps them) and trained there.
    assert w_d.place == oar.CustomPlace("custom_cpu", 0) and w_h.place == oar.CPUPlace()
    assert loss_d < 0.5
    np.testing.assert_allclose(loss_d, loss_h, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(w_d.numpy(), w_h.numpy(), rtol=1e-4, atol=1e-5)


def test_dlpack_shares_device_memory():
    x = on_dev(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.__dlpack_device__() == (12, 0)  # DLPack's extension device, device 0
    y = oar.utils.dlpack.from_dlpack(oar.utils.dlpack.to_dlpack(x))
    assert y.place == oar.CustomPlace("custom_cpu", 0)
    x.add_(on_dev(np.ones((2, 3), np.float32)))  # written through x, seen through y: no copy
    np.testing.assert_array_equal(y.numpy(), np.arange(6).reshape(2, 3) + 1)
    # A strided view keeps its strides (no contiguous copy on the way).
    t = oar.utils.dlpack.from_dlpack(x.t())
    assert t.place == x.place and t.shape == [3, 2]
    np.testing.assert_array_equal(t.numpy(), (np.arange(6).reshape(2, 3) + 1).T)
    # Host tensors still share with NumPy both ways.
    h = oar.to_tensor([1.0, 2.0])
    assert h.__dlpack_device__() == (1, 0)
    assert np.from_dlpack(h).__array_interface__["data"][0] == h.data_ptr()
    back = oar.utils.dlpack.from_dlpack(h)  # numpy() copies (as Paddle's); DLPack is the zero-copy way
    assert back.place == oar.CPUPlace() and back.data_ptr() == h.data_ptr()


@pytest.mark.parametrize("num_workers", [0, 2])
def test_dataloader_batches_arrive_on_the_loader_place(num_workers):
    xs = np.arange(24, dtype=np.float32).reshape(8, 3)
    ds = oar.io.TensorDataset([oar.to_tensor(xs), oar.to_tensor(np.arange(8))])
    oar.device.set_device(DEV)
    try:
        loader = oar.io.DataLoader(ds, batch_size=4, num_workers=num_workers)  # the expected place
    finally:
        oar.device.set_device("cpu")
    batches = list(loader)
    assert len(batches) == 2
    for k, (x, y) in enumerate(batches):
        assert x.place == oar.CustomPlace("custom_cpu", 0) and y.place == x.place
        np.testing.assert_array_equal(x.numpy(), xs[4 * k:4 * k + 4])
    host = oar.io.DataLoader(ds, batch_size=4, num_workers=num_workers, places=oar.CPUPlace())
    assert all(x.place == oar.CPUPlace() for x, _ in host)
    dev1 = oar.io.DataLoader(ds, batch_size=4, num_workers=num_workers, places=[oar.CustomPlace("custom_cpu", 1)])
    assert all(x.place == oar.CustomPlace("custom_cpu", 1) for x, _ in dev1)
# Every optimizer with options that change its rule; each trains on the device (its
# _update_on_device, written with ops) and on the host (its fused C++ kernel) from the same start.
_OPTIMIZER_CASES = [
    ("SGD", dict(learning_rate=0.1)),
    ("SGD", dict(learning_rate=0.1, weight_decay=oar.regularizer.L1Decay(0.01))),
    ("Momentum", dict(learning_rate=0.05, momentum=0.9, weight_decay=0.01)),
    ("Momentum", dict(learning_rate=0.05, momentum=0.9, use_nesterov=True, rescale_grad=0.5)),
    ("Adam", dict(learning_rate=0.1)),
    ("Adam", dict(learning_rate=0.1, amsgrad=True, weight_decay=0.01)),
    ("AdamW", dict(learning_rate=0.1, weight_decay=0.05)),
    ("AdamW", dict(learning_rate=0.1, weight_decay=0.05, amsgrad=True,
                   grad_clip=oar.nn.ClipGradByGlobalNorm(0.5))),
    ("Adagrad", dict(learning_rate=0.3)),
    ("Adagrad", dict(learning_rate=0.3, initial_accumulator_value=0.1, weight_decay=0.01)),
    ("RMSProp", dict(learning_rate=0.02)),
    ("RMSProp", dict(learning_rate=0.02, momentum=0.5)),
    ("RMSProp", dict(learning_rate=0.02, centered=True, weight_decay=0.01)),
    ("RMSProp", dict(learning_rate=0.01, centered=True, momentum=0.5,
                     grad_clip=oar.nn.ClipGradByGlobalNorm(1.0))),
    ("Adadelta", dict(learning_rate=1.0)),
    ("Adadelta", dict(learning_rate=1.0, rho=0.9, weight_decay=0.01)),
    ("Adamax", dict(learning_rate=0.1)),
    ("Adamax", dict(learning_rate=0.1, weight_decay=0.01)),
    ("Lamb", dict(learning_rate=0.1)),
    ("Lamb", dict(learning_rate=0.1, lamb_weight_decay=0.0)),
    ("Lamb", dict(learning_rate=0.1, lamb_weight_decay=0.0, always_adapt=True)),
    ("Lamb", dict(learning_rate=0.1, exclude_from_weight_decay_fn=lambda p: p.name.endswith("b_0"))),
    ("NAdam", dict(learning_rate=0.1)),
    ("NAdam", dict(learning_rate=0.1, momentum_decay=0.01, weight_decay=0.01)),
    ("RAdam", dict(learning_rate=0.1)),  # rectified from step 6 on
    ("RAdam", dict(learning_rate=0.1, beta2=0.9, weight_decay=0.01)),
    ("ASGD", dict(learning_rate=0.1)),
    ("ASGD", dict(learning_rate=0.1, batch_num=3, weight_decay=0.01)),
    ("Rprop", dict(learning_rate=0.01)),
    ("Rprop", dict(learning_rate=0.01, etas=(0.3, 1.5), learning_rate_range=(1e-3, 0.05))),
]


def _case_id(case):
    name, kw = case

    def shown(v):
        if isinstance(v, oar.regularizer.WeightDecayRegularizer):
            return f"{type(v).__name__}({v._coeff})"
        if isinstance(v, oar.nn.ClipGradByGlobalNorm):
            return "global_norm"
        return "fn" if callable(v) else str(v)
    return "-".join([name] + [f"{k}={shown(v)}" for k, v in kw.items() if k != "learning_rate"])


def _linear_data():
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((64, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return xs, ys


@pytest.mark.parametrize("case", _OPTIMIZER_CASES, ids=[_case_id(c) for c in _OPTIMIZER_CASES])
def test_optimizer_on_the_device_matches_its_host_kernel(case):
    name, kw = case
    xs, ys = _linear_data()

    def train(place):
        oar.seed(11)
        model = oar.nn.Linear(3, 1)
        model.to(place)
        opt = getattr(oar.optimizer, name)(parameters=model.parameters(), **kw)
        x, y = oar.to_tensor(xs, place=place), oar.to_tensor(ys, place=place)
        losses = []
        for _ in range(20):
            loss = oar.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        states = [v for k, v in opt.state_dict().items() if k not in ("LR_Scheduler", "master_weights")]
        assert all(s.place == place for s in states)  # states live beside their parameters
        return losses, [model.weight.numpy(), model.bias.numpy()], [s.numpy() for s in states]

    loss_d, params_d, states_d = train(oar.CustomPlace("custom_cpu", 0))
    loss_h, params_h, states_h = train(oar.CPUPlace())
    assert loss_h[-1] < loss_h[0] and loss_d[-1] < loss_d[0]
    np.testing.assert_allclose(loss_d, loss_h, rtol=1e-5, atol=1e-7)
    for got, want in zip(params_d, params_h):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert len(states_d) == len(states_h)
    for got, want in zip(states_d, states_h):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


# ---- fused optimizer kernels (plugins/custom_cpu/optimizer.cc) ----
# The device path launches one optimizer_sgd / optimizer_momentum / optimizer_adam per parameter;
# custom_cpu's arithmetic is the host kernel's, so parameters, states and masters agree bit for
# bit with the CPU over several steps.

_FUSED_CASES = [
    ("SGD", dict(learning_rate=0.1)),
    ("SGD", dict(learning_rate=0.1, weight_decay=0.05)),
    ("SGD", dict(learning_rate=0.1, weight_decay=oar.regularizer.L1Decay(0.02))),
    ("SGD", dict(learning_rate=0.1, grad_clip=oar.nn.ClipGradByNorm(0.5))),
    ("Momentum", dict(learning_rate=0.1)),
    ("Momentum", dict(learning_rate=0.1, use_nesterov=True, weight_decay=0.05, rescale_grad=0.5)),
    ("Momentum", dict(learning_rate=0.1, weight_decay=oar.regularizer.L1Decay(0.02),
                      grad_clip=oar.nn.ClipGradByGlobalNorm(0.5))),
    ("Adam", dict(learning_rate=0.1)),
    ("Adam", dict(learning_rate=0.1, weight_decay=0.05, amsgrad=True)),
    ("Adam", dict(learning_rate=0.1, beta1=0.8, beta2=0.95, epsilon=1e-6,
                  weight_decay=oar.regularizer.L1Decay(0.02), grad_clip=oar.nn.ClipGradByNorm(0.5))),
    ("AdamW", dict(learning_rate=0.1)),
    ("AdamW", dict(learning_rate=0.1, weight_decay=0.1, amsgrad=True,
                   apply_decay_param_fun=lambda n: n.endswith("w"), lr_ratio=lambda p: 0.5)),
    ("AdamW", dict(learning_rate=0.1, grad_clip=oar.nn.ClipGradByGlobalNorm(0.5))),
]


def _fused_train(place, name, kw, dtype, multi_precision, steps=4):
    """`steps` updates of three parameters (two groups, the second with its own learning rate
    and decay, and a learning-rate scheduler) from gradients that are exact on every place (d/dp sum(p * c) = c). Returns the
    parameters, states and master weights as numpy arrays."""
    rng = np.random.default_rng(7)
    shapes = {"w": [9, 7], "b": [5], "v": [3]}
    params = {}
    for key, shape in shapes.items():
        p = oar.to_tensor(rng.standard_normal(shape).astype(np.float32), place=place).astype(dtype)
        p.stop_gradient = False
        p.name = f"fused_{key}"
        params[key] = p
    kw = dict(kw)
    scheduler = oar.optimizer.lr.StepDecay(learning_rate=kw.pop("learning_rate"), step_size=2, gamma=0.5)
    groups = [{"params": [params["w"], params["b"]]},
              {"params": [params["v"]], "learning_rate": 0.5,
               "weight_decay": 0.01 if name != "AdamW" else 0.2}]
    opt = getattr(oar.optimizer, name)(learning_rate=scheduler, parameters=groups,
                                       multi_precision=multi_precision, **kw)
    for _ in range(steps):
        loss = None
        for key, p in params.items():
            c = oar.to_tensor(rng.standard_normal(shapes[key]).astype(np.float32), place=place).astype(dtype)
            term = (p * c).sum()
            loss = term if loss is None else loss + term
        loss.backward()
        opt.step()
        opt.clear_grad()
        scheduler.step()

    def arr(t):
        return t.astype("float32").numpy() if t.dtype.name in ("float16", "bfloat16") else t.numpy()

    def stem(n):  # state names without their counters, which differ between the two runs
        return "_".join(part for part in n.split("_") if not part.isdigit())
    out = {k: arr(p) for k, p in params.items()}
    for k, v in opt.state_dict().items():
        if k == "master_weights":
            out.update({"master/" + n: m.numpy() for n, m in v.items()})
        elif k != "LR_Scheduler":
            out[stem(k)] = arr(v)
    return out


@pytest.mark.parametrize("dtype,multi_precision", [("float32", False), ("float64", False),
                                                   ("bfloat16", True), ("float16", True),
                                                   ("bfloat16", False)])
@pytest.mark.parametrize("case", _FUSED_CASES, ids=[_case_id(c) for c in _FUSED_CASES])
def test_fused_optimizer_kernel_matches_the_host_kernel(case, dtype, multi_precision, monkeypatch):
    name, kw = case
    launched = []
    real = oar._C._launch_kernel

    def counting(op, *args):
        launched.append(op)
        return real(op, *args)
    monkeypatch.setattr(oar._C, "_launch_kernel", counting)
    # The op-by-op rule must not run where the backend has the fused kernel.
    monkeypatch.setattr(oar.optimizer.Optimizer, "_device_grads",
                        staticmethod(lambda *a, **k: pytest.fail("the op-by-op update ran")))
    got = _fused_train(oar.CustomPlace("custom_cpu", 0), name, kw, dtype, multi_precision)
    op = {"SGD": "optimizer_sgd", "Momentum": "optimizer_momentum"}.get(name, "optimizer_adam")
    assert launched == [op] * (4 * 3)  # one launch per parameter per step
    assert oar._C._has_kernel(op, DEV, dtype)
    launched.clear()
    want = _fused_train(oar.CPUPlace(), name, kw, dtype, multi_precision)
    assert not launched
    assert sorted(got) == sorted(want)
    if multi_precision:
        assert any(k.startswith("master/") for k in got)
    # The same arithmetic in the same order, but whether the compiler fuses a multiply and an add
    # (FMA contraction) depends on each library's flags (a sanitizer build compiles oar at -O0 and
    # the plug-in optimised), so agreement is to the rounding of the stored dtype.
    for k in want:
        stored = dtype if k in ("w", "b", "v") or not multi_precision else "float32"
        if "grad_clip" in kw and dtype == "float64":
            rtol = 1e-13  # the clip factor comes from a norm the device reduces in another order
        else:
            # a few units in the last place, accumulated over the steps
            rtol = {"float64": 1e-14, "float32": 2e-6, "bfloat16": 8e-3, "float16": 1e-3}[stored]
        np.testing.assert_allclose(got[k], want[k], rtol=rtol, atol=rtol * 0.1, err_msg=k)


def test_fused_optimizer_kernel_direct_launch():
    """_launch_kernel with the documented contract: in place, absent optionals as None, and the
    beta powers advanced after the update has read them."""
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal(6).astype(np.float32)
    g0 = rng.standard_normal(6).astype(np.float32)
    p, g = on_dev(w0), on_dev(g0)
    m1, m2 = on_dev(np.zeros(6, np.float32)), on_dev(np.zeros(6, np.float32))
    b1p, b2p = on_dev(np.array([0.9], np.float32)), on_dev(np.array([0.999], np.float32))
    attrs = dict(lr=0.1, l1=0.0, l2=0.0, grad_scale=1.0, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 decoupled_decay=0.0)
    v1 = p._version
    oar._C._launch_kernel("optimizer_adam", [p, g, m1, m2, None, None, b1p, b2p], attrs,
                          [p, m1, m2, None, None, b1p, b2p])
    hp, hg = oar.to_tensor(w0), oar.to_tensor(g0)
    hm1, hm2 = oar.zeros([6]), oar.zeros([6])
    hb1, hb2 = oar.to_tensor([0.9]), oar.to_tensor([0.999])
    oar._C._optim_adam([hp], [hg], [[hm1], [hm2]], [None], [0.1], [0.0], [0.0], [],
                       beta1_pow=[hb1], beta2_pow=[hb2], beta1=0.9, beta2=0.999, epsilon=1e-8,
                       amsgrad=False, decay=[])
    for d, h in ((p, hp), (m1, hm1), (m2, hm2), (b1p, hb1), (b2p, hb2)):
        np.testing.assert_array_equal(d.numpy(), h.numpy())
    assert p._version > v1  # written in place
    assert not oar._C._has_kernel("optimizer_adam", DEV, "int32")
    assert not oar._C._has_kernel("optimizer_adam", "cpu", "float32")
    with pytest.raises(OSError, match="'lr' is missing"):  # the kernel's own check
        oar._C._launch_kernel("optimizer_sgd", [p, g, None], {}, [p, None])
    with pytest.raises((ValueError, RuntimeError), match="device"):
        oar._C._launch_kernel("optimizer_sgd", [hp, hg, None], {"lr": 0.1}, [hp, None])


def test_fused_optimizer_falls_back_to_ops_without_the_kernel(monkeypatch):
    """A backend without the fused kernel (has_kernel false) keeps the op-by-op update."""
    monkeypatch.setattr(oar._C, "_has_kernel", lambda *a: False)
    launched = []
    monkeypatch.setattr(oar._C, "_launch_kernel", lambda *a: launched.append(a))
    got = _fused_train(oar.CustomPlace("custom_cpu", 0), "Adam", dict(learning_rate=0.1), "float32", False)
    want = _fused_train(oar.CPUPlace(), "Adam", dict(learning_rate=0.1), "float32", False)
    assert not launched
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_lbfgs_on_the_device_matches_cpu():
    xs, ys = _linear_data()

    def train(place):
        oar.seed(11)
        model = oar.nn.Linear(3, 1)
        model.to(place)
        opt = oar.optimizer.LBFGS(learning_rate=1.0, max_iter=5, parameters=model.parameters(),
                                  line_search_fn="strong_wolfe")
        x, y = oar.to_tensor(xs, place=place), oar.to_tensor(ys, place=place)

        def closure():
            opt.clear_grad()
            loss = oar.nn.functional.mse_loss(model(x), y)
            loss.backward()
            return loss
        for _ in range(2):
            opt.step(closure)
        return float(closure()), model.weight.numpy()

    loss_d, w_d = train(oar.CustomPlace("custom_cpu", 0))
    loss_h, w_h = train(oar.CPUPlace())
    assert loss_d < 1e-3
    np.testing.assert_allclose(loss_d, loss_h, rtol=1e-3, atol=1e-7)
    np.testing.assert_allclose(w_d, w_h, rtol=1e-4, atol=1e-5)


def test_optimizer_without_a_device_path_names_what_to_write():
    class HostOnly(oar.optimizer.Optimizer):
        def __init__(self, parameters):
            super().__init__(0.1, parameters)
            self._finish_groups()

        def _update(self, batch, opts, group):
            oar._C._optim_sgd(*oar.optimizer._checks.batch_args(batch))

    w = oar.nn.Parameter(on_dev([1.0, -2.0]))
    opt = HostOnly([w])
    (w * w).sum().backward()
    with pytest.raises(NotImplementedError,
                       match=r"HostOnly\.step: parameters on Place\(custom_cpu:0\) need "
                             r"HostOnly\._update_on_device"):
        opt.step()


@pytest.mark.parametrize("cls,kw,lengths", [
    ("LSTM", {}, True), ("GRU", {}, True), ("SimpleRNN", {}, True), ("SimpleRNN", {"activation": "relu"}, True),
    ("LSTM", {"proj_size": 3}, False), ("GRU", {"time_major": True}, False),
])
def test_rnn_layers_train_on_the_device_match_cpu(cls, kw, lengths):
    # The fused recurrent layer runs as the backend's rnn_layer kernel and its backward through
    # time as the backend's rnn_layer_grad kernel (no host kernel reads device memory).
    rng = np.random.default_rng(6)
    xs = rng.standard_normal((4, 6, 3)).astype(np.float32)
    lens = np.array([6, 2, 5, 4], np.int64)

    def run(place):
        oar.seed(2)
        net = getattr(oar.nn, cls)(3, 5, num_layers=2, direction="bidirect", **kw)
        net.to(place)
        x = oar.to_tensor(xs, place=place, stop_gradient=False)
        seq = oar.to_tensor(lens, place=place) if lengths else None
        out, st = net(x, sequence_length=seq)
        states = list(st) if isinstance(st, tuple) else [st]
        ((out * out).sum() + sum((s * s).sum() for s in states)).backward()  # through out and the last states
        assert x.grad.place == place and all(p.grad.place == place for p in net.parameters())
        return [t.numpy() for t in [out, *states, x.grad] + [p.grad for p in net.parameters()]]

    for d, h in zip(run(oar.CustomPlace("custom_cpu", 0)), run(oar.CPUPlace())):
        np.testing.assert_allclose(d, h, rtol=1e-4, atol=1e-5)


def test_device_properties_through_the_abi():
    # custom_cpu reports its properties through the ABI's device_properties; the CUDA module's
    # names need a GPU and say so, as Paddle's CPU build does.
    from oar import _C
    name, major, minor, total, sms = _C._device_properties("custom_cpu:0")
    assert name.startswith("custom_cpu")
    assert (major, minor) == (0, 0) and total == 8 << 30 and sms == 1
    if oar.device.cuda.device_count() == 0:
        for fn in ("get_device_properties", "get_device_capability", "get_device_name"):
            with pytest.raises(ValueError, match="needs a GPU"):
                getattr(oar.device.cuda, fn)()


# ---- fused normalisation gradients (plugins/custom_cpu/norm_grad.cc) --------------------------

def _bn_grad_reference(x, w, m, r, g, use_batch_stats, axis):
    """batch_norm_grad in float64: (dx, dweight, dbias) with the given saved statistics."""
    axis = axis % x.ndim
    red = tuple(d for d in range(x.ndim) if d != axis)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    x, g = x.astype(np.float64), g.astype(np.float64)
    m, r = m.astype(np.float64).reshape(shape), r.astype(np.float64).reshape(shape)
    h = (x - m) * r
    sg, sgh = g.sum(axis=red), (g * h).sum(axis=red)
    k = r * (1.0 if w is None else w.astype(np.float64).reshape(shape))
    if use_batch_stats and x.size:
        count = x.size // x.shape[axis]
        dx = k * (g - sg.reshape(shape) / count - h * sgh.reshape(shape) / count)
    else:
        dx = k * g
    return dx, sgh, sg


def _ln_grad_reference(x, w, m, r, g, begin):
    """layer_norm_grad in float64."""
    rows, n = int(np.prod(x.shape[:begin])), int(np.prod(x.shape[begin:]))
    x2 = x.astype(np.float64).reshape(rows, n)
    g2 = g.astype(np.float64).reshape(rows, n)
    h = (x2 - m.astype(np.float64)[:, None]) * r.astype(np.float64)[:, None]
    gw = g2 * (1.0 if w is None else w.astype(np.float64).reshape(1, -1))
    dx = r.astype(np.float64)[:, None] * (gw - gw.mean(1, keepdims=True) - h * (gw * h).mean(1, keepdims=True))
    return dx.reshape(x.shape), (g2 * h).sum(0), g2.sum(0)


def _launch_norm_grad(op, dtype, ins, attrs, out_shapes):
    dev = [None if a is None else on_dev(a.astype(dtype)) for a in ins]
    outs = [oar.empty(list(s), dtype=dtype).to(DEV) for s in out_shapes]
    oar._C._launch_kernel(op, dev, attrs, outs)
    return [o.numpy() for o in outs]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axis", [((4, 3, 5, 6), 1), ((4, 5, 6, 3), -1), ((16, 7), 1), ((2, 3, 4, 5), 2),
                                        ((0, 4, 3), 1)])
@pytest.mark.parametrize("weight", [True, False])
@pytest.mark.parametrize("use_batch_stats", [True, False])
def test_batch_norm_grad_kernel_matches_a_reference(dtype, shape, axis, weight, use_batch_stats):
    # The fused kernel the batch_norm gradient launches on a device, called directly.
    rng = np.random.default_rng(12)
    C = shape[axis]
    x = rng.uniform(-2, 3, shape).astype(dtype)
    g = rng.uniform(-1, 1, shape).astype(dtype)
    w = rng.uniform(0.5, 1.5, (C,)).astype(dtype) if weight else None
    red = tuple(d for d in range(len(shape)) if d != axis % len(shape))
    if use_batch_stats and x.size:
        m = x.astype(np.float64).mean(axis=red)
        r = 1 / np.sqrt(x.astype(np.float64).var(axis=red) + 1e-5)
    else:
        m, r = rng.uniform(-0.5, 0.5, (C,)), rng.uniform(0.5, 2.0, (C,))
    m, r = m.astype(dtype), r.astype(dtype)
    got = _launch_norm_grad("batch_norm_grad", dtype, [x, w, m, r, g],
                            {"use_batch_stats": use_batch_stats, "channel_axis": axis}, [shape, (C,), (C,)])
    want = _bn_grad_reference(x, w, m, r, g, use_batch_stats, axis)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-11, atol=1e-11)
    for name, a, b in zip(["dx", "dweight", "dbias"], got, want):
        np.testing.assert_allclose(a, b, err_msg=name, **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,begin", [((4, 5, 6), 2), ((4, 5, 6), 1), ((3, 700), 1), ((0, 8), 1)])
@pytest.mark.parametrize("weight", [True, False])
def test_layer_norm_grad_kernel_matches_a_reference(dtype, shape, begin, weight):
    rng = np.random.default_rng(13)
    rows, n = int(np.prod(shape[:begin])), int(np.prod(shape[begin:]))
    x = rng.uniform(-2, 3, shape).astype(dtype)
    g = rng.uniform(-1, 1, shape).astype(dtype)
    w = rng.uniform(0.5, 1.5, (n,)).astype(dtype) if weight else None
    x2 = x.astype(np.float64).reshape(rows, n)
    m = x2.mean(1).astype(dtype)
    r = (1 / np.sqrt(x2.var(1) + 1e-5)).astype(dtype)
    got = _launch_norm_grad("layer_norm_grad", dtype, [x, w, m, r, g], {"begin_norm_axis": begin},
                            [shape, (n,), (n,)])
    want = _ln_grad_reference(x, w, m, r, g, begin)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-11, atol=1e-11)
    for name, a, b in zip(["dx", "dweight", "dbias"], got, want):
        np.testing.assert_allclose(a, b, err_msg=name, **tol)  # no rows: dweight, dbias 0


def test_norm_grad_kernels_leave_unwanted_outputs_absent():
    rng = np.random.default_rng(14)
    x, g = rng.standard_normal((6, 4, 3)).astype(np.float32), rng.standard_normal((6, 4, 3)).astype(np.float32)
    m, r = np.zeros(4, np.float32), np.ones(4, np.float32)
    dx = oar.empty([6, 4, 3], dtype="float32").to(DEV)
    oar._C._launch_kernel("batch_norm_grad", [on_dev(x), None, on_dev(m), on_dev(r), on_dev(g)],
                          {"use_batch_stats": True, "channel_axis": 1}, [dx, None, None])
    want = _bn_grad_reference(x, None, m, r, g, True, 1)[0]
    np.testing.assert_allclose(dx.numpy(), want, rtol=1e-5, atol=1e-5)
    lm, lr = np.zeros(6, np.float32), np.ones(6, np.float32)
    dx = oar.empty([6, 4, 3], dtype="float32").to(DEV)
    db = oar.empty([12], dtype="float32").to(DEV)
    oar._C._launch_kernel("layer_norm_grad", [on_dev(x), None, on_dev(lm), on_dev(lr), on_dev(g)],
                          {"begin_norm_axis": 1}, [dx, None, db])
    want = _ln_grad_reference(x, None, lm, lr, g, 1)
    np.testing.assert_allclose(dx.numpy(), want[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(db.numpy(), want[2], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layer,args,kw,shape", [
    ("BatchNorm1D", (4,), {}, (8, 4)),
    ("BatchNorm1D", (4,), {}, (8, 4, 6)),
    ("BatchNorm2D", (3,), {}, (6, 3, 5, 4)),
    ("BatchNorm2D", (3,), {"data_format": "NHWC"}, (6, 5, 4, 3)),
    ("BatchNorm2D", (3,), {"weight_attr": False, "bias_attr": False}, (6, 3, 5, 4)),
    ("LayerNorm", (6,), {}, (4, 5, 6)),
    ("LayerNorm", ([5, 6],), {}, (4, 5, 6)),
    ("LayerNorm", (6,), {"elementwise_affine": False}, (4, 5, 6)),
])
def test_norm_layers_train_on_the_device_match_cpu(dtype, layer, args, kw, shape):
    # The gradients of batch_norm and layer_norm on a device: the backend's fused
    # batch_norm_grad / layer_norm_grad kernels when it has them (else the same gradient
    # written with ops), against the host kernels; training steps (one with no gradient for x),
    # then an evaluation-mode backward (the running statistics: use_batch_stats false).
    rng = np.random.default_rng(15)
    xs = (rng.standard_normal(shape) * 2 + 0.5).astype(dtype)
    cs = rng.standard_normal(shape).astype(dtype)  # y.sum() would give a zero dx

    def run(place):
        oar.seed(4)
        net = getattr(oar.nn, layer)(*args, **kw)
        net.to(place)
        if dtype == "float64":
            net.to(dtype="float64")
        opt = oar.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
        c = oar.to_tensor(cs, place=place)
        affine = any(not p.stop_gradient for p in net.parameters())
        res = []
        for step in range(3):
            if step == 2 and layer != "LayerNorm":
                net.eval()
            x = oar.to_tensor(xs, place=place, stop_gradient=step == 1 and affine)  # no dx wanted
            (net(x) * c).sum().backward()
            if not x.stop_gradient:
                assert x.grad.place == place
                res.append(x.grad.numpy())
            # copies: clear_grad zeroes the host gradients in place
            res += [p.grad.numpy().copy() for p in net.parameters() if p.grad is not None]
            opt.step()
            opt.clear_grad()
        return res + [p.numpy() for p in net.parameters()]

    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-10)
    got, want = run(oar.CustomPlace("custom_cpu", 0)), run(oar.CPUPlace())
    assert len(got) == len(want)
    for d, h in zip(got, want):
        np.testing.assert_allclose(d, h, **tol)
