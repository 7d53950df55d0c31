"""Mel scale conversions, filter banks, decibels and the DCT matrix, as paddle.audio.functional.

The mel scale is Slaney's (librosa's default: linear below 1 kHz, logarithmic above) or, with
htk=True, HTK's 2595 log10(1 + f / 700). Tensor arguments go through oar's ops, so the results
are differentiable; Python numbers give Python floats.
"""
from __future__ import annotations

import math

from ... import _C
from ...tensor.creation import arange, linspace, to_tensor
from ...tensor.search import where
from ..._C import Tensor

__all__ = ["hz_to_mel", "mel_to_hz", "mel_frequencies", "fft_frequencies", "compute_fbank_matrix",
           "power_to_db", "create_dct"]

# Slaney's scale: 3 mels per 200 Hz up to 1 kHz, then log-spaced (a factor 6.4 every 27 mels).
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def hz_to_mel(freq, htk=False):
    """Frequencies in Hz to mels.

    Args:
        freq (Tensor|float): Frequencies in Hz, of any shape.
        htk (bool, optional): Use the HTK formula instead of Slaney's. Default: False.

    Returns:
        Tensor|float: The mels, as freq (a Tensor for a Tensor, a float for a number).

    Examples:
        >>> import oar
        >>> print(round(oar.audio.functional.hz_to_mel(1000.0), 4))
        15.0
        >>> print(round(oar.audio.functional.hz_to_mel(1000.0, htk=True), 4))
        999.9855
        >>> print(oar.audio.functional.hz_to_mel(oar.to_tensor([0.0, 500.0, 2000.0])).numpy().round(4))
        [ 0.      7.5    25.0819]
    """
    if htk:
        if isinstance(freq, Tensor):
            return 2595.0 * _C.log10(1.0 + freq / 700.0)
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    linear = freq / _F_SP
    if isinstance(freq, Tensor):
        # 1e-10 keeps the log finite at 0 Hz (the branch where() does not take)
        log_part = _MIN_LOG_MEL + _C.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
        return where(freq > _MIN_LOG_HZ, log_part, linear)
    if freq >= _MIN_LOG_HZ:
        return _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return linear


def mel_to_hz(mel, htk=False):
    """Mels to frequencies in Hz (the inverse of hz_to_mel).

    Args:
        mel (Tensor|float): Mels, of any shape.
        htk (bool, optional): Use the HTK formula instead of Slaney's. Default: False.

    Returns:
        Tensor|float: The frequencies in Hz, as mel (a Tensor for a Tensor, a float for a number).

    Examples:
        >>> import oar
        >>> print(round(oar.audio.functional.mel_to_hz(15.0), 4))
        1000.0
        >>> print(oar.audio.functional.mel_to_hz(oar.to_tensor([0.0, 7.5, 30.0])).numpy().round(2))
        [   0.    500.   2804.64]
    """
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    linear = _F_SP * mel
    if isinstance(mel, Tensor):
        log_part = _MIN_LOG_HZ * _C.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        return where(mel > _MIN_LOG_MEL, log_part, linear)
    if mel >= _MIN_LOG_MEL:
        return _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return linear


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """n_mels frequencies evenly spaced on the mel scale from f_min to f_max (both included).

    Args:
        n_mels (int, optional): The number of frequencies. Default: 64.
        f_min (float, optional): The lowest, in Hz. Default: 0.0.
        f_max (float, optional): The highest, in Hz. Default: 11025.0.
        htk (bool, optional): Use the HTK mel formula. Default: False.
        dtype (str, optional): The result's dtype. Default: 'float32'.

    Returns:
        Tensor: The frequencies in Hz, shape [n_mels].

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.mel_frequencies(4, 0.0, 1000.0, dtype='float64').numpy().round(4))
        [   0.      333.3333  666.6667 1000.    ]
    """
    mels = linspace(hz_to_mel(f_min, htk=htk), hz_to_mel(f_max, htk=htk), n_mels, dtype=dtype)
    return mel_to_hz(mels, htk=htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The frequencies of the bins of a one-sided FFT of n_fft points: 0 to sr / 2.

    Args:
        sr (int): The sample rate.
        n_fft (int): The FFT size.
        dtype (str, optional): The result's dtype. Default: 'float32'.

    Returns:
        Tensor: The frequencies in Hz, shape [n_fft // 2 + 1].

    Examples:
        >>> import oar
        >>> print(oar.audio.functional.fft_frequencies(16000, 8).numpy())
        [   0. 2000. 4000. 6000. 8000.]
    """
    return linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False, norm="slaney",
                         dtype="float32"):
    """The mel filter bank: n_mels triangular filters over the bins of a one-sided FFT.

    Filter i rises from mel frequency i to i + 1 and falls to i + 2 (of n_mels + 2 frequencies
    evenly spaced in mels from f_min to f_max), as librosa.filters.mel.

    Args:
        sr (int): The sample rate.
        n_fft (int): The FFT size.
        n_mels (int, optional): The number of filters. Default: 64.
        f_min (float, optional): The lowest frequency, in Hz. Default: 0.0.
        f_max (float, optional): The highest frequency, in Hz; None means sr / 2. Default: None.
        htk (bool, optional): Use the HTK mel formula. Default: False.
        norm (str|float, optional): 'slaney' scales each filter to unit area (2 / its width in
            Hz); a number p divides each filter by its p-norm; None leaves the peaks at 1.
            Default: 'slaney'.
        dtype (str, optional): The result's dtype. Default: 'float32'.

    Returns:
        Tensor: The filters, shape [n_mels, n_fft // 2 + 1].

    Examples:
        >>> import oar
        >>> fbank = oar.audio.functional.compute_fbank_matrix(sr=8000, n_fft=8, n_mels=2, norm=None)
        >>> print(fbank.shape)
        [2, 5]
        >>> print(fbank.numpy().round(4))
        [[0.     0.7826 0.     0.     0.    ]
         [0.     0.2174 0.9037 0.4518 0.    ]]
    """
    if f_max is None:
        f_max = float(sr) / 2
    fftfreqs = fft_frequencies(sr=sr, n_fft=n_fft, dtype=dtype)
    mel_f = mel_frequencies(n_mels + 2, f_min=f_min, f_max=f_max, htk=htk, dtype=dtype)
    fdiff = (mel_f[1:] - mel_f[:-1]).unsqueeze(1)
    ramps = mel_f.unsqueeze(1) - fftfreqs.unsqueeze(0)  # [n_mels + 2, bins]
    # filter i: the rising edge (from mel_f[i] to [i + 1]) and falling edge (to [i + 2]), cut at 0
    lower = -ramps[:n_mels] / fdiff[:n_mels]
    upper = ramps[2:n_mels + 2] / fdiff[1:n_mels + 1]
    weights = _C.maximum(_C.minimum(lower, upper), _C.zeros_like(lower))
    if norm == "slaney":
        weights = weights * (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])).unsqueeze(1)
    elif isinstance(norm, (int, float)) and not isinstance(norm, bool):
        from ...nn.functional import normalize
        weights = normalize(weights, p=norm, axis=-1)
    return weights


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """A power spectrogram in decibels: 10 log10(max(spect, amin) / ref_value), floored at
    top_db below its maximum.

    Args:
        spect (Tensor): The power spectrogram (magnitude squared).
        ref_value (float, optional): The reference power (0 dB). Default: 1.0.
        amin (float, optional): The smallest power used, to keep the log finite; positive.
            Default: 1e-10.
        top_db (float, optional): The dynamic range kept below the maximum (over the whole
            tensor); None keeps everything. Default: 80.0.

    Returns:
        Tensor: The spectrogram in dB, shape and dtype of spect.

    Examples:
        >>> import oar
        >>> spect = oar.to_tensor([1.0, 10.0, 100.0, 1e-12])
        >>> print(oar.audio.functional.power_to_db(spect, top_db=None).numpy())
        [   0.   10.   20. -100.]
        >>> print(oar.audio.functional.power_to_db(spect, top_db=15.0).numpy())
        [ 5. 10. 20.  5.]
    """
    if amin <= 0:
        raise ValueError("amin must be strictly positive")
    if ref_value <= 0:
        raise ValueError("ref_value must be strictly positive")
    log_spec = 10.0 * _C.log10(_C.maximum(spect, _C.full_like(spect, amin)))
    log_spec = log_spec - 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        if top_db < 0:
            raise ValueError("top_db must be non-negative")
        log_spec = _C.maximum(log_spec, log_spec.max() - top_db)
    return log_spec


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The DCT-II matrix that turns n_mels log-mel energies into n_mfcc cepstral coefficients.

    Args:
        n_mfcc (int): The number of coefficients.
        n_mels (int): The number of mel bands.
        norm (str, optional): 'ortho' for the orthonormal DCT, None for the unscaled one
            (2 cos(...)). Default: 'ortho'.
        dtype (str, optional): The result's dtype. Default: 'float32'.

    Returns:
        Tensor: The matrix, shape [n_mels, n_mfcc] (mfcc = log_mel @ matrix).

    Examples:
        >>> import oar
        >>> dct = oar.audio.functional.create_dct(n_mfcc=2, n_mels=4)
        >>> print(dct.shape)
        [4, 2]
        >>> print(dct.numpy().round(4))
        [[ 0.5     0.6533]
         [ 0.5     0.2706]
         [ 0.5    -0.2706]
         [ 0.5    -0.6533]]
    """
    if norm not in (None, "ortho"):
        raise AssertionError(f"create_dct: norm should be 'ortho' or None, but got {norm!r}")
    n = arange(n_mels, dtype=dtype)
    k = arange(n_mfcc, dtype=dtype).unsqueeze(1)
    dct = _C.cos(math.pi / float(n_mels) * (n + 0.5) * k)  # [n_mfcc, n_mels]
    if norm is None:
        dct = dct * 2.0
    else:
        # orthonormal: row 0 scaled by 1 / sqrt(2), every row by sqrt(2 / n_mels)
        rows = to_tensor([1.0 / math.sqrt(2.0)] + [1.0] * (n_mfcc - 1), dtype=dtype).unsqueeze(1)
        dct = dct * rows * math.sqrt(2.0 / float(n_mels))
    return dct.T
