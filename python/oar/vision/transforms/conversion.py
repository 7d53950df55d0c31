"""Transforms that change an image's type or layout: ToTensor, Normalize, Transpose, Grayscale."""
import numbers

import numpy as np

from . import functional as F
from .base import BaseTransform


class ToTensor(BaseTransform):
    """Converts a PIL image or an HWC NumPy array to a Tensor (CHW by default); uint8 values are
    scaled to float32 in [0, 1], other dtypes keep their values.

    Args:
        data_format (str, optional): Layout of the result, 'CHW' or 'HWC'. Default: 'CHW'.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> img = np.full((2, 3, 3), 255, dtype="uint8")
        >>> tensor = oar.vision.transforms.ToTensor()(img)
        >>> print(tensor.shape, float(tensor.max()))
        [3, 2, 3] 1.0
    """

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"ToTensor: data_format should be CHW or HWC, but got {data_format!r}")
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Normalize(BaseTransform):
    """Normalizes each channel: ``(img - mean) / std``.

    Args:
        mean (float|list|tuple, optional): Per-channel means (one number for all). Default: 0.0.
        std (float|list|tuple, optional): Per-channel standard deviations. Default: 1.0.
        data_format (str, optional): Layout of the image, 'CHW' or 'HWC'. Default: 'CHW'.
        to_rgb (bool, optional): Swap BGR to RGB first (NumPy images). Default: False.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import oar
        >>> normalize = oar.vision.transforms.Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])
        >>> print(normalize(oar.ones([3, 1, 1])).flatten())
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 1., 1.])
    """

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
    """Permutes the axes of an image (by default HWC to CHW). A PIL image becomes a NumPy array; an
    HW array is given a trailing channel axis before the permutation.

    Args:
        order (list|tuple, optional): The permutation. Default: (2, 0, 1).
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> print(oar.vision.transforms.Transpose()(np.zeros((2, 3, 3))).shape)
        (3, 2, 3)
    """

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
    """Converts an RGB image to grayscale (0.299 R + 0.587 G + 0.114 B).

    Args:
        num_output_channels (int, optional): 1, or 3 (the gray value repeated). Default: 1.
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> print(oar.vision.transforms.Grayscale()(np.zeros((4, 4, 3), dtype="uint8")).shape)
        (4, 4, 1)
    """

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)
