"""Imikolov (paddle.text.datasets.Imikolov): the Penn Treebank language-model data of Mikolov's
simple-examples.tgz (./simple-examples/data/ptb.{train,valid,test}.txt), as n-grams or as
(source, target) sequences."""
from __future__ import annotations

import collections

import numpy as np

from ...framework.dataset_files import resolve
from ...io.dataset import Dataset
from ._archives import open_tar, tar_member

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
MD5 = "30177ea32e27c525793142b6bf2c8e2d"
_DATA = "./simple-examples/data/ptb.{}.txt"


class Imikolov(Dataset):
    """The PTB language-model dataset. Items are, for data_type 'NGRAM', window_size word ids
    (each an int64 array of shape []) of a sentence framed by <s> and <e>; for 'SEQ', (src, trg):
    the sentence's ids after <s>, and the same ids before <e> (sentences longer than window_size
    - 1 words left out when window_size > 0).

    The vocabulary (word_idx) holds the words of ptb.train.txt and ptb.valid.txt seen more than
    min_word_freq times (bytes keys; '<s>' and '<e>' count once a line), most frequent first, then
    '<unk>'. mode 'train' reads ptb.train.txt, 'test' ptb.test.txt.

    oar does not download: data_file, or imikolov%2Fsimple-examples.tgz in Paddle's cache
    directory (~/.cache/paddle/dataset/imikolov/), must exist; otherwise FileNotFoundError.

    Args:
        data_file (str, optional): The path of simple-examples.tgz. Default: None (the cache).
        data_type (str, optional): 'NGRAM' or 'SEQ'. Default: 'NGRAM'.
        window_size (int, optional): The n of the n-grams (required for 'NGRAM'), or the longest
            src of 'SEQ' (-1: no limit). Default: -1.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        min_word_freq (int, optional): Words seen at most this often are <unk>. Default: 50.
        download (bool, optional): Allow data_file to be left out (oar then reads the cache).
            Default: True.

    Examples:
        >>> import io, os, tarfile, tempfile
        >>> import oar
        >>> texts = {'train': b'the cat sat\\nthe dog the\\n', 'valid': b'the cat\\n', 'test': b'a cat\\n'}
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'simple-examples.tgz')
        ...     with tarfile.open(path, 'w:gz') as tar:
        ...         for part, text in texts.items():
        ...             info = tarfile.TarInfo(f'./simple-examples/data/ptb.{part}.txt')
        ...             info.size = len(text)
        ...             tar.addfile(info, io.BytesIO(text))
        ...     ngrams = oar.text.datasets.Imikolov(path, 'NGRAM', window_size=2, min_word_freq=0)
        ...     seqs = oar.text.datasets.Imikolov(path, 'SEQ', mode='test', min_word_freq=1)
        >>> print(ngrams.word_idx)
        {b'the': 0, '<e>': 1, '<s>': 2, b'cat': 3, b'dog': 4, b'sat': 5, '<unk>': 6}
        >>> print([tuple(int(i) for i in item) for item in ngrams][:4])
        [(2, 0), (0, 3), (3, 5), (5, 1)]
        >>> src, trg = seqs[0]
        >>> print(src, trg)
        [2 4 3] [4 3 1]
    """

    def __init__(self, data_file=None, data_type="NGRAM", window_size=-1, mode="train", min_word_freq=50,
                 download=True):
        if not isinstance(data_type, str) or data_type.upper() not in ("NGRAM", "SEQ"):
            raise AssertionError(f"data type should be 'NGRAM', 'SEQ', but got {data_type}")
        self.data_type = data_type.upper()
        if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode should be 'train', 'test', but got {mode}")
        self.mode = mode.lower()
        self.window_size = window_size
        self.min_word_freq = min_word_freq
        self.data_file = resolve("Imikolov", "data_file", data_file, download, "imikolov", URL)
        self.word_idx = self._build_work_dict(min_word_freq)  # Paddle's name
        self._load_anno()

    @staticmethod
    def word_count(f, word_freq=None):
        """Adds the words of the lines of f (and <s>, <e> once a line) to word_freq."""
        if word_freq is None:
            word_freq = collections.defaultdict(int)
        for line in f:
            for w in line.strip().split():
                word_freq[w] += 1
            word_freq["<s>"] += 1
            word_freq["<e>"] += 1
        return word_freq

    def _build_work_dict(self, cutoff):
        with open_tar("Imikolov", self.data_file) as tar:
            freq = self.word_count(tar_member("Imikolov", tar, _DATA.format("train")))
            freq = self.word_count(tar_member("Imikolov", tar, _DATA.format("valid")), freq)
        # Paddle drops the str '<unk>' here, to put it last; the corpus' own b'<unk>' tokens stay
        # a word of the vocabulary, as in Paddle (the ids are Paddle's)
        freq.pop("<unk>", None)
        kept = [(w, c) for w, c in freq.items() if c > cutoff]
        # most frequent first, ties by the word; the str markers sort after bytes words of equal
        # count (Paddle compares them directly, which raises TypeError)
        kept.sort(key=lambda x: (-x[1], isinstance(x[0], str), x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)
        return word_idx

    def _load_anno(self):
        unk = self.word_idx["<unk>"]
        self.data = []
        with open_tar("Imikolov", self.data_file) as tar:
            for line in tar_member("Imikolov", tar, _DATA.format(self.mode)):
                if self.data_type == "NGRAM":
                    if not self.window_size > -1:
                        raise AssertionError("Invalid gram length")
                    words = ["<s>", *line.strip().split(), "<e>"]
                    if len(words) >= self.window_size:
                        ids = [self.word_idx.get(w, unk) for w in words]
                        for i in range(self.window_size, len(ids) + 1):
                            self.data.append(tuple(ids[i - self.window_size:i]))
                else:
                    ids = [self.word_idx.get(w, unk) for w in line.strip().split()]
                    src, trg = [self.word_idx["<s>"], *ids], [*ids, self.word_idx["<e>"]]
                    if self.window_size > 0 and len(src) > self.window_size:
                        continue
                    self.data.append((src, trg))

    def __getitem__(self, idx):
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self):
        return len(self.data)
