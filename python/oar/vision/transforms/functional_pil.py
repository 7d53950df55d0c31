"""The PIL.Image side of oar.vision.transforms.functional: Pillow does the pixel work.

Arguments arrive already checked and normalised by functional.py (padding as left/top/right/bottom,
sizes as (width, height)).
"""
import numpy as np
from PIL import Image, ImageEnhance, ImageOps

_FILTERS = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "box": Image.Resampling.BOX,
    "lanczos": Image.Resampling.LANCZOS,
    "hamming": Image.Resampling.HAMMING,
}
INTERPOLATIONS = tuple(_FILTERS)


def _channels(img):
    if img.mode == "YCbCr":
        return 3
    if img.mode.startswith("I;16"):
        return 1
    return len(img.getbands())


def to_array(img):
    """The pixels as an HWC NumPy array, in the dtype to_tensor hands on (before scaling)."""
    if img.mode in ("I", "I;16", "I;16B", "I;16L"):
        arr = np.asarray(img, np.int32)
    elif img.mode == "F":
        arr = np.asarray(img, np.float32)
    elif img.mode == "1":
        arr = np.asarray(img, np.uint8) * np.uint8(255)
    else:
        arr = np.asarray(img)
    return arr.reshape(img.size[1], img.size[0], _channels(img))


def resize(img, size_wh, interpolation):
    return img.resize(size_wh, _FILTERS[interpolation])


def _fill_for(img, fill):
    # Pillow wants one number for single-band images and a tuple for multi-band ones.
    if isinstance(fill, (list, tuple)):
        fill = tuple(fill)
        return fill[0] if len(img.getbands()) == 1 else fill
    if len(img.getbands()) > 1:
        return tuple([fill] * len(img.getbands()))
    return fill


def pad(img, ltrb, fill, padding_mode):
    left, top, right, bottom = ltrb
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        # fill goes to Pillow as given: an int on an RGB image fills only the first band, as in Paddle.
        out = ImageOps.expand(img, border=(left, top, right, bottom),
                              fill=tuple(fill) if isinstance(fill, list) else fill)
    else:
        arr = np.asarray(img)
        widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
        out = Image.fromarray(np.pad(arr, widths, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    return img.crop((left, top, left + width, top + height))


def hflip(img):
    return img.transpose(Image.Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(Image.Transpose.FLIP_TOP_BOTTOM)


def adjust_brightness(img, factor):
    return ImageEnhance.Brightness(img).enhance(factor)


def adjust_contrast(img, factor):
    return ImageEnhance.Contrast(img).enhance(factor)


def adjust_saturation(img, factor):
    return ImageEnhance.Color(img).enhance(factor)


def adjust_hue(img, hue_factor):
    if img.mode in ("L", "1", "I", "F"):
        return img
    mode = img.mode
    h, s, v = img.convert("HSV").split()
    # Hue lives in 0..255 on a circle: shift and wrap.
    shifted = ((np.asarray(h, np.int16) + int(hue_factor * 255)) % 256).astype(np.uint8)
    return Image.merge("HSV", (Image.fromarray(shifted, "L"), s, v)).convert(mode)


def rotate(img, angle, interpolation, expand, center, fill):
    return img.rotate(angle, _FILTERS[interpolation], expand, center, fillcolor=_fill_for(img, fill))


def to_grayscale(img, num_output_channels):
    gray = img.convert("L")
    if num_output_channels == 1:
        return gray
    g = np.asarray(gray)
    return Image.fromarray(np.stack([g, g, g], axis=-1), "RGB")


def erase(img, i, j, h, w, v):
    arr = np.array(img, dtype=np.uint8)
    arr[i:i + h, j:j + w, ...] = v
    return Image.fromarray(arr)


def affine(img, matrix, interpolation, fill):
    # As Paddle's PIL path: the inverse matrix goes to Image.transform, whose fifth positional
    # argument is not the fill colour, so the area outside the image is always 0.
    return img.transform(img.size, Image.AFFINE, tuple(matrix), _FILTERS[interpolation])


def perspective(img, coeffs, interpolation, fill):
    return img.transform(img.size, Image.PERSPECTIVE, tuple(coeffs), _FILTERS[interpolation])
