"""OpenCV's 8-bit HSV_FULL conversions (hue on 0..255), in NumPy, for the NumPy adjust_hue.

Paddle's cv2 path turns an RGB array to HSV with COLOR_BGR2HSV_FULL, shifts the hue and converts
back with COLOR_HSV2BGR_FULL; these follow OpenCV's integer tables (12-bit fixed point) one way and
its float32 sector formula the other, so the results equal OpenCV 5.0's (measured on random images).
The channel named `first` here is what OpenCV calls b: channel 0 of the array.
"""
import numpy as np

_SHIFT = 12
_HALF = 1 << (_SHIFT - 1)


def _table(numerator):
    i = np.arange(256, dtype=np.float64)
    with np.errstate(divide="ignore"):
        t = np.rint(numerator / i)
    t[0] = 0
    return t.astype(np.int64)


_SDIV = _table(float(255 << _SHIFT))
_HDIV = _table(float(256 << _SHIFT) / 6.0)


def to_hsv_full(img):
    """uint8 HWC (channel 0 as OpenCV's b, channel 2 as r) -> uint8 H, S, V planes."""
    b, g, r = (img[..., k].astype(np.int64) for k in range(3))
    v = np.maximum(np.maximum(b, g), r)
    diff = v - np.minimum(np.minimum(b, g), r)
    s = (diff * _SDIV[v] + _HALF) >> _SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * _HDIV[diff] + _HALF) >> _SHIFT
    h = np.where(h < 0, h + 256, h)
    return np.clip(h, 0, 255).astype(np.uint8), s.astype(np.uint8), v.astype(np.uint8)


# For each sector of the hue circle, which of (v, p, q, t) becomes (b, g, r).
_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def from_hsv_full(h, s, v):
    """uint8 H, S, V planes -> uint8 HWC with channel 0 as OpenCV's b."""
    f32 = np.float32
    hf = h.astype(f32) * f32(6.0 / 255.0)  # OpenCV 5 scales the 8-bit full hue by 6/255 here (measured)
    sf = s.astype(f32) * f32(1.0 / 255.0)
    vf = v.astype(f32) * f32(1.0 / 255.0)
    hf = np.where(hf >= 6, hf - 6, hf)
    sector = np.floor(hf).astype(np.int64)
    frac = hf - sector.astype(f32)
    tab = np.stack([vf, vf * (f32(1) - sf), vf * (f32(1) - sf * frac),
                    vf * (f32(1) - sf * (f32(1) - frac))], axis=-1)
    picks = _SECTORS[np.clip(sector, 0, 5)]
    out = np.take_along_axis(tab, picks, axis=-1)
    out = np.where((s == 0)[..., None], vf[..., None], out)
    return np.clip(np.rint(out * f32(255)), 0, 255).astype(np.uint8)
