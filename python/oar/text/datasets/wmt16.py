"""WMT16 (paddle.text.datasets.WMT16): the English-German Multi30k data of WMT'16, from
wmt16.tar.gz (wmt16/train, wmt16/test, wmt16/val: tab-separated English and German sentences)."""
from __future__ import annotations

import collections

import numpy as np

from ...framework.dataset_files import resolve
from ...io.dataset import Dataset
from ._archives import open_tar, tar_member

DATA_URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
DATA_MD5 = "0c38be43600334966403524a40dcd81e"
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"


class WMT16(Dataset):
    """The WMT16 Multi30k translation dataset: items are (src_ids, trg_ids, trg_ids_next), int64
    arrays: the source sentence framed by <s> and <e>, the target after <s>, and the target
    followed by <e>.

    Each language's dictionary is <s>, <e>, <unk> (ids 0, 1, 2) and then the words of that
    language's side of wmt16/train, most frequent first (ties in order of first appearance), up
    to dict_size entries. It is built in memory from the archive.

    oar does not download: data_file, or wmt16.tar.gz in Paddle's cache directory
    (~/.cache/paddle/dataset/wmt16/), must exist; otherwise FileNotFoundError names it.

    Args:
        data_file (str, optional): The path of wmt16.tar.gz. Default: None (the cache).
        mode (str, optional): 'train', 'test' or 'val'. Default: 'train'.
        src_dict_size (int, optional): The source dictionary's size; must be set. Default: -1.
        trg_dict_size (int, optional): The target dictionary's size; must be set. Default: -1.
        lang (str, optional): The source language, 'en' or 'de'. Default: 'en'.
        download (bool, optional): Allow data_file to be left out (oar then reads the cache).
            Default: True.

    Examples:
        >>> import io, os, tarfile, tempfile
        >>> import oar
        >>> pairs = b'a dog runs\\tein hund rennt\\na dog\\tein hund\\n'
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'wmt16.tar.gz')
        ...     with tarfile.open(path, 'w:gz') as tar:
        ...         for part in ('train', 'test', 'val'):
        ...             info = tarfile.TarInfo(f'wmt16/{part}')
        ...             info.size = len(pairs)
        ...             tar.addfile(info, io.BytesIO(pairs))
        ...     wmt16 = oar.text.datasets.WMT16(data_file=path, mode='train', src_dict_size=5, trg_dict_size=6)
        >>> print(wmt16.get_dict('en'))
        {'<s>': 0, '<e>': 1, '<unk>': 2, 'a': 3, 'dog': 4}
        >>> src, trg, trg_next = wmt16[0]
        >>> print(src, trg, trg_next)
        [0 3 4 2 1] [0 3 4 5] [3 4 5 1]
    """

    def __init__(self, data_file=None, mode="train", src_dict_size=-1, trg_dict_size=-1, lang="en",
                 download=True):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test", "val"):
            raise AssertionError(f"mode should be 'train', 'test' or 'val', but got {mode}")
        if lang not in ("en", "de"):
            raise AssertionError(f"lang should be 'en' or 'de', but got {lang}")
        if not src_dict_size > 0 or not trg_dict_size > 0:
            raise AssertionError("dict_size should be set as positive number")
        self.mode = mode.lower()
        self.lang = lang
        self.data_file = resolve("WMT16", "data_file", data_file, download, "wmt16", DATA_URL)
        self.src_dict_size = min(src_dict_size, TOTAL_EN_WORDS if lang == "en" else TOTAL_DE_WORDS)
        self.trg_dict_size = min(trg_dict_size, TOTAL_DE_WORDS if lang == "en" else TOTAL_EN_WORDS)
        self._dicts = {lang: self._build_dict(lang, self.src_dict_size),
                       self._other(lang): self._build_dict(self._other(lang), self.trg_dict_size)}
        self.src_dict, self.trg_dict = self._dicts[lang], self._dicts[self._other(lang)]
        self._load_data()

    @staticmethod
    def _other(lang):
        return "de" if lang == "en" else "en"

    def _pairs(self, part):
        with open_tar("WMT16", self.data_file) as tar:
            lines = tar_member("WMT16", tar, f"wmt16/{part}").read().decode().splitlines()
        pairs = (line.strip().split("\t") for line in lines)
        return [pair for pair in pairs if len(pair) == 2]

    def _build_dict(self, lang, dict_size):
        # counted on the language's own column (Paddle counts the source language's words for
        # both dictionaries)
        column = 0 if lang == "en" else 1
        counts = collections.Counter(w for pair in self._pairs("train") for w in pair[column].split())
        ranked = sorted(counts.items(), key=lambda x: x[1], reverse=True)  # stable: first seen first
        words = [START_MARK, END_MARK, UNK_MARK] + [w for w, _ in ranked][:max(dict_size - 3, 0)]
        return {w: i for i, w in enumerate(words)}

    def _load_data(self):
        start, end, unk = self.src_dict[START_MARK], self.src_dict[END_MARK], self.src_dict[UNK_MARK]
        src_col = 0 if self.lang == "en" else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for pair in self._pairs(self.mode):
            src = [self.src_dict.get(w, unk) for w in pair[src_col].split()]
            trg = [self.trg_dict.get(w, unk) for w in pair[1 - src_col].split()]
            self.src_ids.append([start, *src, end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def __getitem__(self, idx):
        return np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx])

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, lang, reverse=False):
        """The dictionary of one language.

        Args:
            lang (str): 'en' or 'de'.
            reverse (bool, optional): True gives id -> word instead of word -> id. Default: False.

        Returns:
            dict: The dictionary.
        """
        words = self._dicts[lang]
        return {i: w for w, i in words.items()} if reverse else dict(words)
