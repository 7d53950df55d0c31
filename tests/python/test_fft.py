"""oar.fft: every function against NumPy's FFT (dtypes, norms, sizes, axes, strided inputs), gradients
by central differences in float64 (complex inputs by the real and imaginary parts), Paddle's errors,
static programs, and real Paddle where it is installed."""
import numpy as np
import pytest

import oar
from op_test import check_grad
from test_complex_grad import _analytic, _numeric

F = oar.fft
NORMS = ["backward", "forward", "ortho"]
RNG = np.random.default_rng(7)
REAL = RNG.standard_normal((3, 4, 10))
CPLX = REAL + 1j * RNG.standard_normal((3, 4, 10))


def _swap(norm):
    return {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


# NumPy has no hfft2/hfftn/ihfft2/ihfftn: they are irfftn/rfftn of the conjugate with the
# normalisation of the opposite direction.
def _np_hfftn(x, s=None, axes=None, norm="backward"):
    return np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=_swap(norm))


def _np_ihfftn(x, s=None, axes=None, norm="backward"):
    return np.conj(np.fft.rfftn(x, s=s, axes=axes, norm=_swap(norm)))


REF = {**{name: getattr(np.fft, name) for name in
          ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn"]},
       "hfftn": _np_hfftn, "ihfftn": _np_ihfftn,
       "hfft2": lambda x, s=None, axes=(-2, -1), norm="backward": _np_hfftn(x, s, axes, norm),
       "ihfft2": lambda x, s=None, axes=(-2, -1), norm="backward": _np_ihfftn(x, s, axes, norm)}
ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
TAKES_REAL = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


def _input(name):
    return REAL if name in TAKES_REAL else CPLX


def _check(got, expected, tol=1e-10):
    got = got.numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * max(1.0, float(np.abs(expected).max())))


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("n,axis", [(None, -1), (7, -1), (16, 1), (3, 0), (None, -2)])
def test_one_dimensional_matches_numpy(name, norm, n, axis):
    x = _input(name)
    _check(getattr(F, name)(oar.to_tensor(x), n=n, axis=axis, norm=norm), REF[name](x, n=n, axis=axis, norm=norm))


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("s,axes", [(None, None), ((5, 12), None), ((2, 6), (0, 2)), (None, (2, 0)),
                                    ((3, 5, 8), (1, 0, 2)), (None, (-1,))])
def test_n_dimensional_matches_numpy(name, norm, s, axes):
    x = _input(name)
    if name.endswith("2"):
        if (s is not None and len(s) != 2) or (axes is not None and len(axes) != 2):
            pytest.skip("two-dimensional functions take two axes")
        axes = (-2, -1) if axes is None else axes
    ref_axes = tuple(range(x.ndim - len(s), x.ndim)) if axes is None and s is not None else axes  # NumPy 2 wants them
    _check(getattr(F, name)(oar.to_tensor(x), s=s, axes=axes, norm=norm), REF[name](x, s=s, axes=ref_axes, norm=norm))


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_single_precision_and_dtypes(name):
    x = _input(name)
    out = getattr(F, name)(oar.to_tensor(x.astype(np.complex64 if np.iscomplexobj(x) else np.float32)))
    expected = REF[name](x)
    assert out.dtype == (oar.float32 if np.isrealobj(expected) else oar.complex64)
    _check(out, expected, tol=1e-4)
    # float64 for the double-precision types, complex128 for complex output
    assert getattr(F, name)(oar.to_tensor(x)).dtype == (oar.float64 if np.isrealobj(expected) else oar.complex128)


def test_real_and_integer_inputs_of_complex_transforms():
    ints = np.arange(12).reshape(3, 4)
    out = F.fft(oar.to_tensor(ints))
    assert out.dtype == oar.complex64  # the default float's complex dtype, as Paddle
    _check(out, np.fft.fft(ints), tol=1e-5)
    _check(F.fft2(oar.to_tensor(REAL)), np.fft.fft2(REAL))
    _check(F.rfft(oar.to_tensor(ints)), np.fft.rfft(ints), tol=1e-5)
    _check(F.irfft(oar.to_tensor(REAL)), np.fft.irfft(REAL))  # a real half spectrum becomes complex


def test_strided_and_expanded_inputs():
    x = oar.to_tensor(CPLX)
    view = x.transpose([2, 0, 1])[::2]  # non-contiguous, stepped
    _check(F.fft(view, axis=1), np.fft.fft(CPLX.transpose(2, 0, 1)[::2], axis=1))
    _check(F.fftn(view, axes=(0, 2)), np.fft.fftn(CPLX.transpose(2, 0, 1)[::2], axes=(0, 2)))
    r = oar.to_tensor(REAL)[:, 1:3, ::3]
    _check(F.rfft2(r), np.fft.rfft2(REAL[:, 1:3, ::3]))
    _check(F.irfft(oar.to_tensor(CPLX)[:, :, 1:7], n=9), np.fft.irfft(CPLX[:, :, 1:7], n=9))
    expanded = oar.to_tensor(REAL[:1]).expand([3, 4, 10])
    _check(F.rfft(expanded, axis=0), np.fft.rfft(np.broadcast_to(REAL[:1], (3, 4, 10)), axis=0))


def test_large_transforms_use_threads_and_stay_exact():
    x = RNG.standard_normal((8, 1 << 14))
    _check(F.rfft(oar.to_tensor(x)), np.fft.rfft(x))
    c = x[:, ::2] + 1j * x[:, 1::2]
    _check(F.ifft(oar.to_tensor(c), norm="ortho"), np.fft.ifft(c, norm="ortho"))
    _check(F.irfft(oar.to_tensor(c)), np.fft.irfft(c))


def test_round_trips():
    x = oar.to_tensor(REAL)
    _check(F.irfftn(F.rfftn(x), s=REAL.shape), REAL)
    _check(F.ifft(F.fft(oar.to_tensor(CPLX))), CPLX)
    _check(F.hfft(F.ihfft(x), n=10), REAL)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "ihfft", "fft2", "rfft2", "ihfftn"])
@pytest.mark.parametrize("norm", NORMS)
def test_gradient_of_real_input(name, norm):
    x = RNG.standard_normal((2, 6))

    def op(t):
        y = getattr(F, name)(t, norm=norm)
        return oar.real(y) + 2.0 * oar.imag(y)  # both parts reach the loss
    check_grad(op, [x])


@pytest.mark.parametrize("name,kwargs", [("fft", {}), ("ifft", {"n": 8}), ("irfft", {}), ("irfft", {"n": 7}),
                                         ("irfft", {"n": 13}), ("hfft", {"n": 9}), ("fft2", {}), ("irfft2", {}),
                                         ("irfftn", {"s": (3, 5)}), ("hfftn", {}), ("ifftn", {"axes": (1,)})])
@pytest.mark.parametrize("norm", NORMS)
def test_gradient_of_complex_input(name, kwargs, norm):
    c = RNG.standard_normal((3, 6)) + 1j * RNG.standard_normal((3, 6))

    def fn(t):
        return getattr(F, name)(t, norm=norm, **kwargs)
    w = RNG.standard_normal(fn(oar.to_tensor(c)).shape)
    np.testing.assert_allclose(_analytic(fn, [c], w)[0], _numeric(fn, [c.copy()], 0, w), atol=1e-6)


def test_second_order_gradient():
    x = oar.to_tensor(RNG.standard_normal(8), stop_gradient=False)
    y = (oar.abs(F.rfft(x)) ** 2).sum()  # Parseval: a quadratic form in x
    (g,) = oar.grad([y], [x], create_graph=True)
    (h,) = oar.grad([g.sum()], [x])
    # d/dx sum_k |X_k|^2 over the half spectrum is linear in x: its gradient's sum has a constant
    # derivative, the same as central differences of g.sum().
    xs = x.numpy()

    def gsum(v):
        t = oar.to_tensor(v, stop_gradient=False)
        return float(oar.grad([(oar.abs(F.rfft(t)) ** 2).sum()], [t])[0].sum())
    eps = 1e-6
    num = np.array([(gsum(xs + eps * e) - gsum(xs - eps * e)) / (2 * eps) for e in np.eye(8)])
    np.testing.assert_allclose(h.numpy(), num, atol=1e-5)


def test_errors_match_paddle():
    x = oar.to_tensor(CPLX)
    cases = [
        (lambda: F.fft(x, norm="bad"), "Unexpected norm: bad. Norm should be forward, backward or ortho"),
        (lambda: F.fft(x, n=0), "Invalid FFT argument n(0), it should be positive."),
        (lambda: F.fft(x, n=2.5), "Invalid FFT argument n(2.5), it should be an integer."),
        (lambda: F.fft(x, axis=3), "Invalid FFT axis (3), it should be in range [-3, 3)"),
        (lambda: F.fftn(x, s=(1, 2, 3, 4)), "Length of FFT argument s should not be larger than the rank"),
        (lambda: F.fftn(x, s=(2, 0)), "FFT sizes (2, 0) contains invalid value (0)"),
        (lambda: F.fftn(x, s=(2, 3), axes=(0,)), "Length of s (2) and length of axes (1) does not match."),
        (lambda: F.fftn(x, axes=(0, 5)), "FFT axes (0, 5) contains invalid value (5)"),
        (lambda: F.fft2(oar.to_tensor(CPLX[0, 0])), "The rank of the input (1) should >= 2"),
        (lambda: F.fft2(x, s=(2, 3, 4)), "Invalid FFT argument s ((2, 3, 4)), it should be a sequence of 2 integers."),
        (lambda: F.fft2(x, axes=(0,)), "Invalid FFT argument axes ((0,)), it should be a sequence of 2 integers."),
        (lambda: F.fftfreq(0), "d or n should not be 0."),
        (lambda: F.rfftfreq(4, d=0), "d or n should not be 0."),
    ]
    for call, message in cases:
        with pytest.raises(ValueError) as info:
            call()
        assert message in str(info.value)


def test_op_errors_are_typed():
    with pytest.raises(TypeError, match="complex64 or complex128"):
        oar._C.fft_c2c(oar.to_tensor(REAL), [0], "backward", True)
    with pytest.raises(ValueError, match="repeats axis 1"):
        oar._C.fft_c2c(oar.to_tensor(CPLX), [1, 1], "backward", True)
    with pytest.raises(IndexError, match=r"axes in \[0, 3\)"):
        oar._C.fft_r2c(oar.to_tensor(REAL), [3], "backward", True, True)
    with pytest.raises(ValueError, match="'normalization'"):
        oar._C.fft_c2r(oar.to_tensor(CPLX), [2], "none", False, 0)
    with pytest.raises(ValueError, match="invalid number of data points"):
        F.irfft(oar.to_tensor(np.ones((2, 1), np.complex64)))  # a 1-entry half spectrum gives 0 points
    with pytest.raises(ValueError, match="invalid number of data points"):
        F.fft(oar.to_tensor(np.ones((2, 0), np.complex64)))


def test_keyword_aliases_and_out():
    x = oar.to_tensor(CPLX)
    _check(F.fft(input=x, dim=1), np.fft.fft(CPLX, axis=1))
    _check(F.fftn(input=x, dim=(0, 1)), np.fft.fftn(CPLX, axes=(0, 1)))
    out = oar.zeros([3, 4, 10], dtype="complex128")
    result = F.ifft(x, out=out)
    assert result is out
    _check(out, np.fft.ifft(CPLX))


@pytest.mark.parametrize("n,d", [(1, 1.0), (4, 0.5), (7, 2.0), (10, 0.1)])
def test_frequencies(n, d):
    _check(F.fftfreq(n, d), np.fft.fftfreq(n, d), tol=1e-6)
    _check(F.rfftfreq(n, d), np.fft.rfftfreq(n, d), tol=1e-6)
    assert F.fftfreq(n, d).dtype == oar.float32
    assert F.fftfreq(n, d, dtype="float64").dtype == oar.float64
    assert F.rfftfreq(n, d, requires_grad=True).stop_gradient is False


@pytest.mark.parametrize("axes", [None, 0, (1,), (0, 2), [2, 1]])
def test_shifts(axes):
    x = RNG.standard_normal((3, 4, 5))
    _check(F.fftshift(oar.to_tensor(x), axes), np.fft.fftshift(x, axes))
    _check(F.ifftshift(oar.to_tensor(x), axes), np.fft.ifftshift(x, axes))


def test_static_program_matches_eager():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            xr = oar.static.data("xr", [3, 4, 10], "float64")
            xc = oar.static.data("xc", [3, 4, 10], "complex128")
            outs = [F.rfft(xr, n=12), F.irfftn(xc, s=(4, 9), axes=(1, 2)), F.fft2(xc, norm="ortho"),
                    F.fftshift(xr, axes=(1,))]
        ops = set(main.global_block().ops)  # op names
        assert {"fft_r2c", "fft_c2r", "fft_c2c"} <= ops
        got = oar.static.Executor().run(main, feed={"xr": REAL, "xc": CPLX}, fetch_list=outs)
    finally:
        oar.disable_static()
    expected = [np.fft.rfft(REAL, n=12), np.fft.irfftn(CPLX, s=(4, 9), axes=(1, 2)),
                np.fft.fft2(CPLX, norm="ortho"), np.fft.fftshift(REAL, axes=(1,))]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, atol=1e-10)


def test_matches_paddle_values_dtypes_and_gradients():
    paddle = pytest.importorskip("paddle")
    calls = [("fft", CPLX.astype(np.complex64), {"n": 12}), ("ifft", REAL, {"axis": 0, "norm": "ortho"}),
             ("rfft", REAL.astype(np.float32), {}), ("irfft", CPLX, {"n": 9}), ("hfft", CPLX, {"norm": "forward"}),
             ("ihfft", REAL, {}), ("fft2", REAL, {"s": (3, 6)}), ("irfft2", CPLX, {}),
             ("hfftn", CPLX, {"axes": (0, 2)}), ("ihfftn", REAL.astype(np.float32), {"s": (2, 5)}),
             ("rfftn", REAL, {"axes": (2, 0)}), ("ifftn", CPLX, {"s": (2, 3, 4)})]
    for name, x, kwargs in calls:
        mine = getattr(F, name)(oar.to_tensor(x, stop_gradient=False), **kwargs)
        theirs = getattr(paddle.fft, name)(paddle.to_tensor(x, stop_gradient=False), **kwargs)
        assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)
    for name, kwargs in [("rfft", {}), ("irfft", {"n": 11}), ("hfft2", {}), ("ihfft2", {"norm": "ortho"})]:
        x = REAL if name in TAKES_REAL else CPLX
        w = RNG.standard_normal(getattr(F, name)(oar.to_tensor(x), **kwargs).shape)
        grads = []
        for lib in (oar, paddle):
            t = lib.to_tensor(x, stop_gradient=False)
            y = getattr(lib.fft, name)(t, **kwargs)
            loss = (lib.real(y) * lib.to_tensor(w)).sum() if y.is_complex() else (y * lib.to_tensor(w)).sum()
            loss.backward()
            grads.append(t.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-8, err_msg=f"gradient of {name}")
