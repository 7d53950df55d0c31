"""Feature extraction layers, as paddle.audio.features: each is the one before it plus a step.

Spectrogram: |stft(x)| ** power; MelSpectrogram: the mel filter bank times that; LogMelSpectrogram:
the same in decibels; MFCC: the DCT of those. The window, filter bank and DCT matrix are buffers
(in the state dict, under Paddle's names); the arguments and defaults are Paddle's, including
their differences from layer to layer (hop_length 512 for Spectrogram and MelSpectrogram, None,
i.e. win_length // 4, for the other two; n_fft 2048 for MelSpectrogram, 512 for the others).
"""
from __future__ import annotations

from ... import _C
from ...nn.layer.layers import Layer
from ...signal import stft
from ..functional.functional import compute_fbank_matrix, create_dct, power_to_db
from ..functional.window import get_window

__all__ = ["Spectrogram", "MelSpectrogram", "LogMelSpectrogram", "MFCC"]


class Spectrogram(Layer):
    """The magnitude spectrogram of signals: |stft(x)| ** power, with a window of the given type.

    Args:
        n_fft (int, optional): The FFT size. Default: 512.
        hop_length (int, optional): Samples between frames; None means win_length // 4.
            Default: 512.
        win_length (int, optional): The window's length; None means n_fft. Default: None.
        window (str|tuple, optional): The window's type (see oar.audio.functional.get_window).
            Default: 'hann'.
        power (float, optional): The exponent of the magnitude, positive. Default: 1.0.
        center (bool, optional): Pad the signal so that frame t is centred on sample
            t * hop_length. Default: True.
        pad_mode (str, optional): How it is padded when center: 'reflect' or 'constant'.
            Default: 'reflect'.
        dtype (str, optional): The window's dtype (that of the input). Default: 'float32'.

    Shape:
        x: [N, T] (or [T]); output: [N, n_fft // 2 + 1, num_frames].

    Examples:
        >>> import oar
        >>> from oar.audio.features import Spectrogram
        >>> waveform = oar.linspace(-1.0, 1.0, 8000).tile([2, 1]) * 0.1
        >>> feats = Spectrogram(n_fft=512, hop_length=256, power=2.0)(waveform)
        >>> print(feats.shape)
        [2, 257, 32]
    """

    def __init__(self, n_fft=512, hop_length=512, win_length=None, window="hann", power=1.0, center=True,
                 pad_mode="reflect", dtype="float32"):
        super().__init__()
        if not power > 0:
            raise AssertionError("Power of spectrogram must be > 0.")
        self.power = power
        self.n_fft, self.hop_length, self.center, self.pad_mode = n_fft, hop_length, center, pad_mode
        self.win_length = n_fft if win_length is None else win_length
        self.register_buffer("fft_window", get_window(window, self.win_length, fftbins=True, dtype=dtype))

    def forward(self, x):
        """The spectrogram of x, [N, T] -> [N, n_fft // 2 + 1, num_frames]."""
        spec = stft(x, n_fft=self.n_fft, hop_length=self.hop_length, win_length=self.win_length,
                    window=self.fft_window, center=self.center, pad_mode=self.pad_mode)
        return _C.abs(spec) ** self.power


class MelSpectrogram(Layer):
    """The mel spectrogram of signals: the mel filter bank applied to their spectrogram.

    Args:
        sr (int, optional): The sample rate. Default: 22050.
        n_fft (int, optional): The FFT size. Default: 2048.
        hop_length (int, optional): Samples between frames; None means win_length // 4.
            Default: 512.
        win_length (int, optional): The window's length; None means n_fft. Default: None.
        window (str|tuple, optional): The window's type. Default: 'hann'.
        power (float, optional): The exponent of the magnitude. Default: 2.0.
        center (bool, optional): Centre the frames (pad the signal). Default: True.
        pad_mode (str, optional): 'reflect' or 'constant'. Default: 'reflect'.
        n_mels (int, optional): The number of mel bands. Default: 64.
        f_min (float, optional): The lowest frequency, in Hz. Default: 50.0.
        f_max (float, optional): The highest frequency, in Hz; None means sr // 2. Default: None.
        htk (bool, optional): Use the HTK mel formula. Default: False.
        norm (str|float, optional): The filters' normalization (see
            oar.audio.functional.compute_fbank_matrix). Default: 'slaney'.
        dtype (str, optional): The window's and filter bank's dtype. Default: 'float32'.

    Shape:
        x: [N, T]; output: [N, n_mels, num_frames].

    Examples:
        >>> import oar
        >>> from oar.audio.features import MelSpectrogram
        >>> waveform = oar.linspace(-1.0, 1.0, 8000).tile([1, 1]) * 0.1
        >>> feats = MelSpectrogram(sr=16000, n_fft=512, hop_length=160, n_mels=40)(waveform)
        >>> print(feats.shape)
        [1, 40, 51]
    """

    def __init__(self, sr=22050, n_fft=2048, hop_length=512, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False,
                 norm="slaney", dtype="float32"):
        super().__init__()
        self._spectrogram = Spectrogram(n_fft=n_fft, hop_length=hop_length, win_length=win_length,
                                        window=window, power=power, center=center, pad_mode=pad_mode,
                                        dtype=dtype)
        self.n_mels, self.f_min, self.f_max, self.htk, self.norm = n_mels, f_min, f_max, htk, norm
        fbank = compute_fbank_matrix(sr=sr, n_fft=n_fft, n_mels=n_mels, f_min=f_min,
                                     f_max=sr // 2 if f_max is None else f_max, htk=htk, norm=norm,
                                     dtype=dtype)
        self.register_buffer("fbank_matrix", fbank)

    def forward(self, x):
        """The mel spectrogram of x, [N, T] -> [N, n_mels, num_frames]."""
        return _C.matmul(self.fbank_matrix, self._spectrogram(x))


class LogMelSpectrogram(Layer):
    """The log-mel spectrogram of signals: their mel spectrogram in decibels (power_to_db).

    Args:
        sr (int, optional): The sample rate. Default: 22050.
        n_fft (int, optional): The FFT size. Default: 512.
        hop_length (int, optional): Samples between frames; None means win_length // 4.
            Default: None.
        win_length (int, optional): The window's length; None means n_fft. Default: None.
        window (str|tuple, optional): The window's type. Default: 'hann'.
        power (float, optional): The exponent of the magnitude. Default: 2.0.
        center (bool, optional): Centre the frames (pad the signal). Default: True.
        pad_mode (str, optional): 'reflect' or 'constant'. Default: 'reflect'.
        n_mels (int, optional): The number of mel bands. Default: 64.
        f_min (float, optional): The lowest frequency, in Hz. Default: 50.0.
        f_max (float, optional): The highest frequency, in Hz; None means sr // 2. Default: None.
        htk (bool, optional): Use the HTK mel formula. Default: False.
        norm (str|float, optional): The filters' normalization. Default: 'slaney'.
        ref_value (float, optional): The reference power (0 dB). Default: 1.0.
        amin (float, optional): The smallest power used. Default: 1e-10.
        top_db (float, optional): The dynamic range kept below the maximum; None keeps all.
            Default: None.
        dtype (str, optional): The window's and filter bank's dtype. Default: 'float32'.

    Shape:
        x: [N, T]; output: [N, n_mels, num_frames].

    Examples:
        >>> import oar
        >>> from oar.audio.features import LogMelSpectrogram
        >>> waveform = oar.linspace(-1.0, 1.0, 8000).tile([1, 1]) * 0.1
        >>> feats = LogMelSpectrogram(sr=16000, n_fft=512, n_mels=40, top_db=80.0)(waveform)
        >>> print(feats.shape)
        [1, 40, 63]
    """

    def __init__(self, sr=22050, n_fft=512, hop_length=None, win_length=None, window="hann", power=2.0,
                 center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False,
                 norm="slaney", ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        self._melspectrogram = MelSpectrogram(sr=sr, n_fft=n_fft, hop_length=hop_length,
                                              win_length=win_length, window=window, power=power,
                                              center=center, pad_mode=pad_mode, n_mels=n_mels,
                                              f_min=f_min, f_max=f_max, htk=htk, norm=norm, dtype=dtype)
        self.ref_value, self.amin, self.top_db = ref_value, amin, top_db

    def forward(self, x):
        """The log-mel spectrogram of x, [N, T] -> [N, n_mels, num_frames]."""
        return power_to_db(self._melspectrogram(x), ref_value=self.ref_value, amin=self.amin,
                           top_db=self.top_db)


class MFCC(Layer):
    """Mel-frequency cepstral coefficients of signals: the DCT of their log-mel spectrogram.

    Args:
        sr (int, optional): The sample rate. Default: 22050.
        n_mfcc (int, optional): The number of coefficients, at most n_mels. Default: 40.
        n_fft (int, optional): The FFT size. Default: 512.
        hop_length (int, optional): Samples between frames; None means win_length // 4.
            Default: None.
        win_length (int, optional): The window's length; None means n_fft. Default: None.
        window (str|tuple, optional): The window's type. Default: 'hann'.
        power (float, optional): The exponent of the magnitude. Default: 2.0.
        center (bool, optional): Centre the frames (pad the signal). Default: True.
        pad_mode (str, optional): 'reflect' or 'constant'. Default: 'reflect'.
        n_mels (int, optional): The number of mel bands. Default: 64.
        f_min (float, optional): The lowest frequency, in Hz. Default: 50.0.
        f_max (float, optional): The highest frequency, in Hz; None means sr // 2. Default: None.
        htk (bool, optional): Use the HTK mel formula. Default: False.
        norm (str|float, optional): The filters' normalization. Default: 'slaney'.
        ref_value (float, optional): The reference power (0 dB). Default: 1.0.
        amin (float, optional): The smallest power used. Default: 1e-10.
        top_db (float, optional): The dynamic range kept below the maximum; None keeps all.
            Default: None.
        dtype (str, optional): The dtype of the window, filter bank and DCT matrix.
            Default: 'float32'.

    Shape:
        x: [N, T]; output: [N, n_mfcc, num_frames].

    Examples:
        >>> import oar
        >>> from oar.audio.features import MFCC
        >>> waveform = oar.linspace(-1.0, 1.0, 8000).tile([3, 1]) * 0.1
        >>> feats = MFCC(sr=16000, n_mfcc=13, n_fft=512, hop_length=160)(waveform)
        >>> print(feats.shape)
        [3, 13, 51]
    """

    def __init__(self, sr=22050, n_mfcc=40, n_fft=512, hop_length=None, win_length=None, window="hann",
                 power=2.0, center=True, pad_mode="reflect", n_mels=64, f_min=50.0, f_max=None, htk=False,
                 norm="slaney", ref_value=1.0, amin=1e-10, top_db=None, dtype="float32"):
        super().__init__()
        if n_mfcc > n_mels:
            raise AssertionError(f"n_mfcc cannot be larger than n_mels: {n_mfcc} vs {n_mels}")
        self._log_melspectrogram = LogMelSpectrogram(
            sr=sr, n_fft=n_fft, hop_length=hop_length, win_length=win_length, window=window, power=power,
            center=center, pad_mode=pad_mode, n_mels=n_mels, f_min=f_min, f_max=f_max, htk=htk, norm=norm,
            ref_value=ref_value, amin=amin, top_db=top_db, dtype=dtype)
        self.register_buffer("dct_matrix", create_dct(n_mfcc=n_mfcc, n_mels=n_mels, dtype=dtype))

    def forward(self, x):
        """The MFCCs of x, [N, T] -> [N, n_mfcc, num_frames]."""
        log_mel = self._log_melspectrogram(x)  # [N, n_mels, frames]
        return _C.matmul(log_mel.transpose([0, 2, 1]), self.dct_matrix).transpose([0, 2, 1])
