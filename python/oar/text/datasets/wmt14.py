"""WMT14 (paddle.text.datasets.WMT14): a French-English subset of the WMT'14 translation data,
from wmt14.tgz (members ending in src.dict, trg.dict, and <mode>/<mode>: tab-separated pairs)."""
from __future__ import annotations

import numpy as np

from ...framework.dataset_files import resolve
from ...io.dataset import Dataset
from ._archives import open_tar

URL_DEV_TEST = "http://www-lium.univ-lemans.fr/~schwenk/cslm_joint_paper/data/dev+test.tgz"
MD5_DEV_TEST = "7d7897317ddd8ba0ae5c5fa7248d3ff5"
URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
MD5_TRAIN = "0791583d57d5beb693b9414c5b36798c"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2
_MAX_LENGTH = 80  # longer pairs are left out, as Paddle does


class WMT14(Dataset):
    """The WMT14 French-to-English dataset: items are (src_ids, trg_ids, trg_ids_next), int64
    arrays: the source sentence framed by <s> and <e>, the target after <s>, and the target
    followed by <e> (pairs with more than 80 ids on either side are left out).

    The dictionaries are the first dict_size lines of the archive's src.dict and trg.dict (word
    per line; unknown words get id 2, <unk>).

    oar does not download: data_file, or wmt14.tgz in Paddle's cache directory
    (~/.cache/paddle/dataset/wmt14/), must exist; otherwise FileNotFoundError names it.

    Args:
        data_file (str, optional): The path of wmt14.tgz. Default: None (the cache).
        mode (str, optional): 'train', 'test' or 'gen'. Default: 'train'.
        dict_size (int, optional): The dictionaries' size; must be set (positive). Default: -1.
        download (bool, optional): Allow data_file to be left out (oar then reads the cache).
            Default: True.

    Examples:
        >>> import io, os, tarfile, tempfile
        >>> import oar
        >>> files = {'wmt14/src.dict': b'<s>\\n<e>\\n<unk>\\nle\\nchat\\n',
        ...          'wmt14/trg.dict': b'<s>\\n<e>\\n<unk>\\nthe\\ncat\\n',
        ...          'wmt14/train/train': b'le chat\\tthe cat\\nle chien\\tthe dog\\n'}
        >>> with tempfile.TemporaryDirectory() as d:
        ...     path = os.path.join(d, 'wmt14.tgz')
        ...     with tarfile.open(path, 'w:gz') as tar:
        ...         for name, text in files.items():
        ...             info = tarfile.TarInfo(name)
        ...             info.size = len(text)
        ...             tar.addfile(info, io.BytesIO(text))
        ...     wmt14 = oar.text.datasets.WMT14(data_file=path, mode='train', dict_size=5)
        >>> for src, trg, trg_next in wmt14:
        ...     print(src, trg, trg_next)
        [0 3 4 1] [0 3 4] [3 4 1]
        [0 3 2 1] [0 3 2] [3 2 1]
        >>> print(wmt14.get_dict(reverse=True)[1][4])
        cat
    """

    def __init__(self, data_file=None, mode="train", dict_size=-1, download=True):
        if not isinstance(mode, str) or mode.lower() not in ("train", "test", "gen"):
            raise AssertionError(f"mode should be 'train', 'test' or 'gen', but got {mode}")
        self.mode = mode.lower()
        if not dict_size > 0:
            raise AssertionError("dict_size should be set as positive number")
        self.dict_size = dict_size
        self.data_file = resolve("WMT14", "data_file", data_file, download, "wmt14", URL_TRAIN)
        self._load_data()

    def _member(self, tar, suffix):
        names = [m.name for m in tar if m.name.endswith(suffix)]
        if len(names) != 1:
            raise ValueError(f"WMT14: {self.data_file!r} should hold one member ending in {suffix!r}, "
                             f"but holds {len(names)}")
        return tar.extractfile(names[0])

    def _load_data(self):
        def first_lines(f, size):
            words = {}
            for count, line in enumerate(f):
                if count >= size:
                    break
                words[line.strip().decode()] = count
            return words

        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        with open_tar("WMT14", self.data_file) as tar:
            self.src_dict = first_lines(self._member(tar, "src.dict"), self.dict_size)
            self.trg_dict = first_lines(self._member(tar, "trg.dict"), self.dict_size)
            suffix = f"{self.mode}/{self.mode}"
            for name in [m.name for m in tar if m.name.endswith(suffix)]:
                for line in tar.extractfile(name):
                    pair = line.decode().strip().split("\t")
                    if len(pair) != 2:
                        continue
                    src = [self.src_dict.get(w, UNK_IDX) for w in [START, *pair[0].split(), END]]
                    trg = [self.trg_dict.get(w, UNK_IDX) for w in pair[1].split()]
                    if len(src) > _MAX_LENGTH or len(trg) > _MAX_LENGTH:
                        continue
                    self.src_ids.append(src)
                    self.trg_ids.append([self.trg_dict[START], *trg])
                    self.trg_ids_next.append([*trg, self.trg_dict[END]])

    def __getitem__(self, idx):
        return np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]), np.array(self.trg_ids_next[idx])

    def __len__(self):
        return len(self.src_ids)

    def get_dict(self, reverse=False):
        """The source and target dictionaries.

        Args:
            reverse (bool, optional): True gives id -> word instead of word -> id. Default: False.

        Returns:
            tuple: (src_dict, trg_dict).
        """
        src_dict, trg_dict = self.src_dict, self.trg_dict
        if reverse:
            src_dict = {v: k for k, v in src_dict.items()}
            trg_dict = {v: k for k, v in trg_dict.items()}
        return src_dict, trg_dict
