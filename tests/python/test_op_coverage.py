"""Every generated op is exercised by some test here, plus the ops no other file covers."""
import glob
import os
import re

import numpy as np
import pytest

import oar
from op_test import check_grad, rand

HERE = os.path.dirname(os.path.abspath(__file__))
# Ops the Python layer wraps under another public name (tested through that name).
INTERNAL = {"reshape_exact": "reshape's backward", "split_with_sizes": "oar.split with a list",
            "p_norm": "oar.norm with a number p", "segment_pool": "oar.geometric.segment_*",
            "graph_send_uv": "oar.geometric.send_uv", "graph_sample_neighbors": "oar.geometric.sample_neighbors",
            "swiglu_base": "oar.nn.functional.swiglu"}


def test_every_generated_op_has_a_test():
    text = "\n".join(open(f).read() for f in glob.glob(os.path.join(HERE, "test_*.py")))
    # Every name called as oar.<name> (or through _C, F, L, linalg, or a tensor t/x/a), or quoted.
    used = set(re.findall(r"\b(?=(?:oar|_C|F|L|linalg|t|x|a)\.(\w+))", text))  # (overlapping: oar._C.f)
    used |= set(re.findall(r"[\"'](\w+)[\"']", text))
    missing = [n for n in oar._C._generated_ops if n not in INTERNAL and n not in used]
    assert not missing, f"ops without a test: {missing}"


def test_empty_like_assign():
    x = oar.to_tensor(rand((2, 3), seed=1))
    e = oar.empty_like(x)
    assert e.shape == [2, 3] and e.dtype == oar.float64
    assert oar.empty_like(x, dtype="int32").dtype == oar.int32
    y = oar.assign(x)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    y[0, 0] = 5.0  # a copy, not a view
    assert float(x[0, 0]) != 5.0
    check_grad(oar.assign, [rand((2, 3), seed=2)], what="assign")


def test_gaussian_standard_normal():
    oar.seed(7)
    a = oar.gaussian([20000], mean=2.0, std=3.0)
    assert a.dtype == oar.float32 and a.shape == [20000]
    assert abs(float(a.mean()) - 2.0) < 0.1 and abs(float(a.std()) - 3.0) < 0.1
    # A fixed seed gives a fixed draw, independent of the global generator.
    b1 = oar.gaussian([5], 0.0, 1.0, 123, "float64")
    oar.seed(99)
    b2 = oar.gaussian([5], 0.0, 1.0, 123, "float64")
    np.testing.assert_array_equal(b1.numpy(), b2.numpy())
    s = oar.standard_normal([3, 4], dtype="float64")
    assert s.shape == [3, 4] and s.dtype == oar.float64
    with pytest.raises(ValueError, match="gaussian: argument 'std' must be >= 0"):
        oar.gaussian([2], 0.0, -1.0)


def test_masked_scatter():
    # Expected values measured with paddle 3.3.
    x = oar.zeros([2, 3])
    m = oar.to_tensor([[True, False, True], [False, True, False]])
    v = oar.arange(10, dtype="float32")
    np.testing.assert_array_equal(oar.masked_scatter(x, m, v).numpy(), [[0, 0, 1], [0, 2, 0]])
    mask = np.array([[True, False, True], [False, True, False]])
    check_grad(lambda a, b: oar.masked_scatter(a, oar.to_tensor(mask), b),
               [rand((2, 3), seed=3), rand((6,), seed=4)], what="masked_scatter")


def test_value_sized_internal_ops():
    # Internal ops whose result size comes from values (oar._C only; the layers over them are
    # tested in test_static.py, eager and static).
    _C = oar._C
    for name in ("arange_tensor", "linspace_tensor", "repeat_interleave_index", "keep_if_all"):
        assert name not in dir(oar)
    T = oar.to_tensor
    r = _C.arange_tensor(T(np.array(1)), T(np.array([7])), T(np.array(2)), None)
    assert r.dtype == oar.int64 and r.numpy().tolist() == [1, 3, 5]
    r = _C.arange_tensor(T(np.array(0.5)), T(np.array(2)), T(np.array(0.5, np.float32)), None)
    assert r.dtype == oar.float32 and r.numpy().tolist() == [0.5, 1.0, 1.5]
    assert _C.arange_tensor(T(np.array(3)), T(np.array(1)), T(np.array(1)), oar.float64).shape == [0]
    with pytest.raises(ValueError, match="arange: argument 'step' must not be 0"):
        _C.arange_tensor(T(np.array(0)), T(np.array(3)), T(np.array(0)), None)
    with pytest.raises(ValueError, match="arange: argument 'end' must hold one value"):
        _C.arange_tensor(T(np.array(0)), T(np.array([3, 4])), T(np.array(1)), None)
    ends = (T(np.array(-1.5)), T(np.array([2.25], np.float32)))
    r = _C.linspace_tensor(*ends, 7, None)  # the linspace kernel over the values they hold
    assert r.dtype == oar.float32 and r.numpy().tolist() == oar.linspace(-1.5, 2.25, 7).numpy().tolist()
    assert _C.linspace_tensor(*ends, 0, oar.float64).shape == [0]
    with pytest.raises(ValueError, match="linspace: argument 'start' must hold one value, got shape \\[2\\]"):
        _C.linspace_tensor(T(np.zeros(2)), ends[1], 3, None)
    idx = _C.repeat_interleave_index(T(np.array([2, 0, 1], np.int32)), 3)
    assert idx.dtype == oar.int64 and idx.numpy().tolist() == [0, 0, 2]
    assert _C.repeat_interleave_index(T(np.array([2])), 3).numpy().tolist() == [0, 0, 1, 1, 2, 2]
    with pytest.raises(ValueError, match="'repeats' must be non-negative, got -1"):
        _C.repeat_interleave_index(T(np.array([1, -1])), 2)
    x = T(rand((2, 3), seed=5), stop_gradient=False)
    kept = _C.keep_if_all(x, T(np.array([True, True])))
    np.testing.assert_array_equal(kept.numpy(), x.numpy())
    dropped = _C.keep_if_all(x, T(np.array([True, False])))
    assert dropped.shape == [0] and dropped.dtype == x.dtype
    g, = oar.grad([(kept * 2.0).sum()], [x])
    np.testing.assert_array_equal(g.numpy(), np.full((2, 3), 2.0))
    g, = oar.grad([dropped.sum() + (x * 0.0).sum()], [x])
    np.testing.assert_array_equal(g.numpy(), np.zeros((2, 3)))
    with pytest.raises(TypeError, match="keep_if_all: argument 'ok' must be a bool tensor"):
        _C.keep_if_all(x, x)
