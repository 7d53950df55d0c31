"""Resampling of NumPy HWC images with OpenCV's conventions, written in NumPy (no OpenCV needed).

Paddle sends NumPy images to cv2.resize and cv2.warpAffine. These functions follow the same
coordinate conventions and, for uint8, the same fixed-point arithmetic, so results equal cv2's or
differ by one grey level where cv2's rounding of individual weights differs from ours:

- resize: each axis is an (index, weight) table with K taps per output pixel. Source position of
  output pixel d is (d + 0.5) * scale - 0.5 (nearest: floor(d * scale)); taps outside the image are
  clamped to the edge. uint8 weights are integers summing to 2048 per axis and the result is
  (sum + 2**21) >> 22, as cv2's INTER_RESIZE_COEF_BITS = 11.
- warp_affine: as OpenCV 5's, in float32 (see there); pixels outside read `fill`.
"""
import math

import numpy as np

_COEF_SCALE = 2048  # cv2: 1 << INTER_RESIZE_COEF_BITS


def _linear_taps(out_size, in_size, scale):
    pos = (np.arange(out_size) + 0.5) * scale - 0.5
    left = np.floor(pos)
    frac = pos - left
    left = left.astype(np.int64)
    # cv2 replicates the edge pixel by putting all the weight on it
    low = left < 0
    frac[low], left[low] = 0.0, 0
    high = left >= in_size - 1
    frac[high], left[high] = 0.0, in_size - 1
    idx = np.stack([left, np.minimum(left + 1, in_size - 1)], axis=1)
    return idx, np.stack([1.0 - frac, frac], axis=1)


def _area_upscale_taps(out_size, in_size, scale):
    # cv2's INTER_AREA when enlarging: linear weights that stay 0 until the next source pixel starts.
    inv = 1.0 / scale
    left = np.floor(np.arange(out_size) * scale).astype(np.int64)
    frac = (np.arange(out_size) + 1) - (left + 1) * inv
    frac = np.where(frac <= 0, 0.0, frac - np.floor(frac))
    high = left >= in_size - 1
    frac[high], left[high] = 0.0, in_size - 1
    idx = np.stack([left, np.minimum(left + 1, in_size - 1)], axis=1)
    return idx, np.stack([1.0 - frac, frac], axis=1)


def _cubic_weights(x):
    a = -0.75
    w0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + 1
    w2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    return np.stack([w0, w1, w2, 1.0 - w0 - w1 - w2], axis=1)


def _lanczos4_weights(x):
    d = x[:, None] + 3.0 - np.arange(8)[None, :]  # distance from each of the 8 taps
    w = np.sinc(d) * np.sinc(d / 4.0)
    return w / w.sum(axis=1, keepdims=True)


def _kernel_taps(out_size, in_size, scale, ksize, weights_fn):
    pos = (np.arange(out_size) + 0.5) * scale - 0.5
    left = np.floor(pos)
    frac = pos - left
    first = left.astype(np.int64) - (ksize // 2 - 1)
    idx = np.clip(first[:, None] + np.arange(ksize)[None, :], 0, in_size - 1)
    return idx, weights_fn(frac)


def _area_downscale_taps(out_size, in_size, scale):
    # Each output pixel averages the source interval [d * scale, (d + 1) * scale), by overlap.
    start = np.arange(out_size) * scale
    end = np.minimum(start + scale, in_size)
    ksize = int(math.ceil(scale)) + 1
    idx = np.floor(start).astype(np.int64)[:, None] + np.arange(ksize)[None, :]
    overlap = np.minimum(idx + 1, end[:, None]) - np.maximum(idx, start[:, None])
    w = np.clip(overlap, 0.0, None) / (end - start)[:, None]
    return np.clip(idx, 0, in_size - 1), w


def _axis_taps(out_size, in_size, interpolation):
    scale = in_size / out_size
    if interpolation == "nearest":
        idx = np.minimum(np.floor(np.arange(out_size) * scale).astype(np.int64), in_size - 1)
        return idx[:, None], np.ones((out_size, 1))
    if interpolation == "area":
        if scale > 1:
            return _area_downscale_taps(out_size, in_size, scale)
        return _area_upscale_taps(out_size, in_size, scale)
    if interpolation == "bicubic":
        return _kernel_taps(out_size, in_size, scale, 4, _cubic_weights)
    if interpolation == "lanczos":
        return _kernel_taps(out_size, in_size, scale, 8, _lanczos4_weights)
    return _linear_taps(out_size, in_size, scale)


def _fixed_point(w, total):
    """Integer weights, rounded, whose rows sum to `total` (the remainder goes to the largest tap)."""
    iw = np.rint(w * total).astype(np.int64)
    rows = np.arange(len(iw))
    iw[rows, np.argmax(w, axis=1)] += total - iw.sum(axis=1)
    return iw


def _apply_axis(img, idx, w, axis):
    """sum_k w[:, k] * img.take(idx[:, k], axis) along `axis` (0: rows, 1: columns)."""
    shape = [1] * img.ndim
    shape[axis] = -1
    out = None
    for k in range(idx.shape[1]):
        term = np.take(img, idx[:, k], axis=axis) * w[:, k].reshape(shape)
        out = term if out is None else out + term
    return out


def resize(img, size_wh, interpolation):
    """img: HWC; size_wh: (width, height) of the result."""
    h, w = img.shape[:2]
    ow, oh = size_wh
    if interpolation == "bilinear" and h == 2 * oh and w == 2 * ow:
        interpolation = "area"  # cv2 takes its fast area path for an exact halving
    if interpolation == "area" and h % oh == 0 and w % ow == 0 and (h > oh or w > ow):
        # whole-block averages, in float as cv2's integer-ratio area path
        fy, fx = h // oh, w // ow
        out = img.reshape(oh, fy, ow, fx, -1).astype(np.float64).mean(axis=(1, 3))
        return _round_to(out, img.dtype)
    iy, wy = _axis_taps(oh, h, interpolation)
    ix, wx = _axis_taps(ow, w, interpolation)
    if interpolation == "nearest":
        return img[iy[:, 0]][:, ix[:, 0]]
    if img.dtype == np.uint8 and interpolation != "area":
        rows = _apply_axis(img.astype(np.int64), ix, _fixed_point(wx, _COEF_SCALE), 1)
        acc = _apply_axis(rows, iy, _fixed_point(wy, _COEF_SCALE), 0)
        return np.clip((acc + (1 << 21)) >> 22, 0, 255).astype(np.uint8)
    work = np.float32 if img.dtype == np.float32 else np.float64
    out = _apply_axis(_apply_axis(img.astype(work), ix, wx.astype(work), 1), iy, wy.astype(work), 0)
    return _round_to(out, img.dtype)


def _round_to(x, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return np.clip(np.rint(x), info.min, info.max).astype(dtype)
    return x.astype(dtype)


def rotation_matrix(center, angle):
    """cv2.getRotationMatrix2D(center, angle, 1): forward map, counter-clockwise in image coords."""
    a = math.cos(math.radians(angle))
    b = math.sin(math.radians(angle))
    cx, cy = center
    return np.array([[a, b, (1 - a) * cx - b * cy], [-b, a, b * cx + (1 - a) * cy]])


def _invert_affine(m):
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d != 0 else 0.0
    a00, a11 = m[1, 1] * d, m[0, 0] * d
    a01, a10 = -m[0, 1] * d, -m[1, 0] * d
    b0 = -a00 * m[0, 2] - a01 * m[1, 2]
    b1 = -a10 * m[0, 2] - a11 * m[1, 2]
    return np.array([[a00, a01, b0], [a10, a11, b1]])


def warp_affine(img, m, size_wh, interpolation, fill):
    """cv2.warpAffine(img, m, size_wh) with BORDER_CONSTANT = fill; img is HWC.

    As OpenCV 5 (measured: equal results): source positions of the inverse map in float32, nearest
    rounds them half to even, bilinear weighs the four neighbours in float and rounds at the end.
    """
    h, w, c = img.shape
    ow, oh = size_wh
    inv = _invert_affine(m).astype(np.float32)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float32)
    sx = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    sy = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
    fills = np.zeros(c)
    fv = np.atleast_1d(np.asarray(fill, dtype=np.float64))
    fills[:min(c, len(fv))] = fv[:c]  # cv2 reads a number as (fill, 0, 0, 0)
    border = _round_to(fills, img.dtype)
    padded = np.concatenate([img, np.broadcast_to(border, (h, 1, c))], axis=1)
    padded = np.concatenate([padded, np.broadcast_to(border, (1, w + 1, c))], axis=0)

    def read(yy, xx):
        # positions outside the image read the border pixel appended at (h, w)
        outside = (yy < 0) | (yy >= h) | (xx < 0) | (xx >= w)
        return padded[np.where(outside, h, yy), np.where(outside, w, xx)]

    if interpolation == "nearest":
        return read(np.rint(sy).astype(np.int64), np.rint(sx).astype(np.int64))
    x0, y0 = np.floor(sx), np.floor(sy)
    ax, ay = (sx - x0)[..., None], (sy - y0)[..., None]
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    work = np.float32 if img.dtype == np.float32 else np.float64
    acc = ((1 - ax) * (1 - ay) * read(y0, x0).astype(work) + ax * (1 - ay) * read(y0, x0 + 1).astype(work)
           + (1 - ax) * ay * read(y0 + 1, x0).astype(work) + ax * ay * read(y0 + 1, x0 + 1).astype(work))
    return _round_to(acc, img.dtype)


def perspective_matrix(src, dst):
    """cv2.getPerspectiveTransform(src, dst): the 3x3 map taking the 4 src points to the dst ones."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst)):
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    return np.append(np.linalg.solve(a, b), 1.0).reshape(3, 3)


def _sample(img, sx, sy, interpolation, fill):
    """img (HWC) read at float source positions (sx, sy) with BORDER_CONSTANT = fill."""
    h, w, c = img.shape
    fills = np.zeros(c)
    fv = np.atleast_1d(np.asarray(fill, dtype=np.float64))
    fills[:min(c, len(fv))] = fv[:c]  # cv2 reads a number as (fill, 0, 0, 0)
    border = _round_to(fills, img.dtype)
    padded = np.concatenate([img, np.broadcast_to(border, (h, 1, c))], axis=1)
    padded = np.concatenate([padded, np.broadcast_to(border, (1, w + 1, c))], axis=0)

    def read(yy, xx):
        outside = (yy < 0) | (yy >= h) | (xx < 0) | (xx >= w)
        return padded[np.where(outside, h, yy), np.where(outside, w, xx)]

    if interpolation == "nearest":
        return read(np.rint(sy).astype(np.int64), np.rint(sx).astype(np.int64))
    x0, y0 = np.floor(sx), np.floor(sy)
    ax, ay = (sx - x0)[..., None], (sy - y0)[..., None]
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    work = np.float32 if img.dtype == np.float32 else np.float64
    acc = ((1 - ax) * (1 - ay) * read(y0, x0).astype(work) + ax * (1 - ay) * read(y0, x0 + 1).astype(work)
           + (1 - ax) * ay * read(y0 + 1, x0).astype(work) + ax * ay * read(y0 + 1, x0 + 1).astype(work))
    return _round_to(acc, img.dtype)


def warp_perspective(img, m, size_wh, interpolation, fill):
    """cv2.warpPerspective(img, m, size_wh) with BORDER_CONSTANT = fill; img is HWC."""
    ow, oh = size_wh
    inv = np.linalg.inv(m)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float64)
    den = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    den = np.where(den != 0, 1.0 / np.where(den != 0, den, 1.0), 0.0)
    sx = (inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]) * den
    sy = (inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]) * den
    return _sample(img, sx, sy, interpolation, fill)


def warp_affine_general(img, m, size_wh, interpolation, fill):
    """cv2.warpAffine(img, m, size_wh) for any 2x3 m (positions in double, as cv2's remap tables)."""
    ow, oh = size_wh
    inv = _invert_affine(np.asarray(m, dtype=np.float64))
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float64)
    sx = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    sy = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
    return _sample(img, sx, sy, interpolation, fill)
