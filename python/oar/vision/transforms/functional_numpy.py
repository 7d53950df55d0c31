"""The NumPy (HWC or HW array) side of oar.vision.transforms.functional.

Paddle sends NumPy images to OpenCV, and without cv2 installed it raises ImportError for resize,
pad, flips, colour and rotation. We need no OpenCV: exact operations (flips, pads, crops, the
brightness/contrast lookup tables, cv2's fixed-point RGB->gray) are written here in NumPy with
cv2's results; resampling (resize, rotate) and the HSV round trip go through Pillow, which is what
Paddle uses for PIL images, so the numbers are close to cv2's but not identical.
"""
import numpy as np


def _pil():
    """(PIL.Image, functional_pil), imported when first needed (Pillow is optional for oar)."""
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError("oar.vision.transforms: resampling NumPy images (resize, rotate, hue, "
                          "saturation) needs Pillow: pip install pillow") from e
    from . import functional_pil
    return Image, functional_pil

# cv2's border names for the padding modes Paddle accepts (numpy's pad names line up with them).
_NUMPY_PAD_MODE = {"edge": "edge", "reflect": "reflect", "symmetric": "symmetric"}

INTERPOLATIONS = ("nearest", "bilinear", "area", "bicubic", "lanczos")
# cv2's INTER_AREA averages the source pixels under each output pixel: Pillow's box filter.
_PIL_FILTER = {"nearest": "nearest", "bilinear": "bilinear", "area": "box", "bicubic": "bicubic",
               "lanczos": "lanczos"}


def _planes(img):
    """HWC view of img (HW gets a channel axis)."""
    return img[:, :, None] if img.ndim == 2 else img


def _like(out, img):
    """Gives out (HWC) the rank of img."""
    return out[:, :, 0] if img.ndim == 2 else out


def _cast_back(arr, dtype):
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        arr = np.clip(np.rint(arr), info.min, info.max)
    return arr.astype(dtype)


def _through_pil(img, fn):
    """Runs fn(PIL image, channel index) over img: whole for uint8 L/RGB/RGBA, else per channel in mode F."""
    Image, _ = _pil()
    hwc = _planes(img)
    c = hwc.shape[2]
    if img.dtype == np.uint8 and c in (1, 3, 4):
        pil = Image.fromarray(hwc[:, :, 0] if c == 1 else np.ascontiguousarray(hwc))
        out = np.asarray(fn(pil, None))
        return _like(out[:, :, None] if out.ndim == 2 else out, img)
    planes = [np.asarray(fn(Image.fromarray(np.ascontiguousarray(hwc[:, :, k], np.float32), "F"), k))
              for k in range(c)]
    return _like(_cast_back(np.stack(planes, axis=-1), img.dtype), img)


def to_tensor(img, data_format):
    import oar
    hwc = _planes(img)
    arr = hwc.transpose(2, 0, 1) if data_format == "CHW" else hwc
    if arr.dtype == np.uint8:
        return oar.to_tensor(np.ascontiguousarray(arr).astype(np.float32) / np.float32(255.0))
    return oar.to_tensor(np.ascontiguousarray(arr))


def resize(img, size_wh, interpolation):
    f = _PIL_FILTER[interpolation]
    _, F_pil = _pil()
    return _through_pil(img, lambda pil, k: F_pil.resize(pil, size_wh, f))


def rotate(img, angle, interpolation, expand, center, fill):
    f = _PIL_FILTER[interpolation]
    if f not in ("nearest", "bilinear", "bicubic"):
        raise ValueError(f"rotate: interpolation for a NumPy image must be 'nearest', 'bilinear' or "
                         f"'bicubic', but got {interpolation!r}")
    fills = list(fill) if isinstance(fill, (list, tuple)) else None
    _, F_pil = _pil()

    def one(pil, k):
        fk = fill if k is None else (fills[k] if fills is not None else fill)
        return F_pil.rotate(pil, angle, f, expand, center, fk)
    return _through_pil(img, one)


def pad(img, ltrb, fill, padding_mode):
    left, top, right, bottom = ltrb
    widths = ((top, bottom), (left, right)) + (((0, 0),) if img.ndim == 3 else ())
    if padding_mode != "constant":
        return np.pad(img, widths, _NUMPY_PAD_MODE[padding_mode])
    out = np.pad(img, widths, "constant")
    if isinstance(fill, (list, tuple)) and img.ndim == 3:
        # cv2 reads a fill tuple as one value per channel (missing channels get 0).
        values = np.zeros(img.shape[2], dtype=np.float64)
        n = min(len(fill), img.shape[2])
        values[:n] = fill[:n]
    else:
        values = fill[0] if isinstance(fill, (list, tuple)) else fill
    border = np.ones(out.shape[:2], dtype=bool)
    border[top:top + img.shape[0], left:left + img.shape[1]] = False
    out[border] = _cast_back(np.asarray(values, dtype=np.float64), img.dtype)
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
    if hwc.shape[2] == 1:
        return img.copy()
    if img.dtype == np.uint8 and hwc.shape[2] == 3:
        Image, F_pil = _pil()
        return np.asarray(F_pil.adjust_saturation(Image.fromarray(np.ascontiguousarray(hwc)), factor))
    x = hwc.astype(np.float32)
    gray = _gray_float(x)[:, :, None]
    hi = 255.0 if np.issubdtype(img.dtype, np.integer) else float(max(1.0, x.max()))
    return _like(_cast_back((gray + factor * (x - gray)).clip(0, hi), img.dtype), img)


def adjust_hue(img, hue_factor):
    hwc = _planes(img)
    if hwc.shape[2] != 3:
        return img.copy()
    Image, F_pil = _pil()
    out = np.asarray(F_pil.adjust_hue(Image.fromarray(np.ascontiguousarray(hwc.astype(np.uint8))),
                                      hue_factor))
    return out.astype(img.dtype)


def _gray_float(x):
    return x[..., 0] * 0.299 + x[..., 1] * 0.587 + x[..., 2] * 0.114


def to_grayscale(img, num_output_channels):
    hwc = _planes(img)
    if hwc.shape[2] < 3:
        raise ValueError(f"to_grayscale: a NumPy image needs 3 or 4 channels (RGB), but got shape "
                         f"{list(img.shape)}")
    if img.dtype == np.uint8:
        # cv2's fixed-point weights (14 bits) with rounding, so uint8 results equal cv2's.
        r, g, b = (hwc[..., k].astype(np.int32) for k in range(3))
        gray = ((r * 4899 + g * 9617 + b * 1868 + (1 << 13)) >> 14).astype(np.uint8)
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
