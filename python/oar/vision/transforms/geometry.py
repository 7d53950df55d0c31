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


def _setup_angle(fn, x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"{fn}: If {name} is a single number, it must be positive.")
        return [-float(x), float(x)]
    _check_sequence(fn, x, name, req_sizes)
    return [float(d) for d in x]


def _check_sequence(fn, x, name, req_sizes):
    msg = " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"{fn}: {name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{fn}: {name} should be sequence of length {msg}.")


class RandomAffine(BaseTransform):
    """Applies a random affine map (see :func:`affine`): an angle from ``degrees``, a translation
    of up to ``translate`` times the image size, a scale from ``scale`` and shears from ``shear``.

    Args:
        degrees (float|list|tuple): Range (min, max) of the angle in degrees, or d for (-d, d).
        translate (list|tuple, optional): Largest translation (a, b) as fractions of the width
            and height. Default: None.
        scale (list|tuple, optional): Range (min, max) of the scale. Default: None (1).
        shear (float|list|tuple, optional): x shear range: d for (-d, d), (min, max); or
            (xmin, xmax, ymin, ymax) for both axes. Default: None.
        interpolation (str, optional): 'nearest', 'bilinear' or 'bicubic'. Default: 'nearest'.
        fill (int|list|tuple, optional): Value of the area outside the image. Default: 0.
        center (list|tuple, optional): Centre (x, y) of the map. Default: None.
        keys (list|tuple, optional): What each item of a tuple input is. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> t = oar.vision.transforms.RandomAffine(15, translate=[0.1, 0.1], scale=[0.9, 1.1])
        >>> print(t(oar.rand([3, 8, 8])).shape)
        [3, 8, 8]
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation="nearest",
                 fill=0, center=None, keys=None):
        fn = "RandomAffine"
        self.degrees = _setup_angle(fn, degrees, "degrees", (2,))
        super().__init__(keys)
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise AssertionError(f"{fn}: interpolation should be 'nearest', 'bilinear' or "
                                 f"'bicubic', but got {interpolation!r}")
        self.interpolation = interpolation
        if translate is not None:
            _check_sequence(fn, translate, "translate", (2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError(f"{fn}: translation values should be between 0 and 1, "
                                     f"but got {translate!r}")
        self.translate = translate
        if scale is not None:
            _check_sequence(fn, scale, "scale", (2,))
            for s in scale:
                if s <= 0:
                    raise ValueError(f"{fn}: scale values should be positive, but got {scale!r}")
        self.scale = scale
        self.shear = _setup_angle(fn, shear, "shear", (2, 4)) if shear is not None else None
        if fill is None:
            fill = 0
        elif not isinstance(fill, (list, tuple, numbers.Number)):
            raise TypeError(f"{fn}: Fill should be either a sequence or a number.")
        self.fill = fill
        if center is not None:
            _check_sequence(fn, center, "center", (2,))
        self.center = center

    def _get_param(self, img_size, degrees, translate=None, scale_ranges=None, shears=None):
        """(angle, (tx, ty), scale, (shear_x, shear_y)) drawn for an image of img_size (w, h)."""
        angle = _random.uniform(degrees[0], degrees[1])
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(_random.uniform(-max_dx, max_dx)),
                            int(_random.uniform(-max_dy, max_dy)))
        else:
            translations = (0, 0)
        scale = _random.uniform(scale_ranges[0], scale_ranges[1]) if scale_ranges is not None else 1.0
        shear_x, shear_y = 0.0, 0.0
        if shears is not None:
            shear_x = _random.uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _random.uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def _apply_image(self, img):
        w, h = image_size("RandomAffine", img)
        params = self._get_param((w, h), self.degrees, self.translate, self.scale, self.shear)
        return F.affine(img, *params, interpolation=self.interpolation, fill=self.fill,
                        center=self.center)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, moves each corner of the image inwards by a random amount (up to
    ``distortion_scale`` of half the size) and applies that perspective map (see
    :func:`perspective`).

    Args:
        prob (float, optional): Probability of the transform. Default: 0.5.
        distortion_scale (float, optional): Degree of distortion, in [0, 1]. Default: 0.5.
        interpolation (str, optional): 'nearest', 'bilinear' or 'bicubic'. Default: 'nearest'.
        fill (int|list|tuple, optional): Value of the area outside the image. Default: 0.
        keys (list|tuple, optional): What each item of a tuple input is. Default: None.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> t = oar.vision.transforms.RandomPerspective(prob=1.0, distortion_scale=0.3)
        >>> print(t(oar.rand([3, 8, 8])).shape)
        [3, 8, 8]
    """

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0,
                 keys=None):
        super().__init__(keys)
        fn = "RandomPerspective"
        if not 0 <= prob <= 1:
            raise AssertionError(f"{fn}: probability must be between 0 and 1, but got {prob}")
        if not 0 <= distortion_scale <= 1:
            raise AssertionError(f"{fn}: distortion_scale must be between 0 and 1, but got "
                                 f"{distortion_scale}")
        if interpolation not in ("nearest", "bilinear", "bicubic"):
            raise AssertionError(f"{fn}: interpolation should be 'nearest', 'bilinear' or "
                                 f"'bicubic', but got {interpolation!r}")
        if not isinstance(fill, (numbers.Number, str, list, tuple)):
            raise AssertionError(f"{fn}: fill should be a number or a sequence, but got {fill!r}")
        self.prob = prob
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = fill

    def get_params(self, width, height, distortion_scale):
        """(startpoints, endpoints): the image corners and where they go (top-left, top-right,
        bottom-right, bottom-left)."""
        hh, hw = height // 2, width // 2
        dx, dy = int(distortion_scale * hw), int(distortion_scale * hh)
        u = _random.uniform
        topleft = [int(u(0, dx + 1)), int(u(0, dy + 1))]
        topright = [int(u(width - dx - 1, width)), int(u(0, dy + 1))]
        botright = [int(u(width - dx - 1, width)), int(u(height - dy - 1, height))]
        botleft = [int(u(0, dx + 1)), int(u(height - dy - 1, height))]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def _apply_image(self, img):
        if _random.random() < self.prob:
            w, h = image_size("RandomPerspective", img)
            start, end = self.get_params(w, h, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img
