"""Geometric transforms: Resize, crops, flips, Pad, RandomRotation (as paddle.vision.transforms).

Random choices come from oar's generator (see _random.py), so they repeat after oar.seed(n).
"""
import math
import numbers

from . import _random
from . import functional as F
from .base import BaseTransform


def image_size(fn, img):
    """(width, height) of a PIL image, a NumPy HWC array or a CHW tensor."""
    if F._is_pil_image(img):
        return img.size
    if F._is_numpy_image(img):
        return img.shape[1], img.shape[0]
    if F._is_tensor_image(img):
        if img.ndim not in (3, 4):
            raise ValueError(f"{fn}: the dim for input Tensor should be 3-D or 4-D, but received {img.ndim}")
        return img.shape[-1], img.shape[-2]
    raise TypeError(f"{fn}: unexpected image type {type(img)}")


def _pair(fn, arg, size):
    if isinstance(size, numbers.Number) and not isinstance(size, bool):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return tuple(size)
    raise TypeError(f"{fn}: {arg} should be an int or a sequence (h, w), but got {size!r}")


def _check_prob(fn, prob):
    if not 0 <= prob <= 1:
        raise ValueError(f"{fn}: prob must be between 0 and 1, but got {prob}")


class Resize(BaseTransform):
    """Resizes an image to ``size``.

    Args:
        size (int|list|tuple): (h, w), or an int: the shorter side becomes size and the aspect
            ratio is kept.
        interpolation (str, optional): 'nearest', 'bilinear', 'bicubic', 'area' or 'lanczos' (the
            choice depends on the image kind: PIL also has 'box' and 'hamming', tensors have no
            'lanczos'). Default: 'bilinear'.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> img = np.zeros((4, 8, 3), dtype="uint8")
        >>> print(oar.vision.transforms.Resize(2)(img).shape)
        (2, 4, 3)
        >>> print(oar.vision.transforms.Resize((3, 3))(img).shape)
        (3, 3, 3)
    """

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if isinstance(size, bool) or not (isinstance(size, numbers.Integral) or
                                          (isinstance(size, (list, tuple)) and len(size) == 2)):
            raise TypeError(f"Resize: size should be an int or a sequence (h, w), but got {size!r}")
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """Crops the centre of an image.

    Args:
        size (int|list|tuple): (h, w) of the crop, or one int for both.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> img = np.arange(16, dtype="uint8").reshape(4, 4, 1)
        >>> print(oar.vision.transforms.CenterCrop(2)(img)[..., 0])
        [[ 5  6]
         [ 9 10]]
    """

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = _pair("CenterCrop", "size", size)

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """Crops a window of ``size`` at a random position, after optional padding.

    Args:
        size (int|list|tuple): (h, w) of the crop, or one int for both.
        padding (int|list|tuple, optional): Padding added first, in Pad's forms. Default: None.
        pad_if_needed (bool, optional): Pad an image smaller than size up to it. Default: False.
        fill (int|list|tuple, optional): Fill value of 'constant' padding. Default: 0.
        padding_mode (str, optional): 'constant' (fill), 'edge' (repeat the edge), 'reflect'
            (mirror, edge excluded) or 'symmetric' (mirror, edge included; not for tensors).
            Default: 'constant'.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> crop = oar.vision.transforms.RandomCrop(6, pad_if_needed=True)
        >>> print(crop(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (6, 6, 3)
    """

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant",
                 keys=None):
        super().__init__(keys)
        self.size = _pair("RandomCrop", "size", size)
        if padding is not None:
            F.padding_ltrb("RandomCrop", padding)
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = image_size("RandomCrop", img)
        th, tw = self.size
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        w, h = image_size("RandomCrop", img)
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: the crop size {(th, tw)} is larger than the image "
                             f"(h={h}, w={w}); pass padding or pad_if_needed=True")
        if (w, h) == (tw, th):
            return F.crop(img, 0, 0, h, w)
        g = _random.generator()
        top = int(g.integers(0, h - th + 1))
        left = int(g.integers(0, w - tw + 1))
        return F.crop(img, top, left, th, tw)


class RandomResizedCrop(BaseTransform):
    """Crops a random part of an image (a random area fraction and aspect ratio) and resizes it
    to ``size``: the usual training augmentation of ImageNet models.

    If ten tries find no crop that fits, the largest centre crop within ``ratio`` is taken.

    Args:
        size (int|list|tuple): (h, w) of the output, or one int for both.
        scale (list|tuple, optional): Range of the crop's area as a fraction of the image's.
            Default: (0.08, 1.0).
        ratio (list|tuple, optional): Range of the crop's aspect ratio (w / h), drawn on a log
            scale. Default: (3/4, 4/3).
        interpolation (str, optional): 'nearest', 'bilinear', 'bicubic', 'area' or 'lanczos' (the
            choice depends on the image kind: PIL also has 'box' and 'hamming', tensors have no
            'lanczos'). Default: 'bilinear'.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> transform = oar.vision.transforms.RandomResizedCrop(3)
        >>> print(transform(np.zeros((8, 8, 3), dtype="uint8")).shape)
        (3, 3, 3)
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear",
                 keys=None):
        super().__init__(keys)
        self.size = _pair("RandomResizedCrop", "size", size)
        if scale[0] > scale[1]:
            raise ValueError(f"RandomResizedCrop: scale should be of kind (min, max), but got {scale}")
        if ratio[0] > ratio[1]:
            raise ValueError(f"RandomResizedCrop: ratio should be of kind (min, max), but got {ratio}")
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _get_param(self, img, attempts=10):
        width, height = image_size("RandomResizedCrop", img)
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        g = _random.generator()
        for _ in range(attempts):
            target_area = g.uniform(*self.scale) * area
            aspect = math.exp(g.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return int(g.integers(0, height - h + 1)), int(g.integers(0, width - w + 1)), h, w
        # No luck: the largest centred crop whose ratio lies within `ratio`.
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class RandomHorizontalFlip(BaseTransform):
    """Flips an image left to right with probability ``prob``.

    Args:
        prob (float, optional): Probability of flipping, in [0, 1]. Default: 0.5.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> flip = oar.vision.transforms.RandomHorizontalFlip(prob=1.0)
        >>> print(flip(np.array([[1, 2, 3]], dtype="uint8")))
        [[3 2 1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        _check_prob("RandomHorizontalFlip", prob)
        self.prob = prob

    def _apply_image(self, img):
        return F.hflip(img) if _random.random() < self.prob else img


class RandomVerticalFlip(BaseTransform):
    """Flips an image upside down with probability ``prob``.

    Args:
        prob (float, optional): Probability of flipping, in [0, 1]. Default: 0.5.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> flip = oar.vision.transforms.RandomVerticalFlip(prob=1.0)
        >>> print(flip(np.array([[1], [2]], dtype="uint8")))
        [[2]
         [1]]
    """

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        _check_prob("RandomVerticalFlip", prob)
        self.prob = prob

    def _apply_image(self, img):
        return F.vflip(img) if _random.random() < self.prob else img


class Pad(BaseTransform):
    """Pads the borders of an image.

    Args:
        padding (int|list|tuple): One int for every side, (left/right, top/bottom), or
            (left, top, right, bottom).
        fill (int|list|tuple, optional): Fill value of 'constant' mode (one per channel for a
            sequence). Default: 0.
        padding_mode (str, optional): 'constant' (fill), 'edge' (repeat the edge), 'reflect'
            (mirror, edge excluded) or 'symmetric' (mirror, edge included; not for tensors).
            Default: 'constant'.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> img = np.zeros((4, 4, 3), dtype="uint8")
        >>> print(oar.vision.transforms.Pad(1)(img).shape, oar.vision.transforms.Pad((1, 2))(img).shape)
        (6, 6, 3) (8, 6, 3)
    """

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        F.padding_ltrb("Pad", padding)
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise TypeError(f"Pad: fill should be a number or a sequence, but got {fill!r}")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError(f"Pad: padding_mode should be one of constant, edge, reflect or "
                             f"symmetric, but got {padding_mode!r}")
        super().__init__(keys)
        self.padding = tuple(padding) if isinstance(padding, list) else padding
        self.fill = tuple(fill) if isinstance(fill, list) else fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomRotation(BaseTransform):
    """Rotates an image by a random angle.

    Args:
        degrees (float|list|tuple): The range (min, max) of the angle in degrees, or a number d
            for (-d, d).
        interpolation (str, optional): 'nearest' or 'bilinear' ('bicubic' for PIL and NumPy).
            Default: 'nearest'.
        expand (bool, optional): Enlarge the output to hold the whole rotated image.
            Default: False.
        center (list|tuple, optional): The centre of rotation (x, y); None means the image
            centre. Default: None.
        fill (int|list|tuple, optional): Value of the area outside the image. Default: 0.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> rotate = oar.vision.transforms.RandomRotation(30)
        >>> print(rotate(np.zeros((8, 8, 3), dtype="uint8")).shape)
        (8, 8, 3)
    """

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError(f"RandomRotation: if degrees is a single number, it must be "
                                 f"positive, but got {degrees}")
            degrees = (-degrees, degrees)
        elif not (isinstance(degrees, (list, tuple)) and len(degrees) == 2):
            raise ValueError(f"RandomRotation: if degrees is a sequence, it must be of len 2, "
                             f"but got {degrees!r}")
        super().__init__(keys)
        self.degrees = degrees
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill

    def _apply_image(self, img):
        angle = _random.uniform(self.degrees[0], self.degrees[1])
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)
