"""The fused residual norm (oar._C.fused_norm, behind oar.incubate's fused_rms_norm and
fused_layer_norm): NumPy reference, float64 gradients of all five inputs, and the unfused
composition it replaces."""
import numpy as np
import pytest

import oar
from op_test import check_grad


def ref_fused_norm(x, bias, residual, w, b, eps, axis, alpha, rms):
    h = x + (0 if bias is None else bias.reshape(x.shape[axis:])) + (0 if residual is None else alpha * residual)
    axes = tuple(range(axis, x.ndim))
    mean = np.zeros(h.shape[:axis] + (1,) * (x.ndim - axis)) if rms else h.mean(axes, keepdims=True)
    var = ((h - mean) ** 2).mean(axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    out = (h - mean) * rstd
    if w is not None:
        out = out * w.reshape(x.shape[axis:])
    if b is not None:
        out = out + b.reshape(x.shape[axis:])
    return out, h, mean.reshape(-1), rstd.reshape(-1)


def _case(seed, shape=(3, 4, 6), axis=2):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape[axis:]))
    return (rng.standard_normal(shape), rng.standard_normal(n), rng.standard_normal(shape),
            rng.uniform(0.5, 1.5, n), rng.standard_normal(n))


def _t(a):
    return None if a is None else oar.to_tensor(a)


@pytest.mark.parametrize("rms", [False, True])
@pytest.mark.parametrize("with_bias,with_residual,with_w,with_b",
                         [(True, True, True, True), (False, True, True, False), (True, False, False, True),
                          (False, False, False, False)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_norm_matches_numpy(rms, with_bias, with_residual, with_w, with_b, dtype):
    x, bias, res, w, b = _case(0)
    args = [x, bias if with_bias else None, res if with_residual else None, w if with_w else None,
            b if with_b else None]
    args = [None if a is None else a.astype(dtype) for a in args]
    got = oar._C.fused_norm(*[_t(a) for a in args], 1e-5, 2, 0.5, rms)
    exp = ref_fused_norm(*args, 1e-5, 2, 0.5, rms)
    tol = 1e-5 if dtype == "float32" else 1e-12
    for g, e, name in zip(got, exp, ["out", "residual_out", "mean", "rstd"]):
        assert g.dtype.name == dtype
        np.testing.assert_allclose(g.numpy(), e, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("rms", [False, True])
@pytest.mark.parametrize("axis", [1, 2])
def test_fused_norm_grad(rms, axis):
    x, bias, res, w, b = _case(1, axis=axis)

    def op(x, bias, res, w, b):
        out, h, _, _ = oar._C.fused_norm(x, bias, res, w, b, 1e-5, axis, 0.7, rms)
        return out, h   # both outputs carry gradient (residual_out feeds the next block)
    check_grad(op, [x, bias, res, w, b], what=f"fused_norm rms={rms} axis={axis}")


def test_fused_norm_grad_of_some_inputs():
    x, bias, res, w, b = _case(2)
    tx = oar.to_tensor(x, stop_gradient=True)
    tw = oar.to_tensor(w, stop_gradient=False)
    tr = oar.to_tensor(res, stop_gradient=False)
    out = oar._C.fused_norm(tx, None, tr, tw, None, 1e-5, 2, 1.0, True)[0]
    gw, gr = oar.grad([out.sum()], [tw, tr])
    h = x + res
    rstd = 1 / np.sqrt((h ** 2).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(gw.numpy(), (h * rstd).reshape(-1, 6).sum(0), rtol=1e-10)
    assert gr.shape == [3, 4, 6]


def test_fused_norm_equals_unfused_layer_norm():
    x, bias, res, w, b = _case(3)
    tx, tb, tr, tw, tnb = (oar.to_tensor(a.astype("float32")) for a in (x, bias, res, w, b))
    fused = oar._C.fused_norm(tx, tb, tr, tw, tnb, 1e-5, 2, 1.0, False)[0]
    unfused = oar.nn.functional.layer_norm(tx + tb + tr, [6], tw, tnb, 1e-5)
    np.testing.assert_allclose(fused.numpy(), unfused.numpy(), rtol=1e-6, atol=1e-6)


def test_fused_norm_errors():
    x = oar.ones([2, 3])
    with pytest.raises(ValueError, match="norm_weight"):
        oar._C.fused_norm(x, None, None, oar.ones([4]), None, 1e-5, 1, 1.0, True)
    with pytest.raises(ValueError, match="residual"):
        oar._C.fused_norm(x, None, oar.ones([3, 2]), None, None, 1e-5, 1, 1.0, True)
    with pytest.raises(ValueError, match="begin_norm_axis"):
        oar._C.fused_norm(x, None, None, None, None, 1e-5, 2, 1.0, True)
    with pytest.raises(TypeError):
        oar._C.fused_norm(x.astype("int32"), None, None, None, None, 1e-5, 1, 1.0, True)
