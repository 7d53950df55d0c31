"""to_static, jit.save / jit.load (TranslatedLayer) and the inference predictor (oar.inference):
same numbers as eager, training through programs, the saved files and their errors."""
import os
import threading

import numpy as np
import pytest


import oar
import oar.nn.functional as F
from oar.static import InputSpec

# Host programs: these run on the CPU place (test_device_custom_cpu.py runs programs on a device).
pytestmark = pytest.mark.host_only


class Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = oar.nn.Conv2D(1, 4, 3, padding=1)
        self.bn = oar.nn.BatchNorm2D(4)
        self.fc = oar.nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        h = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(oar.flatten(h, 1))


def _images(n=5, seed=0):
    return np.random.default_rng(seed).standard_normal((n, 1, 12, 12)).astype("float32")


def test_to_static_function_matches_eager():
    @oar.jit.to_static
    def f(x, y):
        return oar.tanh(x) @ y + 1.0, x.sum()

    a = oar.to_tensor(np.random.rand(3, 4).astype("float32"))
    b = oar.to_tensor(np.random.rand(4, 2).astype("float32"))
    out, s = f(a, b)
    np.testing.assert_allclose(out.numpy(), (oar.tanh(a) @ b + 1.0).numpy(), rtol=1e-6)
    np.testing.assert_allclose(float(s), float(a.sum()), rtol=1e-6)
    assert "matmul" in f.concrete_program.main_program._op_names()


def test_to_static_layer_trains_like_eager():
    oar.seed(1)
    eager = Net()
    oar.seed(1)
    static = oar.jit.to_static(Net(), input_spec=[InputSpec([None, 1, 12, 12], "float32", "x")])
    opt_e = oar.optimizer.Adam(1e-2, parameters=eager.parameters())
    opt_s = oar.optimizer.Adam(1e-2, parameters=static.parameters())
    labels = oar.to_tensor(np.arange(5).reshape(5, 1).astype("int64"))
    for step in range(3):
        x = oar.to_tensor(_images(seed=step))
        le = F.cross_entropy(eager(x), labels)
        ls = F.cross_entropy(static(x), labels)
        np.testing.assert_allclose(float(ls), float(le), rtol=1e-5)
        for loss, opt in ((le, opt_e), (ls, opt_s)):
            loss.backward()
            opt.step()
            opt.clear_grad()
    for p, q in zip(eager.parameters(), static.parameters()):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-4, atol=1e-6)
    # BatchNorm's running statistics were updated by the program's runs too.
    np.testing.assert_allclose(static.bn._mean.numpy(), eager.bn._mean.numpy(), rtol=1e-5, atol=1e-6)


def test_jit_save_load_finetune_and_save_again(tmp_path):
    oar.seed(3)
    net = Net()
    net.eval()
    x = oar.to_tensor(_images())
    want = net(x).numpy()
    prefix = str(tmp_path / "net" / "model")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 12, 12], "float32", "image")])
    # Paddle 3's files: a PIR program and Paddle's tensor stream
    assert os.path.exists(prefix + ".json") and os.path.exists(prefix + ".pdiparams")
    assert not os.path.exists(prefix + ".pdmodel")
    loaded = oar.jit.load(prefix)
    assert isinstance(loaded, oar.jit.TranslatedLayer)
    np.testing.assert_allclose(loaded(x).numpy(), want, rtol=1e-5, atol=1e-6)
    # Fine-tune: gradients reach the loaded parameters through the program.
    opt = oar.optimizer.SGD(0.1, parameters=loaded.parameters())
    loss = oar.mean(loaded(x) ** 2)
    loss.backward()
    trainable = [p for p in loaded.parameters() if not p.stop_gradient]
    assert len(trainable) == len([p for p in net.parameters() if not p.stop_gradient])
    assert all(p.grad is not None for p in trainable)
    opt.step()
    tuned = loaded(x).numpy()
    assert not np.allclose(tuned, want)
    prefix2 = str(tmp_path / "again")
    oar.jit.save(loaded, prefix2)
    np.testing.assert_allclose(oar.jit.load(prefix2)(x).numpy(), tuned, rtol=1e-6)


def _saved_model(tmp_path):
    oar.seed(4)
    net = Net()
    net.eval()
    prefix = str(tmp_path / "infer")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 12, 12], "float32", "image")])
    return net, prefix


def test_predictor_matches_eager(tmp_path):
    net, prefix = _saved_model(tmp_path)
    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    predictor = oar.inference.create_predictor(config)
    assert predictor.get_input_names() == ["image"]
    handle = predictor.get_input_handle("image")
    images = _images(7)
    handle.copy_from_cpu(images)
    predictor.run()
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    assert out.shape() == [7, 10]
    with oar.no_grad():
        np.testing.assert_allclose(out.copy_to_cpu(), net(oar.to_tensor(images)).numpy(), rtol=1e-5, atol=1e-6)


def test_predictor_input_errors(tmp_path):
    _, prefix = _saved_model(tmp_path)
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    handle = predictor.get_input_handle("image")
    with pytest.raises(ValueError, match=r"input 'image': expected shape float32\[-1, 1, 12, 12\], got \[2, 3, 12, 12\]"):
        handle.reshape([2, 3, 12, 12])
    with pytest.raises(ValueError, match="input 'image' is float32, but CopyFromCpu was given float64"):
        handle.copy_from_cpu(np.zeros((2, 1, 12, 12)))
    with pytest.raises(ValueError, match="input 'image'.*is not set"):
        predictor.clone().run()
    with pytest.raises(RuntimeError, match="no input 'x'; its inputs are \\[image\\]"):
        predictor.get_input_handle("x")


def test_model_file_errors(tmp_path):
    _, prefix = _saved_model(tmp_path)
    model, params = prefix + ".pdmodel", prefix + ".pdiparams"
    Config = oar.inference.Config
    with pytest.raises(OSError if False else Exception, match="missing.pdmodel' cannot be opened"):
        oar.inference.create_predictor(Config(str(tmp_path / "missing.pdmodel"), params))
    data = open(params, "rb").read()
    cut = str(tmp_path / "cut.pdiparams")
    open(cut, "wb").write(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cut.pdiparams' is not a valid Paddle parameter file: tensor .* is truncated"):
        oar.inference.create_predictor(Config(model, cut))
    # The path names .pdmodel; jit.save wrote .json (Paddle's format), which is read instead.
    assert not os.path.exists(model) and os.path.exists(prefix + ".json")
    text = open(prefix + ".json").read()
    bad = str(tmp_path / "bad.json")
    open(bad, "w").write(text[: len(text) // 2])
    with pytest.raises(ValueError, match="bad.json' is corrupted or truncated: it is not valid JSON"):
        oar.inference.create_predictor(Config(bad, params))
    other = str(tmp_path / "other.pdmodel")
    open(other, "w").write("hello\n")
    with pytest.raises(ValueError, match="is neither a Paddle program .* nor an oar model file"):
        oar.inference.create_predictor(Config(other, params))


def test_predictor_pool_serves_threads(tmp_path):
    net, prefix = _saved_model(tmp_path)
    pool = oar.inference.PredictorPool(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"), 3)
    results, errors = {}, []

    def serve(k):
        try:
            p = pool.retrive(k)
            imgs = _images(4, seed=k)
            p.get_input_handle("image").copy_from_cpu(imgs)
            for _ in range(5):
                p.run()
            results[k] = (imgs, p.get_output_handle(p.get_output_names()[0]).copy_to_cpu())
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    with pytest.raises(IndexError, match="index 3 is out of range for 3 predictors"):
        pool.retrive(3)
    with pytest.raises(ValueError, match="size must be a positive int"):
        oar.inference.PredictorPool(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"), 0)
    threads = [threading.Thread(target=serve, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with oar.no_grad():
        for imgs, out in results.values():
            np.testing.assert_allclose(out, net(oar.to_tensor(imgs)).numpy(), rtol=1e-5, atol=1e-6)


def test_predictor_results_do_not_depend_on_the_thread_count(tmp_path):
    # The predictor picks each run's thread count from measured times (ThreadCountTuner): that
    # is only sound because the kernels it runs give the same bits on 1 and 2 threads. Checked on
    # a conv/batch-norm/pool network, a LeNet-like one and a transformer encoder layer.
    oar.seed(4)
    lenet = oar.nn.Sequential(oar.nn.Conv2D(1, 6, 3, padding=1), oar.nn.ReLU(), oar.nn.MaxPool2D(2, 2),
                              oar.nn.Conv2D(6, 16, 5), oar.nn.ReLU(), oar.nn.MaxPool2D(2, 2), oar.nn.Flatten(),
                              oar.nn.Linear(16 * 4 * 4, 30), oar.nn.Linear(30, 10))
    encoder = oar.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0)
    cases = [(Net(), [None, 1, 12, 12], (9, 1, 12, 12)), (lenet, [None, 1, 26, 26], (9, 1, 26, 26)),
             (encoder, [None, 16, 64], (3, 16, 64))]
    for k, (model, spec, shape) in enumerate(cases):
        model.eval()
        prefix = str(tmp_path / f"m{k}")
        oar.jit.save(model, prefix, input_spec=[InputSpec(spec, "float32", "x")])
        x = np.random.default_rng(k).standard_normal(shape).astype("float32")
        outs = []
        for threads in (1, 2):
            config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
            config.set_cpu_math_library_num_threads(threads)
            predictor = oar.inference.create_predictor(config)
            predictor.get_input_handle(predictor.get_input_names()[0]).copy_from_cpu(x)
            predictor.run()
            outs.append(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu())
        np.testing.assert_array_equal(outs[0], outs[1])


def test_predictor_thread_counts_share_packed_weights(tmp_path):
    # The tuner runs a predictor on 2 threads, then tries 1 (its warm-up: bursts of 6 runs). The
    # convolutions' plans for the two counts want the same weight layout and share one packed
    # copy: the memory held does not grow when the second count first runs.
    oar.seed(6)
    model = oar.nn.Sequential(oar.nn.Conv2D(3, 64, 3, padding=1), oar.nn.ReLU(), oar.nn.Conv2D(64, 64, 3, padding=1),
                              oar.nn.ReLU(), oar.nn.AdaptiveAvgPool2D(1), oar.nn.Flatten(), oar.nn.Linear(64, 10))
    model.eval()
    prefix = str(tmp_path / "m")
    oar.jit.save(model, prefix, input_spec=[InputSpec([None, 3, 16, 16], "float32", "x")])
    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.set_cpu_math_library_num_threads(2)
    predictor = oar.inference.create_predictor(config)
    predictor.get_input_handle("x").copy_from_cpu(np.random.default_rng(0).random((1, 3, 16, 16), np.float32))
    held = []
    for _ in range(14):
        predictor.run()
        held.append(oar._C._memory_stats()["allocated"])
    assert held[-1] == held[0], held


def test_model_save_for_inference(tmp_path):
    oar.seed(5)
    net = Net()
    model = oar.Model(net, inputs=[InputSpec([None, 1, 12, 12], "float32", "image")])
    prefix = str(tmp_path / "m" / "infer")
    model.save(prefix, training=False)
    assert net.training  # switched back after saving
    net.eval()
    x = oar.to_tensor(_images(3))
    np.testing.assert_allclose(oar.jit.load(prefix)(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="needs its input shapes"):
        oar.Model(Net()).save(str(tmp_path / "x"), training=False)


def test_predictors_never_reuse_another_models_packed_weights(tmp_path):
    # Predictors cache convolution weights in oneDNN's layout; a new model with the same shapes
    # (possibly at the same addresses once the first is freed) must use its own weights.
    x = _images(2)
    for seed in (6, 7, 8):
        oar.seed(seed)
        net = Net()
        net.eval()
        prefix = str(tmp_path / f"m{seed}")
        oar.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 12, 12], "float32", "image")])
        p = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
        p.get_input_handle("image").copy_from_cpu(x)
        for _ in range(2):
            p.run()
        with oar.no_grad():
            want = net(oar.to_tensor(x)).numpy()
        np.testing.assert_allclose(p.get_output_handle(p.get_output_names()[0]).copy_to_cpu(), want,
                                   rtol=1e-5, atol=1e-6)
        del p


def test_enable_use_gpu_without_a_gpu_stays_on_the_cpu(tmp_path, capfd):
    net, prefix = _saved_model(tmp_path)
    config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
    config.enable_use_gpu(256, 0)
    has_gpu = oar.device.cuda.device_count() > 0
    assert config.use_gpu() == has_gpu and config.memory_pool_init_size_mb() == 256
    if has_gpu:
        pytest.skip("a GPU is present: the GPU predictor is checked by tools/gpu_check.sh")
    assert "runs on the CPU" in capfd.readouterr().err  # said, as Paddle's CPU build says it
    predictor = oar.inference.create_predictor(config)
    handle = predictor.get_input_handle("image")
    images = _images(3)
    handle.copy_from_cpu(images)
    predictor.run()
    with oar.no_grad():
        np.testing.assert_allclose(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu(),
                                   net(oar.to_tensor(images)).numpy(), rtol=1e-5, atol=1e-6)
    config.disable_gpu()
    assert not config.use_gpu()
