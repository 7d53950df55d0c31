"""as_strided (the C++ view op and its two gradient ops as_strided_grad, as_strided_grad_adjoint)
and Tensor.unfold, against NumPy's stride tricks and finite differences."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided as np_as_strided

import oar
from op_test import check_grad, rand


def _np_view(a, shape, stride, offset=0):
    flat = np.ascontiguousarray(a).reshape(-1)
    item = flat.itemsize
    return np_as_strided(flat[offset:], shape=shape, strides=[s * item for s in stride]).copy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool"])
@pytest.mark.parametrize("shape,stride,offset", [([3, 2], [4, 1], 0), ([2, 2], [1, 1], 1), ([3, 3], [1, 3], 0),
                                                 ([], [], 5), ([3], [0], 2), ([0, 4], [1, 1], 11)])
def test_as_strided_matches_numpy(dtype, shape, stride, offset):
    a = rand((3, 4), dtype, -5, 5, seed=1)
    out = oar.as_strided(oar.to_tensor(a), shape, stride, offset)
    assert out.shape == shape and out.dtype.name == dtype
    np.testing.assert_array_equal(out.numpy(), _np_view(a, shape, stride, offset))


def test_as_strided_is_a_view_of_the_storage():
    x = oar.arange(12, dtype="float32")
    v = x.as_strided([2, 2], [4, 1], 1)
    assert not v.is_contiguous() and v._strides == [4, 1]
    v[1, 1] = 100.0  # storage element 1 + 4 + 1 = 6
    assert float(x[6]) == 100.0
    # relative to the storage start, not to a view's first element (as Paddle's forward)
    np.testing.assert_array_equal(oar.as_strided(x[2:], [2], [1]).numpy(), [0.0, 1.0])


def test_as_strided_gradient_sums_repeated_reads():
    # overlapping windows and stride 0 read storage positions more than once: their gradients add
    # (Paddle 3.3.1 keeps only the last read; see tools/conformance_cases_names.py)
    x = oar.to_tensor(np.arange(6.0), stop_gradient=False)
    w = oar.to_tensor(np.array([1.0, 10.0, 100.0]))
    g = oar.grad([(oar.as_strided(x, [3], [0]) * w).sum()], [x])[0]
    np.testing.assert_array_equal(g.numpy(), [111.0, 0, 0, 0, 0, 0])
    for shape, stride, offset in (([2, 2], [1, 1], 0), ([3, 3], [2, 1], 1), ([2, 3], [1, 3], 0)):
        check_grad(lambda t: oar.as_strided(t, shape, stride, offset), [rand((12,), seed=3)],
                   what=f"as_strided{shape, stride, offset}")


def test_as_strided_gradient_of_a_view_input():
    # x is a transposed view: its gradient is read back at x's own storage positions
    base = rand((3, 4), seed=4)
    check_grad(lambda t: oar.as_strided(t.t(), [2, 2], [1, 4], 1), [base], what="as_strided of a view")


def test_as_strided_second_order():
    # the gradient ops are differentiable: as_strided_grad's backward is as_strided_grad_adjoint
    x = oar.to_tensor(rand((6,), seed=5), stop_gradient=False)
    y = oar.as_strided(x, [2, 3], [1, 1])
    g = oar.grad([(y * y).sum()], [x], create_graph=True)[0]  # 2 * x * (reads of each position)
    counts = np.array([1, 2, 2, 1, 0, 0], dtype=np.float64)
    np.testing.assert_allclose(g.numpy(), 2 * x.numpy() * counts)
    w = oar.to_tensor(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    gg = oar.grad([(g * w).sum()], [x])[0]  # runs as_strided_grad_adjoint, then as_strided_grad
    np.testing.assert_allclose(gg.numpy(), 2 * counts * w.numpy())


@pytest.mark.parametrize("shape,stride,offset,err,msg", [
    ([20], [1], 0, ValueError, "storage holds 12 elements"),
    ([2], [1], -1, ValueError, "'offset' must be non-negative"),
    ([3, 2], [4], 0, ValueError, "same length"),
    ([-1], [1], 0, ValueError, "must be >= 0"),
    ([2], [-1], 3, ValueError, "'stride' must be >= 0"),
    ([3.0], [1], 0, TypeError, "must hold ints"),
])
def test_as_strided_errors(shape, stride, offset, err, msg):
    with pytest.raises(err, match=msg):
        oar.as_strided(oar.arange(12, dtype="float32"), shape, stride, offset)


def _np_unfold(a, axis, size, step):
    axis %= a.ndim
    windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=axis)
    return np.moveaxis(windows, -1, -1).take(range(0, a.shape[axis] - size + 1, step), axis=axis)


@pytest.mark.parametrize("shape,axis,size,step", [((3, 4), 0, 2, 1), ((3, 4), 1, 2, 2), ((3, 4), -1, 3, 1),
                                                  ((2, 5, 3), 1, 3, 2), ((3, 4), 1, 4, 3), ((6,), 0, 1, 1)])
def test_unfold_matches_numpy(shape, axis, size, step):
    a = rand(shape, seed=7)
    out = oar.to_tensor(a).unfold(axis, size, step)
    np.testing.assert_array_equal(out.numpy(), _np_unfold(a, axis, size, step))


def test_unfold_shapes_and_view():
    x = oar.arange(12, dtype="float32").reshape([3, 4])
    assert x.unfold(1, 0, 1).shape == [3, 5, 0]        # size 0: every position starts a window
    assert x.unfold(1, 2, 1)._strides == [4, 1, 1]      # Paddle's strides, a view
    assert oar.to_tensor(5.0).unfold(0, 1, 1).numpy().tolist() == [5.0]  # 0-D: shape [size]
    assert oar.to_tensor(5.0).unfold(0, 0, 1).shape == [0]
    w = x[1:].unfold(1, 2, 2)  # a view of a view keeps the base's offset
    np.testing.assert_array_equal(w.numpy(), np.arange(4, 12, dtype=np.float32).reshape(2, 2, 2))
    w[0, 0, 0] = -1.0
    assert float(x[1, 0]) == -1.0


def test_unfold_gradient_sums_overlapping_windows():
    check_grad(lambda t: t.unfold(0, 2, 1), [rand((3, 4), seed=8)], what="unfold overlapping")
    check_grad(lambda t: t.unfold(1, 3, 2), [rand((2, 5, 3), seed=9)], what="unfold strided")
    x = oar.to_tensor(np.arange(4.0), stop_gradient=False)
    g = oar.grad([x.unfold(0, 2, 1).sum()], [x])[0]
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0, 2.0, 1.0])  # Paddle 3.3.1 gives [1, 1, 1, 1]


@pytest.mark.parametrize("args,msg", [((1, 5, 1), "'size' must be in \\[0, 4\\]"), ((1, 2, 0), "'step' must be greater"),
                                      ((2, 1, 1), "'axis' must be in"), ((1, -1, 1), "'size' must be in"),
                                      ((1, 2.0, 1), "must be an int")])
def test_unfold_errors(args, msg):
    x = oar.zeros([3, 4])
    with pytest.raises((ValueError, TypeError), match=msg):
        x.unfold(*args)


def test_as_strided_and_unfold_in_static_programs():
    # Their shape rule is the view kernel on placeholders: the storage bound is checked against x's
    # own elements while building, and the views run on the executor.
    oar.enable_static()
    try:
        prog = oar.static.Program()
        with oar.static.program_guard(prog):
            x = oar.static.data("x", [12], "float32")
            grid, windows = oar.as_strided(x, [3, 4], [4, 1], 0), x.unfold(0, 3, 2)
            overlap = oar.as_strided(x, [2, 2], [1, 1], 1)
            assert grid.shape == [3, 4] and windows.shape == [5, 3] and overlap.shape == [2, 2]
            with pytest.raises(ValueError, match=r"reaches storage element 24, but x's storage holds 12"):
                oar.as_strided(x, [5, 5], [5, 1], 0)
        a = np.arange(12, dtype=np.float32)
        got = oar.static.Executor().run(prog, feed={"x": a}, fetch_list=[grid, windows, overlap])
    finally:
        oar.disable_static()
    np.testing.assert_array_equal(got[0], a.reshape(3, 4))
    np.testing.assert_array_equal(got[1], np_as_strided(a, (5, 3), (8, 4)))
    np.testing.assert_array_equal(got[2], np_as_strided(a[1:], (2, 2), (4, 4)))
