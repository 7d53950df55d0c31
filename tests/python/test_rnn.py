"""Recurrent layers: the fused rnn_layer op (forward against a NumPy reference, BPTT against
finite differences in float64), the networks against the cell-by-cell loop, and everything live
against Paddle when it is installed (parameters copied by state-dict name)."""
import numpy as np
import pytest

import oar
from oar import _C

RNG = np.random.default_rng(7)


def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def _np_rnn_layer(mode, x, wih, whh, bih, bhh, h0, c0, lens, who, reverse):
    """NumPy reference of one fused layer (time-major), Paddle's gate order and masking."""
    T, B, _ = x.shape
    h, c = h0.copy(), (c0.copy() if c0 is not None else None)
    out = np.zeros((T, B, whh.shape[1]))
    for t in (range(T - 1, -1, -1) if reverse else range(T)):
        gx = x[t] @ wih.T + bih
        gh = h @ whh.T + bhh
        valid = (np.arange(B) < B) if lens is None else (t < lens)
        if mode == "RNN_TANH":
            hn, cn = np.tanh(gx + gh), c
        elif mode == "RNN_RELU":
            hn, cn = np.maximum(gx + gh, 0), c
        elif mode == "LSTM":
            i, f, g, o = np.split(gx + gh, 4, axis=1)
            cn = _sig(f) * c + _sig(i) * np.tanh(g)
            hn = _sig(o) * np.tanh(cn)
            if who is not None:
                hn = hn @ who
        else:
            xr, xz, xc = np.split(gx, 3, axis=1)
            hr, hz, hc = np.split(gh, 3, axis=1)
            r, z = _sig(xr + hr), _sig(xz + hz)
            n = np.tanh(xc + r * hc)
            hn, cn = (h - n) * z + n, c
        v = valid[:, None]
        h = np.where(v, hn, h)
        if c is not None:
            c = np.where(v, cn, c)
        out[t] = np.where(v, hn, 0.0)
    return out, h, c


def _inputs(mode, T=4, B=3, I=3, H=4, P=None, seq=True, dtype="float64"):
    G = {"LSTM": 4, "GRU": 3}.get(mode, 1)
    P = P or H
    a = {
        "x": RNG.standard_normal((T, B, I)), "wih": RNG.standard_normal((G * H, I)) * 0.5,
        "whh": RNG.standard_normal((G * H, P)) * 0.5, "bih": RNG.standard_normal(G * H) * 0.3,
        "bhh": RNG.standard_normal(G * H) * 0.3, "h0": RNG.standard_normal((B, P)) * 0.5,
        "c0": RNG.standard_normal((B, H)) * 0.5 if mode == "LSTM" else None,
        "lens": np.array([T, 2, 0][:B], dtype=np.int64) if seq else None,
        "who": RNG.standard_normal((H, P)) * 0.5 if P != H else None,
    }
    return {k: (v.astype(dtype) if v is not None and k != "lens" else v) for k, v in a.items()}


def _call(mode, a, reverse, stop_gradient=True):
    t = {k: (oar.to_tensor(v, stop_gradient=stop_gradient or k == "lens") if v is not None else None)
         for k, v in a.items()}
    res = _C.rnn_layer(t["x"], t["wih"], t["whh"], t["bih"], t["bhh"], t["h0"], t["c0"], t["lens"],
                       t["who"], mode, reverse)
    return t, res


CASES = [("RNN_TANH", None), ("RNN_RELU", None), ("LSTM", None), ("LSTM", 2), ("GRU", None)]


@pytest.mark.parametrize("mode,proj", CASES)
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("seq", [False, True])
def test_rnn_layer_forward_matches_numpy(mode, proj, reverse, seq):
    a = _inputs(mode, P=proj, seq=seq)
    _, (out, h, c, _) = _call(mode, a, reverse)
    ro, rh, rc = _np_rnn_layer(mode, a["x"], a["wih"], a["whh"], a["bih"], a["bhh"], a["h0"], a["c0"],
                               a["lens"], a["who"], reverse)
    np.testing.assert_allclose(out.numpy(), ro, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), rh, rtol=1e-12, atol=1e-12)
    if mode == "LSTM":
        np.testing.assert_allclose(c.numpy(), rc, rtol=1e-12, atol=1e-12)
    else:
        assert c.shape == [0]


@pytest.mark.parametrize("mode,proj", CASES)
@pytest.mark.parametrize("reverse", [False, True])
def test_rnn_layer_grad_matches_finite_differences(mode, proj, reverse):
    """rnn_layer's fused backward (rnn_layer_grad) against central differences, float64."""
    a = _inputs(mode, T=3, B=3, I=2, H=3, P=proj - 1 if proj else None, seq=True)
    wo = RNG.standard_normal((3, 3, a["whh"].shape[1]))
    wh = RNG.standard_normal(a["h0"].shape)
    wc = RNG.standard_normal(a["c0"].shape) if mode == "LSTM" else None

    def loss_np(vals):
        o, h, c = _np_rnn_layer(mode, vals["x"], vals["wih"], vals["whh"], vals["bih"], vals["bhh"],
                                vals["h0"], vals["c0"], vals["lens"], vals["who"], reverse)
        return (o * wo).sum() + (h * wh).sum() + ((c * wc).sum() if wc is not None else 0.0)

    t, (out, h, c, _) = _call(mode, a, reverse, stop_gradient=False)
    loss = (out * oar.to_tensor(wo)).sum() + (h * oar.to_tensor(wh)).sum()
    if wc is not None:
        loss = loss + (c * oar.to_tensor(wc)).sum()
    loss.backward()
    eps = 1e-6
    for name in ["x", "wih", "whh", "bih", "bhh", "h0", "c0", "who"]:
        if a[name] is None:
            continue
        num = np.zeros_like(a[name])
        for idx in np.ndindex(*a[name].shape):
            plus = dict(a)
            plus[name] = a[name].copy()
            plus[name][idx] += eps
            minus = dict(a)
            minus[name] = a[name].copy()
            minus[name][idx] -= eps
            num[idx] = (loss_np(plus) - loss_np(minus)) / (2 * eps)
        np.testing.assert_allclose(t[name].grad.numpy(), num, rtol=1e-5, atol=1e-7, err_msg=name)


def test_rnn_layer_argument_errors():
    a = _inputs("LSTM")
    t, _ = _call("LSTM", a, False)
    with pytest.raises(ValueError, match="mode"):
        _C.rnn_layer(t["x"], t["wih"], t["whh"], t["bih"], t["bhh"], t["h0"], t["c0"], None, None,
                     "LSTX", False)
    with pytest.raises(ValueError, match="c0"):
        _C.rnn_layer(t["x"], t["wih"], t["whh"], t["bih"], t["bhh"], t["h0"], None, None, None,
                     "LSTM", False)
    with pytest.raises(ValueError, match="h0"):
        _C.rnn_layer(t["x"], t["wih"], t["whh"], t["bih"], t["bhh"], t["c0"][:1], t["c0"], None, None,
                     "LSTM", False)
    with pytest.raises(TypeError, match="weight_ih"):
        _C.rnn_layer(t["x"], t["wih"].astype("float32"), t["whh"], t["bih"], t["bhh"], t["h0"], t["c0"],
                     None, None, "LSTM", False)
    with pytest.raises(ValueError, match="3-D"):
        _C.rnn_layer(t["x"][0], t["wih"], t["whh"], t["bih"], t["bhh"], t["h0"], t["c0"], None, None,
                     "LSTM", False)


# ---- the networks against the cell-by-cell loop (no Paddle needed) -----------------------------
def _cell_loop_reference(net, x, states):
    """The same network run through its RNN/BiRNN sublayers (Python loop over the cells)."""
    return net._cell_loop(x, states, None)


@pytest.mark.parametrize("cls,kw", [
    (oar.nn.LSTM, {}), (oar.nn.GRU, {}), (oar.nn.SimpleRNN, {"activation": "relu"}),
    (oar.nn.LSTM, {"proj_size": 2}),
])
@pytest.mark.parametrize("direction", ["forward", "bidirect"])
def test_fused_network_matches_cell_loop(cls, kw, direction):
    net = cls(3, 4, num_layers=2, direction=direction, **kw)
    net.double()
    for p in net.parameters():  # Layer.double() in main leaves parameters stop_gradient=True
        p.stop_gradient = False
    x = oar.to_tensor(RNG.standard_normal((2, 5, 3)), stop_gradient=False)
    out, st = net(x)
    L = 2 * (2 if direction == "bidirect" else 1)
    P = kw.get("proj_size") or 4
    if cls is oar.nn.LSTM:
        init = (oar.zeros([L, 2, P], "float64"), oar.zeros([L, 2, 4], "float64"))
    else:
        init = oar.zeros([L, 2, 4], "float64")
    ref_out, ref_st = _cell_loop_reference(net, x, init)
    np.testing.assert_allclose(out.numpy(), ref_out.numpy(), rtol=1e-10, atol=1e-12)
    for s, r in zip(st if isinstance(st, tuple) else [st], ref_st if isinstance(ref_st, tuple) else [ref_st]):
        np.testing.assert_allclose(s.numpy(), r.numpy(), rtol=1e-10, atol=1e-12)
    g_fused = oar.grad(out.sum(), [x] + list(net.parameters()))
    g_loop = oar.grad(ref_out.sum(), [x] + list(net.parameters()))
    for a, b in zip(g_fused, g_loop):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def test_parameter_names_shapes_and_repr():
    m = oar.nn.LSTM(3, 4, num_layers=2, direction="bidirectional")
    keys = list(m.state_dict().keys())
    assert keys[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert "weight_hh_l1_reverse" in keys and "1.cell_bw.bias_hh" in keys
    assert list(m.weight_ih_l1.shape) == [16, 8]
    assert repr(oar.nn.GRU(3, 4)) == "GRU(3, 4\n  (0): RNN(\n    (cell): GRUCell(3, 4)\n  )\n)"
    assert repr(oar.nn.SimpleRNNCell(3, 4, activation="relu")) == "SimpleRNNCell(3, 4, activation=relu)"
    std = 1 / np.sqrt(4)
    w = m.weight_ih_l0.numpy()
    assert np.abs(w).max() <= std and np.abs(w).max() > 0.5 * std  # Uniform(-1/sqrt(H), 1/sqrt(H))


def test_errors():
    with pytest.raises(ValueError, match="direction"):
        oar.nn.LSTM(3, 4, direction="both")
    with pytest.raises(ValueError, match="activation"):
        oar.nn.SimpleRNNCell(3, 4, activation="sigmoid")
    with pytest.raises(ValueError, match="hidden_size"):
        oar.nn.GRUCell(3, 0)
    with pytest.raises(ValueError, match="proj_size"):
        oar.nn.LSTMCell(3, 4, proj_size=4)


@pytest.mark.parametrize("cls,time_major", [(oar.nn.LSTM, False), (oar.nn.GRU, True)])
def test_a_program_with_a_dynamic_batch_makes_its_zero_states_when_it_runs(cls, time_major, tmp_path):
    """jit.save with a None batch: the zero initial states take the batch of the input at run time."""
    oar.seed(0)
    net = cls(3, 4, num_layers=2, direction="bidirect", time_major=time_major)
    spec = [oar.static.InputSpec([5, None, 3] if time_major else [None, 5, 3], "float32", "x")]
    oar.jit.save(net, str(tmp_path / "rnn"), input_spec=spec)
    loaded = oar.jit.load(str(tmp_path / "rnn"))
    def flat(out):
        return [t for o in out for t in (flat(o) if isinstance(o, (list, tuple)) else [o])]
    for batch in (1, 3):
        x = oar.randn([5, batch, 3] if time_major else [batch, 5, 3])
        want, got = flat(net(x)), flat(loaded(x))
        assert len(want) == len(got) == (3 if cls is oar.nn.LSTM else 2)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_get_initial_states():
    cell = oar.nn.LSTMCell(3, 5)
    x = oar.zeros([7, 3])
    h, c = cell.get_initial_states(x)
    assert list(h.shape) == [7, 5] and list(c.shape) == [7, 5]
    s = cell.get_initial_states(oar.zeros([2, 6, 3]), shape=[4], init_value=1.5, batch_dim_idx=1)
    assert list(s.shape) == [6, 4] and float(s.numpy()[0, 0]) == 1.5


# ---- live comparison with Paddle -----------------------------------------------------------------
def _copy_params(pd_layer, oar_layer):
    sd = {k: oar.to_tensor(v.numpy()) for k, v in pd_layer.state_dict().items()}
    oar_layer.set_state_dict(sd)


def _compare_net(paddle, name, kw, time_major=False, with_init=False, with_seq=False, B=3, T=5, I=3, H=4):
    paddle.seed(3)
    pd_net = getattr(paddle.nn, name)(I, H, time_major=time_major, **kw)
    net = getattr(oar.nn, name)(I, H, time_major=time_major, **kw)
    assert list(pd_net.state_dict().keys()) == list(net.state_dict().keys())
    _copy_params(pd_net, net)
    xs = RNG.standard_normal((T, B, I) if time_major else (B, T, I)).astype("float32")
    px, ox = paddle.to_tensor(xs, stop_gradient=False), oar.to_tensor(xs, stop_gradient=False)
    L = kw.get("num_layers", 1) * (2 if kw.get("direction", "forward") != "forward" else 1)
    P = kw.get("proj_size", 0) or H
    args_p, args_o = [], []
    if with_init:
        h0 = RNG.standard_normal((L, B, P)).astype("float32")
        c0 = RNG.standard_normal((L, B, H)).astype("float32")
        if name == "LSTM":
            args_p.append((paddle.to_tensor(h0), paddle.to_tensor(c0)))
            args_o.append((oar.to_tensor(h0), oar.to_tensor(c0)))
        else:
            args_p.append(paddle.to_tensor(h0))
            args_o.append(oar.to_tensor(h0))
    else:
        args_p.append(None)
        args_o.append(None)
    if with_seq:
        lens = np.array([T, 2, 4][:B], dtype="int64")
        args_p.append(paddle.to_tensor(lens))
        args_o.append(oar.to_tensor(lens))
    po, pst = pd_net(px, *args_p)
    oo, ost = net(ox, *args_o)
    np.testing.assert_allclose(oo.numpy(), po.numpy(), rtol=1e-4, atol=1e-5)
    pst = pst if isinstance(pst, tuple) else (pst,)
    ost = ost if isinstance(ost, tuple) else (ost,)
    for a, b in zip(ost, pst):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)
    wo = RNG.standard_normal(po.shape).astype("float32")
    wh = RNG.standard_normal(pst[0].shape).astype("float32")
    (po * paddle.to_tensor(wo)).sum().add((pst[0] * paddle.to_tensor(wh)).sum()).backward()
    ((oo * oar.to_tensor(wo)).sum() + (ost[0] * oar.to_tensor(wh)).sum()).backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-3, atol=1e-4)
    pd_params = dict(pd_net.named_parameters())
    for n, p in net.named_parameters():
        if n in pd_params and pd_params[n].grad is not None:
            np.testing.assert_allclose(p.grad.numpy(), pd_params[n].grad.numpy(), rtol=1e-3, atol=1e-4,
                                       err_msg=n)


NET_CASES = [
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "direction": "bidirect"}),
    ("GRU", {}), ("GRU", {"num_layers": 2, "direction": "bidirectional"}),
    ("SimpleRNN", {}), ("SimpleRNN", {"num_layers": 2, "direction": "bidirect", "activation": "relu"}),
    ("LSTM", {"num_layers": 2, "proj_size": 2}),
]


@pytest.mark.parametrize("name,kw", NET_CASES)
@pytest.mark.parametrize("opts", [{}, {"time_major": True, "with_init": True}, {"with_seq": True}])
def test_networks_match_paddle(name, kw, opts):
    paddle = pytest.importorskip("paddle")
    _compare_net(paddle, name, kw, **opts)


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bi", [False, True])
def test_rnn_wrappers_match_paddle_with_sequence_length(cell, bi):
    paddle = pytest.importorskip("paddle")
    paddle.seed(5)
    pc = [getattr(paddle.nn, cell)(3, 4) for _ in range(2)]
    oc = [getattr(oar.nn, cell)(3, 4) for _ in range(2)]
    pw = paddle.nn.BiRNN(*pc) if bi else paddle.nn.RNN(pc[0], is_reverse=True)
    ow = oar.nn.BiRNN(*oc) if bi else oar.nn.RNN(oc[0], is_reverse=True)
    _copy_params(pw, ow)
    xs = RNG.standard_normal((2, 4, 3)).astype("float32")
    lens = np.array([4, 2], dtype="int64")
    px, ox = paddle.to_tensor(xs, stop_gradient=False), oar.to_tensor(xs, stop_gradient=False)
    po, pst = pw(px, sequence_length=paddle.to_tensor(lens))
    oo, ost = ow(ox, sequence_length=oar.to_tensor(lens))
    np.testing.assert_allclose(oo.numpy(), po.numpy(), rtol=1e-5, atol=1e-6)
    flat_p = paddle.utils.flatten(pst)
    flat_o = [t for t in _flatten_any(ost)]
    for a, b in zip(flat_o, flat_p):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    po.sum().backward()
    oo.sum().backward()
    np.testing.assert_allclose(ox.grad.numpy(), px.grad.numpy(), rtol=1e-4, atol=1e-5)


def _flatten_any(s):
    if isinstance(s, (list, tuple)):
        for v in s:
            yield from _flatten_any(v)
    else:
        yield s


def test_repr_matches_paddle():
    paddle = pytest.importorskip("paddle")
    for name, kw in [("LSTM", {"num_layers": 2, "direction": "bidirect"}),
                     ("SimpleRNN", {"activation": "relu", "time_major": True, "dropout": 0.5, "num_layers": 2}),
                     ("GRU", {})]:
        assert repr(getattr(oar.nn, name)(3, 4, **kw)) == repr(getattr(paddle.nn, name)(3, 4, **kw))


def test_double_backward_through_fused_kernel_is_refused():
    net = oar.nn.GRU(3, 4)
    x = oar.to_tensor(RNG.standard_normal((2, 3, 3)).astype("float32"), stop_gradient=False)
    out, _ = net(x)
    with pytest.raises(NotImplementedError, match="create_graph"):
        oar.grad(out.sum(), [x], create_graph=True)
    out, _ = net(x)
    (gx,) = oar.grad(out.sum(), [x])  # first order stays available
    assert list(gx.shape) == [2, 3, 3]
