"""oar's audio backend (paddle.audio.backends.wave_backend): WAV files with integer PCM samples
(8, 16, 24 or 32 bits, any number of channels), read and written with Python's wave module.

A path is written crash-safely (a temporary beside it, fsynced, renamed over it:
framework/atomic_files.py). A file object passed in is read or written where it stands and left
open: it belongs to the caller.
"""
from __future__ import annotations

import contextlib
import os
import wave

import numpy as np

from ...framework.atomic_files import write_file
from ...framework.dtype import float32
from ...tensor.creation import to_tensor
from . import pcm
from .backend import AudioInfo

__all__ = ["info", "load", "save"]


def _unsupported(filepath, err):
    return NotImplementedError(
        f"oar.audio: cannot read {filepath!r} as a WAV file of integer PCM samples ({err}); the "
        f"wave backend reads 8/16/24/32-bit PCM WAV only (no compressed or floating-point audio): "
        f"convert the file first.")


@contextlib.contextmanager
def _reader(filepath):
    """A wave reader of a path or of a binary file object (which is left open)."""
    owned = not hasattr(filepath, "read")
    f = open(filepath, "rb") if owned else filepath
    try:
        try:
            reader = wave.open(f, "rb")
        except (wave.Error, EOFError) as e:
            raise _unsupported(getattr(f, "name", filepath), e) from e
        with reader:
            yield reader
    finally:
        if owned:
            f.close()


def _encoding(width):
    return "PCM_U" if width == 1 else "PCM_S"


def info(filepath):
    """The format of a WAV file: sample rate, frames, channels, bits per sample, encoding.

    Args:
        filepath (str|file): The file's path, or a binary file object (read from its position,
            left open).

    Returns:
        AudioInfo: sample_rate, num_samples (the frames; also num_frames), num_channels,
        bits_per_sample and encoding ('PCM_S', or 'PCM_U' for 8-bit).

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> waveform = (oar.linspace(-1.0, 1.0, 8000) * 0.1).tile([2, 1])
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'test.wav')
        ...     oar.audio.save(path, waveform, 16000)
        ...     print(oar.audio.info(path))
        AudioInfo(sample_rate=16000, num_samples=8000, num_channels=2, bits_per_sample=16, encoding='PCM_S')
    """
    with _reader(filepath) as reader:
        width = reader.getsampwidth()
        return AudioInfo(reader.getframerate(), reader.getnframes(), reader.getnchannels(), 8 * width,
                         _encoding(width))


def load(filepath, frame_offset=0, num_frames=-1, normalize=True, channels_first=True):
    """Reads a WAV file: num_frames frames from frame_offset (fewer where the file ends first).

    Args:
        filepath (str|file): The file's path, or a binary file object (left open).
        frame_offset (int, optional): The first frame read, from 0. Default: 0.
        num_frames (int, optional): How many frames; -1 reads to the end. Default: -1.
        normalize (bool, optional): True scales the samples to [-1, 1) (dividing by
            2 ** (bits - 1); 8-bit samples are centred first); False keeps the stored integer
            values. Both are float32, as Paddle's. Default: True.
        channels_first (bool, optional): True gives [channels, frames], False [frames, channels].
            Default: True.

    Returns:
        tuple: (Tensor, int), the float32 samples and the sample rate.

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> waveform = oar.to_tensor([[0.0, 0.25, -0.5, 0.75]])
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'test.wav')
        ...     oar.audio.save(path, waveform, 8000)
        ...     audio, sr = oar.audio.load(path)
        ...     tail, _ = oar.audio.load(path, frame_offset=2, normalize=False, channels_first=False)
        >>> print(audio.numpy(), sr)
        [[ 0.    0.25 -0.5   0.75]] 8000
        >>> print(tail.numpy())
        [[-16384.]
         [ 24576.]]
    """
    if int(frame_offset) != frame_offset or frame_offset < 0:
        raise ValueError(f"frame_offset should be a non-negative integer, but got {frame_offset}")
    if int(num_frames) != num_frames or num_frames < -1:
        raise ValueError(f"num_frames should be -1 (to the end) or a non-negative integer, but got {num_frames}")
    with _reader(filepath) as reader:
        channels, width, rate = reader.getnchannels(), reader.getsampwidth(), reader.getframerate()
        total = reader.getnframes()
        start = min(int(frame_offset), total)
        count = total - start if num_frames == -1 else min(int(num_frames), total - start)
        reader.setpos(start)
        data = reader.readframes(count)
    if width not in pcm.WIDTHS:
        raise _unsupported(filepath, f"{8 * width}-bit samples")
    values = pcm.decode(data, width).reshape(-1, channels)
    samples = pcm.to_float(values, width, normalize)
    if channels_first:
        samples = np.ascontiguousarray(samples.T)
    return to_tensor(samples, dtype=float32), rate


def _check_format(encoding, bits_per_sample):
    """Bytes per sample for the encoding and bits asked for (WAV: 8-bit is unsigned, wider signed)."""
    bits = 16 if bits_per_sample is None else bits_per_sample
    if bits not in (8, 16, 24, 32):
        raise ValueError(f"Invalid bits_per_sample {bits_per_sample}: the wave backend writes 8, 16, 24 "
                         f"or 32 bit integer PCM")
    expected = _encoding(bits // 8)
    if encoding is not None and encoding != expected:
        raise ValueError(f"Invalid encoding {encoding!r} for {bits}-bit WAV: the wave backend writes "
                         f"integer PCM, which is {expected!r} at {bits} bits")
    return bits // 8


def save(filepath, src, sample_rate, channels_first=True, encoding=None, bits_per_sample=16):
    """Writes a WAV file of integer PCM samples.

    Args:
        filepath (str|file): The file's path (written crash-safely: a temporary beside it,
            renamed over it when complete), or a binary file object (written where it stands,
            left open).
        src (Tensor): 2-D samples, [channels, frames] (channels_first) or [frames, channels].
            Floats are normalized samples: [-1, 1] maps to the full integer range, values outside
            are clipped. Integers are written as they are (in the signed range of the width).
        sample_rate (int): Frames per second.
        channels_first (bool, optional): The layout of src. Default: True.
        encoding (str, optional): 'PCM_S' (16, 24, 32 bits) or 'PCM_U' (8 bits); None picks the
            one of bits_per_sample. Default: None.
        bits_per_sample (int, optional): 8, 16, 24 or 32. Default: 16.

    Returns:
        None.

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> waveform = oar.to_tensor([[0.0, 0.5, -0.5, 1.0]])
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'test.wav')
        ...     oar.audio.save(path, waveform, 16000, bits_per_sample=8)
        ...     print(oar.audio.info(path).encoding, oar.audio.load(path)[0].numpy())
        PCM_U [[ 0.         0.5       -0.5        0.9921875]]
    """
    if src.ndim != 2:
        raise AssertionError("Expected 2D tensor")
    width = _check_format(encoding, bits_per_sample)
    samples = src.numpy() if hasattr(src, "numpy") else np.asarray(src)
    if channels_first:
        samples = samples.T  # to [frames, channels], WAV's interleaved order
    frames = pcm.encode(np.ascontiguousarray(samples), width)

    def write(f):
        with wave.open(f, "wb") as writer:
            writer.setnchannels(samples.shape[1])
            writer.setsampwidth(width)
            writer.setframerate(int(sample_rate))
            writer.writeframes(frames)

    if hasattr(filepath, "write"):
        write(filepath)
    else:
        write_file(os.fspath(filepath), write)
