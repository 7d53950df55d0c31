"""UCIHousing (paddle.text.datasets.UCIHousing): the Boston housing data, 13 features and the
median value of 506 districts, from housing.data (whitespace-separated numbers, 14 a row)."""
from __future__ import annotations

import numpy as np

from ...framework.dataset_files import resolve
from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
MD5 = "d4accdce7a25600298819f8e28e8d593"
feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B",
                 "LSTAT"]
_COLUMNS = 14  # 13 features and the target


class UCIHousing(Dataset):
    """The UCI housing dataset: items are (features, target), float arrays of shape [13] and [1]
    in the default dtype. Each feature is centred on its mean and divided by its range (over the
    whole file); the first 80% of the rows are the training set, the rest the test set.

    oar does not download: data_file, or housing.data in Paddle's cache directory
    (~/.cache/paddle/dataset/uci_housing/), must exist; otherwise FileNotFoundError names it.

    Args:
        data_file (str, optional): The path of housing.data. Default: None (the cache).
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        download (bool, optional): Allow data_file to be left out (oar then reads the cache;
            it never downloads). Default: True.

    Examples:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import oar
        >>> rows = np.arange(5 * 14, dtype='float64').reshape(5, 14)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'housing.data')
        ...     np.savetxt(path, rows, fmt='%.1f')
        ...     train = oar.text.datasets.UCIHousing(data_file=path, mode='train')
        ...     test = oar.text.datasets.UCIHousing(data_file=path, mode='test')
        >>> features, target = train[0]
        >>> print(len(train), len(test), features.shape, features.dtype, target)
        4 1 (13,) float32 [13.]
        >>> print(features[:3])
        [-0.5 -0.5 -0.5]
    """

    def __init__(self, data_file=None, mode="train", download=True):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode should be 'train' or 'test', but got {mode}")
        self.mode = mode.lower()
        self.data_file = resolve("UCIHousing", "data_file", data_file, download, "uci_housing", URL)
        self._load_data()
        self.dtype = get_default_dtype()

    def _load_data(self, feature_num=_COLUMNS, ratio=0.8):
        data = np.fromfile(self.data_file, sep=" ")
        if data.size == 0 or data.size % feature_num:
            raise ValueError(f"UCIHousing: {self.data_file!r} should hold rows of {feature_num} numbers, "
                             f"but holds {data.size} numbers")
        data = data.reshape(-1, feature_num)
        maximums, minimums, avgs = data.max(axis=0), data.min(axis=0), data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - avgs[i]) / (maximums[i] - minimums[i])
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)
