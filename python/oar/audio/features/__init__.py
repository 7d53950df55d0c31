"""oar.audio.features, as paddle.audio.features: Spectrogram, MelSpectrogram, LogMelSpectrogram
and MFCC layers (layers.py)."""
from .layers import MFCC, LogMelSpectrogram, MelSpectrogram, Spectrogram

__all__ = ["LogMelSpectrogram", "MelSpectrogram", "MFCC", "Spectrogram"]
