"""Integer PCM samples as WAV stores them, to and from NumPy: 8-bit unsigned (offset 128),
16-, 24- and 32-bit signed little-endian."""
from __future__ import annotations

import numpy as np

WIDTHS = (1, 2, 3, 4)  # bytes per sample that WAV's integer PCM (and Python's wave) has


def full_scale(width):
    """The magnitude that normalized samples divide by: 2 ** (bits - 1)."""
    return float(2 ** (8 * width - 1))


def decode(data, width):
    """The stored sample values (8-bit ones unsigned, as stored) as int64, from raw bytes."""
    if width == 1:
        return np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    if width == 2:
        return np.frombuffer(data, dtype="<i2").astype(np.int64)
    if width == 4:
        return np.frombuffer(data, dtype="<i4").astype(np.int64)
    # 24-bit: three little-endian bytes, sign-extended from bit 23
    b = np.frombuffer(data, dtype=np.uint8).reshape(-1, 3).astype(np.int64)
    value = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
    return np.where(value >= 1 << 23, value - (1 << 24), value)


def to_float(values, width, normalize):
    """Decoded values as float32: in [-1, 1) when normalize, else the stored values."""
    if not normalize:
        return values.astype(np.float32)
    centred = values - 128 if width == 1 else values
    return (centred / full_scale(width)).astype(np.float32)


def encode(samples, width):
    """Raw bytes of samples: floats are normalized ([-1, 1] maps to full scale, clipped, the
    fraction dropped as Paddle's astype does); integers are signed sample values."""
    scale = full_scale(width)
    if np.issubdtype(samples.dtype, np.floating):
        ints = np.trunc(np.clip(samples.astype(np.float64) * scale, -scale, scale - 1)).astype(np.int64)
    elif np.issubdtype(samples.dtype, np.integer):
        ints = samples.astype(np.int64)
        if width == 1 and samples.dtype == np.uint8:
            ints = ints - 128  # already stored form
        low, high = int(-scale), int(scale - 1)
        if ints.size and (ints.min() < low or ints.max() > high):
            raise ValueError(f"integer samples must lie in [{low}, {high}] for {8 * width}-bit PCM, "
                             f"but range over [{ints.min()}, {ints.max()}]")
    else:
        raise TypeError(f"audio samples should be a float or integer tensor, but got {samples.dtype}")
    if width == 1:
        return (ints + 128).astype(np.uint8).tobytes()
    if width == 2:
        return ints.astype("<i2").tobytes()
    if width == 4:
        return ints.astype("<i4").tobytes()
    u = ints & 0xFFFFFF  # 24-bit two's complement, three bytes little-endian
    return np.stack([u & 0xFF, (u >> 8) & 0xFF, (u >> 16) & 0xFF], axis=-1).astype(np.uint8).tobytes()
