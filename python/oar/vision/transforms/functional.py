"""oar.vision.transforms.functional, as paddle.vision.transforms.functional.

Each function checks its arguments, then hands the image to the backend for its kind: PIL images to
functional_pil, NumPy HWC/HW arrays to functional_numpy, oar tensors (CHW) to functional_tensor.
Results keep the input's kind, as Paddle's do.
"""
import math
import numbers
import sys

import numpy as np

from . import functional_numpy as F_np
from . import functional_tensor as F_t

__all__ = ["to_tensor", "normalize", "resize", "pad", "crop", "center_crop", "hflip", "vflip",
           "rotate", "to_grayscale", "adjust_brightness", "adjust_contrast", "adjust_saturation",
           "adjust_hue", "erase", "affine", "perspective"]


def _is_pil_image(img):
    # Pillow is optional: if it was never imported, nothing can be a PIL image.
    pil = sys.modules.get("PIL.Image")
    return pil is not None and isinstance(img, pil.Image)


class _LazyPil:
    """functional_pil, imported on first use so that `import oar` does not need Pillow."""

    def __getattr__(self, name):
        from . import functional_pil
        return getattr(functional_pil, name)


F_pil = _LazyPil()


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img):
    from oar import Tensor
    return isinstance(img, Tensor)


def _kind(fn, img, arg="img"):
    """'pil', 'numpy' or 'tensor'; anything else is a TypeError naming what came."""
    if _is_pil_image(img):
        return "pil"
    if _is_numpy_image(img):
        return "numpy"
    if _is_tensor_image(img):
        return "tensor"
    shape = f" with shape {list(img.shape)}" if isinstance(img, np.ndarray) else ""
    raise TypeError(f"{fn}: {arg} should be PIL Image or Tensor Image or ndarray with dim=[2 or 3]. "
                    f"Got {type(img)}{shape}")


def _dispatch(fn, img, kind, *args):
    """The backend's `fn` for the image's kind ('pil', 'numpy' or 'tensor', from _kind) applied to
    img and args; a tensor is first checked to be a CHW image (the NumPy and PIL backends take
    whatever _kind let through)."""
    if kind == "tensor":
        F_t.check_image(fn, img, "CHW")
        return getattr(F_t, fn)(img, *args)
    backend = F_pil if kind == "pil" else F_np
    return getattr(backend, fn)(img, *args)


def _size_hw(img, kind):
    if kind == "pil":
        return img.size[1], img.size[0]
    if kind == "numpy":
        return img.shape[0], img.shape[1]
    return img.shape[-2], img.shape[-1]


def _check_interpolation(fn, interpolation, allowed):
    if not isinstance(interpolation, str) or interpolation.lower() not in allowed:
        raise ValueError(f"{fn}: interpolation should be one of {list(allowed)} for this kind of "
                         f"image, but got {interpolation!r}")
    return interpolation.lower()


def to_tensor(pic, data_format="CHW"):
    """Converts a PIL image or an HWC NumPy array to a Tensor; uint8 values are scaled to float32
    in [0, 1], other dtypes keep their values.

    Args:
        pic (PIL.Image|numpy.ndarray|Tensor): The image.
        data_format (str, optional): Layout of the result, 'CHW' or 'HWC'. Default: 'CHW'.

    Returns:
        Tensor: the image.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.to_tensor(np.full((2, 3, 3), 51, dtype="uint8"))[0])
        Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0.20000000, 0.20000000, 0.20000000],
                [0.20000000, 0.20000000, 0.20000000]])
    """
    kind = _kind("to_tensor", pic, "pic")
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format should be CHW or HWC. Got {data_format!r}")
    if kind == "pil":
        return F_np.to_tensor(F_pil.to_array(pic), data_format)
    if kind == "numpy":
        return F_np.to_tensor(pic, data_format)
    return F_t.to_tensor(pic, data_format)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """Normalizes each channel of an image: ``(img - mean) / std``. A PIL image becomes a float32
    NumPy array first.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): The image.
        mean (list|tuple): Per-channel means.
        std (list|tuple): Per-channel standard deviations.
        data_format (str, optional): Layout of the image, 'CHW' or 'HWC'. Default: 'CHW'.
        to_rgb (bool, optional): Swap BGR to RGB first (NumPy images). Default: False.

    Returns:
        numpy.ndarray|Tensor: the normalized image.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.normalize(oar.ones([3, 1, 1]), mean=[0.5] * 3, std=[0.25] * 3).flatten())
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 2., 2.])
    """
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"normalize: data_format should be 'CHW' or 'HWC', but got {data_format!r}")
    if _is_tensor_image(img):
        F_t.check_image("normalize", img, data_format)
        return F_t.normalize(img, mean, std, data_format)
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    if not isinstance(img, np.ndarray):
        raise TypeError(f"normalize: img should be PIL Image, Tensor or np.ndarray, but got {type(img)}")
    return F_np.normalize(img, mean, std, data_format, to_rgb)


def output_size(fn, h, w, size):
    """(oh, ow) for Paddle's size rule: an int sets the shorter side and keeps the aspect ratio."""
    if isinstance(size, bool) or not (isinstance(size, numbers.Integral) or
                                      (isinstance(size, (list, tuple)) and len(size) == 2)):
        raise TypeError(f"{fn}: size should be an int or a sequence (h, w) of 2 ints, "
                        f"but got {size!r}")
    if isinstance(size, numbers.Integral):
        if w <= 0 or h <= 0:
            raise ValueError(f"{fn}: the image is empty (h={h}, w={w})")
        if (w <= h and w == size) or (h <= w and h == size):
            return h, w
        if w < h:
            return int(size * h / w), int(size)
        return int(size), int(size * w / h)
    return int(size[0]), int(size[1])


def resize(img, size, interpolation="bilinear"):
    """Resizes an image.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        size (int|list|tuple): (h, w), or an int: the shorter side becomes size and the aspect
            ratio is kept.
        interpolation (str, optional): 'nearest', 'bilinear', 'bicubic', 'area', 'lanczos' (by
            image kind: PIL also 'box' and 'hamming', tensors no 'lanczos'). Default: 'bilinear'.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.resize(np.zeros((4, 8, 3), dtype="uint8"), 2).shape)
        (2, 4, 3)
    """
    kind = _kind("resize", img)
    h, w = _size_hw(img, kind)
    if kind == "tensor":
        F_t.check_image("resize", img, "CHW")
        interpolation = _check_interpolation("resize", interpolation, F_t.INTERPOLATIONS)
        oh, ow = output_size("resize", h, w, size)
        if isinstance(size, numbers.Integral) and (oh, ow) == (h, w):
            return img
        return F_t.resize(img, (oh, ow), interpolation)
    allowed = F_pil.INTERPOLATIONS if kind == "pil" else F_np.INTERPOLATIONS
    interpolation = _check_interpolation("resize", interpolation, allowed)
    oh, ow = output_size("resize", h, w, size)
    if isinstance(size, numbers.Integral) and (oh, ow) == (h, w):
        return img
    if kind == "pil":
        return F_pil.resize(img, (ow, oh), interpolation)
    return F_np.resize(img, (ow, oh), interpolation)


def padding_ltrb(fn, padding):
    """Paddle's padding forms: int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""
    if isinstance(padding, bool) or not isinstance(padding, (numbers.Integral, list, tuple)):
        raise TypeError(f"{fn}: padding should be an int or a sequence of 2 or 4 ints, "
                        f"but got {padding!r}")
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    if len(padding) == 2:
        return int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1])
    if len(padding) == 4:
        return tuple(int(p) for p in padding)
    raise ValueError(f"{fn}: padding must be an int or a 2, or 4 element tuple, not a "
                     f"{len(padding)} element tuple")


_PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pads the borders of an image.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        padding (int|list|tuple): One int for every side, (left/right, top/bottom), or
            (left, top, right, bottom).
        fill (int|list|tuple, optional): Fill value of 'constant' mode. Default: 0.
        padding_mode (str, optional): 'constant', 'edge', 'reflect' or 'symmetric' (not for
            tensors). Default: 'constant'.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.pad(np.ones((1, 2), dtype="uint8"), (1, 0, 2, 0)))
        [[0 1 1 0 0]]
    """
    kind = _kind("pad", img)
    ltrb = padding_ltrb("pad", padding)
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError(f"pad: fill should be a number or a sequence of numbers, but got {fill!r}")
    if padding_mode not in _PAD_MODES:
        raise ValueError(f"pad: padding_mode should be one of {list(_PAD_MODES)}, "
                         f"but got {padding_mode!r}")
    return _dispatch("pad", img, kind, ltrb, fill, padding_mode)


def crop(img, top, left, height, width):
    """Crops the box of ``height`` x ``width`` pixels whose top-left corner is (top, left).

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        top (int): Row of the top-left corner.
        left (int): Column of the top-left corner.
        height (int): Height of the box.
        width (int): Width of the box.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> img = np.arange(16, dtype="uint8").reshape(4, 4)
        >>> print(F.crop(img, 1, 1, 2, 3))
        [[ 5  6  7]
         [ 9 10 11]]
    """
    kind = _kind("crop", img)
    return _dispatch("crop", img, kind, top, left, height, width)


def center_crop(img, output_size):
    """Crops the centre of an image.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        output_size (int|list|tuple): (h, w) of the crop, or one int for both.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.center_crop(np.arange(16, dtype="uint8").reshape(4, 4), 2))
        [[ 5  6]
         [ 9 10]]
    """
    kind = _kind("center_crop", img)
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif not (isinstance(output_size, (list, tuple)) and len(output_size) == 2):
        raise TypeError(f"center_crop: output_size should be an int or a sequence (h, w), "
                        f"but got {output_size!r}")
    h, w = _size_hw(img, kind)
    th, tw = output_size
    top = int(round((h - th) / 2.0))
    left = int(round((w - tw) / 2.0))
    return crop(img, top, left, th, tw)


def hflip(img):
    """Flips an image left to right.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.hflip(np.array([[1, 2, 3]], dtype="uint8")))
        [[3 2 1]]
    """
    kind = _kind("hflip", img)
    return _dispatch("hflip", img, kind)


def vflip(img):
    """Flips an image upside down.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.vflip(np.array([[1], [2]], dtype="uint8")))
        [[2]
         [1]]
    """
    kind = _kind("vflip", img)
    return _dispatch("vflip", img, kind)


def _adjust_by_factor(fn, img, arg, value):
    """adjust_brightness / contrast / saturation: a non-negative real factor, then the backend."""
    kind = _kind(fn, img)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}: {arg} should be a number, but got {value!r}")
    if value < 0:
        raise ValueError(f"{fn}: {arg} should be non-negative, but got {value}")
    return _dispatch(fn, img, kind, value)


def adjust_brightness(img, brightness_factor):
    """Scales the brightness of an image by ``brightness_factor`` (0 gives black, 1 the image).

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        brightness_factor (float): A non-negative factor.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.adjust_brightness(np.full((1, 1, 3), 100, dtype="uint8"), 1.5))
        [[[150 150 150]]]
    """
    return _adjust_by_factor("adjust_brightness", img, "brightness_factor", brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Adjusts the contrast of an image by ``contrast_factor`` (0 gives a flat gray image, 1 the
    image). As in Paddle, NumPy images are blended with the fixed gray level 74, tensors and PIL
    images with their mean gray level.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        contrast_factor (float): A non-negative factor.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.adjust_contrast(np.full((1, 1, 3), 100, dtype="uint8"), 2.0))
        [[[126 126 126]]]
    """
    return _adjust_by_factor("adjust_contrast", img, "contrast_factor", contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Adjusts the saturation of an image by ``saturation_factor`` (0 gives gray, 1 the image).

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        saturation_factor (float): A non-negative factor.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> gray = F.adjust_saturation(oar.to_tensor([[[0.8]], [[0.4]], [[0.4]]]), 0.0)
        >>> print(gray.flatten())
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.51952..., 0.51952..., 0.51952...])
    """
    return _adjust_by_factor("adjust_saturation", img, "saturation_factor", saturation_factor)


def adjust_hue(img, hue_factor):
    """Shifts the hue of an image by ``hue_factor`` of a full turn. As in Paddle's OpenCV path,
    NumPy images are read as BGR.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        hue_factor (float): The shift, in [-0.5, 0.5].

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> red = oar.to_tensor([[[1.0]], [[0.0]], [[0.0]]])
        >>> print(F.adjust_hue(red, 1 / 3).flatten())
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1., 0.])
    """
    kind = _kind("adjust_hue", img)
    if isinstance(hue_factor, bool) or not isinstance(hue_factor, numbers.Real):
        raise TypeError(f"adjust_hue: hue_factor should be a number, but got {hue_factor!r}")
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    return _dispatch("adjust_hue", img, kind, hue_factor)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotates an image counter-clockwise by ``angle`` degrees about ``center``.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        angle (float): The angle in degrees.
        interpolation (str, optional): 'nearest' or 'bilinear' ('bicubic' for PIL and NumPy).
            Default: 'nearest'.
        expand (bool, optional): Enlarge the output to hold the whole rotated image.
            Default: False.
        center (list|tuple, optional): The centre (x, y); None means the image centre.
            Default: None.
        fill (int|list|tuple, optional): Value of the area outside the image. Default: 0.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.rotate(oar.to_tensor([[[1.0, 2.0], [3.0, 4.0]]]), 90))
        Tensor(shape=[1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[2., 4.],
                 [1., 3.]]])
    """
    kind = _kind("rotate", img)
    if isinstance(angle, bool) or not isinstance(angle, numbers.Real):
        raise TypeError(f"rotate: angle should be a number, but got {angle!r}")
    if center is not None and not (isinstance(center, (list, tuple)) and len(center) == 2):
        raise TypeError(f"rotate: center should be a sequence (x, y) of 2 numbers, but got {center!r}")
    if kind == "pil":
        interpolation = _check_interpolation("rotate", interpolation, F_pil.INTERPOLATIONS)
        return F_pil.rotate(img, angle, interpolation, expand, center, fill)
    if kind == "numpy":
        interpolation = _check_interpolation("rotate", interpolation, F_np.INTERPOLATIONS)
        return F_np.rotate(img, angle, interpolation, expand, center, fill)
    F_t.check_image("rotate", img, "CHW")
    interpolation = _check_interpolation("rotate", interpolation, ("nearest", "bilinear"))
    return F_t.rotate(img, angle, interpolation, expand, center, fill)


def to_grayscale(img, num_output_channels=1):
    """Converts an RGB image to grayscale (0.299 R + 0.587 G + 0.114 B).

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        num_output_channels (int, optional): 1, or 3 (the gray value repeated). Default: 1.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.to_grayscale(oar.to_tensor([[[1.0]], [[0.0]], [[0.0]]])).flatten())
        Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.29890...])
    """
    kind = _kind("to_grayscale", img)
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels should be either 1 or 3, "
                         f"but got {num_output_channels!r}")
    return _dispatch("to_grayscale", img, kind, num_output_channels)


def erase(img, i, j, h, w, v, inplace=False):
    """Sets the box of rows i to i + h and columns j to j + w of an image to ``v``.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        i (int): First row of the box.
        j (int): First column of the box.
        h (int): Height of the box.
        w (int): Width of the box.
        v (Tensor|numpy.ndarray|number): The values written (broadcast to the box).
        inplace (bool, optional): Write into img itself (tensors and arrays). Default: False.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> F = oar.vision.transforms
        >>> print(F.erase(oar.ones([1, 3, 3]), 0, 0, 2, 2, oar.zeros([1, 2, 2])))
        Tensor(shape=[1, 3, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[0., 0., 1.],
                 [0., 0., 1.],
                 [1., 1., 1.]]])
    """
    kind = _kind("erase", img)
    if kind == "tensor":
        F_t.check_image("erase", img, "CHW")
        return F_t.erase(img, i, j, h, w, v, inplace)
    if kind == "pil":
        return F_pil.erase(img, i, j, h, w, v)
    return F_np.erase(img, i, j, h, w, v, inplace)


def _affine_inverse_matrix(center, angle, translate, scale, shear):
    """The inverse (output -> input) map of rotation by `angle` (clockwise) and shear about
    `center`, scaled by `scale` and translated by `translate`, as 6 numbers."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]  # inverse of [[a, b], [c, d]], over scale
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Applies an affine map to an image: rotation by ``angle`` degrees (clockwise) and shear about
    ``center``, scaling by ``scale``, then translation by ``translate`` pixels. The output keeps
    the input's size.

    As in Paddle, the three kinds of image follow their backends: PIL images use Pillow (the area
    outside is 0 whatever ``fill``); NumPy images follow Paddle's OpenCV path (the map is built
    about the top-left corner, ``center`` is not used); tensors use grid_sample.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        angle (float): Rotation in degrees.
        translate (list|tuple): (tx, ty) in pixels.
        scale (float): Positive scale factor.
        shear (float|list|tuple): Shear angles (x, y) in degrees; a number is (shear, 0).
        interpolation (str, optional): 'nearest' or 'bilinear' ('bicubic' for PIL).
            Default: 'nearest'.
        fill (int|list|tuple, optional): Value of the area outside the image. Default: 0.
        center (list|tuple, optional): Centre (x, y) of rotation; None means the image centre.
            Default: None.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import oar
        >>> F = oar.vision.transforms
        >>> img = oar.to_tensor([[[1.0, 2.0], [3.0, 4.0]]])
        >>> print(F.affine(img, 90, (0, 0), 1.0, 0.0))
        Tensor(shape=[1, 2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[[3., 1.],
                 [4., 2.]]])
    """
    kind = _kind("affine", img)
    if isinstance(angle, bool) or not isinstance(angle, (int, float)):
        raise TypeError("affine: Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("affine: Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("affine: Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError(f"affine: Argument scale should be positive, but got {scale}")
    if not isinstance(shear, (numbers.Number, list, tuple)):
        raise TypeError("affine: Shear should be either a single value or a sequence of two values")
    if not isinstance(interpolation, str):
        raise TypeError("affine: Argument interpolation should be a string")
    angle = float(angle)
    translate = list(translate)
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"affine: Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("affine: Argument center should be a sequence")
    if kind == "pil":
        interpolation = _check_interpolation("affine", interpolation, ("nearest", "bilinear", "bicubic"))
        w, h = img.size
        c = [w * 0.5, h * 0.5] if center is None else center
        return F_pil.affine(img, _affine_inverse_matrix(c, angle, translate, scale, shear),
                            interpolation, fill)
    if kind == "numpy":
        interpolation = _check_interpolation("affine", interpolation, F_np.INTERPOLATIONS)
        return F_np.affine(img, angle, translate, scale, shear, interpolation, fill)
    F_t.check_image("affine", img, "CHW")
    interpolation = _check_interpolation("affine", interpolation, ("nearest", "bilinear"))
    c = [0.0, 0.0]
    if center is not None:
        # Paddle measures a given centre from (shape[-2] / 2, shape[-1] / 2): (x - H / 2, y - W / 2)
        c = [1.0 * (v - s * 0.5) for v, s in zip(center, [img.shape[-2], img.shape[-1]])]
    m = _affine_inverse_matrix(c, angle, [1.0 * t for t in translate], scale, shear)
    return F_t.affine(img, m, interpolation, fill)


def _perspective_coeffs(startpoints, endpoints):
    """(a, b, c, d, e, f, g, h) with which output pixel (x, y) reads input
    ((ax + by + c) / (gx + hy + 1), (dx + ey + f) / (gx + hy + 1)): least squares over the 4
    point pairs (endpoints in the output, startpoints in the input)."""
    a = np.zeros((8, 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.asarray(startpoints, dtype=np.float64).reshape(8)
    return list(np.linalg.lstsq(a, b, rcond=None)[0])


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Applies the perspective map that takes the 4 ``startpoints`` of the image to the 4
    ``endpoints`` (top-left, top-right, bottom-right, bottom-left). The output keeps the input's
    size; as in Paddle, PIL images get 0 outside whatever ``fill``.

    Args:
        img (PIL.Image|numpy.ndarray|Tensor): An image: PIL, HWC (or HW) array, or CHW tensor.
        startpoints (list): 4 points [x, y] of the input image.
        endpoints (list): Where they go in the output.
        interpolation (str, optional): 'nearest' or 'bilinear' ('bicubic' for PIL).
            Default: 'nearest'.
        fill (int|list|tuple, optional): Value of the area outside the image. Default: 0.

    Returns:
        PIL.Image|numpy.ndarray|Tensor: the result, of the input's kind.

    Examples:
        >>> import oar
        >>> F = oar.vision.transforms
        >>> img = oar.arange(9, dtype="float32").reshape([1, 3, 3])
        >>> corners = [[0, 0], [2, 0], [2, 2], [0, 2]]
        >>> print(F.perspective(img, corners, corners).flatten())
        Tensor(shape=[9], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1., 2., 3., 4., 5., 6., 7., 8.])
    """
    kind = _kind("perspective", img)
    for arg, pts in (("startpoints", startpoints), ("endpoints", endpoints)):
        if not (isinstance(pts, (list, tuple)) and len(pts) == 4
                and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pts)):
            raise ValueError(f"perspective: {arg} should be 4 points [x, y], but got {pts!r}")
    if kind == "numpy":
        interpolation = _check_interpolation("perspective", interpolation, F_np.INTERPOLATIONS)
        return F_np.perspective(img, startpoints, endpoints, interpolation, fill)
    coeffs = _perspective_coeffs(startpoints, endpoints)
    if kind == "pil":
        interpolation = _check_interpolation("perspective", interpolation,
                                             ("nearest", "bilinear", "bicubic"))
        return F_pil.perspective(img, coeffs, interpolation, fill)
    F_t.check_image("perspective", img, "CHW")
    interpolation = _check_interpolation("perspective", interpolation, ("nearest", "bilinear"))
    return F_t.perspective(img, coeffs, interpolation, fill)
