"""oar.amp: auto_cast's per-op dtype decisions (against the table Paddle's own rules give, and
against real Paddle's lists), decorate, GradScaler's scale sequence (the numbers real Paddle
produces for the same scripted gradients), Model.prepare(amp_configs) and bfloat16 training."""
import warnings

import numpy as np
import pytest

import oar
import oar.nn.functional as F

BF16, F16, F32, F64 = "bfloat16", "float16", "float32", "float64"


def t(dtype, shape=(3, 4)):
    return oar.randn(list(shape)).astype(dtype)


# ---- auto_cast decisions ---------------------------------------------------------------------
# The table real Paddle 3.3 gives (PIR static mode on CPU, where Paddle applies its AMP rules):
# (case, O1, O2, O2 with use_promote=False, OD); "low" is the auto_cast dtype.
CASES = [
    ("matmul f32", lambda: oar.matmul(t(F32), t(F32, (4, 2))), "low", "low", "low", "low"),
    ("matmul f64", lambda: oar.matmul(t(F64), t(F64, (4, 2))), F64, F64, F64, F64),
    ("conv2d f32", lambda: F.conv2d(t(F32, (1, 2, 5, 5)), t(F32, (3, 2, 3, 3))), "low", "low", "low", "low"),
    ("add f32+f32", lambda: t(F32) + t(F32), F32, F32, "low", F32),
    ("add low+low", lambda: t("LOW") + t("LOW"), "low", "low", "low", F32),
    ("add low+f32", lambda: t("LOW") + t(F32), F32, F32, "low", F32),
    ("add f64", lambda: t(F64) + t(F64), F64, F64, F64, F64),
    ("add i32", lambda: oar.ones([3], "int32") + oar.ones([3], "int32"), "int32", "int32", "int32", "int32"),
    ("relu low", lambda: F.relu(t("LOW")), "low", "low", "low", F32),
    ("relu f32", lambda: F.relu(t(F32)), F32, F32, "low", F32),
    ("softmax low", lambda: F.softmax(t("LOW")), F32, "low", "low", F32),
    ("exp low", lambda: oar.exp(t("LOW")), F32, "low", "low", F32),
    ("sum low", lambda: oar.sum(t("LOW")), F32, "low", "low", F32),
    ("layer_norm low", lambda: F.layer_norm(t("LOW"), 4), F32, "low", "low", F32),
    ("embedding", lambda: F.embedding(oar.to_tensor([0, 2]), t("LOW", (3, 4))), F32, F32, F32, F32),
    ("linear", lambda: F.linear(t(F32), t(F32, (4, 5)), t(F32, (5,))), "low", "low", "low", "low"),
]


def _expected(name, low):
    return low if name == "low" else name


@pytest.mark.parametrize("low", [BF16, F16])
@pytest.mark.parametrize("level,column", [("O1", 2), ("O2", 3), ("O2-nopromote", 4), ("OD", 5)])
def test_auto_cast_decisions_follow_paddles_rules(low, level, column):
    global t
    make = t

    def low_t(dtype, shape=(3, 4)):
        return make(low if dtype == "LOW" else dtype, shape)
    t = low_t
    try:
        lvl, promote = ("O2", False) if level == "O2-nopromote" else (level, True)
        for case in CASES:
            with oar.amp.auto_cast(level=lvl, dtype=low, use_promote=promote):
                out = case[1]()
            assert out.dtype.name == _expected(case[column], low), (case[0], level, low)
    finally:
        t = make


def test_auto_cast_state_nesting_and_queries():
    assert not oar.amp.is_autocast_enabled() and oar.amp.get_autocast_dtype() == "float16"
    with oar.amp.auto_cast(dtype="bfloat16"):
        assert oar.amp.is_autocast_enabled() and oar.amp.get_autocast_dtype() == "bfloat16"
        from oar.amp.auto_cast import amp_state
        assert amp_state()["dtype"] == "bfloat16"
        with oar.amp.auto_cast(enable=False):
            assert not oar.amp.is_autocast_enabled()
            assert oar.matmul(t(F32), t(F32, (4, 2))).dtype == oar.float32
        with oar.amp.auto_cast(level="o2", dtype=oar.float16):  # as Paddle: any case, dtype objects
            assert oar.amp.get_autocast_dtype() == "float16"
        assert oar.matmul(t(F32), t(F32, (4, 2))).dtype == oar.bfloat16
    assert not oar.amp.is_autocast_enabled()
    assert oar.matmul(t(F32), t(F32, (4, 2))).dtype == oar.float32
    # An exception inside restores the previous state.
    with pytest.raises(KeyError):
        with oar.amp.auto_cast(dtype="bfloat16"):
            raise KeyError("x")
    assert not oar.amp.is_autocast_enabled()
    assert oar.autocast is oar.amp.autocast and oar.is_autocast_enabled is oar.amp.is_autocast_enabled


def test_auto_cast_bad_arguments():
    with pytest.raises(ValueError, match="level should be O0, OD, O1 or O2"):
        with oar.amp.auto_cast(level="O5"):
            pass
    with pytest.raises(ValueError, match="dtype should be 'float16' or 'bfloat16'"):
        with oar.amp.auto_cast(dtype="float32"):
            pass
    with pytest.raises(ValueError, match="Custom white list overlap custom black list"):
        with oar.amp.auto_cast(custom_white_list=["conv2d"], custom_black_list={"conv2d", "exp"}):
            pass
    with pytest.raises(ValueError, match="custom_white_list names 'no_such_op'"):
        with oar.amp.auto_cast(custom_white_list=["no_such_op"]):
            pass
    with pytest.raises(TypeError, match="custom_black_list should hold op names"):
        with oar.amp.auto_cast(custom_black_list=[3]):
            pass
    assert not oar.amp.is_autocast_enabled()


def test_custom_lists_in_paddle_and_oar_names():
    x = t(F32)
    with oar.amp.auto_cast(dtype="bfloat16", custom_black_list=["matmul_v2"], custom_white_list=["exp"]):
        assert oar.matmul(x, t(F32, (4, 2))).dtype == oar.float32  # Paddle's name for matmul
        assert oar.exp(x).dtype == oar.bfloat16
    with oar.amp.auto_cast(dtype="bfloat16", level="O2", custom_black_list=["relu"]):
        assert F.relu(t(BF16)).dtype == oar.float32  # custom black: float32 at O2 too
    with oar.amp.auto_cast(dtype="bfloat16", custom_white_list=["lookup_table_v2"]):
        assert F.embedding(oar.to_tensor([1]), t(F32)).dtype == oar.bfloat16


def test_gradients_in_parameter_dtype_and_inplace_untouched():
    lin = oar.nn.Linear(4, 3)
    x = t(F32, (2, 4))
    with oar.amp.auto_cast(dtype="bfloat16"):
        y = lin(x)
        assert y.dtype == oar.bfloat16
        loss = y.astype("float32").sum()
        z = t(F32)
        z.exp_()  # in place: never cast
        assert z.dtype == oar.float32
        loss.backward()  # backward inside the block: gradients keep the forward's dtypes
    assert lin.weight.grad.dtype == oar.float32 and lin.bias.grad.dtype == oar.float32
    ref = np.ones((2, 3), np.float32).T @ x.numpy()
    np.testing.assert_allclose(lin.weight.grad.numpy(), ref.T, rtol=1e-2, atol=1e-2)


def test_static_program_records_the_casts():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [2, 4], "float32")
            w = oar.static.data("w", [4, 3], "float32")
            with oar.amp.auto_cast(dtype="bfloat16"):
                y = oar.matmul(x, w)
                z = oar.exp(y)
        exe = oar.static.Executor()
        xv, wv = np.random.rand(2, 4).astype("float32"), np.random.rand(4, 3).astype("float32")
        yv, zv = exe.run(main, feed={"x": xv, "w": wv}, fetch_list=[y, z])
    finally:
        oar.disable_static()
    with oar.amp.auto_cast(dtype="bfloat16"):
        ye = oar.matmul(oar.to_tensor(xv), oar.to_tensor(wv))
        ze = oar.exp(ye)
    assert ze.dtype == oar.float32
    np.testing.assert_array_equal(np.asarray(zv), ze.numpy())
    np.testing.assert_array_equal(np.asarray(yv), ye.numpy())


def test_lists_match_real_paddle():
    paddle = pytest.importorskip("paddle")
    assert oar.amp.white_list() == paddle.amp.white_list()
    assert oar.amp.black_list() == paddle.amp.black_list()
    assert sorted(oar.amp.__all__) == sorted(paddle.amp.__all__)


# ---- decorate --------------------------------------------------------------------------------
class _Net(oar.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = oar.nn.Linear(4, 4)
        self.conv = oar.nn.Conv2D(2, 2, 1)
        self.bn = oar.nn.BatchNorm2D(2)
        self.ln = oar.nn.LayerNorm(4)
        self.emb = oar.nn.Embedding(5, 4)
        self.register_buffer("ibuf", oar.ones([2], "int64"))


@pytest.mark.parametrize("dtype", [F16, BF16])
def test_decorate_o2_casts_all_but_norm_layers(dtype):
    net = _Net()
    opt = oar.optimizer.AdamW(parameters=net.parameters())
    out = oar.amp.decorate(net, opt, level="O2", dtype=dtype)
    assert out[0] is net and out[1] is opt and opt._multi_precision
    for name in ("lin", "conv", "emb"):
        assert all(p.dtype.name == dtype for p in getattr(net, name).parameters()), name
    assert all(p.dtype == oar.float32 for p in net.bn.parameters())
    assert net.bn._mean.dtype == oar.float32
    assert all(p.dtype.name == (F32 if dtype == F16 else BF16) for p in net.ln.parameters())
    assert net.ibuf.dtype == oar.int64


def test_decorate_o1_excluded_save_dtype_and_errors():
    net = _Net()
    assert oar.amp.decorate(net, level="O1") is net and net.lin.weight.dtype == oar.float32
    models = [_Net(), _Net()]
    out = oar.amp.decorate(models, level="O2", dtype="bfloat16", excluded_layers=oar.nn.Linear,
                           save_dtype="float32")
    assert out is models and models[0].lin.weight.dtype == oar.float32
    assert models[0].conv.weight.dtype == oar.bfloat16
    sd = models[0].state_dict()
    assert sd["conv.weight"].dtype == oar.float32 and sd["ibuf"].dtype == oar.int64
    with pytest.raises(ValueError, match="level should be O1 or O2"):
        oar.amp.decorate(net, level="OD")
    with pytest.raises(ValueError, match="dtype only support float16 or bfloat16"):
        oar.amp.decorate(net, level="O2", dtype="float32")
    with pytest.raises(TypeError, match="models must be either a single model or a list of models"):
        oar.amp.decorate((net,), level="O2")
    with pytest.raises(RuntimeError, match="models should be paddle.nn.Layer"):
        oar.amp.decorate([net, "x"], level="O2")
    with pytest.raises(TypeError, match="excluded_layers must be either"):
        oar.amp.decorate(_Net(), level="O2", excluded_layers=3)
    with pytest.raises(ValueError, match="save_dtype can only be"):
        oar.amp.decorate(_Net(), level="O2", save_dtype="int8")


# ---- GradScaler ------------------------------------------------------------------------------
INF, NAN = float("inf"), float("nan")
# Gradients of sum(p * g) for p = [1, 1], and what real Paddle 3.3 gives with
# GradScaler(init_loss_scaling=1024, incr_every_n_steps=2, decr_every_n_nan_or_inf=2) and
# SGD(lr=0.5): (g, scale after update, incr count, decr count, p after the step).
PADDLE_SEQUENCE = [
    ([1, 2], 1024, 1, 0, [0.5, 0.0]), ([1, 2], 2048, 0, 0, [0.0, -1.0]),
    ([1, 2], 2048, 1, 0, [-0.5, -2.0]), ([INF, 1], 2048, 0, 1, [-0.5, -2.0]),
    ([1, 2], 2048, 1, 0, [-1.0, -3.0]), ([1, NAN], 2048, 0, 1, [-1.0, -3.0]),
    ([NAN, NAN], 1024, 0, 0, [-1.0, -3.0]), ([1, 2], 1024, 1, 0, [-1.5, -4.0]),
    ([1, 2], 2048, 0, 0, [-2.0, -5.0]), ([INF, -INF], 2048, 0, 1, [-2.0, -5.0]),
    ([NAN, 1], 1024, 0, 0, [-2.0, -5.0]), ([1, INF], 1024, 0, 1, [-2.0, -5.0]),
    ([1, 2], 1024, 1, 0, [-2.5, -6.0]), ([1, 2], 2048, 0, 0, [-3.0, -7.0]),
    ([1, 2], 2048, 1, 0, [-3.5, -8.0]),
]


def _param():
    return oar.create_parameter([2], "float32", default_initializer=oar.nn.initializer.Constant(1.0))


@pytest.mark.parametrize("use_minimize", [False, True])
def test_grad_scaler_sequence_matches_paddle(use_minimize, capsys):
    p = _param()
    opt = oar.optimizer.SGD(learning_rate=0.5, parameters=[p])
    with oar.amp.auto_cast(dtype="float16"):  # GradScaler scales for float16
        pass
    scaler = oar.amp.GradScaler(init_loss_scaling=1024, incr_every_n_steps=2, decr_every_n_nan_or_inf=2)
    for g, scale, incr, decr, after in PADDLE_SEQUENCE:
        scaled = scaler.scale((p * oar.to_tensor(g, dtype="float32")).sum())
        scaled.backward()
        if use_minimize:
            scaler.minimize(opt, scaled)
        else:
            scaler.step(opt)
            scaler.update()
        opt.clear_grad()
        sd = scaler.state_dict()
        assert (float(sd["scale"][0]), sd["incr_count"], sd["decr_count"]) == (scale, incr, decr), g
        np.testing.assert_array_equal(p.numpy(), np.array(after, np.float32))
    assert capsys.readouterr().out.count("Found inf or nan, current scale is: 2048.0, decrease to: 2048.0*0.5") == 2


def test_grad_scaler_adam_skips_whole_steps():
    p = _param()
    opt = oar.optimizer.Adam(learning_rate=0.1, parameters=[p])
    with oar.amp.auto_cast(dtype="float16"):
        pass
    scaler = oar.amp.GradScaler(init_loss_scaling=1024, incr_every_n_steps=2, decr_every_n_nan_or_inf=2)
    seen = []
    for g, *_ in PADDLE_SEQUENCE[:8]:
        scaler.scale((p * oar.to_tensor(g, dtype="float32")).sum()).backward()
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        seen.append(float(p.numpy()[0]))
    # Real Paddle: 0.9, 0.8000003, 0.700001, (skip), 0.6000013, (skip), (skip), 0.5000015.
    np.testing.assert_allclose(seen, [0.9, 0.8000003, 0.700001, 0.700001, 0.6000013, 0.6000013,
                                      0.6000013, 0.5000015], rtol=0, atol=2e-7)


def test_grad_scaler_state_errors_and_disabling():
    p = _param()
    opt = oar.optimizer.SGD(learning_rate=0.5, parameters=[p])
    with oar.amp.auto_cast(dtype="float16"):
        pass
    scaler = oar.amp.GradScaler(init_loss_scaling=8)
    with pytest.raises(RuntimeError, match="scale\\(loss\\)"):
        scaler.step(opt)  # nothing was scaled
    scaler.scale((p * 2.0).sum()).backward()
    scaler.unscale_(opt)
    np.testing.assert_array_equal(p.grad.numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called since the last update"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        scaler.unscale_(opt)
    scaler.update()
    sd = scaler.state_dict()
    assert list(sd) == ["scale", "incr_ratio", "decr_ratio", "incr_every_n_steps", "decr_every_n_nan_or_inf",
                        "incr_count", "decr_count", "use_dynamic_loss_scaling"]
    assert sd["scale"].shape == (1,) and sd["scale"].dtype == np.float32 and sd["incr_count"] == 1
    other = oar.amp.GradScaler()
    other.load_state_dict(sd)
    assert other.state_dict()["incr_count"] == 1 and other.get_init_loss_scaling() == 8
    with pytest.raises(RuntimeError, match="The input state dict is empty"):
        other.load_state_dict({})
    with pytest.raises(AssertionError, match="The incr_ratio must be > 1.0"):
        oar.amp.GradScaler(incr_ratio=0.5)
    off = oar.amp.GradScaler(enable=False)
    loss = (p * 2.0).sum()
    assert off.scale(loss) is loss and off.state_dict() == {} and not off.is_enable()
    # bfloat16 needs no loss scaling: dynamic scaling turns itself off, as in Paddle.
    with oar.amp.auto_cast(dtype="bfloat16"):
        pass
    bf = oar.amp.GradScaler()
    with pytest.warns(UserWarning, match="not recommended to use dynamic loss scaling for bfloat16"):
        assert bf.scale(loss) is loss
    assert not bf.is_enable()


def test_is_supported_queries():
    assert oar.amp.is_bfloat16_supported() is True and oar.amp.is_bfloat16_supported("cpu") is True
    assert oar.amp.is_float16_supported("cpu") is False


# ---- training ----------------------------------------------------------------------------------
def _digits():
    from oar.vision import transforms as T
    from oar.vision.datasets import Digits
    transform = T.Compose([T.Resize((28, 28)), T.ToTensor(), T.Normalize(mean=[0.5], std=[0.5])])
    return Digits(mode="train", transform=transform), Digits(mode="test", transform=transform)


@pytest.mark.host_only  # a training run of the CPU's bfloat16 kernels
@pytest.mark.parametrize("level", ["O1", "O2"])
def test_lenet_trains_in_bfloat16(level):
    from oar.vision.models import LeNet
    train, test = _digits()
    oar.seed(2024)
    model = oar.Model(LeNet(num_classes=10))
    opt = oar.optimizer.Adam(learning_rate=2e-3, parameters=model.parameters())
    model.prepare(opt, oar.nn.CrossEntropyLoss(), oar.metric.Accuracy(),
                  amp_configs={"level": level, "dtype": "bfloat16"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no GradScaler warning for bfloat16
        model.fit(train, epochs=20, batch_size=64, verbose=0)
    conv = model.network.features[0].weight
    assert conv.dtype == (oar.bfloat16 if level == "O2" else oar.float32)
    result = model.evaluate(test, batch_size=256, verbose=0)
    assert result["acc"] >= 0.97, result
    assert 0 < result["loss"][0] < 1  # a real loss, not bfloat16's raw bits


def test_model_prepare_amp_configs_errors():
    model = oar.Model(oar.nn.Linear(2, 2))
    with pytest.raises(ValueError, match="The level of amp_configs should be 'O0', 'O1' or 'O2'"):
        model.prepare(amp_configs="O3")
    with pytest.raises(ValueError, match="amp_configs\\['level'\\] should be"):
        model.prepare(amp_configs={"level": "OD"})
    with pytest.raises(ValueError, match="'use_pure_fp16' is an invalid parameter"):
        model.prepare(amp_configs={"use_pure_fp16": True})
    with pytest.raises(ValueError, match="could not be recognized"):
        model.prepare(amp_configs={"level": "O1", "foo": 1})
    with pytest.raises(ValueError, match="static graph mode only"):
        model.prepare(amp_configs={"use_fp16_guard": True})


# ---- debugging -------------------------------------------------------------------------------
from oar.amp import debugging  # noqa: E402


def test_check_numerics_counts_prints_and_raises(capfd):
    x = oar.to_tensor([1.0, NAN, INF, 0.0, -2.0])
    stats, values = debugging.check_numerics(x, "my_op", "my_var", debugging.DebugMode.CHECK_NAN_INF)
    assert stats.dtype == oar.int64 and stats.numpy().tolist() == [1, 1, 1]
    v = values.numpy()
    assert values.dtype == oar.float32 and v[0] == INF and v[1] == -2 and np.isnan(v[2])
    out = capfd.readouterr().out
    place = x.place
    device = "cpu" if place.is_cpu_place() else f"{place.get_device_type()}:{place.get_device_id()}"
    assert (f"[PRECISION] [ERROR] in [device={device}, op=my_op, tensor=my_var, dtype=fp32], numel=5, num_nan=1, "
            "num_inf=1, num_zero=1, max=inf, min=-2.000000e+00, mean=nan") in out
    with pytest.raises(RuntimeError, match=r"There are NAN or INF \(num_nan=1, num_inf=1, num_zero=1\) in "
                                           rf"\[device={device}, op=op, tensor=var, dtype=fp32\]"):
        debugging.check_numerics(x, "op", "var")
    finite = oar.to_tensor([1.0, 2.0, 0.0], dtype="bfloat16")
    stats, values = debugging.check_numerics(finite, "op", "v", debugging.DebugMode.CHECK_ALL)
    assert stats.numpy().tolist() == [0, 0, 1] and values.numpy().tolist() == [2.0, 0.0, 1.0]
    assert f"[PRECISION] in [device={device}, op=op, tensor=v, dtype=bf16], numel=3, num_zero=1" in capfd.readouterr().out
    with pytest.raises(TypeError, match="floating"):
        debugging.check_numerics(oar.ones([2], "int64"), "op", "v")


def test_tensor_checker_and_flag_raise_at_the_op(capfd):
    config = debugging.TensorCheckerConfig(enable=True, debug_mode=debugging.DebugMode.CHECK_NAN_INF_AND_ABORT)
    debugging.enable_tensor_checker(config)
    try:
        assert oar.get_flags("FLAGS_check_nan_inf")["FLAGS_check_nan_inf"] is True
        oar.exp(oar.to_tensor([1.0]))  # finite: fine
        with pytest.raises(RuntimeError, match="op=log"):
            oar.log(oar.to_tensor([-1.0]))
    finally:
        debugging.disable_tensor_checker()
    assert np.isnan(oar.log(oar.to_tensor([-1.0])).numpy()[0])  # off again
    # Print-only mode, and a skipped op.
    debugging.enable_tensor_checker(debugging.TensorCheckerConfig(
        True, debugging.DebugMode.CHECK_NAN_INF, skipped_op_list=["sqrt"]))
    try:
        oar.log(oar.to_tensor([-1.0]))
        oar.sqrt(oar.to_tensor([-1.0]))
    finally:
        debugging.disable_tensor_checker()
    out = capfd.readouterr().out
    assert "op=log" in out and "op=sqrt" not in out
    # paddle.set_flags({'FLAGS_check_nan_inf': True}) does the same (issue: it used to do nothing).
    oar.set_flags({"FLAGS_check_nan_inf": True, "FLAGS_check_nan_inf_level": 0})
    try:
        with pytest.raises(RuntimeError, match="There are NAN or INF"):
            oar.log(oar.to_tensor([-1.0]))
        # A gradient is an op output too.
        x = oar.to_tensor([0.0], stop_gradient=False)
        y = oar.sqrt(x)  # sqrt(0) = 0 is finite; its gradient is inf
        with pytest.raises(RuntimeError, match="There are NAN or INF"):
            y.backward()
    finally:
        oar.set_flags({"FLAGS_check_nan_inf": False})
    with pytest.raises(ValueError, match="debug_step must be list or tuple"):
        debugging.TensorCheckerConfig(True, debug_step=3)
    with pytest.raises(ValueError, match="checked_op_list must be list or tuple"):
        debugging.TensorCheckerConfig(False, checked_op_list="log")


def test_operator_stats_table(capsys):
    a, b = t(F32), t(F32, (4, 2))
    with debugging.collect_operator_stats():
        with oar.amp.auto_cast(dtype="bfloat16"):
            y = oar.matmul(a, b)
            oar.exp(y)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "<" + " op list ".center(120, "-") + ">"
    rows = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")[1:]] for line in lines[2:-2]}
    assert rows["matmul"] == ["0", "1", "0", "0"]  # ran in bfloat16
    assert rows["exp"] == ["0", "0", "1", "0"]  # black list: float32
    assert rows["cast"][1:3] == ["1", "2"]  # bf16 -> f32 once, f32 -> bf16 twice
    assert lines[-2] == "<" + f" op count: {len(rows)} ".center(120, "-") + ">"
    debugging.disable_operator_stats_collection()  # not collecting: prints nothing
    assert capsys.readouterr().out == ""


def test_check_layer_numerics():
    class Bad(oar.nn.Layer):
        @debugging.check_layer_numerics
        def forward(self, x):
            return oar.log(x)
    assert Bad()(oar.to_tensor([1.0])).numpy()[0] == 0
    with pytest.raises(RuntimeError, match="op=log"):
        Bad()(oar.to_tensor([-1.0]))
    with pytest.raises(RuntimeError, match="First input of this layer must be tensor"):
        Bad()(3.0)


def test_model_saves_and_loads_the_loss_scale(tmp_path):
    with oar.amp.auto_cast(dtype="float16"):
        pass

    def make():
        model = oar.Model(oar.nn.Linear(4, 2))
        model.prepare(oar.optimizer.SGD(parameters=model.parameters()), oar.nn.MSELoss(),
                      amp_configs={"level": "O1", "init_loss_scaling": 128.0, "incr_every_n_steps": 1})
        return model
    model = make()
    x, y = np.random.rand(3, 4).astype("float32"), np.random.rand(3, 2).astype("float32")
    model.train_batch([x], [y])
    assert float(model._scaler.state_dict()["scale"][0]) == 256.0  # one good step doubled it
    model.save(str(tmp_path / "m"))
    assert (tmp_path / "m.pdscaler").exists()
    again = make()
    again.load(str(tmp_path / "m"))
    assert float(again._scaler.state_dict()["scale"][0]) == 256.0


def test_predictor_bfloat16(tmp_path):
    oar.seed(0)
    net = oar.nn.Sequential(oar.nn.Linear(64, 128), oar.nn.ReLU(), oar.nn.Linear(128, 10))
    net.eval()
    prefix = str(tmp_path / "mlp")
    oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 64], "float32", "x")])
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)

    def run(bf16):
        config = oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams")
        assert config.mkldnn_enabled()
        if bf16:
            config.enable_mkldnn_bfloat16()
            assert config.mkldnn_bfloat16_enabled()
        pred = oar.inference.create_predictor(config)
        h = pred.get_input_handle(pred.get_input_names()[0])
        h.copy_from_cpu(x)
        pred.run()
        return pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    f32, b16 = run(False), run(True)
    assert b16.dtype == np.float32 and b16.shape == f32.shape
    with oar.no_grad():
        with oar.amp.auto_cast(level="OD", dtype="bfloat16"):
            eager = net(oar.to_tensor(x)).astype("float32").numpy()
    np.testing.assert_array_equal(b16, eager)  # the predictor computes what eager OD bf16 computes
    assert np.abs(b16 - f32).max() < 0.05 * (np.abs(f32).max() + 1)
    assert not oar.amp.is_autocast_enabled()  # a run leaves the caller's state alone


# ---- static programs ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [BF16, F16])
def test_static_decorate_trains_with_loss_scaling(dtype):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((64, 8)).astype(np.float32)
    ys = (xs @ rng.standard_normal((8, 1)).astype(np.float32)).astype(np.float32)
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [None, 8], "float32")
            y = oar.static.data("y", [None, 1], "float32")
            net = oar.nn.Linear(8, 1)
            with oar.amp.auto_cast(dtype=dtype):
                pred = net(x)
            loss = oar.mean((pred.astype("float32") - y) ** 2)
            opt = oar.static.amp.decorate(oar.optimizer.SGD(learning_rate=0.05, parameters=net.parameters()),
                                          dtype=dtype, init_loss_scaling=1024.0, incr_every_n_steps=3)
            opt.minimize(loss)
        assert pred.dtype.name == dtype  # the program computes the linear layer in low precision
        exe = oar.static.Executor()
        first = last = None
        for _ in range(30):
            (lv,) = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])
            first = lv if first is None else first
            last = lv
    finally:
        oar.disable_static()
    assert float(last) < 0.2 * float(first)
    scale = float(opt.get_loss_scaling().numpy()[0])
    if dtype == F16:  # dynamic scaling: doubled every 3 finite steps, halved at an overflow
        assert scale > 1024.0
    else:  # bfloat16: a fixed scale
        assert scale == 1024.0
    assert net.weight.dtype == oar.float32


def test_static_amp_lists_and_errors():
    lists = oar.static.amp.AutoMixedPrecisionLists(custom_white_list={"exp"}, custom_black_list={"matmul_v2"})
    assert "exp" in lists.white_list and "exp" not in lists.black_list and "matmul_v2" in lists.black_list
    with pytest.raises(ValueError, match="overlaps custom_black_list"):
        oar.static.amp.AutoMixedPrecisionLists(custom_white_list={"exp"}, custom_black_list={"exp"})
    opt = oar.optimizer.SGD(parameters=[_param()])
    with pytest.raises(ValueError, match="level should be O0, OD, O1 or O2"):
        oar.static.amp.decorate(opt, level="O7")
    with pytest.raises(ValueError, match="dtype should be 'float16' or 'bfloat16'"):
        oar.static.amp.decorate(opt, dtype="float64")


def test_static_decorated_optimizer_delegates_and_copies():
    import copy
    opt = oar.static.amp.decorate(oar.optimizer.SGD(learning_rate=0.1, parameters=[_param()]), dtype="bfloat16")
    assert opt.get_lr() == 0.1  # the wrapped optimizer's methods
    assert copy.copy(opt).get_lr() == 0.1
    with pytest.raises(AttributeError):
        opt.no_such_method
