"""oar.compat (paddle.compat), oar.compat.nn, oar.compat.nn.functional and the `import torch` switch
(oar.enable_compat / disable_compat): results against NumPy and, when it imports, the real Paddle;
gradients numerically in float64; the keyword guard's and the argument checks' errors."""
import importlib.util
import sys
import warnings

import numpy as np
import pytest

import oar

HAVE_PADDLE = importlib.util.find_spec("paddle") is not None
needs_paddle = pytest.mark.skipif(not HAVE_PADDLE, reason="paddle is not importable")
rng = np.random.default_rng(7)


def _paddle():
    import paddle
    return paddle


def T(a, **kw):
    return oar.to_tensor(a, **kw)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


# ---------------------------------------------------------------- oar.compat

def test_equal_and_promotion():
    assert oar.compat.equal(T([1, 2, 3]), T([1, 2, 3])) is True
    assert oar.compat.equal(T([1, 2, 3]), T([1, 3, 2])) is False
    assert oar.compat.equal(T([1, 2]), T([1.0, 2.0])) is True
    assert oar.compat.equal(T([1.0, float("nan")]), T([1.0, float("nan")])) is False
    with pytest.raises(TypeError, match=r"paddle.compat.equal\(\) received unexpected keyword argument 'x'"):
        oar.compat.equal(x=T([1]), other=T([1]))


def test_median_and_nanmedian():
    x = T([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    assert oar.compat.median(x).item() == 5
    r = oar.compat.median(x, dim=1)
    assert r.values.numpy().tolist() == [2, 5, 8] and r.indices.numpy().tolist() == [1, 1, 1]
    out = (oar.zeros([3], dtype="int64"), oar.zeros([3], dtype="int64"))
    r = oar.compat.median(x, dim=0, out=out)
    assert r.values is out[0] and out[0].numpy().tolist() == [4, 5, 6]
    y = T([[1.0, float("nan"), 3.0], [4.0, 5.0, 6.0], [float("nan"), 8.0, 9.0], [float("nan")] * 3])
    r = oar.compat.nanmedian(y, dim=1)
    v = r.values.numpy()
    assert v[:3].tolist() == [1.0, 5.0, 8.0] and np.isnan(v[3])
    assert r.indices.numpy().tolist() == [0, 1, 1, 0]  # an all-NaN row gets index 0
    assert oar.compat.nanmedian(y).item() == 5.0
    assert list(oar.compat.nanmedian(y, dim=1, keepdim=True).values.shape) == [4, 1]
    with pytest.raises(TypeError, match="paddle.nanmedian"):
        oar.compat.nanmedian(y, axis=1)
    with pytest.raises(TypeError, match="Expected a list or tuple of two tensors"):
        oar.compat.median(x, dim=1, out=oar.zeros([3]))


@needs_paddle
def test_median_matches_paddle():
    paddle = _paddle()
    data = rng.permutation(40).reshape(5, 8).astype("float32")
    data[1, 2] = data[3, 0] = np.nan
    for fn in ("median", "nanmedian"):
        for dim in (None, 0, 1):
            for keep in (False, True):
                a = getattr(oar.compat, fn)(T(data), dim, keep)
                b = getattr(paddle.compat, fn)(paddle.to_tensor(data), dim, keep)
                if dim is None:
                    np.testing.assert_array_equal(a.numpy(), b.numpy())
                else:
                    np.testing.assert_array_equal(a.values.numpy(), b.values.numpy())
                    np.testing.assert_array_equal(a.indices.numpy(), b.indices.numpy())


def test_min_max_forms_and_errors():
    x = T([[0.2, 0.3, 0.5, 0.9], [0.1, 0.2, 0.6, 0.7]], dtype="float64")
    assert abs(oar.compat.min(x).item() - 0.1) < 1e-12
    r = oar.compat.max(x, 1)
    assert r.values.numpy().tolist() == [0.9, 0.7] and r.indices.numpy().tolist() == [3, 3]
    r = oar.compat.min(x, dim=0, keepdim=True)
    assert list(r.values.shape) == [1, 4] and r.indices.dtype == oar.int64
    y = T([[0.5, 0.1, 0.6, 0.1]], dtype="float64")
    np.testing.assert_array_equal(oar.compat.max(x, y).numpy(), np.maximum(x.numpy(), y.numpy()))
    np.testing.assert_array_equal(oar.compat.min(x, other=y).numpy(), np.minimum(x.numpy(), y.numpy()))
    z = oar.compat.max(T(3.0), 0)
    assert z.values.item() == 3.0 and z.indices.item() == 0
    out = oar.zeros([], dtype="float64")
    oar.compat.max(x, out=out)
    assert out.item() == 0.9
    with pytest.raises(TypeError, match="Invalid arguments for `paddle.compat.min`"):
        oar.compat.min(x, 1, True, 3)
    with pytest.raises(TypeError, match="Invalid arguments"):
        oar.compat.min(x, None)
    with pytest.raises(TypeError, match="must be int or Tensor"):
        oar.compat.max(x, 1.5)
    with pytest.raises(TypeError, match="Invalid arguments"):
        oar.compat.max(x, keepdim=True)
    with pytest.raises(TypeError, match="input should be a tensor"):
        oar.compat.max([1, 2])
    with pytest.raises(TypeError, match="paddle.min"):
        oar.compat.min(x, axis=0)
    nan = T([[1.0, float("nan"), 3.0, float("nan")], [4.0, 2.0, 6.0, 5.0]])
    r = oar.compat.median(nan, 1)
    assert np.isnan(r.values.numpy()[0]) and r.indices.numpy().tolist() == [1, 0]


def test_max_dim_gradient_goes_to_the_index():
    x = T([[1.0, 1.0, 0.0], [0.5, 2.0, 2.0]], dtype="float64")
    x.stop_gradient = False
    oar.compat.max(x, 1).values.sum().backward()
    assert x.grad.numpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]


def test_sort_unique_split_slogdet_seed():
    x = T([[5.0, 8.0, 9.0, 5.0], [0.0, 0.0, 1.0, 7.0]], dtype="float64")
    r = oar.compat.sort(x, dim=-1, stable=True)
    assert r.values.numpy().tolist() == [[5, 5, 8, 9], [0, 0, 1, 7]]
    assert r.indices.numpy().tolist() == [[0, 3, 1, 2], [0, 1, 2, 3]]
    r = oar.compat.sort(x, 1, descending=True, stable=True)
    assert r.indices.numpy().tolist() == [[2, 1, 0, 3], [3, 2, 0, 1]]
    data = rng.standard_normal((3, 4))
    xs = T(data)
    xs.stop_gradient = False
    (oar.compat.sort(xs, 0).values * T(np.arange(12.0).reshape(3, 4))).sum().backward()
    ref = numeric_grad(lambda a: float((np.sort(a, 0) * np.arange(12.0).reshape(3, 4)).sum()), data)
    np.testing.assert_allclose(xs.grad.numpy(), ref, atol=1e-6)
    u, inv, cnt = oar.compat.unique(T([2, 3, 3, 1, 5, 3]), return_inverse=True, return_counts=True)
    assert u.numpy().tolist() == [1, 2, 3, 5] and inv.numpy().tolist() == [1, 2, 2, 0, 3, 2]
    assert cnt.numpy().tolist() == [1, 1, 3, 1]
    assert oar.compat.unique(T([[2, 1], [2, 1]]), dim=0).numpy().tolist() == [[2, 1]]
    y = oar.rand([3, 8, 5])
    assert [t.shape for t in oar.compat.split(y, 3, dim=1)] == [[3, 3, 5], [3, 3, 5], [3, 2, 5]]
    assert [t.shape for t in oar.compat.split(y, 4, dim=1)] == [[3, 4, 5], [3, 4, 5]]
    assert [t.shape for t in oar.compat.split(y, [1, 2, 5], dim=-2)] == [[3, 1, 5], [3, 2, 5], [3, 5, 5]]
    assert [t.shape for t in oar.compat.split(y, 2, dim=T(2))] == [[3, 8, 2], [3, 8, 2], [3, 8, 1]]
    with pytest.raises(ValueError, match="non-negative"):
        oar.compat.split(y, [3, -1, 6], dim=1)
    with pytest.raises(ValueError, match=r"range of \[-3, 3\)"):
        oar.compat.split(y, 2, dim=3)
    with pytest.raises(TypeError, match="paddle.split"):
        oar.compat.split(y, 2, axis=1)
    with pytest.raises(TypeError, match="must be int, list or tuple"):
        oar.compat.split(y, 2.5)
    m = rng.standard_normal((2, 3, 3))
    s = oar.compat.slogdet(T(m))
    sign, logdet = np.linalg.slogdet(m)
    np.testing.assert_allclose(s.sign.numpy(), sign)
    np.testing.assert_allclose(s.logabsdet.numpy(), logdet, rtol=1e-6)
    s0 = oar.compat.slogdet(T(np.zeros((2, 2))))
    assert s0.sign.item() == 0 and s0.logabsdet.item() == -np.inf
    a = oar.compat.seed()
    first = oar.rand([3]).numpy()
    oar.seed(a)
    np.testing.assert_array_equal(oar.rand([3]).numpy(), first)


# ---------------------------------------------------------------- oar.compat.nn.functional

F = oar.compat.nn.functional


def test_pad_constant_and_modes():
    x = np.arange(2 * 3 * 4, dtype="float32").reshape(1, 2, 3, 4)
    got = F.pad(T(x), [1, 2], value=-1.0).numpy()
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (0, 0), (1, 2)], constant_values=-1))
    got = F.pad(T(x), [1, 0, 2, 1]).numpy()
    np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 0)]))
    got = F.pad(T(x), [0, 0, 0, 0, 1, 1, 1, 0]).numpy()  # the first axis too
    np.testing.assert_array_equal(got, np.pad(x, [(1, 0), (1, 1), (0, 0), (0, 0)]))
    for mode, np_mode in (("reflect", "reflect"), ("replicate", "edge"), ("circular", "wrap")):
        got = F.pad(T(x), [1, 2, 2, 1], mode=mode).numpy()
        np.testing.assert_array_equal(got, np.pad(x, [(0, 0), (0, 0), (2, 1), (1, 2)], mode=np_mode))
    x3 = np.arange(10, dtype="float32").reshape(1, 2, 5)
    np.testing.assert_array_equal(F.pad(T(x3), [2, 1], mode="reflect").numpy(),
                                  np.pad(x3, [(0, 0), (0, 0), (2, 1)], mode="reflect"))
    assert F.pad(T(x), oar.zeros([0], dtype="int64")).shape == [1, 2, 3, 4]
    with pytest.raises(AssertionError, match="mode should be one of"):
        F.pad(T(x), [1, 1], mode="zeros")
    with pytest.raises(ValueError, match="Only 2D, 3D, 4D, 5D padding"):
        F.pad(T(np.ones(3, "float32")), [1, 1], mode="reflect")
    with pytest.raises(ValueError, match="len\\(pad\\) is bounded"):
        F.pad(T(x3), [1, 1, 1, 1, 1, 1], mode="reflect")
    with pytest.raises(TypeError, match="paddle.nn.functional.pad"):
        F.pad(T(x), [1, 1], data_format="NCHW")


@needs_paddle
def test_pad_matches_paddle():
    paddle = _paddle()
    x = rng.standard_normal((2, 3, 4, 5)).astype("float32")
    for pad, mode in (([1, 2], "constant"), ([1, 0, 2, 1], "reflect"), ([1, 1, 1, 1, 1, 1], "constant"),
                      ([2, 1, 0, 1], "replicate"), ([1, 2, 1, 2], "circular")):
        a = F.pad(T(x), pad, mode=mode, value=0.5).numpy()
        b = paddle.compat.nn.functional.pad(paddle.to_tensor(x), pad, mode=mode, value=0.5).numpy()
        np.testing.assert_array_equal(a, b)


def test_softmax_linear_unfold_sdpa():
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    e = np.exp(x - x.max(0, keepdims=True))
    np.testing.assert_allclose(F.softmax(T(x)).numpy(), e / e.sum(0, keepdims=True), rtol=1e-5)  # 3-D: dim 0
    e = np.exp(x - x.max(2, keepdims=True))
    np.testing.assert_allclose(F.softmax(T(x), -1).numpy(), e / e.sum(2, keepdims=True), rtol=1e-5)
    assert F.softmax(T(x), 1, "float64").dtype == oar.float64
    assert F.softmax(T(x), 1, 3).dtype == oar.float32  # _stacklevel, ignored
    with pytest.warns(UserWarning, match="may behave differently"):
        with pytest.raises(TypeError, match="paddle.nn.functional.softmax"):
            F.softmax(T(x), axis=1)
    w = rng.standard_normal((5, 4))
    b = rng.standard_normal(5)
    xd = rng.standard_normal((3, 4))
    np.testing.assert_allclose(F.linear(T(xd), T(w), T(b)).numpy(), xd @ w.T + b, rtol=1e-10)
    xt = T(xd)
    xt.stop_gradient = False
    F.linear(xt, T(w)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), np.ones((3, 5)) @ w)
    img = rng.standard_normal((1, 2, 4, 4)).astype("float32")
    np.testing.assert_array_equal(F.unfold(T(img), 2, stride=2).numpy(),
                                  oar.nn.functional.unfold(T(img), 2, strides=2).numpy())
    q = rng.standard_normal((2, 3, 5, 4))
    k = rng.standard_normal((2, 3, 6, 4))
    v = rng.standard_normal((2, 3, 6, 4))
    s = q @ k.transpose(0, 1, 3, 2) / 2.0
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v
    np.testing.assert_allclose(F.scaled_dot_product_attention(T(q), T(k), T(v)).numpy(), ref, rtol=1e-8)
    with pytest.raises(RuntimeError, match="should not be set when is_causal"):
        F.scaled_dot_product_attention(T(q), T(k), T(v), attn_mask=T(np.zeros((5, 6))), is_causal=True)


# ---------------------------------------------------------------- oar.compat.nn

def test_linear_layout_init_and_state_dict():
    fc = oar.compat.nn.Linear(100, 3)
    assert fc.weight.shape == [3, 100] and fc.bias.shape == [3]
    # Paddle's compat init: weight within 1/sqrt(out_features), bias within 1/sqrt(in_features).
    assert np.abs(fc.weight.numpy()).max() <= 1 / np.sqrt(3) + 1e-6
    assert np.abs(fc.bias.numpy()).max() <= 0.1 + 1e-6
    assert np.abs(fc.weight.numpy()).max() > 0.1
    x = rng.standard_normal((2, 100)).astype("float32")
    np.testing.assert_allclose(fc(T(x)).numpy(), x @ fc.weight.numpy().T + fc.bias.numpy(), rtol=1e-5, atol=1e-6)
    assert repr(fc) == "Linear(in_features=100, out_features=3, bias=True)"
    assert sorted(fc.state_dict()) == ["bias", "weight"]
    assert oar.compat.nn.Linear(2, 3, bias=False).bias is None
    assert oar.compat.nn.Linear(2, 3, dtype="float64").weight.dtype == oar.float64
    with pytest.raises(TypeError, match="paddle.nn.Linear"):
        oar.compat.nn.Linear(2, 3, weight_attr=None)


def test_pool_softmax_unfold_layers():
    x = np.arange(12, dtype="float32").reshape(1, 2, 6)
    pool = oar.compat.nn.AvgPool1D(3, padding=1, count_include_pad=False)
    assert pool(T(x)).numpy().tolist() == [[[0.5, 3.0], [6.5, 9.0]]]
    assert repr(pool) == "AvgPool1D(kernel_size=(3,), stride=(3,), padding=(1,))"
    assert oar.compat.nn.AvgPool1d is oar.compat.nn.AvgPool1D
    x2 = rng.standard_normal((1, 1, 4, 4)).astype("float32")
    np.testing.assert_allclose(oar.compat.nn.AvgPool2D(2)(T(x2)).numpy(),
                               x2.reshape(1, 1, 2, 2, 2, 2).mean((3, 5)), rtol=1e-6)
    got = oar.compat.nn.AvgPool2d(2, padding=1, count_include_pad=True)(T(x2)).numpy()
    assert got.shape == (1, 1, 3, 3) and abs(got[0, 0, 0, 0] - x2[0, 0, 0, 0] / 4) < 1e-6
    got = oar.compat.nn.AvgPool2D(2, divisor_override=1)(T(x2)).numpy()
    np.testing.assert_allclose(got, x2.reshape(1, 1, 2, 2, 2, 2).sum((3, 5)), rtol=1e-6)
    x3 = rng.standard_normal((1, 1, 2, 4, 4)).astype("float32")
    assert oar.compat.nn.AvgPool3D(2)(T(x3)).shape == [1, 1, 1, 2, 2]
    with pytest.raises(TypeError, match="paddle.nn.AvgPool2D"):
        oar.compat.nn.AvgPool2D(2, exclusive=False)
    sm = oar.compat.nn.Softmax(dim=-1)
    assert repr(sm) == "Softmax(dim=-1)"
    np.testing.assert_allclose(sm(T([[1.0, 1.0]])).numpy(), [[0.5, 0.5]])
    with pytest.raises(TypeError, match="paddle.nn.Softmax"):
        oar.compat.nn.Softmax(axis=1)
    unfold = oar.compat.nn.Unfold(kernel_size=2, stride=2)
    assert unfold(T(x2)).shape == [1, 4, 4]
    with pytest.raises(TypeError, match="paddle.nn.Unfold"):
        oar.compat.nn.Unfold(kernel_sizes=2)


def _mha_reference(mha, q, k, v, attn_mask=None, key_padding_mask=None):
    """NumPy multi-head attention with mha's weights (seq-first inputs, masks boolean)."""
    E, H = mha.embed_dim, mha.num_heads
    d = E // H
    W = mha.in_proj_weight.numpy()
    b = mha.in_proj_bias.numpy()
    Q, K, V = q @ W[:E].T + b[:E], k @ W[E:2 * E].T + b[E:2 * E], v @ W[2 * E:].T + b[2 * E:]
    L, N, _ = Q.shape
    S = K.shape[0]

    def heads(t, n):
        return t.transpose(1, 0, 2).reshape(N, n, H, d).transpose(0, 2, 1, 3)

    Qh, Kh, Vh = heads(Q, L), heads(K, S), heads(V, S)
    scores = Qh @ Kh.transpose(0, 1, 3, 2) / np.sqrt(d)
    if attn_mask is not None:
        scores = np.where(attn_mask, -np.inf, scores)
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, None, :], -np.inf, scores)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    ctx = (p @ Vh).transpose(0, 2, 1, 3).reshape(N, L, E)
    out = ctx @ mha.out_proj.weight.numpy().T + mha.out_proj.bias.numpy()
    return out.transpose(1, 0, 2), p.mean(1)


def test_multihead_attention_matches_numpy():
    oar.seed(3)
    mha = oar.compat.nn.MultiheadAttention(8, 2, dtype="float64")
    with oar.no_grad():
        mha.in_proj_bias.set_value(rng.standard_normal(24))
    names = [n for n, _ in mha.named_parameters()]
    assert names == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    q = rng.standard_normal((5, 3, 8))
    kv = rng.standard_normal((6, 3, 8))
    out, w = mha(T(q), T(kv), T(kv))
    ref_out, ref_w = _mha_reference(mha, q, kv, kv)
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-8, atol=1e-10)
    mask = np.triu(np.ones((5, 6), bool), 1)
    pad = np.zeros((3, 6), bool)
    pad[1, 4:] = True
    out, w = mha(T(q), T(kv), T(kv), attn_mask=T(mask), key_padding_mask=T(pad))
    ref_out, ref_w = _mha_reference(mha, q, kv, kv, mask, pad)
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-8, atol=1e-10)
    out2, none = mha(T(q), T(kv), T(kv), attn_mask=T(mask), key_padding_mask=T(pad), need_weights=False)
    assert none is None
    np.testing.assert_allclose(out2.numpy(), ref_out, rtol=1e-8, atol=1e-10)
    out1, w1 = mha(T(q[:, 0]), T(kv[:, 0]), T(kv[:, 0]))  # unbatched
    np.testing.assert_allclose(out1.numpy(), _mha_reference(mha, q[:, :1], kv[:, :1], kv[:, :1])[0][:, 0],
                               rtol=1e-8, atol=1e-10)
    assert list(w1.shape) == [5, 6]
    bf = oar.compat.nn.MultiheadAttention(8, 2, batch_first=True, kdim=4, vdim=6, add_bias_kv=True,
                                          add_zero_attn=True)
    names = [n for n, _ in bf.named_parameters()]
    assert names[:6] == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "q_proj_bias", "k_proj_bias",
                         "v_proj_bias"]
    out, w = bf(oar.rand([3, 5, 8]), oar.rand([3, 7, 4]), oar.rand([3, 7, 6]), average_attn_weights=False)
    assert out.shape == [3, 5, 8] and w.shape == [3, 2, 5, 9]


def test_multihead_attention_gradient():
    oar.seed(5)
    mha = oar.compat.nn.MultiheadAttention(4, 2, dtype="float64")
    q0 = rng.standard_normal((3, 2, 4))

    def loss(a):
        with oar.no_grad():
            return float(mha(T(a), T(a), T(a))[0].sum().item())

    x = T(q0)
    x.stop_gradient = False
    mha(x, x, x)[0].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), numeric_grad(loss, q0), rtol=1e-5, atol=1e-7)


@needs_paddle
def test_multihead_attention_matches_paddle_with_same_weights():
    paddle = _paddle()
    q = rng.standard_normal((4, 2, 8)).astype("float32")
    ours = oar.compat.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    theirs = paddle.compat.nn.MultiheadAttention(8, 2, add_bias_kv=True)
    theirs.set_state_dict({k: paddle.to_tensor(v.numpy()) for k, v in ours.state_dict().items()})
    mask = np.triu(np.ones((4, 4), bool), 1)
    a = ours(T(q), T(q), T(q), attn_mask=T(mask))
    b = theirs(paddle.to_tensor(q), paddle.to_tensor(q), paddle.to_tensor(q), attn_mask=paddle.to_tensor(mask))
    np.testing.assert_allclose(a[0].numpy(), b[0].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a[1].numpy(), b[1].numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- enable_compat / disable_compat

@pytest.fixture
def no_proxy():
    yield
    if oar.compat.proxy._installed():
        oar.disable_compat()


@pytest.mark.host_only
def test_enable_compat_global(no_proxy):
    oar.enable_compat()
    import torch
    assert torch.sin is oar.sin and torch.split is oar.compat.split and torch.max is oar.compat.max
    assert torch.relu is oar.nn.functional.relu
    import torch.nn
    import torch.nn.functional as tf
    assert torch.nn.Linear is oar.compat.nn.Linear and torch.nn.ReLU is oar.nn.ReLU
    assert tf.softmax is oar.compat.nn.functional.softmax and tf.relu is oar.nn.functional.relu
    assert isinstance(sys.modules["torch"], oar.compat.proxy.TorchProxyModule)
    oar.disable_compat()
    assert "torch" not in sys.modules or not isinstance(sys.modules["torch"], oar.compat.proxy.TorchProxyModule)
    with pytest.warns(UserWarning, match="not installed"):
        oar.disable_compat()


@pytest.mark.host_only
def test_compat_guard_and_scope(no_proxy, tmp_path, monkeypatch):
    with oar.compat.use_torch_proxy_guard():
        import torch
        assert torch.cos is oar.cos
    assert not oar.compat.proxy._installed()
    pkg = tmp_path / "uses_torch_mod.py"
    pkg.write_text("import torch\nSIN = torch.sin\ndef later():\n    import torch as t\n    return t.split\n")
    other = tmp_path / "blocked_torch_mod.py"
    other.write_text("try:\n    import torch\n    FOUND = torch.sin\nexcept ImportError:\n    FOUND = None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    oar.enable_compat(scope="uses_torch_mod", blocked_modules=["blocked_torch_mod"])
    import uses_torch_mod
    assert uses_torch_mod.SIN is oar.sin and uses_torch_mod.later() is oar.compat.split
    sys.modules.pop("torch", None)
    import blocked_torch_mod
    assert blocked_torch_mod.FOUND is None or not isinstance(sys.modules.get("torch"),
                                                             oar.compat.proxy.TorchProxyModule)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="globally"):
            oar.enable_compat()
    oar.disable_compat()
    for name in ("uses_torch_mod", "blocked_torch_mod"):
        sys.modules.pop(name, None)
    with pytest.raises(AssertionError, match="Unsupported backend"):
        oar.enable_compat(backend="jax")
