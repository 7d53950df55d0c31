"""MNIST and FashionMNIST from their IDX files (gzip'ed, as distributed), as paddle.vision.datasets.

IDX: a big-endian header (magic 0x00000803 for images with count, rows, cols; 0x00000801 for labels
with count) followed by one unsigned byte per pixel or label.
"""
import gzip
import os
import struct
import zlib

import numpy as np

from ...io import Dataset
from . import _files

_IMAGE_MAGIC = 2051
_LABEL_MAGIC = 2049


def _read_gzip(dataset, path):
    try:
        with gzip.open(path, "rb") as f:
            return f.read()
    except (OSError, EOFError, zlib.error) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise ValueError(f"{dataset}: {path!r} is not a readable gzip file ({e})") from e


def read_idx_images(dataset, path):
    """uint8 array [n, rows, cols] from a gzip'ed IDX image file."""
    buf = _read_gzip(dataset, path)
    if len(buf) < 16:
        raise ValueError(f"{dataset}: {path!r} is too short for an IDX image header "
                         f"({len(buf)} bytes, expected at least 16)")
    magic, n, rows, cols = struct.unpack_from(">IIII", buf, 0)
    if magic != _IMAGE_MAGIC:
        raise ValueError(f"{dataset}: {path!r} has magic number {magic:#010x}, expected "
                         f"{_IMAGE_MAGIC:#010x} for an IDX image file")
    expected = 16 + n * rows * cols
    if len(buf) != expected:
        raise ValueError(f"{dataset}: {path!r} holds {len(buf)} bytes, expected {expected} for "
                         f"{n} images of {rows}x{cols}")
    return np.frombuffer(buf, dtype=np.uint8, offset=16).reshape(n, rows, cols)


def read_idx_labels(dataset, path):
    """uint8 array [n] from a gzip'ed IDX label file."""
    buf = _read_gzip(dataset, path)
    if len(buf) < 8:
        raise ValueError(f"{dataset}: {path!r} is too short for an IDX label header "
                         f"({len(buf)} bytes, expected at least 8)")
    magic, n = struct.unpack_from(">II", buf, 0)
    if magic != _LABEL_MAGIC:
        raise ValueError(f"{dataset}: {path!r} has magic number {magic:#010x}, expected "
                         f"{_LABEL_MAGIC:#010x} for an IDX label file")
    if len(buf) != 8 + n:
        raise ValueError(f"{dataset}: {path!r} holds {len(buf)} bytes, expected {8 + n} for {n} labels")
    return np.frombuffer(buf, dtype=np.uint8, offset=8)


class MNIST(Dataset):
    """Items are (image, label): image a PIL 'L' image (backend 'pil') or a float32 HW array
    (backend 'cv2'), after `transform`; label an int64 array of shape [1]."""
    NAME = "mnist"
    URL = "https://dataset.bj.bcebos.com/mnist/"
    FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
             "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        cls = type(self).__name__
        self.mode = _files.check_mode(cls, mode)
        self.backend = _files.check_backend(cls, backend)
        image_name, label_name = self.FILES[self.mode]
        where = os.path.join(_files.data_home(), self.NAME)
        if (image_path is None or label_path is None) and not download:
            missing, name = ("image_path", image_name) if image_path is None else ("label_path", label_name)
            raise ValueError(f"{cls}: {missing} is not set and downloading automatically is disabled "
                             f"(download=False); pass the path of {name}")
        self.image_path = image_path or _files.default_path(self.NAME, image_name)
        self.label_path = label_path or _files.default_path(self.NAME, label_name)
        for path in (self.image_path, self.label_path):
            _files.require_file(cls, path, (image_name, label_name), where, self.URL)
        self.transform = transform
        images = read_idx_images(cls, self.image_path)
        labels = read_idx_labels(cls, self.label_path)
        if len(images) != len(labels):
            raise ValueError(f"{cls}: {self.image_path!r} holds {len(images)} images but "
                             f"{self.label_path!r} holds {len(labels)} labels")
        self.images = images
        self.labels = labels.astype(np.int64).reshape(-1, 1)
        from ...framework.dtype import get_default_dtype
        self.dtype = str(get_default_dtype()).replace("paddle.", "")

    def __getitem__(self, idx):
        image = self.images[idx]
        label = self.labels[idx].copy()
        if self.backend == "pil":
            from PIL import Image
            image = Image.fromarray(np.ascontiguousarray(image))  # uint8 HW -> mode L
        else:
            image = image.astype(np.float32)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    NAME = "fashion-mnist"
    URL = "https://dataset.bj.bcebos.com/fashion_mnist/"
