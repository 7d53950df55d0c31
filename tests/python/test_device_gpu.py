"""The CUDA backend end to end, where a GPU is present (skipped elsewhere; tools/gpu_check.sh runs
it on the GPU machine): places and copies, training a small convolutional network and an LSTM
against the CPU, the predictor on the GPU, DLPack exchange with PyTorch, pinned memory,
DataLoader batches, streams, events and allocator statistics. The op-by-op checks are the
whole suite run with OAR_TEST_DEVICE=gpu:0 (tests/python/conftest.py)."""
import numpy as np
import pytest

import oar

pytestmark = pytest.mark.skipif(oar.device.cuda.device_count() == 0, reason="needs a GPU")

GPU = "gpu:0"


def _train(place, build, xs, ys, steps, loss_fn, opt_name="Momentum"):
    oar.seed(7)
    model = build()
    model.to(place)
    opt = getattr(oar.optimizer, opt_name)(learning_rate=0.05, parameters=model.parameters())
    x, y = oar.to_tensor(xs, place=place), oar.to_tensor(ys, place=place)
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, [p.numpy() for p in model.parameters()]


def test_places_copies_and_host_reads():
    x = oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), place=oar.CUDAPlace(0))
    assert x.place == oar.CUDAPlace(0) and str(x.place) == "Place(gpu:0)"
    assert x.cpu().place == oar.CPUPlace() and x.cpu().cuda().place == oar.CUDAPlace(0)
    np.testing.assert_array_equal((x * 2 + 1).numpy(), np.arange(6).reshape(2, 3) * 2 + 1)
    assert x.sum().item() == 15.0
    p = x.pin_memory()
    assert p.place == oar.CUDAPinnedPlace()
    np.testing.assert_array_equal(p.numpy(), x.numpy())
    with oar.device_guard("cpu"):
        assert oar.ones([2]).place == oar.CPUPlace()


def test_conv_net_trains_on_the_gpu_as_on_the_cpu():
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((16, 3, 12, 12)).astype(np.float32)
    ys = rng.integers(0, 5, 16).astype(np.int64)
    nn = oar.nn

    def build():
        return nn.Sequential(nn.Conv2D(3, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(), nn.MaxPool2D(2),
                             nn.Conv2D(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2D(1), nn.Flatten(),
                             nn.Linear(8, 5))

    loss_fn = nn.functional.cross_entropy
    gpu_loss, gpu_w = _train(GPU, build, xs, ys, 8, loss_fn)
    cpu_loss, cpu_w = _train("cpu", build, xs, ys, 8, loss_fn)
    np.testing.assert_allclose(gpu_loss, cpu_loss, rtol=2e-4, atol=2e-5)
    for g, c in zip(gpu_w, cpu_w):
        np.testing.assert_allclose(g, c, rtol=2e-3, atol=2e-4)
    assert gpu_loss[-1] < gpu_loss[0]


def test_lstm_and_attention_train_on_the_gpu_as_on_the_cpu():
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((4, 6, 8)).astype(np.float32)
    ys = rng.standard_normal((4, 6, 8)).astype(np.float32)
    nn = oar.nn

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(8, 8)
            self.attn = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)

        def forward(self, x):
            return self.attn(self.lstm(x)[0])

    loss_fn = nn.functional.mse_loss
    gpu_loss, gpu_w = _train(GPU, Net, xs, ys, 5, loss_fn, "Adam")
    cpu_loss, cpu_w = _train("cpu", Net, xs, ys, 5, loss_fn, "Adam")
    np.testing.assert_allclose(gpu_loss, cpu_loss, rtol=1e-4, atol=1e-5)
    for g, c in zip(gpu_w, cpu_w):
        np.testing.assert_allclose(g, c, rtol=1e-3, atol=1e-4)


def test_seed_gives_the_same_numbers_on_the_gpu():
    with oar.device_guard("cpu"):  # the suite may run with the GPU as the expected place
        oar.seed(3)
        host = [oar.rand([1000]).numpy(), oar.randn([7, 9]).numpy(),
                oar.nn.functional.dropout(oar.ones([64]), 0.3).numpy()]
    with oar.device_guard(GPU):
        oar.seed(3)
        dev = [oar.rand([1000]), oar.randn([7, 9]), oar.nn.functional.dropout(oar.ones([64]), 0.3)]
    assert all(t.place == oar.CUDAPlace(0) for t in dev)
    for h, d in zip(host, dev):
        np.testing.assert_array_equal(h, d.numpy())


def test_predictor_on_the_gpu(tmp_path):
    from oar.static import InputSpec
    oar.seed(8)
    net = oar.nn.Sequential(oar.nn.Conv2D(1, 4, 3), oar.nn.ReLU(), oar.nn.Flatten(), oar.nn.Linear(4 * 6 * 6, 10))
    net.eval()
    prefix = str(tmp_path / "net")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 8, 8], "float32", "x")])
    xs = np.random.default_rng(9).standard_normal((3, 1, 8, 8)).astype(np.float32)

    def predict(config):
        predictor = oar.inference.create_predictor(config)
        h = predictor.get_input_handle(predictor.get_input_names()[0])
        h.reshape(list(xs.shape))
        h.copy_from_cpu(xs)
        predictor.run()
        return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()

    want = predict(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.enable_use_gpu(256, 0)
    assert config.use_gpu() and config.gpu_device_id() == 0
    np.testing.assert_allclose(predict(config), want, rtol=1e-4, atol=1e-5)


def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    x = oar.to_tensor(np.arange(6, dtype=np.float32).reshape(2, 3), place=oar.CUDAPlace(0))
    t = torch.from_dlpack(x)
    assert t.device.type == "cuda" and t.data_ptr() == x.data_ptr()
    t.add_(1)  # written by torch, seen by oar: the same memory
    oar.device.synchronize()
    np.testing.assert_array_equal(x.numpy(), np.arange(6).reshape(2, 3) + 1)
    back = oar.utils.dlpack.from_dlpack(torch.arange(4, device="cuda", dtype=torch.float32))
    assert back.place == oar.CUDAPlace(0)
    np.testing.assert_array_equal(back.numpy(), [0, 1, 2, 3])


def test_dataloader_batches_arrive_on_the_gpu():
    data = [(np.full(3, i, np.float32), np.int64(i)) for i in range(8)]
    loader = oar.io.DataLoader(data, batch_size=4, places=oar.CUDAPlace(0))
    batches = list(loader)
    assert len(batches) == 2 and batches[0][0].place == oar.CUDAPlace(0)
    np.testing.assert_array_equal(batches[1][1].numpy(), [4, 5, 6, 7])


def test_device_properties():
    p = oar.device.cuda.get_device_properties()
    assert p.name == oar.device.cuda.get_device_name() and p.total_memory > 1 << 30
    assert oar.device.cuda.get_device_capability() == (p.major, p.minor) and p.major >= 7
    assert p.multi_processor_count > 0 and repr(p).startswith("_gpuDeviceProperties(name=")


def test_streams_events_and_memory_statistics():
    oar.device.synchronize()
    before = oar.device.cuda.memory_allocated()
    x = oar.zeros([1024, 1024], dtype="float32").cuda()
    assert oar.device.cuda.memory_allocated() - before >= 1024 * 1024 * 4
    assert oar.device.cuda.max_memory_allocated() >= oar.device.cuda.memory_allocated()
    s = oar.device.Stream()
    start, end = oar.device.Event(enable_timing=True), oar.device.Event(enable_timing=True)
    with oar.device.stream_guard(s):
        start.record()
        y = (x + 1).sum()
        end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0
    assert y.item() == 1024 * 1024
    del x
    oar.device.cuda.empty_cache()
