"""oar.vision.transforms, as paddle.vision.transforms."""
from . import functional  # noqa: F401
from .base import BaseTransform, Compose  # noqa: F401
from .color import (  # noqa: F401
    BrightnessTransform, ColorJitter, ContrastTransform, HueTransform, SaturationTransform)
from .conversion import Grayscale, Normalize, ToTensor, Transpose  # noqa: F401
from .erasing import RandomErasing  # noqa: F401
from .functional import (  # noqa: F401
    adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, center_crop, crop, erase,
    hflip, normalize, pad, resize, rotate, to_grayscale, to_tensor, vflip, affine, perspective)
from .geometry import (  # noqa: F401
    CenterCrop, Pad, RandomAffine, RandomCrop, RandomHorizontalFlip, RandomPerspective,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize)

__all__ = ["BaseTransform", "Compose", "Resize", "RandomResizedCrop", "CenterCrop",
           "RandomHorizontalFlip", "RandomVerticalFlip", "Transpose", "Normalize",
           "BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform",
           "ColorJitter", "RandomCrop", "Pad", "RandomRotation", "Grayscale", "ToTensor",
           "RandomErasing", "to_tensor", "hflip", "vflip", "resize", "pad", "rotate",
           "to_grayscale", "crop", "center_crop", "adjust_brightness", "adjust_contrast",
           "adjust_hue", "normalize", "erase", "affine", "perspective", "RandomAffine",
           "RandomPerspective"]
