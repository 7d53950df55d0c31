"""nn.functional.embedding_renorm_ (and embedding's max_norm, which calls it): the rows of the
weight picked by the ids are scaled in place so that their p-norm is at most max_norm."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F


def _reference(ids, w, max_norm, p):
    w = w.copy()
    for i in np.unique(np.where(ids < 0, ids + w.shape[0], ids)):
        row = w[i]
        if p == 0:
            n = np.count_nonzero(row)
        elif np.isinf(p):
            n = np.abs(row).max()
        else:
            n = (np.abs(row) ** p).sum() ** (1.0 / p)
        if n > max_norm:
            w[i] = row * (max_norm / (n + 1e-7))
    return w


W = (np.random.default_rng(0).standard_normal((6, 4)) * 3).astype("float32")


@pytest.mark.parametrize("max_norm,p", [(1.0, 2.0), (2.0, 1.0), (2.0, float("inf")), (2.0, 0.0),
                                        (1.5, 3.0), (-1.0, 2.0), (100.0, 2.0)])
def test_embedding_renorm_matches_numpy(max_norm, p):
    ids = np.array([[0, 2], [2, 5]])
    w = oar.to_tensor(W)
    out = F.embedding_renorm_(oar.to_tensor(ids), w, max_norm, norm_type=p)
    assert out is w
    np.testing.assert_allclose(w.numpy(), _reference(ids, W, max_norm, p), rtol=1e-6, atol=1e-6)


def test_embedding_renorm_float64_int32_negative_ids():
    ids = np.array([-1, 1, 5], dtype="int32")  # -1 and 5 are the same row
    w = oar.to_tensor(W.astype("float64"))
    F.embedding_renorm_(oar.to_tensor(ids), w, 0.5)
    assert w.dtype == oar.float64
    np.testing.assert_allclose(w.numpy(), _reference(ids, W.astype("float64"), 0.5, 2.0), rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(w.numpy()[[1, 5]], axis=1), [0.5, 0.5], rtol=1e-6)


def test_embedding_renorm_parameter_keeps_grad_and_records_nothing():
    p = oar.create_parameter([6, 4], "float32")
    p.set_value(W)
    F.embedding_renorm_(oar.to_tensor([3]), p, 0.1)
    assert not p.stop_gradient and p.is_leaf
    assert abs(np.linalg.norm(p.numpy()[3]) - 0.1) < 1e-6
    np.testing.assert_array_equal(p.numpy()[[0, 1, 2, 4, 5]], W[[0, 1, 2, 4, 5]])


def test_embedding_max_norm():
    ids = np.array([[0, 3], [3, 1]])
    w = oar.to_tensor(W)
    out = F.embedding(oar.to_tensor(ids), w, max_norm=1.0)
    ref = _reference(ids, W, 1.0, 2.0)
    np.testing.assert_allclose(w.numpy(), ref, rtol=1e-6)  # the table is renormed in place
    np.testing.assert_allclose(out.numpy(), ref[ids], rtol=1e-6)


def test_embedding_renorm_empty_ids():
    w = oar.to_tensor(W)
    F.embedding_renorm_(oar.to_tensor(np.zeros([0], "int64")), w, 0.1)
    np.testing.assert_array_equal(w.numpy(), W)


def test_embedding_renorm_errors():
    w = oar.to_tensor(W)
    with pytest.raises(TypeError, match="embedding_renorm_: argument 'x' must be a Tensor"):
        F.embedding_renorm_(np.array([0]), w, 1.0)
    with pytest.raises(TypeError, match="embedding_renorm_: argument 'x' must be int32 or int64"):
        F.embedding_renorm_(oar.to_tensor([0.5]), w, 1.0)
    with pytest.raises(ValueError, match="embedding_renorm_: argument 'weight' must be 2-D"):
        F.embedding_renorm_(oar.to_tensor([0]), oar.to_tensor([1.0, 2.0]), 1.0)
    with pytest.raises(TypeError, match="embedding_renorm_: argument 'weight' must be a floating-point"):
        F.embedding_renorm_(oar.to_tensor([0]), oar.to_tensor([[1, 2]]), 1.0)
    with pytest.raises(ValueError, match=r"embedding_renorm_: the ids in x must be in \[-6, 6\).*7"):
        F.embedding_renorm_(oar.to_tensor([7]), w, 1.0)
    with pytest.raises(TypeError, match="embedding_renorm_: argument 'max_norm' must be a float"):
        F.embedding_renorm_(oar.to_tensor([0]), w, "a")
    with pytest.raises(TypeError, match="embedding_renorm_: argument 'norm_type' must be a float"):
        F.embedding_renorm_(oar.to_tensor([0]), w, 1.0, norm_type=None)
    np.testing.assert_array_equal(w.numpy(), W)


@pytest.mark.parametrize("max_norm,p", [(1.0, 2.0), (2.0, 1.0), (2.0, float("inf")), (2.0, 0.0), (-1.0, 2.0)])
def test_embedding_renorm_matches_paddle(max_norm, p):
    paddle = pytest.importorskip("paddle")
    ids = np.array([[0, 2], [2, 5], [-1, 1]])
    pw, ow = paddle.to_tensor(W), oar.to_tensor(W)
    paddle.nn.functional.embedding_renorm_(paddle.to_tensor(ids), pw, max_norm, p)
    F.embedding_renorm_(oar.to_tensor(ids), ow, max_norm, p)
    np.testing.assert_allclose(ow.numpy(), pw.numpy(), rtol=1e-6, atol=1e-6)
