"""Elementwise ops: NumPy references over dtypes and edge shapes, float64 gradient checks."""
import math

import numpy as np
import pytest
from scipy_free_erf import erf as np_erf

import oar
from op_test import FLOAT_DTYPES, check_forward, check_grad, rand

# name, numpy reference, input domain (low, high), differentiable
UNARY = [
    ("neg", np.negative, (-2, 2), True), ("abs", np.abs, (-2, 2), True),
    ("square", np.square, (-2, 2), True), ("reciprocal", np.reciprocal, (0.5, 2), True),
    ("exp", np.exp, (-2, 2), True), ("expm1", np.expm1, (-2, 2), True),
    ("log", np.log, (0.2, 3), True), ("log2", np.log2, (0.2, 3), True),
    ("log10", np.log10, (0.2, 3), True), ("log1p", np.log1p, (0, 3), True),
    ("sqrt", np.sqrt, (0.2, 3), True), ("rsqrt", lambda x: 1 / np.sqrt(x), (0.2, 3), True),
    ("sin", np.sin, (-3, 3), True), ("cos", np.cos, (-3, 3), True), ("tan", np.tan, (-1, 1), True),
    ("asin", np.arcsin, (-0.9, 0.9), True), ("acos", np.arccos, (-0.9, 0.9), True),
    ("atan", np.arctan, (-3, 3), True), ("sinh", np.sinh, (-2, 2), True),
    ("cosh", np.cosh, (-2, 2), True), ("tanh", np.tanh, (-2, 2), True),
    ("erf", np_erf, (-2, 2), True), ("sigmoid", lambda x: 1 / (1 + np.exp(-x)), (-3, 3), True),
    ("floor", np.floor, (-3, 3), False), ("ceil", np.ceil, (-3, 3), False),
    ("trunc", np.trunc, (-3, 3), False), ("sign", np.sign, (-3, 3), False),
    ("round", lambda x: np.where(x >= 0, np.floor(x + 0.5), np.ceil(x - 0.5)), (-3, 3), False),
]

SHAPES = [(3, 4), (), (0, 3), (2, 1, 3)]


@pytest.mark.parametrize("name,ref,domain,diff", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, ref, domain, diff):
    op = getattr(oar, name)
    for shape in SHAPES:
        x = rand(shape, low=domain[0], high=domain[1])
        check_forward(op, ref, [x], FLOAT_DTYPES, what=f"{name}{shape}")
    # Non-contiguous input (a transposed view).
    x = rand((4, 3), low=domain[0], high=domain[1])
    check_forward(lambda t: op(t.T), lambda a: ref(a.T), [x], FLOAT_DTYPES, what=f"{name}(view)")
    assert getattr(oar.to_tensor(x), name)().shape == [4, 3]  # method form
    if diff:
        check_grad(op, [rand((2, 3), low=domain[0], high=domain[1], seed=1)], what=name)


def test_unary_float_ops_autocast_ints_like_paddle():
    x = oar.to_tensor([1, 4, 9])
    r = oar.sqrt(x)
    assert r.dtype == oar.float32
    np.testing.assert_allclose(r.numpy(), [1, 2, 3])


BINARY = [
    ("add", np.add, None), ("subtract", np.subtract, None), ("multiply", np.multiply, None),
    ("divide", np.divide, (0.5, 2)), ("maximum", np.maximum, None), ("minimum", np.minimum, None),
    ("fmax", np.fmax, None), ("fmin", np.fmin, None), ("atan2", np.arctan2, None),
    ("remainder", lambda a, b: np.mod(a, b), (0.5, 2)),
    ("floor_divide", lambda a, b: np.floor_divide(a, b), (0.5, 2)),
    ("elementwise_pow", np.power, (0.5, 2)),
]
BROADCAST = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3)), ((0, 3), (1, 3))]


@pytest.mark.parametrize("name,ref,ydom", BINARY, ids=[b[0] for b in BINARY])
def test_binary(name, ref, ydom):
    op = getattr(oar, name)
    lo, hi = ydom or (-2, 2)
    for sx, sy in BROADCAST:
        x = rand(sx, low=0.5 if name == "elementwise_pow" else -2, high=2, seed=2)
        y = rand(sy, low=lo, high=hi, seed=3)
        check_forward(op, ref, [x, y], FLOAT_DTYPES, what=f"{name}{sx}{sy}")
    if name not in ("floor_divide",):
        x = rand((2, 3), low=0.5 if name == "elementwise_pow" else -2, high=2, seed=4)
        y = rand((3,), low=lo, high=hi, seed=5)
        if name in ("maximum", "minimum", "fmax", "fmin"):
            y = y + 0.05  # keep ties away from the numeric-gradient steps
        check_grad(op, [x, y], what=name)


@pytest.mark.parametrize("name,ref", [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                                      ("maximum", np.maximum), ("minimum", np.minimum),
                                      ("floor_divide", lambda a, b: a // b), ("remainder", np.mod)])
def test_binary_integers(name, ref):
    x = np.array([[-7, -3, 0, 5, 9]], dtype=np.int64)
    y = np.array([[2], [3], [-4]], dtype=np.int64)
    for dt in ("int32", "int64"):
        out = getattr(oar, name)(oar.to_tensor(x, dtype=dt), oar.to_tensor(y, dtype=dt))
        assert out.dtype.name == dt
        np.testing.assert_array_equal(out.numpy(), ref(x, y))


@pytest.mark.host_only  # a device kernel cannot raise from queued work
def test_integer_division_by_zero_raises():
    with pytest.raises(ValueError, match="division by zero"):
        oar.floor_divide(oar.to_tensor([1, 2]), oar.to_tensor([1, 0]))


def test_divide_of_ints_is_true_division():
    r = oar.to_tensor([1, 2, 3]) / oar.to_tensor([2, 2, 2])
    assert r.dtype == oar.float32
    np.testing.assert_allclose(r.numpy(), [0.5, 1, 1.5])


CMP = [("equal", np.equal), ("not_equal", np.not_equal), ("less_than", np.less),
       ("less_equal", np.less_equal), ("greater_than", np.greater), ("greater_equal", np.greater_equal)]


@pytest.mark.parametrize("name,ref", CMP, ids=[c[0] for c in CMP])
def test_comparisons(name, ref):
    x = np.array([[1, 2, 3], [3, 2, 1]], dtype=np.float32)
    y = np.array([2, 2, 2], dtype=np.float32)
    for dt in ("float32", "float64", "int32", "int64"):
        out = getattr(oar, name)(oar.to_tensor(x.astype(dt)), oar.to_tensor(y.astype(dt)))
        assert out.dtype == oar.bool
        np.testing.assert_array_equal(out.numpy(), ref(x, y))


def test_operators_match_functions():
    a = rand((2, 3), seed=7)
    b = rand((2, 3), low=0.5, high=2, seed=8)
    x, y = oar.to_tensor(a), oar.to_tensor(b)
    np.testing.assert_allclose((x + y).numpy(), a + b)
    np.testing.assert_allclose((x - y).numpy(), a - b)
    np.testing.assert_allclose((x * y).numpy(), a * b, rtol=1e-6)
    np.testing.assert_allclose((x / y).numpy(), a / b, rtol=1e-6)
    np.testing.assert_allclose((x ** 2).numpy(), a ** 2, rtol=1e-6)
    np.testing.assert_allclose((2 ** y).numpy(), 2 ** b, rtol=1e-6)
    np.testing.assert_allclose((1 - x).numpy(), 1 - a)
    np.testing.assert_allclose((-x).numpy(), -a)
    np.testing.assert_array_equal((x < y).numpy(), a < b)
    np.testing.assert_allclose((x // y).numpy(), a // b)
    np.testing.assert_allclose((x % y).numpy(), np.mod(a, b), rtol=1e-5, atol=1e-6)
    assert (x + 1).dtype == oar.float64  # tensor-scalar keeps the tensor's dtype


def test_scalar_promotion_like_paddle():
    i = oar.to_tensor([1, 2])
    assert (i + 1).dtype == oar.int64
    assert (i + 1.5).dtype == oar.float32
    assert (oar.to_tensor([1.0], dtype="float16") * 2.0).dtype == oar.float16
    with pytest.raises(TypeError, match="Type promotion"):
        oar.to_tensor([1, 2]) + oar.to_tensor([1.0, 2.0])
    assert (oar.to_tensor([1.0]) + oar.to_tensor([1.0], dtype="float64")).dtype == oar.float64


def test_logical_and_bitwise():
    a = np.array([True, False, True])
    b = np.array([True, True, False])
    for name, ref in [("logical_and", np.logical_and), ("logical_or", np.logical_or),
                      ("logical_xor", np.logical_xor)]:
        np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(a), oar.to_tensor(b)).numpy(), ref(a, b))
    np.testing.assert_array_equal(oar.logical_not(oar.to_tensor(a)).numpy(), ~a)
    x = np.array([5, 3, -1], dtype=np.int64)
    y = np.array([3, 6, 2], dtype=np.int64)
    for name, ref in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)]:
        np.testing.assert_array_equal(getattr(oar, name)(oar.to_tensor(x), oar.to_tensor(y)).numpy(), ref(x, y))
    np.testing.assert_array_equal(oar.bitwise_not(oar.to_tensor(x)).numpy(), ~x)
    np.testing.assert_array_equal((~oar.to_tensor(a)).numpy(), ~a)


def test_isnan_isinf_isfinite_isclose_allclose():
    a = np.array([1.0, np.nan, np.inf, -np.inf, 0.0])
    t = oar.to_tensor(a)
    np.testing.assert_array_equal(oar.isnan(t).numpy(), np.isnan(a))
    np.testing.assert_array_equal(oar.isinf(t).numpy(), np.isinf(a))
    np.testing.assert_array_equal(oar.isfinite(t).numpy(), np.isfinite(a))
    x = oar.to_tensor([1.0, 2.0, np.nan])
    y = oar.to_tensor([1.0 + 1e-9, 2.1, np.nan])
    np.testing.assert_array_equal(oar.isclose(x, y).numpy(), [True, False, False])
    np.testing.assert_array_equal(oar.isclose(x, y, equal_nan=True).numpy(), [True, False, True])
    assert not bool(oar.allclose(x, y))
    assert bool(oar.allclose(x, x, equal_nan=True))
    assert bool(oar.equal_all(x[:2], x[:2]))
    assert not bool(oar.equal_all(x, x[:2]))


def test_where_clip_scale_lerp_cast():
    c = np.array([True, False, True])
    a, b = rand((3,), seed=1), rand((2, 3), seed=2)
    check_forward(lambda cc, x, y: oar.where(cc, x, y), np.where, [c, a, b], FLOAT_DTYPES)
    check_grad(lambda x, y: oar.where(oar.to_tensor(c), x, y), [a, b])
    x = rand((3, 4), low=-2, high=2)
    check_forward(lambda t: oar.clip(t, -0.5, 0.7), lambda v: np.clip(v, -0.5, 0.7), [x], FLOAT_DTYPES)
    check_grad(lambda t: oar.clip(t, -0.5, 0.7), [x + 0.013])
    check_forward(lambda t: oar.scale(t, 2.0, 1.0), lambda v: v * 2 + 1, [x], FLOAT_DTYPES)
    check_forward(lambda t: oar.scale(t, 2.0, 1.0, bias_after_scale=False), lambda v: (v + 1) * 2, [x], FLOAT_DTYPES)
    check_grad(lambda t: oar.scale(t, 3.0, 1.0), [x])
    w = rand((3, 4), low=0, high=1, seed=9)
    check_forward(oar.lerp, lambda p, q, r: p + r * (q - p), [x, x * 2, w], FLOAT_DTYPES)
    check_grad(oar.lerp, [x, x * 2 + 0.1, w])
    for dt in ("float16", "bfloat16", "int32", "int64", "bool", "float64", "uint8", "int8", "int16"):
        t = oar.to_tensor(np.array([0.0, 1.5, -2.0], dtype=np.float32)).astype(dt)
        assert t.dtype.name == dt
    np.testing.assert_array_equal(oar.cast(oar.to_tensor([1.7, -1.7]), "int32").numpy(), [1, -1])
    xt = oar.to_tensor(x, stop_gradient=False)
    (oar.cast(xt, "float32") * 2).sum().backward()
    assert xt.grad.dtype == oar.float64
    np.testing.assert_allclose(xt.grad.numpy(), np.full((3, 4), 2.0))


ACT = [
    ("relu", lambda x: np.maximum(x, 0), {}), ("relu6", lambda x: np.clip(x, 0, 6), {}),
    ("silu", lambda x: x / (1 + np.exp(-x)), {}),
    ("gelu", lambda x: 0.5 * x * (1 + np_erf(x / math.sqrt(2))), {}),
    ("gelu", lambda x, approximate: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
     {"approximate": True}),
    ("leaky_relu", lambda x, negative_slope: np.where(x > 0, x, x * negative_slope), {"negative_slope": 0.2}),
    ("elu", lambda x, alpha: np.where(x > 0, x, alpha * (np.exp(x) - 1)), {"alpha": 0.7}),
    ("hardsigmoid", lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1), {}),
    ("hardswish", lambda x: x * np.clip(x + 3, 0, 6) / 6, {}),
    ("softplus", lambda x: np.log1p(np.exp(x)), {}),
]


@pytest.mark.parametrize("name,ref,kw", ACT, ids=[f"{a[0]}{a[2]}" for a in ACT])
def test_activations(name, ref, kw):
    op = getattr(oar, name)
    x = rand((3, 5), low=-4, high=4) + 0.0137  # away from kinks
    check_forward(op, ref, [x], FLOAT_DTYPES, kwargs=kw)
    check_grad(op, [x], kwargs=kw, what=name)


def test_inplace_ops_bump_version_and_work():
    x = oar.to_tensor([1.0, 4.0])
    v = x._version
    x.sqrt_()
    assert x._version == v + 1
    np.testing.assert_allclose(x.numpy(), [1, 2])
    x.add_(oar.to_tensor([1.0, 1.0]))
    np.testing.assert_allclose(x.numpy(), [2, 3])
    x.scale_(2.0)
    np.testing.assert_allclose(x.numpy(), [4, 6])


def test_exp_range_edges():
    # The vectorised float32 exp: overflow to inf, denormal results, 0 and NaN handled as libm.
    v = np.array([-np.inf, -110.0, -104.5, -100.0, -87.5, -1e-3, 0.0, 1e-3, 88.0, 88.7, 88.73, 100.0,
                  np.inf, np.nan], np.float32)
    for n in (len(v), 37):  # whole vectors and a tail
        a = np.resize(v, n)
        got = oar.exp(oar.to_tensor(a)).numpy()
        with np.errstate(over="ignore"):
            want = np.exp(a.astype(np.float64)).astype(np.float32)
        np.testing.assert_allclose(got, want, rtol=2e-7, atol=2e-45, equal_nan=True)
    # Dense sweep against float64: at most 2 ulp apart.
    a = np.linspace(-103, 88.7, 200001, dtype=np.float32)
    got = oar.exp(oar.to_tensor(a)).numpy()
    want = np.exp(a.astype(np.float64))
    normal = want > np.finfo(np.float32).tiny
    ulp = np.spacing(want[normal].astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got[normal] - want[normal]) / ulp) <= 2.0
    # sigmoid and silu built on it: saturate without NaN.
    big = oar.to_tensor(np.array([-200.0, -50.0, 0.0, 50.0, 200.0], np.float32))
    np.testing.assert_allclose(oar.sigmoid(big).numpy(), [0, 1.9287498e-22, 0.5, 1, 1], rtol=1e-6)
    np.testing.assert_allclose(oar.silu(big).numpy(), [-0.0, -9.643749e-21, 0, 50, 200], rtol=1e-6)


@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_maximum_minimum_split_the_gradient_at_ties(dt):
    # Paddle 3.3.1: at x == y each side gets half of the incoming gradient.
    x = oar.to_tensor(np.array([1.0, 2.0, 3.0], np.float32)).astype(dt)
    y = oar.to_tensor(np.array([1.0, 1.0, 4.0], np.float32)).astype(dt)
    x.stop_gradient = y.stop_gradient = False
    gx, gy = oar.grad([oar.maximum(x, y).sum()], [x, y])
    np.testing.assert_array_equal(gx.astype("float32").numpy(), [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(gy.astype("float32").numpy(), [0.5, 0.0, 1.0])
    gx, gy = oar.grad([oar.minimum(x, y).sum()], [x, y])
    np.testing.assert_array_equal(gx.astype("float32").numpy(), [0.5, 0.0, 1.0])
    np.testing.assert_array_equal(gy.astype("float32").numpy(), [0.5, 1.0, 0.0])


def test_clip_integer_bounds_saturate():
    # The default bounds (+-3.4e38) mean "no bound" for integers too (they once became INT64_MIN).
    for dt in ("int8", "int32", "int64"):
        x = oar.to_tensor([3, -2], dtype=dt)
        np.testing.assert_array_equal(oar.clip(x, min=0).numpy(), [3, 0])
        np.testing.assert_array_equal(oar.clip(x, max=0).numpy(), [0, -2])
        np.testing.assert_array_equal(oar.clip(x, min=-1000, max=1000).numpy(), [3, -2])
    np.testing.assert_array_equal(oar.clip(oar.to_tensor([3, -2]), min=0.5, max=2.7).numpy(), [2, 0])
