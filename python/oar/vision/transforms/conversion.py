"""Transforms that change an image's type or layout: ToTensor, Normalize, Transpose, Grayscale."""
import numbers

import numpy as np

from . import functional as F
from .base import BaseTransform


class ToTensor(BaseTransform):
    """PIL / NumPy HWC image -> oar tensor (CHW by default); uint8 is scaled to float32 in [0, 1]."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"ToTensor: data_format should be CHW or HWC, but got {data_format!r}")
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        if isinstance(mean, numbers.Number):
            mean = [mean] * 3
        if isinstance(std, numbers.Number):
            std = [std] * 3
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"Normalize: data_format should be 'CHW' or 'HWC', but got {data_format!r}")
        self.mean, self.std, self.data_format, self.to_rgb = mean, std, data_format, to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permutes axes (default HWC -> CHW); PIL images become NumPy arrays, HW gets a channel axis."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return img.transpose(list(self.order))
        if F._is_pil_image(img):
            img = np.asarray(img)
        if not isinstance(img, np.ndarray):
            raise TypeError(f"Transpose: img should be PIL Image, Tensor or np.ndarray, but got {type(img)}")
        if img.ndim == 2:
            img = img[..., np.newaxis]
        if sorted(self.order) != list(range(img.ndim)):
            raise ValueError(f"Transpose: order {tuple(self.order)} is not a permutation of the "
                             f"{img.ndim} axes of the image (shape {list(img.shape)})")
        return img.transpose(self.order)


class Grayscale(BaseTransform):
    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)
