"""Imdb (paddle.text.datasets.Imdb): movie reviews labelled positive or negative, from the
aclImdb_v1.tar.gz archive (aclImdb/{train,test}/{pos,neg}/*.txt)."""
from __future__ import annotations

import collections
import re
import string

import numpy as np

from ...framework.dataset_files import resolve
from ...io.dataset import Dataset
from ._archives import open_tar

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
MD5 = "7c2ac02c03563afcf9b574c7e56c153a"
_PUNCTUATION = string.punctuation.encode("latin-1")


class Imdb(Dataset):
    """The IMDB sentiment dataset: items are (doc, label), doc an int64 array of word ids and label
    [0] for a positive review, [1] for a negative one (Paddle's labels).

    Reviews are lower-cased, stripped of punctuation and split on whitespace (as bytes); the
    vocabulary (word_idx, bytes keys, plus '<unk>' last) holds the words of all four parts seen
    more than cutoff times, most frequent first. The positive reviews come first, in archive order.

    oar does not download: data_file, or imdb%2FaclImdb_v1.tar.gz in Paddle's cache directory
    (~/.cache/paddle/dataset/imdb/), must exist; otherwise FileNotFoundError names it.

    Args:
        data_file (str, optional): The path of aclImdb_v1.tar.gz. Default: None (the cache).
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        cutoff (int, optional): Words seen at most this often are <unk>. Default: 150.
        download (bool, optional): Allow data_file to be left out (oar then reads the cache).
            Default: True.

    Examples:
        >>> import io, os, tarfile, tempfile
        >>> import oar
        >>> reviews = {'aclImdb/train/pos/0.txt': b'A great movie!', 'aclImdb/train/neg/1.txt': b'A dull movie.',
        ...            'aclImdb/test/pos/2.txt': b'Great.'}
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'aclImdb_v1.tar.gz')
        ...     with tarfile.open(path, 'w:gz') as tar:
        ...         for name, text in reviews.items():
        ...             info = tarfile.TarInfo(name)
        ...             info.size = len(text)
        ...             tar.addfile(info, io.BytesIO(text))
        ...     imdb = oar.text.datasets.Imdb(data_file=path, mode='train', cutoff=1)
        >>> print(imdb.word_idx)
        {b'a': 0, b'great': 1, b'movie': 2, '<unk>': 3}
        >>> for doc, label in imdb:
        ...     print(doc, label)
        [0 1 2] [0]
        [0 3 2] [1]
    """

    def __init__(self, data_file=None, mode="train", cutoff=150, download=True):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode should be 'train', 'test', but got {mode}")
        self.mode = mode.lower()
        self.data_file = resolve("Imdb", "data_file", data_file, download, "imdb", URL)
        self.word_idx = self._build_work_dict(cutoff)  # Paddle's name
        self._load_anno()

    def _tokenize(self, pattern):
        docs = []
        with open_tar("Imdb", self.data_file) as tar:
            for member in tar:
                if pattern.match(member.name):
                    text = tar.extractfile(member).read().rstrip(b"\n\r")
                    docs.append(text.translate(None, _PUNCTUATION).lower().split())
        return docs

    def _build_work_dict(self, cutoff):
        freq = collections.defaultdict(int)
        for doc in self._tokenize(re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$")):
            for word in doc:
                freq[word] += 1
        kept = sorted(((w, c) for w, c in freq.items() if c > cutoff), key=lambda x: (-x[1], x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _load_anno(self):
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for label, polarity in ((0, "pos"), (1, "neg")):
            for doc in self._tokenize(re.compile(rf"aclImdb/{self.mode}/{polarity}/.*\.txt$")):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    def __getitem__(self, idx):
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self):
        return len(self.docs)
