"""float16 and bfloat16: every op family computes in float32 internally and rounds once, so a
half-type result must equal the float32 result on the same (already rounded) inputs, up to the
half type's rounding. Gradients flow through half tensors the same way."""
import numpy as np
import pytest

import oar
from op_test import rand

HALF = ["float16", "bfloat16"]
# Relative tolerance: a few ulps of the half type (float16: 2^-10, bfloat16: 2^-7).
RTOL = {"float16": 4e-3, "bfloat16": 3e-2}


def as_half(a, dt):
    """A half tensor and the float32 tensor holding exactly its values."""
    h = oar.to_tensor(a.astype(np.float32)).astype(dt)
    return h, h.astype("float32")


def check(op, arrays, dt, what):
    hs, fs = zip(*(as_half(a, dt) for a in arrays))
    out = op(*hs)
    ref = op(*fs)
    assert out.dtype.name == dt, f"{what}[{dt}]: dtype {out.dtype}"
    got = out.astype("float32").numpy()
    want = ref.astype(dt).astype("float32").numpy()  # the float32 result, rounded once
    np.testing.assert_allclose(got, want, rtol=RTOL[dt], atol=RTOL[dt], equal_nan=True,
                               err_msg=f"{what}[{dt}]")


UNARY = ["exp", "log", "sqrt", "tanh", "sin", "cos", "abs", "neg", "floor", "sigmoid", "erf",
         "square", "rsqrt", "reciprocal", "expm1", "log1p"]


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("name", UNARY)
def test_unary(name, dt):
    a = rand((5, 7), low=0.1, high=2.0, seed=3)
    check(getattr(oar, name), [a], dt, name)


@pytest.mark.parametrize("dt", HALF)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "minimum", "pow"])
def test_binary_with_broadcast(name, dt):
    a = rand((4, 1, 3), low=0.5, high=2.0, seed=4)
    b = rand((5, 3), low=0.5, high=2.0, seed=5)
    check(getattr(oar, name), [a, b], dt, name)


@pytest.mark.parametrize("dt", HALF)
def test_reductions_matmul_softmax(dt):
    a = rand((6, 9), seed=6)
    b = rand((9, 4), seed=7)
    check(lambda x: oar.sum(x, axis=1), [a], dt, "sum")
    check(lambda x: oar.mean(x), [a], dt, "mean")
    check(lambda x: oar.max(x, axis=0), [a], dt, "max")
    check(lambda x: oar.logsumexp(x, axis=1), [a], dt, "logsumexp")
    check(oar.matmul, [a, b], dt, "matmul")
    check(lambda x: oar.nn.functional.softmax(x, axis=-1) if hasattr(oar, "nn") else oar.softmax(x, axis=-1),
          [a], dt, "softmax")
    check(lambda x: oar.transpose(x, [1, 0]).reshape([3, 18]), [a], dt, "transpose+reshape")
    check(lambda x: oar.concat([x, x], axis=0), [a], dt, "concat")


@pytest.mark.parametrize("dt", HALF)
def test_gradient_through_half(dt):
    a = rand((3, 4), low=0.2, high=1.5, seed=8)
    h, f = as_half(a, dt)
    grads = []
    for t in (h, f):
        t.stop_gradient = False
        (oar.exp(t) * t).sum().backward()
        grads.append(t.grad)
    assert grads[0].dtype.name == dt
    np.testing.assert_allclose(grads[0].astype("float32").numpy(), grads[1].numpy(),
                               rtol=4 * RTOL[dt], err_msg=f"d(x*exp(x))/dx [{dt}]")


def test_float16_conversions_are_exact_for_every_bit_pattern():
    # The conversions use F16C where the CPU build has it (oar/core/half.h): every half value
    # widens exactly and comes back bit for bit; float32 values round to nearest even as NumPy's.
    bits = np.arange(65536, dtype=np.uint16)
    h = bits.view(np.float16)
    wide = oar.to_tensor(h).astype("float32").numpy()
    nan = np.isnan(h)
    np.testing.assert_array_equal(np.isnan(wide), nan)
    np.testing.assert_array_equal(wide[~nan], h[~nan].astype(np.float32))
    back = oar.to_tensor(wide).astype("float16").numpy().view(np.uint16)
    np.testing.assert_array_equal(back[~nan], bits[~nan])
    assert np.isnan(oar.to_tensor(wide[nan]).astype("float16").numpy()).all()
    r = np.random.default_rng(0).standard_normal(1 << 16).astype(np.float32) * np.float32(1e3)
    edges = np.array([65504, 65519.99, 65520, 1e5, 1e-8, 2.9802322e-8, 5.96e-8, -3e-5, np.inf, -np.inf], np.float32)
    r = np.concatenate([r, edges])
    with np.errstate(over="ignore"):
        expected = r.astype(np.float16)
    np.testing.assert_array_equal(oar.to_tensor(r).astype("float16").numpy().view(np.uint16), expected.view(np.uint16))
