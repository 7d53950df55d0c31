"""Special functions, integer bit ops and float helpers on the custom_cpu test plug-in
(plugins/custom_cpu/misc.cc, scalar math shared with the CUDA plug-in through
plugins/common/special_math.h): each result on the device is compared with oar's CPU kernel."""
import numpy as np
import pytest

import oar
from test_device_custom_cpu import _plugin_path

pytestmark = pytest.mark.host_only

PLACE = None


@pytest.fixture(scope="module", autouse=True)
def custom_cpu():
    global PLACE
    if "custom_cpu" not in oar.device.get_all_custom_device_type():
        oar.device.load_custom_device(_plugin_path())
    PLACE = oar.CustomPlace("custom_cpu", 0)
    yield
    oar.device.set_device("cpu")


def both(a, dtype=None):
    a = np.asarray(a) if dtype is None else np.asarray(a).astype(dtype)
    return oar.to_tensor(a), oar.to_tensor(a, place=PLACE)


def check(fn, *arrays, rtol=0.0, atol=0.0):
    host = [both(a)[0] for a in arrays]
    dev = [both(a)[1] for a in arrays]
    want, got = fn(*host), fn(*dev)
    if not isinstance(want, (tuple, list)):
        want, got = [want], [got]
    for w, g in zip(want, got):
        assert g.place == PLACE
        assert g.dtype == w.dtype
        w, g = w.numpy(), g.numpy()
        if rtol == 0 and atol == 0:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                                       equal_nan=True)


RNG = np.random.default_rng(7)
WIDE = np.concatenate([RNG.uniform(-12, 12, 40), RNG.uniform(0, 3, 20), [0.0, -0.0, 1.0, 2.0, -1.0, -2.5,
                                                                         0.5, 30.0, 800.0, -800.0,
                                                                         np.inf, -np.inf, np.nan]])


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("name", ["lgamma", "digamma", "i0", "i0e", "i1", "i1e"])
def test_special_unary(name, dtype):
    fn = getattr(oar, name)
    tol = 1e-12 if dtype == "float64" else 1e-6
    x = WIDE.astype(np.float32) if dtype != "float64" else WIDE
    host, dev = oar.to_tensor(x).astype(dtype), oar.to_tensor(x, place=PLACE).astype(dtype)
    want, got = fn(host), fn(dev)
    assert got.place == PLACE and got.dtype == want.dtype
    w = want.astype("float64").numpy()
    g = got.astype("float64").numpy()
    # the 16-bit floats round once from the same double: identical but for a rare tie
    np.testing.assert_allclose(g, w, rtol=tol if dtype in ("float32", "float64") else 1e-2, atol=0,
                               equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_and_polygamma(dtype):
    tol = 1e-12 if dtype == "float64" else 1e-6
    y = np.concatenate([RNG.uniform(-1, 1, 50), [0.0, 1.0, -1.0, 0.999999, -0.5, 1.5, np.nan]])
    check(oar.erfinv, y.astype(dtype), rtol=tol)
    x = WIDE.astype(dtype)
    for n in (0, 1, 2, 5):
        check(lambda t, n=n: oar.polygamma(t, n), x, rtol=tol * 10, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_incomplete_gamma(dtype):
    tol = 1e-12 if dtype == "float64" else 1e-6
    a = np.abs(RNG.uniform(0, 20, (6, 1))).astype(dtype)
    x = np.abs(RNG.uniform(0, 25, (1, 7))).astype(dtype)
    check(oar.gammainc, a, x, rtol=tol, atol=1e-15)
    check(oar.gammaincc, a, x, rtol=tol, atol=1e-15)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64"])
def test_integer_ops(dtype):
    info = np.iinfo(dtype)
    x = RNG.integers(info.min, info.max, (5, 6), endpoint=True).astype(dtype)
    y = RNG.integers(info.min, info.max, (6,), endpoint=True).astype(dtype)
    x[0, :3] = 0
    y[:2] = 0
    for fn in (oar.bitwise_and, oar.bitwise_or, oar.bitwise_xor, oar.gcd, oar.lcm):
        check(fn, x, y)
    check(oar.bitwise_not, x)
    bits = np.iinfo(dtype).bits
    s = RNG.integers(0 if info.min == 0 else -2, bits + 2, (5, 6)).astype(dtype)
    check(oar.bitwise_left_shift, x, s)
    check(lambda a, b: oar.bitwise_right_shift(a, b), x, s)
    check(lambda a, b: oar.bitwise_right_shift(a, b, is_arithmetic=False), x, s)
    check(oar.copysign, x, y)
    check(oar.heaviside, x, y)
    check(oar.isclose, x, y)


def test_bool_bitwise():
    a = np.array([True, False, True, False])
    b = np.array([True, True, False, False])
    for fn in (oar.bitwise_and, oar.bitwise_or, oar.bitwise_xor):
        check(fn, a, b)
    check(oar.bitwise_not, a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_helpers(dtype):
    x = np.array([1.5, -2.0, 0.0, -0.0, 8.0, 3e-39, np.inf, -np.inf, np.nan, 7.25], dtype=dtype)
    y = np.array([-1.0, 2.0, -0.0, 1.0, 0.0, -5.0, 1.0, np.nan, 0.5, 7.25], dtype=dtype)
    check(oar.copysign, x, y)
    check(oar.heaviside, x, y)
    check(oar.nextafter, x, y)
    check(oar.frexp, x)
    check(oar.isclose, x, y)
    check(lambda a, b: oar.isclose(a, b, rtol=0.5, atol=1.0, equal_nan=True), x, y)
    # broadcasting and a strided view
    xb = RNG.standard_normal((4, 3)).astype(dtype)
    yb = RNG.standard_normal((3,)).astype(dtype)
    check(lambda a, b: oar.copysign(a.T, b[:, None]), xb, yb)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_helpers(dtype):
    x = np.array([1.5, -2.0, 0.0, 8.0, np.inf, np.nan, 7.25], dtype=np.float32)
    y = np.array([-1.0, 2.0, -1.0, 0.0, 1.0, 0.5, 7.25], dtype=np.float32)
    h = lambda a: oar.to_tensor(a).astype(dtype)
    d = lambda a: oar.to_tensor(a, place=PLACE).astype(dtype)
    for fn in (oar.copysign, oar.heaviside, oar.isclose):
        np.testing.assert_array_equal(fn(d(x), d(y)).astype("float32").numpy(),
                                      fn(h(x), h(y)).astype("float32").numpy())
    for w, g in zip(oar.frexp(h(x)), oar.frexp(d(x))):
        np.testing.assert_array_equal(g.astype("float32").numpy(), w.astype("float32").numpy())
