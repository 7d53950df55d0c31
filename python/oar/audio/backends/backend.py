"""AudioInfo, what oar.audio.info returns (paddle.audio.backends.backend.AudioInfo)."""
from __future__ import annotations

__all__ = ["AudioInfo"]


class AudioInfo:
    """The format of an audio file.

    Args:
        sample_rate (int): Frames per second.
        num_samples (int): The number of frames (samples per channel); also num_frames.
        num_channels (int): The number of channels.
        bits_per_sample (int): Bits of one sample (16 for PCM16).
        encoding (str): 'PCM_S' (signed integers) or 'PCM_U' (unsigned, 8-bit WAV).

    Examples:
        >>> import oar
        >>> info = oar.audio.backends.backend.AudioInfo(16000, 8000, 1, 16, 'PCM_S')
        >>> print(info)
        AudioInfo(sample_rate=16000, num_samples=8000, num_channels=1, bits_per_sample=16, encoding='PCM_S')
        >>> print(info.num_frames)
        8000
    """

    def __init__(self, sample_rate, num_samples, num_channels, bits_per_sample, encoding):
        self.sample_rate = sample_rate
        self.num_samples = num_samples
        self.num_channels = num_channels
        self.bits_per_sample = bits_per_sample
        self.encoding = encoding

    @property
    def num_frames(self):
        """The number of frames: num_samples under torchaudio's name."""
        return self.num_samples

    def __repr__(self):
        return (f"AudioInfo(sample_rate={self.sample_rate}, num_samples={self.num_samples}, "
                f"num_channels={self.num_channels}, bits_per_sample={self.bits_per_sample}, "
                f"encoding={self.encoding!r})")
