"""oar.vision.datasets, as paddle.vision.datasets (files are read locally; nothing is downloaded)."""
from .cifar import Cifar10, Cifar100  # noqa: F401
from .digits import Digits  # noqa: F401
from .flowers import VOC2012, Flowers  # noqa: F401
from .folder import DatasetFolder, ImageFolder  # noqa: F401
from .mnist import MNIST, FashionMNIST  # noqa: F401

__all__ = ["MNIST", "FashionMNIST", "Cifar10", "Cifar100", "Digits", "DatasetFolder", "ImageFolder",
           "Flowers", "VOC2012"]
