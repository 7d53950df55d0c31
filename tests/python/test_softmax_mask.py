"""The masked softmax kernel (oar._C.softmax_mask, behind oar.incubate's softmax_mask_fuse and
softmax_mask_fuse_upper_triangle): NumPy references, gradients, broadcasting, errors."""
import numpy as np
import pytest

import oar
from op_test import check_grad


def np_softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mask_shape", [(2, 1, 5, 37), (5, 37), (1, 37), (2, 3, 5, 37)])
def test_softmax_mask_matches_numpy(dtype, mask_shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 37)).astype(dtype)
    m = np.where(rng.random(mask_shape) < 0.3, -1e4, 0).astype(dtype)
    got = oar._C.softmax_mask(oar.to_tensor(x), oar.to_tensor(m), False)
    np.testing.assert_allclose(got.numpy(), np_softmax(x + m), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_upper_triangle_matches_numpy(dtype):
    x = np.random.default_rng(1).standard_normal((2, 2, 19, 19)).astype(dtype)
    causal = np.triu(np.full((19, 19), -np.inf), 1)
    got = oar._C.softmax_mask(oar.to_tensor(x), None, True)
    np.testing.assert_allclose(got.numpy(), np_softmax(x + causal), rtol=1e-5, atol=1e-6)


def test_softmax_upper_triangle_of_a_wide_matrix():
    """Keys beyond the query's index are masked also when there are more keys than queries."""
    x = np.random.default_rng(4).standard_normal((3, 7))
    got = oar._C.softmax_mask(oar.to_tensor(x), None, True)
    np.testing.assert_allclose(got.numpy(), np_softmax(x + np.triu(np.full((3, 7), -np.inf), 1)), rtol=1e-12)


def test_softmax_mask_half_precision():
    x = np.random.default_rng(2).standard_normal((2, 4, 16)).astype("float32")
    m = np.zeros((1, 4, 16), "float32")
    for dt in ("float16", "bfloat16"):
        got = oar._C.softmax_mask(oar.to_tensor(x).astype(dt), oar.to_tensor(m).astype(dt), False)
        assert got.dtype.name == dt
        np.testing.assert_allclose(got.astype("float32").numpy(), np_softmax(x), atol=2e-2)


def test_softmax_mask_grad():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 4))
    m = rng.standard_normal((2, 1, 4, 4))
    check_grad(lambda a: oar._C.softmax_mask(a, oar.to_tensor(m), False), [x])
    check_grad(lambda a: oar._C.softmax_mask(a, None, True), [x.copy()])


def test_softmax_mask_errors():
    x = oar.zeros([2, 3, 4])
    with pytest.raises(ValueError, match="broadcast"):
        oar._C.softmax_mask(x, oar.zeros([3, 5]), False)
    with pytest.raises(ValueError, match="2-D"):
        oar._C.softmax_mask(oar.zeros([4]), None, True)
    with pytest.raises(TypeError):
        oar._C.softmax_mask(x, oar.zeros([3, 4], dtype="float64"), False)
    with pytest.raises(TypeError):
        oar._C.softmax_mask(x.astype("int32"), None, False)
