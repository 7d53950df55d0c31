"""MNIST and FashionMNIST from their IDX files (gzip'ed, as distributed), as paddle.vision.datasets.

IDX: a big-endian header (magic 0x00000803 for images with count, rows, cols; 0x00000801 for labels
with count) followed by one unsigned byte per pixel or label.
"""
import gzip
import struct
import zlib

import numpy as np

from . import _files
from ._image_dataset import ImageDataset, default_dtype_name

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


def _read_idx(dataset, path, kind, magic, ndim):
    """(bytes, header size, the header's ndim sizes) of a gzip'ed IDX `kind` file ('image' or
    'label'), its header checked to be complete and to carry `magic`."""
    buf = _read_gzip(dataset, path)
    header = 4 * (1 + ndim)
    if len(buf) < header:
        raise ValueError(f"{dataset}: {path!r} is too short for an IDX {kind} header "
                         f"({len(buf)} bytes, expected at least {header})")
    found, *sizes = struct.unpack_from(">" + "I" * (1 + ndim), buf, 0)
    if found != magic:
        raise ValueError(f"{dataset}: {path!r} has magic number {found:#010x}, expected "
                         f"{magic:#010x} for an IDX {kind} file")
    return buf, header, sizes


def read_idx_images(dataset, path):
    """uint8 array [n, rows, cols] from a gzip'ed IDX image file."""
    buf, header, (n, rows, cols) = _read_idx(dataset, path, "image", _IMAGE_MAGIC, 3)
    expected = header + n * rows * cols
    if len(buf) != expected:
        raise ValueError(f"{dataset}: {path!r} holds {len(buf)} bytes, expected {expected} for "
                         f"{n} images of {rows}x{cols}")
    return np.frombuffer(buf, dtype=np.uint8, offset=header).reshape(n, rows, cols)


def read_idx_labels(dataset, path):
    """uint8 array [n] from a gzip'ed IDX label file."""
    buf, header, (n,) = _read_idx(dataset, path, "label", _LABEL_MAGIC, 1)
    if len(buf) != header + n:
        raise ValueError(f"{dataset}: {path!r} holds {len(buf)} bytes, expected {header + n} for "
                         f"{n} labels")
    return np.frombuffer(buf, dtype=np.uint8, offset=header)


class MNIST(ImageDataset):
    """Items are (image, label): image a PIL 'L' image (backend 'pil') or a float32 HW array
    (backend 'cv2'), after `transform`; label an int64 array of shape [1]."""
    NAME = "mnist"
    URL = "https://dataset.bj.bcebos.com/mnist/"
    FILES = {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
             "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}
    CV2_INPUT_DTYPE = np.float32

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        cls = type(self).__name__
        self.mode = _files.check_mode(cls, mode)
        self.backend = _files.check_backend(cls, backend)
        image_name, label_name = self.FILES[self.mode]
        self.image_path = _files.given_or_default(cls, "image_path", image_path, download,
                                                  self.NAME, image_name)
        self.label_path = _files.given_or_default(cls, "label_path", label_path, download,
                                                  self.NAME, label_name)
        for path in (self.image_path, self.label_path):
            _files.require_file(cls, path, (image_name, label_name),
                                _files.folder_path(self.NAME), self.URL)
        self.transform = transform
        images = read_idx_images(cls, self.image_path)
        labels = read_idx_labels(cls, self.label_path)
        if len(images) != len(labels):
            raise ValueError(f"{cls}: {self.image_path!r} holds {len(images)} images but "
                             f"{self.label_path!r} holds {len(labels)} labels")
        self.images = images
        self.labels = labels.astype(np.int64).reshape(-1, 1)
        self.dtype = default_dtype_name()

    def _stored_item(self, idx):
        return self.images[idx], self.labels[idx].copy()  # uint8 HW (a PIL 'L' image), label [1]


class FashionMNIST(MNIST):
    """The Fashion-MNIST dataset: 28x28 grayscale images of clothing in 10 classes, 60000 for
    training and 10000 for testing, in MNIST's idx format. Items are (image, label): image a PIL 'L'
    image (backend 'pil') or a float32 HW array (backend 'cv2'), after transform; label an int64
    array
    of shape [1].

    Args:
        image_path (str, optional): Path of the images file (train-images-idx3-ubyte.gz or
            t10k-images-idx3-ubyte.gz). Default: None.
        label_path (str, optional): Path of the labels file. Default: None.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        transform (callable, optional): Applied to each image. Default: None.
        download (bool, optional): Allow leaving the file path out: the file is then read from
            Paddle's cache directory (oar itself never downloads; a missing file raises
            FileNotFoundError). Default: True.
        backend (str, optional): 'pil' or 'cv2'; None means get_image_backend(). Default: None.
    """

    NAME = "fashion-mnist"
    URL = "https://dataset.bj.bcebos.com/fashion_mnist/"
