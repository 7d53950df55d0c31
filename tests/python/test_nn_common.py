"""linear, dropout, embedding, one_hot and pad against NumPy references (and values measured with
paddle 3.3.1), with float64 gradient checks and argument errors."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from op_test import FLOAT_DTYPES, assert_close, check_grad, rand


def T(a, **kw):
    return oar.to_tensor(a, **kw)


# ------------------------------------------------------------------ linear
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_linear(dtype):
    x = rand((2, 3, 4), dtype, seed=1)
    w = rand((4, 5), dtype, seed=2)
    b = rand((5,), dtype, seed=3)
    x64 = x.astype(np.float64)
    out = F.linear(T(x), T(w), T(b))
    assert out.dtype.name == dtype and out.shape == [2, 3, 5]
    assert_close(out, x64 @ w + b, dtype)
    assert_close(F.linear(T(x), T(w)), x64 @ w, dtype)
    assert_close(F.linear(T(x[0, 0]), T(w), T(b)), x64[0, 0] @ w + b, dtype)  # 1-D x
    assert_close(F.linear(T(x[0]).t().t(), T(w.T).t()), x64[0] @ w, dtype)  # transposed weight view
    assert F.linear(oar.zeros([0, 4], dtype), T(w), T(b)).shape == [0, 5]


def test_linear_grad_and_errors():
    check_grad(F.linear, [rand((3, 4), seed=4), rand((4, 2), seed=5), rand((2,), seed=6)], what="linear")
    check_grad(F.linear, [rand((2, 3, 4), seed=7), rand((4, 2), seed=8)], what="linear no bias")
    with pytest.raises(ValueError, match=r"linear: the last dim of argument 'x' \(shape \[2, 3\]\) must equal in_features = weight.shape\[0\] = 4"):
        F.linear(oar.ones([2, 3]), oar.ones([4, 5]))
    with pytest.raises(ValueError, match=r"linear: argument 'bias' expected shape \[5\], got \[4\]"):
        F.linear(oar.ones([2, 3]), oar.ones([3, 5]), oar.ones([4]))
    with pytest.raises(ValueError, match=r"linear: argument 'weight' must be 2-D \[in_features, out_features\], got shape \[3\]"):
        F.linear(oar.ones([2, 3]), oar.ones([3]))
    with pytest.raises(TypeError, match="linear: argument 'weight' must have x's dtype float32, got float64"):
        F.linear(oar.ones([2, 3]), oar.ones([3, 5], "float64"))


# ------------------------------------------------------------------ dropout
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_dropout_upscale(dtype):
    x = rand((200, 50), dtype, low=1, high=2, seed=1)
    oar.seed(123)
    out = F.dropout(T(x), p=0.3)
    o = out.numpy()
    kept = o != 0
    assert out.dtype.name == dtype
    np.testing.assert_allclose(o[kept], (x[kept] / 0.7).astype(dtype), rtol=1e-6)
    assert abs(kept.mean() - 0.7) < 0.02
    # the same seed gives the same mask; the next draw another one
    oar.seed(123)
    np.testing.assert_array_equal(F.dropout(T(x), p=0.3).numpy(), o)
    assert not np.array_equal(F.dropout(T(x), p=0.3).numpy() != 0, kept)
    # inference: identity
    np.testing.assert_array_equal(F.dropout(T(x), p=0.3, training=False).numpy(), x)
    np.testing.assert_array_equal(F.dropout(T(x), p=0.0).numpy(), x)
    np.testing.assert_array_equal(F.dropout(T(x), p=1.0).numpy(), np.zeros_like(x))


def test_dropout_downscale_axis_and_grad():
    x = rand((100, 6), low=1, high=2, seed=2)
    oar.seed(5)
    o = F.dropout(T(x), p=0.4, mode="downscale_in_infer").numpy()
    kept = o != 0
    np.testing.assert_array_equal(o[kept], x[kept])
    assert_close(F.dropout(T(x), p=0.4, training=False, mode="downscale_in_infer"), x * 0.6, "float64")
    # axis=0: one draw per row, shared along dim 1
    o = F.dropout(T(x), p=0.5, axis=0).numpy()
    rows = (o != 0).all(1) | (o == 0).all(1)
    assert rows.all() and 0 < (o[:, 0] != 0).sum() < 100
    o = F.dropout(T(x), p=0.5, axis=[1]).numpy()
    assert ((o != 0).all(0) | (o == 0).all(0)).all()
    o = F.dropout2d(T(rand((4, 8, 3, 3), low=1, high=2, seed=3)), p=0.5).numpy()
    assert ((o != 0).reshape(4, 8, 9).all(2) | (o == 0).reshape(4, 8, 9).all(2)).all()
    # gradient: the mask scaled by 1 / (1 - p)
    xt = T(x, stop_gradient=False)
    oar.seed(9)
    out = F.dropout(xt, p=0.25)
    out.sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), (out.numpy() != 0) / 0.75)


def test_dropout_errors():
    with pytest.raises(ValueError, match=r"dropout: argument 'p' must be in \[0, 1\], got 1.5"):
        F.dropout(oar.ones([2, 3]), p=1.5)
    with pytest.raises(ValueError, match="dropout: argument 'mode' must be 'upscale_in_train' or 'downscale_in_infer', got 'abc'"):
        F.dropout(oar.ones([2, 3]), mode="abc")
    with pytest.raises(ValueError, match=r"dropout: argument 'axis' holds 2, expected values in \[0, 2\)"):
        F.dropout(oar.ones([2, 3]), axis=2)
    with pytest.raises(TypeError, match=r"dropout: argument 'x' must be a floating-point tensor \(float16, bfloat16, float32, float64\), got int64"):
        F.dropout(oar.ones([2, 3], "int64"))
    with pytest.raises(ValueError, match="dropout2d: argument 'x' must be 4-D"):
        F.dropout2d(oar.ones([2, 3]))


# ------------------------------------------------------------------ embedding / one_hot
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("idtype", ["int32", "int64"])
def test_embedding(dtype, idtype):
    w = rand((6, 4), dtype, seed=1)
    ids = np.array([[0, 5, 2], [2, 2, 1]], idtype)
    out = F.embedding(T(ids), T(w))
    assert out.shape == [2, 3, 4] and out.dtype.name == dtype
    assert_close(out, w[ids], dtype)
    # padding_idx rows give zeros (as Paddle); a negative padding_idx counts from the end
    exp = w[ids].copy()
    exp[ids == 2] = 0
    assert_close(F.embedding(T(ids), T(w), padding_idx=2), exp, dtype)
    assert_close(F.embedding(T(ids), T(w), padding_idx=-4), exp, dtype)
    assert F.embedding(oar.zeros([0], "int64"), T(w)).shape == [0, 4]
    assert_close(F.embedding(T(np.array(3)), T(w)), w[3], dtype)


def test_embedding_grad():
    w = rand((5, 3), seed=2)
    ids = T(np.array([[0, 4, 2], [2, 2, 1]]))
    check_grad(lambda w: F.embedding(ids, w), [w], what="embedding")
    check_grad(lambda w: F.embedding(ids, w, padding_idx=2), [w], what="embedding padding")
    wt = T(w, stop_gradient=False)
    F.embedding(ids, wt, padding_idx=2, sparse=True).sum().backward()
    np.testing.assert_array_equal(wt.grad.numpy()[:, 0], [1, 1, 0, 0, 1])  # row 2 gets none
    # double backward through the gradient op
    wt = T(w, stop_gradient=False)
    g = T(rand((2, 3, 3), seed=3), stop_gradient=False)
    (gw,) = oar.grad([F.embedding(ids, wt)], [wt], [g], create_graph=True)
    (gg,) = oar.grad([(gw * gw).sum()], [g])
    exp = 2 * gw.numpy()[ids.numpy()]
    np.testing.assert_allclose(gg.numpy(), exp)


@pytest.mark.host_only  # the ids are checked by the kernel: a device kernel cannot raise from queued work
def test_embedding_id_errors():
    w = oar.ones([3, 4])
    with pytest.raises(ValueError, match=r"embedding: argument 'x' holds id 5 at flat position 1: expected ids in \[0, 3\)"):
        F.embedding(T(np.array([[0, 5]])), w)
    with pytest.raises(ValueError, match=r"embedding: argument 'x' holds id -1"):
        F.embedding(T(np.array([-1])), w)


def test_embedding_errors():
    w = oar.ones([3, 4])
    with pytest.raises(TypeError, match="embedding: argument 'x' must be an int32 or int64 tensor, got float32"):
        F.embedding(oar.ones([2]), w)
    with pytest.raises(ValueError, match=r"embedding: argument 'padding_idx' must be in \[-3, 3\), got 3"):
        F.embedding(T(np.array([0])), w, padding_idx=3)
    with pytest.raises(ValueError, match=r"embedding: argument 'weight' must be 2-D"):
        F.embedding(T(np.array([0])), oar.ones([3]))


def test_one_hot():
    x = np.array([[1, 0], [3, 2]])
    out = F.one_hot(T(x), 4)
    assert out.dtype == oar.float32 and out.shape == [2, 2, 4]
    np.testing.assert_array_equal(out.numpy(), np.eye(4, dtype=np.float32)[x])
    np.testing.assert_array_equal(F.one_hot(T(x.astype(np.int32)), 5).numpy(), np.eye(5)[x])
    np.testing.assert_array_equal(F.one_hot(T(x), num_classes=-1).numpy(), np.eye(4)[x])
    assert F.one_hot(oar.zeros([0], "int64"), 3).shape == [0, 3]
    with pytest.raises(TypeError, match="one_hot: argument 'x' must be an int32 or int64 tensor, got float32"):
        F.one_hot(oar.ones([2]), 3)


@pytest.mark.host_only  # the values are checked by the kernel: a device kernel cannot raise from queued work
def test_one_hot_value_errors():
    with pytest.raises(ValueError, match=r"one_hot: argument 'x' holds 5 at flat position 1: expected values in \[0, num_classes=4\)"):
        F.one_hot(T(np.array([1, 5])), 4)
    with pytest.raises(ValueError, match=r"one_hot: argument 'x' holds -1"):
        F.one_hot(T(np.array([-1])), 4)


# ------------------------------------------------------------------ pad
def np_pad(x, full, mode, value=0.0):
    pw = [(full[2 * d], full[2 * d + 1]) for d in range(x.ndim)]
    if mode == "constant":
        return np.pad(x, pw, constant_values=value)
    return np.pad(x, pw, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_modes(dtype, mode):
    x = rand((2, 3, 4, 5), dtype, seed=1)
    out = F.pad(T(x), [1, 2, 3, 0], mode=mode, value=1.5)  # W: (1, 2), H: (3, 0)
    assert out.dtype.name == dtype
    assert_close(out, np_pad(x, [0, 0, 0, 0, 3, 0, 1, 2], mode, 1.5), dtype)
    out = F.pad(T(x), [2, 1, 1, 1], mode=mode, data_format="NHWC")  # C last: W is dim 2
    assert_close(out, np_pad(x, [0, 0, 1, 1, 2, 1, 0, 0], mode), dtype)
    x3 = rand((2, 3, 4), dtype, seed=2)
    assert_close(F.pad(T(x3), [2, 3], mode=mode), np_pad(x3, [0, 0, 0, 0, 2, 3], mode), dtype)
    x5 = rand((1, 2, 3, 3, 4), dtype, seed=3)
    assert_close(F.pad(T(x5), [1, 0, 0, 2, 2, 1], mode=mode), np_pad(x5, [0, 0, 0, 0, 2, 1, 0, 2, 1, 0], mode), dtype)
    # a transposed (non-contiguous) input
    xt = T(x3).transpose([0, 2, 1])
    assert_close(F.pad(xt, [1, 1], mode=mode), np_pad(x3.transpose(0, 2, 1), [0, 0, 0, 0, 1, 1], mode), dtype)


def test_pad_paddle_values_and_constant_all_dims():
    # measured with paddle 3.3.1
    x4 = T(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    np.testing.assert_array_equal(F.pad(x4, [1, 0, 2, 1], mode="reflect").numpy()[0, 0],
                                  [[9, 8, 9, 10, 11], [5, 4, 5, 6, 7], [1, 0, 1, 2, 3], [5, 4, 5, 6, 7],
                                   [9, 8, 9, 10, 11], [5, 4, 5, 6, 7]])
    np.testing.assert_array_equal(F.pad(x4, [1, 0, 2, 1], mode="circular").numpy()[0, 0],
                                  [[7, 4, 5, 6, 7], [11, 8, 9, 10, 11], [3, 0, 1, 2, 3], [7, 4, 5, 6, 7],
                                   [11, 8, 9, 10, 11], [3, 0, 1, 2, 3]])
    x = rand((2, 3), seed=4)
    assert_close(F.pad(T(x), [1, 1, 0, 2], value=-1.0), np_pad(x, [1, 1, 0, 2], "constant", -1.0), "float64")
    assert_close(F.pad(T(x), [1, 1, 0, 2], pad_from_left_axis=False), np_pad(x, [0, 2, 1, 1], "constant"), "float64")
    assert_close(oar.pad_nd(T(x), [0, 1, 2, 0], "replicate"), np_pad(x, [0, 1, 2, 0], "replicate"), "float64")


def test_pad_grad():
    for mode in ["constant", "reflect", "replicate", "circular"]:
        check_grad(lambda x: F.pad(x, [2, 1, 1, 2], mode=mode), [rand((1, 2, 3, 3), seed=5)], what=f"pad {mode}")
    # double backward: the gradient of pad_grad is pad
    xt = T(rand((1, 1, 4), seed=6), stop_gradient=False)
    g = T(rand((1, 1, 7), seed=7), stop_gradient=False)
    (gx,) = oar.grad([F.pad(xt, [2, 1], mode="reflect")], [xt], [g], create_graph=True)
    (gg,) = oar.grad([gx.sum()], [g])
    exp = oar.grad([F.pad(xt, [2, 1], mode="reflect").sum()], [xt])[0].numpy()
    np.testing.assert_allclose(gg.numpy(), F.pad(T(np.ones((1, 1, 4))), [2, 1], mode="reflect").numpy())
    assert exp.shape == (1, 1, 4)


def test_pad_errors():
    x = oar.ones([1, 2, 3])
    with pytest.raises(ValueError, match=r"pad: reflect padding of dim 2 \(size 3\) must be less than the dim size, got 3 and 0"):
        F.pad(x, [3, 0], mode="reflect")
    with pytest.raises(ValueError, match="pad: expected 4 padding amounts for a 4-D input"):
        F.pad(oar.ones([1, 1, 3, 4]), [1, 0], mode="reflect")
    with pytest.raises(ValueError, match="pad: argument 'mode' must be one of 'constant', 'reflect', 'replicate', 'circular', got 'wrap'"):
        F.pad(x, [1, 1], mode="wrap")
    with pytest.raises(ValueError, match="pad: padding amounts must be >= 0"):
        F.pad(x, [-1, 1])
    with pytest.raises(ValueError, match="pad: argument 'data_format' must be one of"):
        F.pad(x, [1, 1], data_format="NHWC")
    with pytest.raises(ValueError, match="pad: circular padding of dim 2"):
        F.pad(x, [4, 0], mode="circular")


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_half_linear_dropout(dt):
    x = T(rand((3, 4), "float32", seed=1)).astype(dt)
    w = T(rand((4, 2), "float32", seed=2)).astype(dt)
    out = F.linear(x, w)
    assert out.dtype.name == dt
    ref = F.linear(x.astype("float32"), w.astype("float32")).astype(dt).astype("float32").numpy()
    np.testing.assert_allclose(out.astype("float32").numpy(), ref, rtol=3e-2, atol=3e-2)
    oar.seed(3)
    d = F.dropout(x, p=0.5)
    assert d.dtype.name == dt
    kept = d.astype("float32").numpy() != 0
    np.testing.assert_allclose(d.astype("float32").numpy()[kept], 2 * x.astype("float32").numpy()[kept], rtol=1e-2)


def test_dropout_identity_cases_match_paddle_objects():
    # measured with paddle 3.3.1: p=0 in training returns x itself; inference returns a new tensor
    x = oar.ones([2, 3])
    assert F.dropout(x, 0.0) is x
    y = F.dropout(x, 0.5, training=False)
    assert y is not x
    np.testing.assert_array_equal(y.numpy(), x.numpy())
