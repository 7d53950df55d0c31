"""oar.vision.transforms.transforms: the module path of Paddle's transform classes
(`from paddle.vision.transforms.transforms import Compose`). oar defines them in base, color,
conversion, erasing and geometry; this module names them all in one place, with the functional
module as F, as Paddle's does."""
from . import functional as F  # noqa: F401
from .base import BaseTransform, Compose  # noqa: F401
from .color import (  # noqa: F401
    BrightnessTransform, ColorJitter, ContrastTransform, HueTransform, SaturationTransform)
from .conversion import Grayscale, Normalize, ToTensor, Transpose  # noqa: F401
from .erasing import RandomErasing  # noqa: F401
from .geometry import (  # noqa: F401
    CenterCrop, Pad, RandomAffine, RandomCrop, RandomHorizontalFlip, RandomPerspective,
    RandomResizedCrop, RandomRotation, RandomVerticalFlip, Resize)

__all__ = []  # as Paddle's: the public names are oar.vision.transforms'
