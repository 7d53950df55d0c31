"""Digits: the UCI handwritten digits (1797 images of 8x8, 10 classes), bundled with oar.

The data file (data/digits.csv.gz, from scikit-learn; see data/README.md) has one row per image:
64 pixel counts in 0..16 (row-major 8x8), then the class 0..9.

Split: stratified and fixed. Within each class, taken in file order, sample j (0-based) goes to the
test set when floor((j + 1) * test_ratio) > floor(j * test_ratio): every class sends
floor(n_class * test_ratio) samples to the test set, spread evenly along the file (the file is
ordered by writer, so this mixes writers into both sets). It depends on nothing but test_ratio.
"""
import gzip
import os

import numpy as np

from . import _files
from ._image_dataset import ImageDataset, default_dtype_name

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.csv.gz")
NUM_CLASSES = 10


def load_digits_array(path=DATA_FILE):
    """(pixels uint8 [1797, 8, 8] in 0..16, labels int64 [1797]) from the bundled file."""
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.int64)
    if table.ndim != 2 or table.shape[1] != 65:
        raise ValueError(f"Digits: {path!r} should hold rows of 65 integers, but has shape "
                         f"{list(table.shape)}")
    return table[:, :64].astype(np.uint8).reshape(-1, 8, 8), table[:, 64]


def split_indices(labels, test_ratio):
    """(train indices, test indices), each in file order; see the module docstring for the rule."""
    test = np.zeros(len(labels), dtype=bool)
    for c in np.unique(labels):
        where = np.flatnonzero(labels == c)
        j = np.arange(len(where))
        test[where] = np.floor((j + 1) * test_ratio) > np.floor(j * test_ratio)
    return np.flatnonzero(~test), np.flatnonzero(test)


class Digits(ImageDataset):
    """Items are (image, label) as MNIST's: the 8x8 image scaled from 0..16 to 0..255 uint8
    (round(v * 255 / 16), halves up), as a PIL 'L' image (backend 'pil') or a float32 HW array
    (backend 'cv2'), after `transform`; label an int64 array of shape [1]."""
    CV2_INPUT_DTYPE = np.float32

    def __init__(self, mode="train", transform=None, backend=None, test_ratio=0.2):
        self.mode = _files.check_mode("Digits", mode)
        self.backend = _files.check_backend("Digits", backend)
        if isinstance(test_ratio, bool) or not isinstance(test_ratio, (int, float)) or \
                not 0.0 < test_ratio < 1.0:
            raise ValueError(f"Digits: test_ratio should be a number in (0, 1), but got {test_ratio!r}")
        self.test_ratio = float(test_ratio)
        self.transform = transform
        pixels, labels = load_digits_array()
        train, test = split_indices(labels, self.test_ratio)
        keep = train if self.mode == "train" else test
        scaled = (pixels[keep].astype(np.int32) * 255 + 8) // 16
        self.images = scaled.astype(np.uint8)
        self.labels = labels[keep].astype(np.int64).reshape(-1, 1)
        self.dtype = default_dtype_name()

    def _stored_item(self, idx):
        return self.images[idx], self.labels[idx].copy()
