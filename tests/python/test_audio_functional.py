"""oar.audio.functional and the top-level windows: every window of get_window, both symmetries,
float32 and float64, against NumPy's windows and real Paddle (and Paddle's argument errors); the
mel conversions, mel and FFT frequencies, filter banks, power_to_db and the DCT matrix against
NumPy references and Paddle; gradients through hz_to_mel and power_to_db."""
import math

import numpy as np
import pytest

import oar
import oar.audio.functional as F

RNG = np.random.default_rng(7)

WINDOWS = ["hamming", "hann", "bartlett", "nuttall", "triang", "bohman", "blackman", "cosine", "tukey",
           "taylor", ("kaiser", 5.0), ("gaussian", 2.0), ("general_gaussian", 1.5, 3.0), ("exponential", None, 2.0),
           ("tukey", 0.3), ("tukey", 0.0), ("taylor", 5, 40), ("general_hamming", 0.6),
           ("general_cosine", [0.5, 0.3, 0.2])]
LENGTHS = [0, 1, 2, 5, 16, 17]


def _paddle():
    return pytest.importorskip("paddle")


@pytest.mark.parametrize("n", [2, 7, 16])
def test_windows_match_numpy(n):
    # NumPy's windows are the symmetric ones (fftbins=False)
    for name, ref in [("hann", np.hanning), ("hamming", np.hamming), ("blackman", np.blackman),
                      ("bartlett", np.bartlett)]:
        np.testing.assert_allclose(F.get_window(name, n, fftbins=False).numpy(), ref(n), atol=1e-14)
        # periodic: the symmetric window one longer, without its last point
        np.testing.assert_allclose(F.get_window(name, n).numpy(), ref(n + 1)[:-1], atol=1e-14)
    np.testing.assert_allclose(F.get_window(("kaiser", 6.0), n, fftbins=False).numpy(), np.kaiser(n, 6.0),
                               atol=1e-12)
    sym = np.exp(-0.5 * ((np.arange(n) - (n - 1) / 2) / 1.5) ** 2)
    np.testing.assert_allclose(F.get_window(("gaussian", 1.5), n, fftbins=False).numpy(), sym, atol=1e-14)


def test_window_dtype_and_small_lengths():
    assert F.get_window("hann", 8).dtype == oar.float64
    assert F.get_window("hann", 8, dtype="float32").dtype == oar.float32
    assert F.get_window("hann", 0).shape == [0]
    np.testing.assert_array_equal(F.get_window("hann", 1).numpy(), [1.0])
    # Paddle returns float64 here whatever dtype asks for; oar keeps the dtype
    assert F.get_window(("tukey", 1.0), 8, dtype="float32").dtype == oar.float32
    np.testing.assert_allclose(F.get_window(("tukey", 1.0), 8).numpy(), F.get_window("hann", 8).numpy())


@pytest.mark.parametrize("window", WINDOWS, ids=str)
def test_windows_match_paddle(window):
    paddle = _paddle()
    from paddle.audio.functional import get_window as paddle_window
    for n in LENGTHS:
        for fftbins in (True, False):
            for dtype, tol in (("float64", 1e-12), ("float32", 1e-6)):
                expected = paddle_window(window, n, fftbins, dtype).numpy()
                got = F.get_window(window, n, fftbins, dtype).numpy()
                assert got.dtype == expected.dtype and got.shape == expected.shape
                np.testing.assert_allclose(got, expected, atol=tol, err_msg=f"{window} n={n} fftbins={fftbins}")
    assert paddle is not None


@pytest.mark.parametrize("args", [("kaiser", 4), ("gaussian", 4), ("exponential", 4), ("nope", 4), (3, 4),
                                  (("nope", 1), 4), ("hann", -1), ("hann", 2.5),
                                  (("exponential", 3, 1.0), 5, False)])
def test_window_errors_match_paddle(args):
    paddle = _paddle()
    with pytest.raises(Exception) as expected:
        paddle.audio.functional.get_window(*args)
    with pytest.raises(type(expected.value)) as got:
        F.get_window(*args)
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
def test_top_level_windows_match_paddle(name):
    paddle = _paddle()
    for n in (1, 2, 7, 8):
        for periodic in (True, False):
            expected = getattr(paddle, name)(n, periodic).numpy()
            got = getattr(oar, name)(n, periodic)
            assert got.dtype == oar.float32 and got.stop_gradient
            np.testing.assert_allclose(got.numpy(), expected, atol=1e-6)
    w = getattr(oar, name)(6, dtype="float64", requires_grad=True)
    assert w.dtype == oar.float64 and not w.stop_gradient
    with pytest.warns(UserWarning, match="layout"):
        getattr(oar, name)(4, layout="strided")


def test_hamming_window_coefficients_match_paddle():
    paddle = _paddle()
    for n in (1, 5, 9):
        expected = paddle.hamming_window(n, alpha=0.3, beta=0.2).numpy()
        np.testing.assert_allclose(oar.hamming_window(n, alpha=0.3, beta=0.2).numpy(), expected, atol=1e-6)
    np.testing.assert_allclose(oar.hamming_window(5, False, 0.3, 0.2, dtype="float64").numpy(),
                               0.3 - 0.2 * np.cos(2 * np.pi * np.arange(5) / 4), atol=1e-14)


# ---- mel scale, filter banks, decibels, DCT ----

def _np_hz_to_mel(f, htk):
    f = np.asarray(f, dtype=np.float64)
    if htk:
        return 2595.0 * np.log10(1.0 + f / 700.0)
    log_part = 15.0 + np.log(np.maximum(f, 1e-3) / 1000.0) / (np.log(6.4) / 27.0)
    return np.where(f >= 1000.0, log_part, f * 3 / 200)


def _np_mel_to_hz(m, htk):
    m = np.asarray(m, dtype=np.float64)
    if htk:
        return 700.0 * (10.0 ** (m / 2595.0) - 1.0)
    return np.where(m >= 15.0, 1000.0 * np.exp(np.log(6.4) / 27.0 * (m - 15.0)), m * 200 / 3)


@pytest.mark.parametrize("htk", [False, True])
def test_mel_conversions_and_paddle(htk):
    f = RNG.uniform(0, 11025, (3, 5))
    mel = F.hz_to_mel(oar.to_tensor(f), htk)
    np.testing.assert_allclose(mel.numpy(), _np_hz_to_mel(f, htk), rtol=1e-10)
    np.testing.assert_allclose(F.mel_to_hz(mel, htk).numpy(), f, rtol=1e-9)
    for v in (0.0, 440.0, 1000.0, 4000.0):
        assert isinstance(F.hz_to_mel(v, htk), float)
        assert F.hz_to_mel(v, htk) == pytest.approx(float(_np_hz_to_mel(v, htk)), rel=1e-9)
        assert F.mel_to_hz(F.hz_to_mel(v, htk), htk) == pytest.approx(v, abs=1e-6)
    paddle = pytest.importorskip("paddle")
    f32 = f.astype(np.float32)
    np.testing.assert_allclose(F.hz_to_mel(oar.to_tensor(f32), htk).numpy(),
                               paddle.audio.functional.hz_to_mel(paddle.to_tensor(f32), htk).numpy(), rtol=1e-6)
    m32 = _np_hz_to_mel(f, htk).astype(np.float32)
    np.testing.assert_allclose(F.mel_to_hz(oar.to_tensor(m32), htk).numpy(),
                               paddle.audio.functional.mel_to_hz(paddle.to_tensor(m32), htk).numpy(), rtol=1e-6)
    for v in (0.0, 440.0, 1000.0, 4000.0):
        assert F.hz_to_mel(v, htk) == paddle.audio.functional.hz_to_mel(v, htk)
        assert F.mel_to_hz(v / 100, htk) == paddle.audio.functional.mel_to_hz(v / 100, htk)


def test_hz_to_mel_gradient():
    f = oar.to_tensor([200.0, 3000.0], dtype="float64", stop_gradient=False)
    F.hz_to_mel(f).sum().backward()
    # d/df of f * 3 / 200 and of 15 + log(f / 1000) / logstep
    np.testing.assert_allclose(f.grad.numpy(), [3 / 200, 27 / math.log(6.4) / 3000.0], rtol=1e-8)


def test_mel_and_fft_frequencies_and_paddle():
    mels = np.linspace(_np_hz_to_mel(20.0, False), _np_hz_to_mel(8000.0, False), 10)
    got = F.mel_frequencies(10, 20.0, 8000.0, dtype="float64")
    np.testing.assert_allclose(got.numpy(), _np_mel_to_hz(mels, False), rtol=1e-10)
    assert F.mel_frequencies().dtype == oar.float32 and F.mel_frequencies().shape == [64]
    np.testing.assert_allclose(F.fft_frequencies(16000, 512).numpy(), np.fft.rfftfreq(512, 1 / 16000), atol=1e-3)
    paddle = pytest.importorskip("paddle")
    for args in [(64, 0.0, 11025.0, False, "float32"), (10, 50.0, 8000, True, "float64")]:
        np.testing.assert_allclose(F.mel_frequencies(*args).numpy(),
                                   paddle.audio.functional.mel_frequencies(*args).numpy(), rtol=1e-6)
    np.testing.assert_allclose(F.fft_frequencies(22050, 1023).numpy(),
                               paddle.audio.functional.fft_frequencies(22050, 1023).numpy(), rtol=1e-6)


def _np_fbank(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney"):
    """librosa.filters.mel's construction in float64."""
    f_max = sr / 2 if f_max is None else f_max
    fft = np.linspace(0, sr / 2, 1 + n_fft // 2)
    mel_f = _np_mel_to_hz(np.linspace(_np_hz_to_mel(f_min, htk), _np_hz_to_mel(f_max, htk), n_mels + 2), htk)
    fdiff, ramps = np.diff(mel_f), np.subtract.outer(mel_f, fft)
    w = np.maximum(0, np.minimum(-ramps[:-2] / fdiff[:-1, None], ramps[2:] / fdiff[1:, None]))
    if norm == "slaney":
        w *= (2.0 / (mel_f[2:] - mel_f[:-2]))[:, None]
    elif norm is not None:
        w /= np.maximum(np.linalg.norm(w, ord=norm, axis=-1, keepdims=True), 1e-12)
    return w


FBANKS = [dict(sr=16000, n_fft=512), dict(sr=22050, n_fft=2048, n_mels=128, f_min=50.0, htk=True),
          dict(sr=8000, n_fft=256, norm=2.0), dict(sr=8000, n_fft=256, norm=None),
          dict(sr=8000, n_fft=255, n_mels=20, f_max=3000.0, norm=1.0)]


@pytest.mark.parametrize("kw", FBANKS, ids=str)
def test_fbank_matrix_and_paddle(kw):
    got = F.compute_fbank_matrix(dtype="float64", **kw)
    assert got.shape == [kw.get("n_mels", 64), kw["n_fft"] // 2 + 1]
    # float64 rounding of the mel round trip at f_max leaves ~1e-10 in the last bin
    np.testing.assert_allclose(got.numpy(), _np_fbank(**kw), atol=1e-9)
    paddle = pytest.importorskip("paddle")
    expected = paddle.audio.functional.compute_fbank_matrix(**kw).numpy()
    got32 = F.compute_fbank_matrix(**kw).numpy()
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, expected, atol=1e-5 * np.abs(expected).max())


def _np_db(s, ref=1.0, amin=1e-10, top_db=80.0):
    db = 10 * np.log10(np.maximum(s, amin)) - 10 * np.log10(max(ref, amin))
    return db if top_db is None else np.maximum(db, db.max() - top_db)


@pytest.mark.parametrize("kw", [dict(), dict(ref_value=2.0, amin=1e-5, top_db=None), dict(top_db=10.0)], ids=str)
def test_power_to_db_and_paddle(kw):
    s = RNG.uniform(0, 10, (2, 4, 6)) ** 4
    s[0, 0, 0] = 0.0
    np.testing.assert_allclose(F.power_to_db(oar.to_tensor(s), **kw).numpy(), _np_db(s, **{
        {"ref_value": "ref"}.get(k, k): v for k, v in kw.items()}), atol=1e-10)
    paddle = pytest.importorskip("paddle")
    s32 = s.astype(np.float32)
    np.testing.assert_allclose(F.power_to_db(oar.to_tensor(s32), **kw).numpy(),
                               paddle.audio.functional.power_to_db(paddle.to_tensor(s32), **kw).numpy(), atol=1e-4)


def test_power_to_db_errors_and_gradient():
    x = oar.to_tensor([1.0, 100.0])
    for kw, message in [(dict(amin=0.0), "amin must be strictly positive"),
                        (dict(ref_value=-1.0), "ref_value must be strictly positive"),
                        (dict(top_db=-1.0), "top_db must be non-negative")]:
        with pytest.raises(Exception, match=message):
            F.power_to_db(x, **kw)
    x = oar.to_tensor([1.0, 100.0], dtype="float64", stop_gradient=False)
    F.power_to_db(x, top_db=None).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 10 / np.log(10) / np.array([1.0, 100.0]), rtol=1e-10)


@pytest.mark.parametrize("n_mfcc,n_mels,norm", [(13, 40, "ortho"), (5, 5, None), (8, 8, "ortho")])
def test_create_dct_and_paddle(n_mfcc, n_mels, norm):
    got = F.create_dct(n_mfcc, n_mels, norm=norm, dtype="float64").numpy()
    n, k = np.arange(n_mels), np.arange(n_mfcc)[:, None]
    ref = 2 * np.cos(np.pi / n_mels * (n + 0.5) * k)  # the DCT-II, as scipy.fft.dct's matrix
    if norm == "ortho":
        ref[0] *= 1 / np.sqrt(4 * n_mels)
        ref[1:] *= 1 / np.sqrt(2 * n_mels)
    np.testing.assert_allclose(got, ref.T, atol=1e-12)
    if norm == "ortho" and n_mfcc == n_mels:
        np.testing.assert_allclose(got.T @ got, np.eye(n_mels), atol=1e-12)
    paddle = pytest.importorskip("paddle")
    np.testing.assert_allclose(F.create_dct(n_mfcc, n_mels, norm=norm).numpy(),
                               paddle.audio.functional.create_dct(n_mfcc, n_mels, norm=norm).numpy(), atol=1e-6)
