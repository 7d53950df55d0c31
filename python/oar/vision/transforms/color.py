"""Colour transforms with random strength: Brightness/Contrast/Saturation/Hue, ColorJitter."""
import numbers

from . import _random
from . import functional as F
from .base import BaseTransform, Compose


def factor_range(fn, value, name, center=1.0, bound=(0.0, float("inf")), clip_first_on_zero=True):
    """[lo, hi] to draw a factor from, or None when the range is the identity {center}."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{fn}: if {name} is a single number, it must be non negative, "
                             f"but got {value}")
        lo, hi = center - value, center + value
        if clip_first_on_zero:
            lo = max(lo, 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        lo, hi = value
        if not bound[0] <= lo <= hi <= bound[1]:
            raise ValueError(f"{fn}: {name} values should be between {bound}, but got {value}")
    else:
        raise TypeError(f"{fn}: {name} should be a single number or a list/tuple with length 2, "
                        f"but got {value!r}")
    return None if lo == hi == center else [lo, hi]


class _RandomFactor(BaseTransform):
    """Draws a factor from self.value per call and applies self._adjust(img, factor)."""
    _name = ""

    def _apply_image(self, img):
        if self.value is None:
            return img
        return self._adjust(img, _random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_RandomFactor):
    """Adjusts the brightness of an image by a random factor: a factor drawn uniformly from
    [max(0, 1 - v), 1 + v] per call, passed to ``adjust_brightness``.

    Args:
        value (float|list|tuple): A number v, or the range (min, max) to draw from.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> transform = oar.vision.transforms.BrightnessTransform(0.4)
        >>> print(transform(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (4, 4, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("BrightnessTransform", value, "brightness")

    def _adjust(self, img, factor):
        return F.adjust_brightness(img, factor)


class ContrastTransform(_RandomFactor):
    """Adjusts the contrast of an image by a random factor: a factor drawn uniformly from
    [max(0, 1 - v), 1 + v] per call, passed to ``adjust_contrast``.

    Args:
        value (float|list|tuple): A number v, or the range (min, max) to draw from.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> transform = oar.vision.transforms.ContrastTransform(0.4)
        >>> print(transform(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (4, 4, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("ContrastTransform", value, "contrast")

    def _adjust(self, img, factor):
        return F.adjust_contrast(img, factor)


class SaturationTransform(_RandomFactor):
    """Adjusts the saturation of an image by a random factor: a factor drawn uniformly from
    [max(0, 1 - v), 1 + v] per call, passed to ``adjust_saturation``.

    Args:
        value (float|list|tuple): A number v, or the range (min, max) to draw from.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> transform = oar.vision.transforms.SaturationTransform(0.4)
        >>> print(transform(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (4, 4, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("SaturationTransform", value, "saturation")

    def _adjust(self, img, factor):
        return F.adjust_saturation(img, factor)


class HueTransform(_RandomFactor):
    """Adjusts the hue of an image by a random factor: a factor drawn uniformly from
    [-v, v] (within [-0.5, 0.5]) per call, passed to ``adjust_hue``.

    Args:
        value (float|list|tuple): A number v, or the range (min, max) to draw from.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> transform = oar.vision.transforms.HueTransform(0.1)
        >>> print(transform(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (4, 4, 3)
    """

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("HueTransform", value, "hue", center=0.0, bound=(-0.5, 0.5),
                                  clip_first_on_zero=False)

    def _adjust(self, img, factor):
        return F.adjust_hue(img, factor)


class ColorJitter(BaseTransform):
    """Randomly changes brightness, contrast, saturation and hue, the four adjustments applied in
    a random order.

    Args:
        brightness (float|list|tuple, optional): As BrightnessTransform's value; 0 leaves it.
            Default: 0.
        contrast (float|list|tuple, optional): As ContrastTransform's value. Default: 0.
        saturation (float|list|tuple, optional): As SaturationTransform's value. Default: 0.
        hue (float|list|tuple, optional): As HueTransform's value, within [-0.5, 0.5].
            Default: 0.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> oar.seed(2024)
        >>> T = oar.vision.transforms
        >>> jitter = T.ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)
        >>> print(jitter(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (4, 4, 3)
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        # Built now so that bad values fail at construction, not at the first image; None skips one.
        kinds = ((BrightnessTransform, brightness), (ContrastTransform, contrast),
                 (SaturationTransform, saturation), (HueTransform, hue))
        self._parts = [make(value, keys) for make, value in kinds if value is not None]
        self.brightness, self.contrast, self.saturation, self.hue = brightness, contrast, saturation, hue

    def _apply_image(self, img):
        order = _random.generator().permutation(len(self._parts))
        return Compose([self._parts[k] for k in order])(img)
