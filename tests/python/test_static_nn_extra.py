"""paddle.static.nn's remaining layers and control flow, and paddle.static's auc, create_global_var,
device_guard, WeightNormParamAttr and IPU names. Parameter names and shapes are Paddle 3.3.1's (its
legacy static layers: in PIR mode most of them refuse PIR values with a TypeError); values are checked
against NumPy references with the parameters set after the program is built."""
import numpy as np
import pytest

import oar
from oar import static

# Host programs: these run on the CPU place.
pytestmark = pytest.mark.host_only


@pytest.fixture
def prog():
    main, startup = static.Program(), static.Program()
    oar.enable_static()
    try:
        # Fresh names in each test (layer_0, ...), as a new Paddle process would have.
        with oar.utils.unique_name.guard(), static.program_guard(main, startup):
            yield main
    finally:
        oar.disable_static()


def _params(main):
    return {k: v for k, v in main._parameters().items() if not k.startswith("_")}


def _set(main, values):
    params = main._parameters()
    with static.mode.eager():
        for k, v in values.items():
            params[k].set_value(v)


def _run(main, feed, fetch):
    oar.disable_static()
    try:
        return static.Executor().run(main, feed=feed, fetch_list=fetch)
    finally:
        oar.enable_static()


rng = np.random.RandomState(0)


def test_parameter_names_and_shapes_match_paddle(prog):
    x4 = static.data("x4", [2, 4, 5, 5], "float32")
    x5 = static.data("x5", [2, 4, 3, 5, 5], "float32")
    x2 = static.data("x2", [2, 4], "float32")
    y2 = static.data("y2", [2, 6], "float32")
    rc = static.data("rc", [2, 7, 4], "float32")
    A = oar.ParamAttr
    nn = static.nn
    nn.bilinear_tensor_product(x2, y2, 3)
    nn.conv2d_transpose(x4, 3, filter_size=3, stride=2, padding=1)
    nn.conv2d_transpose(x4, 3, output_size=[9, 9], stride=2)
    nn.conv3d(x5, 4, 2, padding=1, groups=2)
    nn.conv3d_transpose(x5, 2, filter_size=2, stride=[1, 2, 2])
    nn.group_norm(x4, 2, param_attr=A(), bias_attr=A())
    nn.group_norm(x4, 4)
    nn.instance_norm(x4)
    nn.instance_norm(x4, param_attr=A(), bias_attr=A())
    nn.prelu(x4, "channel")
    nn.prelu(x4, "all")
    nn.prelu(x4, "element")
    nn.row_conv(rc, 2)
    got = sorted((k, tuple(v.shape)) for k, v in _params(prog).items())
    # Recorded from Paddle 3.3.1 (OldIrGuard) on the same calls.
    assert got == [
        ("bilinear_tensor_product_0.b_0", (1, 3)), ("bilinear_tensor_product_0.w_0", (3, 4, 6)),
        ("conv2d_transpose_0.b_0", (3,)), ("conv2d_transpose_0.w_0", (4, 3, 3, 3)),
        ("conv2d_transpose_1.b_0", (3,)), ("conv2d_transpose_1.w_0", (4, 3, 1, 1)),
        ("conv3d_0.b_0", (4,)), ("conv3d_0.w_0", (4, 2, 2, 2, 2)),
        ("conv3d_transpose_0.b_0", (2,)), ("conv3d_transpose_0.w_0", (4, 2, 2, 2, 2)),
        ("group_norm_0.b_0", (4,)), ("group_norm_0.w_0", (4,)),
        ("instance_norm_1.b_0", (4,)), ("instance_norm_1.w_0", (4,)),
        ("prelu_0.w_0", (1, 4, 1, 1)), ("prelu_1.w_0", (1,)), ("prelu_2.w_0", (1, 4, 5, 5)),
        ("row_conv_0.w_0", (3, 4))]


def test_bilinear_tensor_product_values(prog):
    x = static.data("x", [3, 4], "float64")
    y = static.data("y", [3, 5], "float64")
    out = static.nn.bilinear_tensor_product(x, y, 2, act="tanh")
    w, b = rng.randn(2, 4, 5), rng.randn(1, 2)
    _set(prog, {"bilinear_tensor_product_0.w_0": w, "bilinear_tensor_product_0.b_0": b})
    xv, yv = rng.randn(3, 4), rng.randn(3, 5)
    got = _run(prog, {"x": xv, "y": yv}, [out])[0]
    np.testing.assert_allclose(got, np.tanh(np.einsum("ni,kij,nj->nk", xv, w, yv) + b), rtol=1e-10)


def test_conv_layers_values(prog):
    x = static.data("x", [1, 2, 4, 4], "float64")
    y = static.nn.conv2d_transpose(x, 3, filter_size=2, stride=2, bias_attr=False)
    w = rng.randn(2, 3, 2, 2)
    _set(prog, {"conv2d_transpose_0.w_0": w})
    xv = rng.randn(1, 2, 4, 4)
    got = _run(prog, {"x": xv}, [y])[0]
    # stride 2, kernel 2: every input pixel writes its own 2x2 block.
    ref = np.einsum("nchw,cokl->nohkwl", xv, w).reshape(1, 3, 8, 8)
    np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_conv3d_values(prog):
    x = static.data("x", [1, 2, 3, 3, 3], "float64")
    y = static.nn.conv3d(x, 2, 3, act="relu")
    w, b = rng.randn(2, 2, 3, 3, 3), rng.randn(2)
    _set(prog, {"conv3d_0.w_0": w, "conv3d_0.b_0": b})
    xv = rng.randn(1, 2, 3, 3, 3)
    got = _run(prog, {"x": xv}, [y])[0]
    ref = np.maximum(np.einsum("ncdhw,ocdhw->no", xv, w) + b, 0).reshape(1, 2, 1, 1, 1)
    np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_conv_transpose_filter_from_output_size(prog):
    x = static.data("x", [2, 4, 5, 5], "float32")
    y = static.nn.conv2d_transpose(x, 3, output_size=[9, 9], stride=2)
    z = static.nn.conv3d_transpose(static.data("x5", [1, 2, 2, 3, 3], "float32"), 2, output_size=[4, 5, 5])
    assert y.shape == [2, 3, 9, 9] and z.shape == [1, 2, 4, 5, 5]
    assert _params(prog)["conv2d_transpose_0.w_0"].shape == [4, 3, 1, 1]
    with pytest.raises(ValueError, match="output_size must be set"):
        static.nn.conv2d_transpose(x, 3)


def test_group_and_instance_norm_values(prog):
    x = static.data("x", [2, 4, 3], "float64")
    g = static.nn.group_norm(x, 2, param_attr=True, bias_attr=True)
    i = static.nn.instance_norm(x)
    scale, shift = rng.rand(4) + 0.5, rng.randn(4)
    _set(prog, {"group_norm_0.w_0": scale, "group_norm_0.b_0": shift})
    xv = rng.randn(2, 4, 3)
    got_g, got_i = _run(prog, {"x": xv}, [g, i])
    grp = xv.reshape(2, 2, 6)
    ref_g = ((grp - grp.mean(-1, keepdims=True)) / np.sqrt(grp.var(-1, keepdims=True) + 1e-5)).reshape(2, 4, 3)
    np.testing.assert_allclose(got_g, ref_g * scale[:, None] + shift[:, None], rtol=1e-8)
    ref_i = (xv - xv.mean(-1, keepdims=True)) / np.sqrt(xv.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got_i, ref_i, rtol=1e-8)
    assert sorted(_params(prog)) == ["group_norm_0.b_0", "group_norm_0.w_0"]  # instance_norm: none


def test_norm_errors(prog):
    x = static.data("x", [2, 4, 3], "float32")
    with pytest.raises(ValueError, match="data_layout"):
        static.nn.group_norm(x, 2, data_layout="NCL")
    with pytest.raises(AssertionError, match="False at the same time"):
        static.nn.instance_norm(x, param_attr=False)
    with pytest.raises(ValueError, match="2D or 3D or 4D or 5D"):
        static.nn.instance_norm(static.data("y", [2], "float32"))


def test_prelu_modes_and_grad(prog):
    x = static.data("x", [2, 3, 2], "float64")
    x.stop_gradient = False
    outs = [static.nn.prelu(x, m, data_format="NCL") for m in ("all", "channel", "element")]
    alphas = {"prelu_0.w_0": np.array([0.1]), "prelu_1.w_0": rng.rand(1, 3, 1),
              "prelu_2.w_0": rng.rand(1, 3, 2)}
    _set(prog, alphas)
    loss = oar.sum(outs[1])
    (gx,) = static.gradients([loss], [x])
    xv = rng.randn(2, 3, 2)
    got = _run(prog, {"x": xv}, outs + [gx])
    for o, a in zip(got[:3], alphas.values()):
        np.testing.assert_allclose(o, np.where(xv > 0, xv, a * xv), rtol=1e-12)
    np.testing.assert_allclose(got[3], np.where(xv > 0, 1.0, np.broadcast_to(alphas["prelu_1.w_0"], xv.shape)))
    with pytest.raises(ValueError, match="mode should be one of all, channel, element"):
        static.nn.prelu(x, "row")


def test_row_conv_values(prog):
    x = static.data("x", [2, None, 3], "float64")
    y = static.nn.row_conv(x, 2)
    w = rng.randn(3, 3)
    _set(prog, {"row_conv_0.w_0": w})
    xv = rng.randn(2, 5, 3)
    got = _run(prog, {"x": xv}, [y])[0]
    pad = np.concatenate([xv, np.zeros((2, 2, 3))], 1)
    ref = sum(pad[:, i:i + 5] * w[i] for i in range(3))
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    with pytest.raises(ValueError, match="3-D"):
        static.nn.row_conv(static.data("z", [4, 3], "float32"), 1)


def test_case_records_control_flow(prog):
    x = static.data("x", [1], "float32")
    out = static.nn.case([(x < 0.0, lambda: x * 0.0), (x < 10.0, lambda: x * 2.0)], default=lambda: x * 3.0)
    no_default = static.nn.case([(x < 0.0, lambda: x - 1.0), (x < 10.0, lambda: x + 1.0)])
    assert "cond" in prog._op_names()
    for v, want, want2 in ((-1.0, 0.0, -2.0), (2.0, 4.0, 3.0), (20.0, 60.0, 21.0)):
        got = _run(prog, {"x": np.array([v], "float32")}, [out, no_default])
        assert got[0][0] == want and got[1][0] == want2


def test_switch_case(prog):
    i = static.data("i", [1], "int64")
    fns = {1: lambda: oar.full([1], 10.0), 3: lambda: oar.full([1], 30.0)}
    out = static.nn.switch_case(i, fns, default=lambda: oar.full([1], -1.0))
    last = static.nn.switch_case(i, [lambda: oar.full([1], 0.0), lambda: oar.full([1], 1.0)])
    pairs = static.nn.switch_case(i, [(2, lambda: oar.full([1], 2.0)), (0, lambda: oar.full([1], 5.0))])
    for v, a, b, c in ((1, 10.0, 1.0, 2.0), (3, 30.0, 1.0, 2.0), (0, -1.0, 0.0, 5.0), (7, -1.0, 1.0, 2.0)):
        got = _run(prog, {"i": np.array([v])}, [out, last, pairs])
        assert [float(g[0]) for g in got] == [a, b, c]


def test_case_switch_case_errors_and_eager():
    with pytest.raises(TypeError, match="pred_fn_pairs must be a list or tuple"):
        static.nn.case(lambda: 1)
    with pytest.raises(TypeError, match="tuple of 2"):
        static.nn.case([(True,)])
    with pytest.raises(TypeError, match="callable"):
        static.nn.case([(oar.to_tensor(True), 3)])
    with pytest.raises(TypeError, match="int32, int64"):
        static.nn.switch_case(oar.to_tensor([1.0]), {1: lambda: 1})
    with pytest.raises(ValueError, match="more than once"):
        static.nn.switch_case(oar.to_tensor([1]), [(1, lambda: 1), (1, lambda: 2)])
    # Eagerly: plain Python choice.
    assert static.nn.case([(oar.to_tensor(False), lambda: 1), (oar.to_tensor(True), lambda: 2)],
                          default=lambda: 3) == 2
    assert static.nn.switch_case(oar.to_tensor([5]), {1: lambda: "a", 5: lambda: "b"}) == "b"


@pytest.mark.parametrize("name,args", [("sequence_conv", (2,)), ("sequence_softmax", ()),
                                       ("sequence_pool", ("sum",)), ("sequence_first_step", ()),
                                       ("sequence_last_step", ()), ("sequence_expand", None)])
def test_sequence_layers_refuse_as_paddle_pir(prog, name, args):
    x = static.data("x", [4, 3], "float32")
    fn = getattr(static.nn, name)
    with pytest.raises(AssertionError, match="sequence layer is not supported in pir mode"):
        fn(x, x) if args is None else fn(x, *args)
    oar.disable_static()
    try:
        with pytest.raises(AssertionError, match="not supported in dygraph mode"):
            fn(oar.ones([4, 3]), oar.ones([4, 3])) if args is None else fn(oar.ones([4, 3]), *args)
    finally:
        oar.enable_static()


def _auc_ref(score, label, t, real=True):
    pos, neg = np.zeros(t + 1, np.int64), np.zeros(t + 1, np.int64)
    if real:
        for s, l in zip(score, label):
            (pos if l else neg)[int(s * t)] += 1
    tp = fp = area = 0.0
    for k in range(t, -1, -1):
        ntp, nfp = tp + pos[k], fp + neg[k]
        area += (nfp - fp) * (ntp + tp) / 2
        tp, fp = ntp, nfp
    return (area / (tp * fp) if tp > 0 and fp > 0 else 0.0), pos, neg


@pytest.mark.parametrize("t", [7, 4095])
def test_auc_matches_reference(prog, t):
    p = static.data("p", [None, 2], "float32")
    lab = static.data("l", [None, 1], "int64")
    w = static.data("w", [1, 1], "float32")
    area, pos, neg = static.auc(p, lab, num_thresholds=t)
    area_w, _, _ = static.auc(p, lab, num_thresholds=t, ins_tag_weight=w)
    s = rng.rand(12).astype("float32")
    s[0], s[1] = 1.0, 0.0
    lv = rng.randint(0, 2, (12, 1))
    feed = {"p": np.stack([1 - s, s], 1), "l": lv, "w": np.zeros([1, 1], "float32")}
    got = _run(prog, feed, [area, pos, neg, area_w])
    ref, rpos, rneg = _auc_ref(s, lv[:, 0], t)
    assert got[0].dtype == np.float64 and got[0].shape == ()
    np.testing.assert_allclose(got[0], ref, rtol=1e-12)
    np.testing.assert_array_equal(got[1], rpos[None])
    np.testing.assert_array_equal(got[2], rneg[None])
    assert float(got[3]) == 0.0  # ins_tag_weight 0: fake data, nothing counted
    # As in Paddle's PIR mode the statistics start at zero each run.
    again = _run(prog, feed, [pos])[0]
    np.testing.assert_array_equal(again, rpos[None])


def test_auc_paddle_literal(prog):
    # Paddle 3.3.1 (PIR) on these inputs: 0.14285714285714285, stat_pos[:8] = [2, 0, 1, 0, 0, 0, 0, 0].
    r = np.random.RandomState(3)
    s = r.rand(10, 1).astype("float32")
    pv = np.concatenate([1 - s, s], 1)
    pv[0, 1], pv[1, 1] = 1.0, 0.0
    lv = r.randint(0, 2, (10, 1)).astype("int64")
    p = static.data("p", [10, 2], "float32")
    lab = static.data("l", [10, 1], "int64")
    out = static.auc(p, lab, num_thresholds=7)
    got = _run(prog, {"p": pv, "l": lv}, list(out))
    assert float(got[0]) == pytest.approx(0.14285714285714285, rel=1e-12)
    assert got[1][0].tolist() == [2, 0, 1, 0, 0, 0, 0, 0] and got[2].sum() == 7


def test_auc_errors(prog):
    p = static.data("p", [4, 2], "float32")
    with pytest.raises(TypeError, match="label must be int32 or int64"):
        static.auc(p, static.data("l", [4, 1], "float32"))
    with pytest.raises(TypeError, match="input must be float32 or float64"):
        static.auc(static.data("q", [4, 2], "int64"), static.data("m", [4, 1], "int64"))


def test_create_global_var(prog):
    v = static.create_global_var([2, 3], 1.5, "float32", persistable=True, name="gv")
    assert (v.name, v.shape, v.persistable, v.stop_gradient) == ("gv", [2, 3], True, True)
    x = static.data("x", [2, 3], "float32")
    y = x + v
    out = _run(prog, {"x": np.ones([2, 3], "float32")}, [y])[0]
    np.testing.assert_array_equal(out, np.full([2, 3], 2.5, "float32"))
    assert "gv" in prog._parameters()
    auto = static.create_global_var([1], 0, "int64")
    assert auto.name.startswith("global_var") and auto.dtype == "int64"
    with pytest.raises(ValueError, match="non-negative"):
        static.create_global_var([-1], 0.0, "float32")


def test_device_guard_checks_like_paddle():
    for d in ("cpu", "gpu", "gpu:1", "xpu", "", None):
        with static.device_guard(d):
            assert static.misc.current_device() == d
    with pytest.raises(ValueError, match="Should not set device id for cpu"):
        with static.device_guard("cpu:0"):
            pass
    with pytest.raises(ValueError, match="But received tpu"):
        with static.device_guard("tpu"):
            pass


def test_weight_norm_param_attr(prog):
    a = static.WeightNormParamAttr(dim=1, name="w", learning_rate=0.5)
    assert isinstance(a, oar.ParamAttr) and (a.dim, a.name, a.learning_rate, a.do_model_average) == (1, "w", 0.5, False)
    with pytest.raises(TypeError, match="dim"):
        static.WeightNormParamAttr(dim="0")
    # As Paddle's PIR static layers, static layers refuse it.
    with pytest.raises(TypeError, match="weight normalization"):
        static.nn.row_conv(static.data("x", [2, 3, 4], "float32"), 1, param_attr=a)


def test_ipu_names_answer_as_a_build_without_ipu():
    msg = "Can not use this function since PaddlePaddle is not compiled with IPU"
    with pytest.raises(RuntimeError, match="non IPU compiled environment"):
        static.IpuStrategy()
    with pytest.raises(ValueError, match=msg):
        static.IpuCompiledProgram()
    with pytest.raises(ValueError, match=msg):
        with static.ipu_shard_guard(index=0, stage=0):
            pass
    f = static.set_ipu_shard(lambda v: v, index=1)
    with pytest.raises(ValueError, match=msg):
        f(1)
    layer = static.set_ipu_shard(oar.nn.Linear(2, 2))
    assert type(layer).__name__ == "Linear" and isinstance(layer, oar.nn.Linear)
    with pytest.raises(ValueError, match=msg):
        layer(oar.ones([1, 2]))
    with pytest.raises(TypeError, match="Only accept paddle.nn.Layer or function"):
        static.set_ipu_shard(3)
