"""oar.signal: stft/istft against a NumPy reference and real Paddle, the round trip, gradients,
frame/overlap_add, Paddle's argument errors, and Tensor.stft/istft."""
import numpy as np
import pytest

import oar
from op_test import check_grad

RNG = np.random.default_rng(3)
SIGNAL = RNG.standard_normal((2, 160))


def _np_stft(x, n_fft, hop, win_length=None, window=None, center=True, pad_mode="reflect", normalized=False,
             onesided=True):
    win_length = win_length or n_fft
    window = np.ones(win_length) if window is None else window
    left = (n_fft - win_length) // 2
    window = np.pad(window, (left, n_fft - win_length - left))
    if center:
        x = np.pad(x, [(0, 0), (n_fft // 2, n_fft // 2)], mode=pad_mode)
    frames = np.stack([x[:, t:t + n_fft] for t in range(0, x.shape[-1] - n_fft + 1, hop)], axis=1)
    spec = np.fft.fft(frames * window, axis=-1, norm="ortho" if normalized else "backward")
    if onesided:
        spec = spec[..., : n_fft // 2 + 1]
    return spec.transpose(0, 2, 1)


@pytest.mark.parametrize("kwargs", [dict(n_fft=32, hop=8), dict(n_fft=32, hop=5, win_length=20),
                                    dict(n_fft=31, hop=4, center=False), dict(n_fft=16, hop=4, pad_mode="constant"),
                                    dict(n_fft=32, hop=8, normalized=True), dict(n_fft=32, hop=8, onesided=False)])
def test_stft_matches_numpy_and_inverts(kwargs):
    hop = kwargs.pop("hop")
    window = RNG.uniform(0.5, 1.5, kwargs.get("win_length", kwargs["n_fft"]))
    spec = oar.signal.stft(oar.to_tensor(SIGNAL), hop_length=hop, window=oar.to_tensor(window), **kwargs)
    expected = _np_stft(SIGNAL, hop=hop, window=window, **kwargs)
    np.testing.assert_allclose(spec.numpy(), expected, atol=1e-10)
    inverse = {k: v for k, v in kwargs.items() if k != "pad_mode"}
    back = oar.signal.istft(spec, hop_length=hop, window=oar.to_tensor(window), length=SIGNAL.shape[-1], **inverse)
    start = 0
    if not kwargs.get("center", True):  # without padding the last samples are in no frame
        covered = (SIGNAL.shape[-1] - kwargs["n_fft"]) // hop * hop + kwargs["n_fft"]
        np.testing.assert_allclose(back.numpy()[:, start:covered], SIGNAL[:, start:covered], atol=1e-10)
    else:
        np.testing.assert_allclose(back.numpy(), SIGNAL, atol=1e-10)


def test_one_dimensional_signal_and_methods():
    x = oar.to_tensor(SIGNAL[0])
    spec = x.stft(16)
    assert spec.shape == [9, 41] and spec.dtype == oar.complex128
    np.testing.assert_allclose(spec.numpy(), _np_stft(SIGNAL[:1], 16, 4)[0], atol=1e-10)
    np.testing.assert_allclose(spec.istft(16).numpy(), SIGNAL[0], atol=1e-10)


def test_complex_signal_and_complex_output():
    c = SIGNAL + 1j * SIGNAL[::-1]
    spec = oar.signal.stft(oar.to_tensor(c), 16)
    assert spec.shape == [2, 16, 41]  # complex input keeps every frequency
    np.testing.assert_allclose(spec.numpy(), _np_stft(c, 16, 4, onesided=False), atol=1e-10)
    back = oar.signal.istft(spec, 16, onesided=False, return_complex=True)
    np.testing.assert_allclose(back.numpy(), c, atol=1e-10)


def test_stft_gradient():
    def op(x):
        spec = oar.signal.stft(x, 8, hop_length=3, window=oar.to_tensor(np.hanning(8) + 0.1))
        return oar.real(spec) - oar.imag(spec)
    check_grad(op, [RNG.standard_normal((1, 20))])


def test_istft_gradient():
    spec = oar.signal.stft(oar.to_tensor(RNG.standard_normal((1, 24))), 8, hop_length=2).numpy()

    def op(re, im):
        return oar.signal.istft(oar.complex(re, im), 8, hop_length=2)
    check_grad(op, [spec.real.copy(), spec.imag.copy()])


def test_frame_and_overlap_add():
    x = RNG.standard_normal((3, 20))
    frames = oar.signal.frame(oar.to_tensor(x), 6, 4)
    expected = np.stack([x[:, t:t + 6] for t in range(0, 15, 4)], axis=-1)
    np.testing.assert_array_equal(frames.numpy(), expected)
    frames0 = oar.signal.frame(oar.to_tensor(x.T), 6, 4, axis=0)
    np.testing.assert_array_equal(frames0.numpy(), expected.transpose(2, 1, 0))
    added = oar.signal.overlap_add(frames, 4).numpy()
    ref = np.zeros((3, 18))
    for t in range(expected.shape[-1]):
        ref[:, 4 * t:4 * t + 6] += expected[..., t]
    np.testing.assert_allclose(added, ref)
    np.testing.assert_allclose(oar.signal.overlap_add(frames0, 4, axis=0).numpy(), ref.T)
    with pytest.raises(ValueError, match="frame_length should be less equal than sequence length"):
        oar.signal.frame(oar.to_tensor(x), 21, 4)
    with pytest.raises(ValueError, match="hop_length"):
        oar.signal.overlap_add(frames, 0)


def test_errors_match_paddle():
    x = oar.to_tensor(SIGNAL)
    cases = [
        (lambda: oar.signal.stft(oar.ones([2, 2, 50]), 16), "x should be a 1D or 2D real tensor, but got rank of x is 3"),
        (lambda: oar.signal.stft(x, 16, hop_length=0), "hop_length should be > 0, but got 0."),
        (lambda: oar.signal.stft(x, 200), "n_fft should be in (0, seq_length(160)], but got 200."),
        (lambda: oar.signal.stft(x, 16, win_length=20), "win_length should be in (0, n_fft(16)], but got 20."),
        (lambda: oar.signal.stft(x, 16, window=oar.ones([8])), "expected a 1D window tensor of size equal to "
                                                              "win_length(16)"),
        (lambda: oar.signal.stft(x, 16, pad_mode="edge"), 'pad_mode should be "reflect" or "constant"'),
        (lambda: oar.signal.stft(oar.to_tensor(SIGNAL + 1j), 16, onesided=True),
         "onesided should be False when input or window is a complex Tensor."),
        (lambda: oar.signal.istft(oar.signal.stft(x, 16), 16, hop_length=20),
         "hop_length should be in (0, win_length(16)], but got 20."),
        (lambda: oar.signal.istft(oar.signal.stft(x, 16), 32), "fft_size should be equal to n_fft // 2 + 1(17)"),
        (lambda: oar.signal.istft(oar.signal.stft(x, 16), 16, return_complex=True),
         "onesided should be False when input(output of istft) or window is a complex Tensor."),
    ]
    for call, message in cases:
        with pytest.raises(AssertionError) as info:
            call()
        assert message in str(info.value)
    with pytest.raises(TypeError, match="complex64', 'complex128'"):
        oar.signal.istft(x, 16)
    with pytest.raises(ValueError, match="Nonzero Overlap Add"):
        oar.signal.istft(oar.signal.stft(x, 16, hop_length=4), 16, hop_length=4,
                         window=oar.to_tensor(np.r_[np.ones(2), np.zeros(14)]))  # gaps between frames


def test_static_program():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [2, 160], "float64")
            spec = oar.signal.stft(x, 32, hop_length=8)
            back = oar.signal.istft(spec, 32, hop_length=8)
        got_spec, got_back = oar.static.Executor().run(main, feed={"x": SIGNAL}, fetch_list=[spec, back])
    finally:
        oar.disable_static()
    np.testing.assert_allclose(got_spec, _np_stft(SIGNAL, 32, 8), atol=1e-10)
    np.testing.assert_allclose(got_back, SIGNAL, atol=1e-10)


def test_matches_paddle():
    paddle = pytest.importorskip("paddle")
    window = np.hanning(24)
    for kwargs in [dict(n_fft=32), dict(n_fft=32, hop_length=5, win_length=24), dict(n_fft=20, center=False),
                   dict(n_fft=32, normalized=True, pad_mode="constant"), dict(n_fft=32, onesided=False)]:
        w = kwargs.get("win_length")
        mine = oar.signal.stft(oar.to_tensor(SIGNAL), window=oar.to_tensor(window) if w else None, **kwargs)
        theirs = paddle.signal.stft(paddle.to_tensor(SIGNAL), window=paddle.to_tensor(window) if w else None, **kwargs)
        np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=1e-10, err_msg=str(kwargs))
        inverse = {k: v for k, v in kwargs.items() if k != "pad_mode"}
        back = oar.signal.istft(mine, window=oar.to_tensor(window) if w else None, **inverse)
        theirs_back = paddle.signal.istft(theirs, window=paddle.to_tensor(window) if w else None, **inverse)
        np.testing.assert_allclose(back.numpy(), theirs_back.numpy(), atol=1e-10, err_msg=str(kwargs))
