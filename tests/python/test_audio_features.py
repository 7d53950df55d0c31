"""oar.audio.features against real Paddle on random signals (float32 tolerance), with Paddle's
defaults and other arguments; Spectrogram and MFCC against NumPy references; the buffers in the
state dict under Paddle's names; gradients to the input; Paddle's argument errors."""
import numpy as np
import pytest

import oar
from oar.audio import features as feats
from oar.audio import functional as F

RNG = np.random.default_rng(11)
SIGNAL = RNG.standard_normal((2, 4000)).astype(np.float32)

CASES = [
    ("Spectrogram", dict()),
    ("Spectrogram", dict(n_fft=256, hop_length=None, win_length=200, window="hamming", power=2.0)),
    ("Spectrogram", dict(n_fft=128, hop_length=32, center=False, window=("kaiser", 4.0))),
    ("MelSpectrogram", dict(sr=16000)),
    ("MelSpectrogram", dict(sr=16000, n_fft=512, hop_length=128, n_mels=40, htk=True, norm=2.0, pad_mode="constant")),
    ("LogMelSpectrogram", dict(sr=16000)),
    ("LogMelSpectrogram", dict(sr=16000, top_db=60.0, ref_value=0.5, window="blackman")),
    ("MFCC", dict(sr=16000)),
    ("MFCC", dict(sr=16000, n_mfcc=13, n_mels=40, n_fft=400, hop_length=160, top_db=80.0, f_max=7000.0)),
]


@pytest.mark.parametrize("name,kwargs", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_features_match_paddle(name, kwargs):
    paddle = pytest.importorskip("paddle")
    expected_layer = getattr(paddle.audio.features, name)(**kwargs)
    layer = getattr(feats, name)(**kwargs)
    expected = expected_layer(paddle.to_tensor(SIGNAL)).numpy()
    got = layer(oar.to_tensor(SIGNAL))
    assert got.dtype == oar.float32 and got.shape == list(expected.shape)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(got.numpy(), expected, atol=2e-5 * scale)
    assert list(layer.state_dict()) == list(expected_layer.state_dict())
    for key, value in expected_layer.state_dict().items():
        expected_buffer = value.numpy()
        np.testing.assert_allclose(layer.state_dict()[key].numpy(), expected_buffer,
                                   atol=1e-5 * np.abs(expected_buffer).max())


def _np_spectrogram(x, n_fft, hop, window, power):
    x = np.pad(x, [(0, 0), (n_fft // 2, n_fft // 2)], mode="reflect")
    frames = np.stack([x[:, t:t + n_fft] for t in range(0, x.shape[-1] - n_fft + 1, hop)], axis=1)
    return (np.abs(np.fft.rfft(frames * window, axis=-1)) ** power).transpose(0, 2, 1)


def test_spectrogram_and_mfcc_match_numpy():
    x = SIGNAL.astype(np.float64)
    window = np.hanning(257)[:-1]  # periodic Hann
    spec = feats.Spectrogram(n_fft=256, hop_length=64, power=2.0, dtype="float64")(oar.to_tensor(x)).numpy()
    np.testing.assert_allclose(spec, _np_spectrogram(x, 256, 64, window, 2.0), rtol=1e-9, atol=1e-9)
    # MFCC = DCT of the dB of the filter bank applied to the power spectrogram
    mfcc = feats.MFCC(sr=8000, n_mfcc=10, n_fft=256, hop_length=64, n_mels=30, dtype="float64")(oar.to_tensor(x))
    fbank = F.compute_fbank_matrix(8000, 256, n_mels=30, f_min=50.0, f_max=4000, dtype="float64").numpy()
    db = 10 * np.log10(np.maximum(fbank @ spec, 1e-10))
    dct = F.create_dct(10, 30, dtype="float64").numpy()
    np.testing.assert_allclose(mfcc.numpy(), np.einsum("bmt,mk->bkt", db, dct), rtol=1e-8, atol=1e-8)


def test_one_dimensional_signal_and_gradient():
    layer = feats.MelSpectrogram(sr=8000, n_fft=256, hop_length=64, n_mels=16)
    batched = layer(oar.to_tensor(SIGNAL[:1]))
    single = layer(oar.to_tensor(SIGNAL[0]))
    assert single.shape == batched.shape[1:]
    np.testing.assert_allclose(single.numpy(), batched.numpy()[0], rtol=1e-6)
    x = oar.to_tensor(SIGNAL, stop_gradient=False)
    feats.LogMelSpectrogram(sr=8000, n_fft=256, n_mels=16)(x).mean().backward()
    assert x.grad is not None and x.grad.shape == [2, 4000] and np.isfinite(x.grad.numpy()).all()


def test_argument_errors():
    with pytest.raises(AssertionError, match="Power of spectrogram must be > 0."):
        feats.Spectrogram(power=0.0)
    with pytest.raises(AssertionError, match="n_mfcc cannot be larger than n_mels: 65 vs 64"):
        feats.MFCC(n_mfcc=65)
    with pytest.raises(ValueError, match="needs one or more parameters"):
        feats.Spectrogram(window="kaiser")


def test_defaults_are_paddles():
    paddle = pytest.importorskip("paddle")
    import inspect
    for name in ("Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"):
        ours = inspect.signature(getattr(feats, name).__init__).parameters
        theirs = inspect.signature(getattr(paddle.audio.features, name).__init__).parameters
        assert [(p.name, p.default) for p in ours.values()] == [(p.name, p.default) for p in theirs.values()]
