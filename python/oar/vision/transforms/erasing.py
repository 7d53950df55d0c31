"""RandomErasing, as paddle.vision.transforms.RandomErasing."""
import math
import numbers

import numpy as np

from . import _random
from . import functional as F
from .base import BaseTransform


class RandomErasing(BaseTransform):
    """Erases a random rectangle of an image with probability ``prob`` (Cutout-style
    augmentation).

    Args:
        prob (float, optional): Probability of erasing. Default: 0.5.
        scale (list|tuple, optional): Range of the box's area as a fraction of the image's.
            Default: (0.02, 0.33).
        ratio (list|tuple, optional): Range of the box's aspect ratio, drawn on a log scale.
            Default: (0.3, 3.3).
        value (int|float|list|tuple|str, optional): The fill: a number, one number per channel,
            or 'random' (normal noise; times 255 for arrays and PIL images). Default: 0.
        inplace (bool, optional): Erase in the input itself (tensors and arrays). Default: False.
        keys (list|tuple, optional): Input kinds, as BaseTransform's. Default: None.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> erase = oar.vision.transforms.RandomErasing(prob=1.0)
        >>> out = erase(oar.ones([3, 8, 8]))
        >>> print(out.shape, float(out.min()))
        [3, 8, 8] 0.0
    """

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        if not isinstance(scale, (tuple, list)) or not (0 <= scale[0] <= scale[1] <= 1):
            raise ValueError(f"RandomErasing: scale should be of kind (min, max) and in range [0, 1], "
                             f"but got {scale!r}")
        if not isinstance(ratio, (tuple, list)) or not (0 <= ratio[0] <= ratio[1]):
            raise ValueError(f"RandomErasing: ratio should be of kind (min, max), but got {ratio!r}")
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomErasing: the probability should be in range [0, 1], but got {prob}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value must be 'random' when type is str, but got {value!r}")
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(f"RandomErasing: value should be a number, tuple, list or str, "
                            f"but got {value!r}")
        if isinstance(value, (tuple, list)) and len(value) not in (1, 3):
            raise ValueError("RandomErasing: value should be a single number or a sequence with "
                             f"length equals to image's channel, but got {len(value)} values")
        self.prob, self.scale, self.ratio, self.value, self.inplace = prob, scale, ratio, value, inplace

    def _get_param(self, img, g):
        if F._is_pil_image(img):
            h, w, c = np.asarray(img).reshape(img.size[1], img.size[0], -1).shape
        elif F._is_numpy_image(img):
            h, w = img.shape[:2]
            c = img.shape[2] if img.ndim == 3 else 1
        elif F._is_tensor_image(img):
            c, h, w = img.shape[-3:]
        else:
            raise TypeError(f"RandomErasing: unexpected image type {type(img)}")
        values = None if isinstance(self.value, str) else (
            [self.value] if isinstance(self.value, numbers.Number) else list(self.value))
        if values is not None and len(values) not in (1, c):
            raise ValueError(f"RandomErasing: value should be a single number or a sequence with "
                             f"length equals to image's channel ({c}), but got {len(values)} values")
        flat = F._is_numpy_image(img) and img.ndim == 2  # an HW array: the patch has no channel axis
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            area = g.uniform(*self.scale) * h * w
            aspect = math.exp(g.uniform(*log_ratio))
            eh = int(round(math.sqrt(area * aspect)))
            ew = int(round(math.sqrt(area / aspect)))
            if eh >= h or ew >= w:
                continue
            if F._is_tensor_image(img):
                import oar
                if values is None:
                    v = oar.to_tensor(g.standard_normal((c, eh, ew)).astype(np.float32)).astype(img.dtype)
                else:
                    v = oar.to_tensor(np.asarray(values, dtype=np.float32)[:, None, None]).astype(img.dtype)
            elif values is None:
                v = g.standard_normal((eh, ew, c)) * 255
            else:
                v = np.array(values)[None, None, :]
            if flat:
                v = v[..., 0]
            return int(g.integers(0, h - eh + 1)), int(g.integers(0, w - ew + 1)), eh, ew, v
        return None

    def _apply_image(self, img):
        g = _random.generator()
        if g.random() >= self.prob:
            return img
        box = self._get_param(img, g)
        if box is None:  # no box fitted in ten tries: leave the image as it is
            return img
        return F.erase(img, *box, self.inplace)
