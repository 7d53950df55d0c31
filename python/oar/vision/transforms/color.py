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
    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("BrightnessTransform", value, "brightness")

    def _adjust(self, img, factor):
        return F.adjust_brightness(img, factor)


class ContrastTransform(_RandomFactor):
    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("ContrastTransform", value, "contrast")

    def _adjust(self, img, factor):
        return F.adjust_contrast(img, factor)


class SaturationTransform(_RandomFactor):
    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("SaturationTransform", value, "saturation")

    def _adjust(self, img, factor):
        return F.adjust_saturation(img, factor)


class HueTransform(_RandomFactor):
    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = factor_range("HueTransform", value, "hue", center=0.0, bound=(-0.5, 0.5),
                                  clip_first_on_zero=False)

    def _adjust(self, img, factor):
        return F.adjust_hue(img, factor)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order."""

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
