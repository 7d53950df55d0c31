"""The NumPy (HWC or HW array) side of oar.vision.transforms.functional.

Paddle sends NumPy images to OpenCV (and raises ImportError when cv2 is not installed). We need no
OpenCV: everything here is NumPy written to give cv2's results as Paddle's cv2 path uses them
(resampling in numpy_resample.py, the HSV round trip in cv2_hsv.py), exact or within one grey level
for uint8 (measured against Paddle 3.3.1 with opencv-python-headless 5.0.0).
"""
import math

import numpy as np

from . import cv2_hsv, numpy_resample


# cv2's border names for the padding modes Paddle accepts (numpy's pad names line up with them).
_NUMPY_PAD_MODE = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}

INTERPOLATIONS = ("nearest", "bilinear", "area", "bicubic", "lanczos")


def _planes(img):
    """HWC view of img (HW gets a channel axis)."""
    return img[:, :, None] if img.ndim == 2 else img


def _like(out, img):
    """Gives out (HWC) the rank of img."""
    return out[:, :, 0] if img.ndim == 2 else out


def to_tensor(img, data_format):
    import oar
    hwc = _planes(img)
    arr = hwc.transpose(2, 0, 1) if data_format == "CHW" else hwc
    if arr.dtype == np.uint8:
        return oar.to_tensor(np.ascontiguousarray(arr).astype(np.float32) / np.float32(255.0))
    return oar.to_tensor(np.ascontiguousarray(arr))


def resize(img, size_wh, interpolation):
    return _like(numpy_resample.resize(_planes(img), size_wh, interpolation), img)


def _expanded_size(w, h, center, angle):
    """Paddle's cv2 path: the bounding box of the rotated image corners, about `center`."""
    a = -math.radians(angle)
    cos, sin = round(math.cos(a), 15), round(math.sin(a), 15)
    cx, cy = center
    tx = cos * -cx + sin * -cy + cx
    ty = -sin * -cx + cos * -cy + cy
    xs = [cos * x + sin * y + tx for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    ys = [-sin * x + cos * y + ty for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    return (math.ceil(max(xs)) - math.floor(min(xs)), math.ceil(max(ys)) - math.floor(min(ys)))


def rotate(img, angle, interpolation, expand, center, fill):
    if interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(f"rotate: interpolation {interpolation!r} is not supported for "
                                  f"NumPy images; use 'nearest' or 'bilinear'")
    h, w = img.shape[:2]
    if center is None:
        center = (w / 2.0, h / 2.0)
    m = numpy_resample.rotation_matrix(center, angle)
    if expand:
        nw, nh = _expanded_size(w, h, center, angle)
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    out = numpy_resample.warp_affine(_planes(img), m, (w, h), interpolation, fill)
    return _like(out, img)


def pad(img, ltrb, fill, padding_mode):
    left, top, right, bottom = ltrb
    widths = ((top, bottom), (left, right)) + (((0, 0),) if img.ndim == 3 else ())
    if padding_mode != "constant":
        return np.pad(img, widths, _NUMPY_PAD_MODE[padding_mode])
    out = np.pad(img, widths, "constant")
    # cv2 reads fill as a 4-vector: a number fills the first channel only (the others get 0), as
    # Paddle's cv2 path does.
    c = img.shape[2] if img.ndim == 3 else 1
    values = np.zeros(c, dtype=np.float64)
    fv = np.atleast_1d(np.asarray(fill, dtype=np.float64))
    values[:min(c, len(fv))] = fv[:c]
    border = np.ones(out.shape[:2], dtype=bool)
    border[top:top + img.shape[0], left:left + img.shape[1]] = False
    out[border] = numpy_resample._round_to(values if img.ndim == 3 else values[0], img.dtype)
    return out


def crop(img, top, left, height, width):
    return img[top:top + height, left:left + width, ...]


def hflip(img):
    return np.ascontiguousarray(img[:, ::-1, ...])


def vflip(img):
    return np.ascontiguousarray(img[::-1, ...])


def _lookup(img, table):
    return table.clip(0, 255).astype(np.uint8)[img.astype(np.uint8)]


def adjust_brightness(img, factor):
    # cv2.LUT with the table i * factor, truncated to uint8 (as Paddle's cv2 path).
    return _lookup(img, np.arange(256, dtype=np.float64) * factor)


def adjust_contrast(img, factor):
    # Paddle's cv2 path pulls towards the fixed gray level 74, not the image mean.
    return _lookup(img, (np.arange(256, dtype=np.float64) - 74) * factor + 74)


def adjust_saturation(img, factor):
    hwc = _planes(img)
    if hwc.shape[2] != 3:
        raise ValueError(f"adjust_saturation: a NumPy image needs 3 channels, but got shape "
                         f"{list(img.shape)}")
    # Paddle's cv2 path: blend with cv2's BGR2GRAY of the (RGB) data in float32, clip, truncate.
    # It draws the blend weight at random around the factor; we use the factor itself.
    x = hwc.astype(np.float32)
    gray = (x[..., 0] * np.float32(0.114) + x[..., 1] * np.float32(0.587)
            + x[..., 2] * np.float32(0.299))[..., None]
    out = x * np.float32(factor) + gray * np.float32(1.0 - factor)
    return out.clip(0, 255).astype(img.dtype)


def adjust_hue(img, hue_factor):
    hwc = _planes(img)
    if hwc.shape[2] != 3:
        raise ValueError(f"adjust_hue: a NumPy image needs 3 channels, but got shape {list(img.shape)}")
    h, s, v = cv2_hsv.to_hsv_full(hwc.astype(np.uint8))
    h = ((h.astype(np.int64) + int(hue_factor * 255)) % 256).astype(np.uint8)
    return cv2_hsv.from_hsv_full(h, s, v).astype(img.dtype)


def _gray_float(x):
    return x[..., 0] * 0.299 + x[..., 1] * 0.587 + x[..., 2] * 0.114


def to_grayscale(img, num_output_channels):
    hwc = _planes(img)
    if hwc.shape[2] < 3:
        raise ValueError(f"to_grayscale: a NumPy image needs 3 or 4 channels (RGB), but got shape "
                         f"{list(img.shape)}")
    if img.dtype == np.uint8:
        # cv2's fixed-point weights (15 bits) with rounding: uint8 results equal cv2's (measured).
        r, g, b = (hwc[..., k].astype(np.int32) for k in range(3))
        gray = ((r * 9798 + g * 19235 + b * 3735 + (1 << 14)) >> 15).astype(np.uint8)
    else:
        gray = _gray_float(hwc.astype(np.float32)).astype(img.dtype)
    return np.repeat(gray[:, :, None], num_output_channels, axis=2)


def normalize(img, mean, std, data_format, to_rgb):
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean = np.float32(np.array(mean).reshape(shape))
    std = np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    return (img - mean) / std


def erase(img, i, j, h, w, v, inplace):
    if not inplace:
        img = img.copy()
    img[i:i + h, j:j + w, ...] = v
    return img


def _warp_fill(fill):
    # Paddle's cv2 path turns an int fill into (fill, fill, fill)
    return (fill,) * 3 if isinstance(fill, int) else fill


def affine(img, angle, translate, scale, shear, interpolation, fill):
    """Paddle's cv2 path: cv2.getRotationMatrix2D about the centre, sheared, and then its
    translation column replaced by `translate` (so the centre does not move the result)."""
    if interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(f"affine: interpolation {interpolation!r} is not supported for "
                                  f"NumPy images; use 'nearest' or 'bilinear'")
    h, w = img.shape[:2]
    a = scale * math.cos(math.radians(angle))
    b = scale * math.sin(math.radians(angle))
    r = np.array([[a, b, 0.0], [-b, a, 0.0]])
    sx = math.tan(math.radians(shear[0]))
    sy = math.tan(math.radians(shear[1]))
    m = np.stack([r[0] + sy * r[1], r[1] + sx * r[0]])
    m[0, 2], m[1, 2] = translate
    out = numpy_resample.warp_affine_general(_planes(img), m, (w, h), interpolation, _warp_fill(fill))
    return _like(out, img)


def perspective(img, startpoints, endpoints, interpolation, fill):
    if interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(f"perspective: interpolation {interpolation!r} is not supported "
                                  f"for NumPy images; use 'nearest' or 'bilinear'")
    h, w = img.shape[:2]
    src = np.asarray(startpoints, dtype=np.float32).astype(np.float64)
    dst = np.asarray(endpoints, dtype=np.float32).astype(np.float64)
    m = numpy_resample.perspective_matrix(src, dst)
    out = numpy_resample.warp_perspective(_planes(img), m, (w, h), interpolation, fill)
    return _like(out, img)
