"""Cifar10 and Cifar100 from the python-version archives (cifar-10-python.tar.gz,
cifar-100-python.tar.gz), as paddle.vision.datasets.

Each archive member whose name contains the mode's flag ('data_batch'/'test_batch' for CIFAR-10,
'train'/'test' for CIFAR-100) is a pickled dict with b'data' (uint8 [n, 3072], CHW rows) and
b'labels' (CIFAR-10) or b'fine_labels' (CIFAR-100); members are read in sorted name order.
"""
import tarfile

import numpy as np

from ...framework import safe_pickle
from . import _files
from ._image_dataset import ImageDataset, default_dtype_name


class Cifar10(ImageDataset):
    """Items are (image, label): image a PIL RGB image (backend 'pil') or a float32 HWC array
    (backend 'cv2'), after `transform`; label an int64 array of shape [] (as Paddle)."""
    ARCHIVE = "cifar-10-python.tar.gz"
    URL = "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"
    FLAGS = {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        cls = type(self).__name__
        self.mode = _files.check_mode(cls, mode)
        self.backend = _files.check_backend(cls, backend)
        self.flag = self.FLAGS[self.mode]
        self.data_file = _files.given_or_default(cls, "data_file", data_file, download, "cifar",
                                                 self.ARCHIVE)
        _files.require_file(cls, self.data_file, (self.ARCHIVE,), _files.folder_path("cifar"),
                            self.URL)
        self.transform = transform
        self.images, self.labels = self._load(cls)
        self.dtype = default_dtype_name()

    def _load(self, cls):
        try:
            archive = tarfile.open(self.data_file, mode="r")
        except (tarfile.TarError, OSError, EOFError) as e:
            raise ValueError(f"{cls}: {self.data_file!r} is not a readable tar archive ({e})") from e
        images, labels = [], []
        with archive:
            names = sorted(m.name for m in archive.getmembers() if m.isfile() and self.flag in m.name)
            if not names:
                raise ValueError(f"{cls}: {self.data_file!r} holds no batch whose name contains "
                                 f"{self.flag!r}; is it {self.ARCHIVE}?")
            for name in names:
                try:
                    # refuses anything but containers and arrays: the archive may come from anywhere
                    batch = safe_pickle.load(archive.extractfile(name), encoding="bytes")
                except Exception as e:
                    raise ValueError(f"{cls}: member {name!r} of {self.data_file!r} is not a "
                                     f"readable pickled batch ({e})") from e
                data = batch.get(b"data") if isinstance(batch, dict) else None
                label = batch.get(b"labels", batch.get(b"fine_labels")) if isinstance(batch, dict) else None
                if data is None or label is None:
                    raise ValueError(f"{cls}: member {name!r} of {self.data_file!r} lacks b'data' "
                                     f"or b'labels'/b'fine_labels'")
                data = np.asarray(data, dtype=np.uint8)
                if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or len(data) != len(label):
                    raise ValueError(f"{cls}: member {name!r} of {self.data_file!r} has data of shape "
                                     f"{list(data.shape)} and {len(label)} labels; expected "
                                     f"[n, 3072] and n labels")
                images.append(data)
                labels.append(np.asarray(label, dtype=np.int64))
        return np.concatenate(images), np.concatenate(labels)

    def _stored_item(self, idx):
        # CHW rows -> HWC uint8; the label as an int64 array of shape [], as Paddle's
        return (self.images[idx].reshape(3, 32, 32).transpose(1, 2, 0),
                np.array(self.labels[idx], dtype=np.int64))


class Cifar100(Cifar10):
    """The CIFAR-100 dataset: 32x32 colour images in 100 classes, 50000 for training and 10000
    for testing, read from cifar-100-python.tar.gz. Items are (image, label): image a PIL RGB image
    (backend 'pil') or a float32 HWC array (backend 'cv2'), after transform; label an int64 array of
    shape [] (the fine label).

    Args:
        data_file (str, optional): Path of cifar-100-python.tar.gz. Default: None.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        transform (callable, optional): Applied to each image. Default: None.
        download (bool, optional): Allow leaving the file path out: the file is then read from
            Paddle's cache directory (oar itself never downloads; a missing file raises
            FileNotFoundError). Default: True.
        backend (str, optional): 'pil' or 'cv2'; None means get_image_backend(). Default: None.
    """

    ARCHIVE = "cifar-100-python.tar.gz"
    URL = "https://dataset.bj.bcebos.com/cifar/cifar-100-python.tar.gz"
    FLAGS = {"train": "train", "test": "test"}
