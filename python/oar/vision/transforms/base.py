"""BaseTransform and Compose, as paddle.vision.transforms.

A transform is called on one input or on a tuple of inputs; `keys` names what each tuple item is
('image', 'coords', 'boxes', 'mask') and picks the matching `_apply_<key>` method. Items beyond the
keys pass through unchanged. Random parameters are drawn once per call in `_get_params`, so an
image and its mask get the same crop.
"""
from collections.abc import Sequence


class BaseTransform:
    """Base class of the image transforms.

    A transform is called on one image, or on a tuple of inputs whose kinds ``keys`` names: each
    item goes to the subclass's ``_apply_<key>`` method (``_apply_image``, ``_apply_boxes``,
    ``_apply_mask``, ...) and items past the keys pass through. Random parameters are drawn once
    per call (in ``_get_params``), so an image and its mask get the same random crop.

    Args:
        keys (list|tuple, optional): What each item of a tuple input is ('image', 'coords',
            'boxes', 'mask'); None means a single image. Default: None.

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> class Invert(oar.vision.transforms.BaseTransform):
        ...     def _apply_image(self, img):
        ...         return 255 - img
        >>> print(Invert()(np.array([[0, 100]], dtype="uint8")))
        [[255 155]]
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError(f"{type(self).__name__}: keys should be a sequence, but got keys={keys!r}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{type(self).__name__}: {k} is unsupported data structure")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        return None

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = [self._get_apply(key)(item) for key, item in zip(self.keys, inputs)]
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_image")

    def _apply_boxes(self, boxes):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_boxes")

    def _apply_mask(self, mask):
        raise NotImplementedError(f"{type(self).__name__} does not define _apply_mask")


class Compose:
    """Chains transforms: each is applied to the previous one's output, in order. An error names
    the transform that raised it.

    Args:
        transforms (list): The transforms (callables).

    Examples:
        >>> import numpy as np
        >>> import oar
        >>> T = oar.vision.transforms
        >>> transform = T.Compose([T.Resize(2), T.ToTensor()])
        >>> print(transform(np.zeros((4, 4, 3), dtype="uint8")).shape)
        [3, 2, 2]
    """

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for t in self.transforms:
            try:
                data = t(data)
            except Exception as e:
                e.add_note(f"(raised by transform {t!r} in Compose)")
                raise
        return data

    def __repr__(self):
        return type(self).__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms) + "\n)"
