"""Conll05st (paddle.text.datasets.Conll05st): the semantic role labelling test set of CoNLL
2005 (WSJ section 23), from conll05st-tests.tar.gz (gzipped words and props columns), with the
word, verb and label dictionaries and the embedding file Paddle distributes beside it."""
from __future__ import annotations

import gzip

import numpy as np

from ...framework.dataset_files import resolve
from ...io.dataset import Dataset
from ._archives import open_tar, tar_member

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
DATA_MD5 = "387719152ae52d60422c016e92a742fc"
WORDDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt"
WORDDICT_MD5 = "ea7fb7d4c75cc6254716f0177a506baa"
VERBDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt"
VERBDICT_MD5 = "0d2977293bbb6cbefab5b0f97db1e77c"
TRGDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt"
TRGDICT_MD5 = "d8c7f03ceb5fc2e5a0fa7503a4353751"
EMB_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2Femb"
EMB_MD5 = "bf436eb0faa1f6f9103017f8be57cdb7"
UNK_IDX = 0
_WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
_PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def _bio_labels(column):
    """A props column of bracketed spans ('(A0*', '*', '*)', '(V*)') as B-/I-/O tags."""
    tags, tag, inside = [], "O", False
    for item in column:
        if item == "*":
            tags.append(f"I-{tag}" if inside else "O")
        elif item == "*)":
            tags.append(f"I-{tag}")
            inside = False
        elif "(" in item:
            tag = item[1:item.find("*")]
            tags.append(f"B-{tag}")
            inside = ")" not in item
        else:
            raise RuntimeError(f"Unexpected label: {item}")
    return tags


class Conll05st(Dataset):
    """The CoNLL 2005 SRL test set: one item per (sentence, predicate), nine int64 arrays of the
    sentence's length: word ids, the ids of the words two before, one before, at, one after and
    two after the predicate ('bos'/'eos' past the ends; each repeated), the predicate's id, a
    0/1 mark of those five positions, and the B-/I-/O label ids.

    The label dictionary gives B-<tag>, I-<tag> consecutive ids for the tags of the target
    dictionary in the order they first appear there, then 'O' the last.

    oar does not download: each file (the arguments, or Paddle's names in its cache directory
    ~/.cache/paddle/dataset/conll05st/) must exist; otherwise FileNotFoundError names it.

    Args:
        data_file (str, optional): The path of conll05st-tests.tar.gz. Default: None.
        word_dict_file (str, optional): The word dictionary (a word a line). Default: None.
        verb_dict_file (str, optional): The predicate dictionary. Default: None.
        target_dict_file (str, optional): The label dictionary (B-/I- tags). Default: None.
        emb_file (str, optional): The word embedding file (only returned by get_embedding).
            Default: None.
        download (bool, optional): Allow the paths to be left out (oar then reads the cache).
            Default: True.

    Examples:
        >>> import gzip, io, os, tarfile, tempfile
        >>> import oar
        >>> words = b'The\\ncat\\nsat\\n\\n'
        >>> props = b'-  (A0*\\n-  *)\\nsat  (V*)\\n\\n'
        >>> with tempfile.TemporaryDirectory() as d:
        ...     data = os.path.join(d, 'conll05st-tests.tar.gz')
        ...     with tarfile.open(data, 'w:gz') as tar:
        ...         for kind, text in (('words', words), ('props', props)):
        ...             blob = gzip.compress(text)
        ...             info = tarfile.TarInfo(f'conll05st-release/test.wsj/{kind}/test.wsj.{kind}.gz')
        ...             info.size = len(blob)
        ...             tar.addfile(info, io.BytesIO(blob))
        ...     paths = {}
        ...     for name, text in (('word', 'bos\\neos\\nThe\\ncat\\nsat\\n'), ('verb', 'sat\\n'),
        ...                        ('target', 'B-A0\\nI-A0\\nB-V\\nI-V\\n'), ('emb', '')):
        ...         paths[name] = os.path.join(d, name)
        ...         with open(paths[name], 'w') as f:
        ...             _ = f.write(text)
        ...     srl = oar.text.datasets.Conll05st(data, paths['word'], paths['verb'], paths['target'],
        ...                                       paths['emb'])
        >>> print(len(srl), srl.get_dict()[2])
        1 {'B-A0': 0, 'I-A0': 1, 'B-V': 2, 'I-V': 3, 'O': 4}
        >>> for array in srl[0]:
        ...     print(array)
        [2 3 4]
        [2 2 2]
        [3 3 3]
        [4 4 4]
        [1 1 1]
        [1 1 1]
        [0 0 0]
        [1 1 1]
        [0 1 2]
    """

    def __init__(self, data_file=None, word_dict_file=None, verb_dict_file=None, target_dict_file=None,
                 emb_file=None, download=True):
        def file(arg, path, url):
            return resolve("Conll05st", arg, path, download, "conll05st", url)
        self.data_file = file("data_file", data_file, DATA_URL)
        self.word_dict_file = file("word_dict_file", word_dict_file, WORDDICT_URL)
        self.verb_dict_file = file("verb_dict_file", verb_dict_file, VERBDICT_URL)
        self.target_dict_file = file("target_dict_file", target_dict_file, TRGDICT_URL)
        self.emb_file = file("emb_file", emb_file, EMB_URL)
        self.word_dict = self._load_dict(self.word_dict_file)
        self.predicate_dict = self._load_dict(self.verb_dict_file)
        self.label_dict = self._load_label_dict(self.target_dict_file)
        self._load_anno()

    @staticmethod
    def _load_dict(filename):
        with open(filename) as f:
            return {line.strip(): i for i, line in enumerate(f)}

    @staticmethod
    def _load_label_dict(filename):
        tags = {}  # ordered set: Paddle uses a set, whose order changes from run to run
        with open(filename) as f:
            for line in f:
                line = line.strip()
                if line.startswith(("B-", "I-")):
                    tags.setdefault(line[2:])
        labels = {}
        for tag in tags:
            labels[f"B-{tag}"] = len(labels)
            labels[f"I-{tag}"] = len(labels)
        labels["O"] = len(labels)
        return labels

    def _load_anno(self):
        self.sentences, self.predicates, self.labels = [], [], []
        with open_tar("Conll05st", self.data_file) as tar:
            words = gzip.GzipFile(fileobj=tar_member("Conll05st", tar, _WORDS)).read().splitlines()
            props = gzip.GzipFile(fileobj=tar_member("Conll05st", tar, _PROPS)).read().splitlines()
        sentence, rows = [], []
        for word, prop in zip(words, props):
            columns = prop.decode().strip().split()
            if columns:
                sentence.append(word.decode().strip())
                rows.append(columns)
                continue
            # a blank line ends a sentence: column 0 names the predicates, one more column each
            if rows:
                verbs = [v for v in (r[0] for r in rows) if v != "-"]
                for i in range(1, len(rows[0])):
                    self.sentences.append(sentence)
                    self.predicates.append(verbs[i - 1])
                    self.labels.append(_bio_labels([r[i] for r in rows]))
            sentence, rows = [], []

    def __getitem__(self, idx):
        sentence, predicate, labels = self.sentences[idx], self.predicates[idx], self.labels[idx]
        n = len(sentence)
        verb = labels.index("B-V")
        mark = [0] * len(labels)
        context = []  # the words at verb - 2 .. verb + 2, 'bos'/'eos' past the ends
        for offset in (-2, -1, 0, 1, 2):
            position = verb + offset
            if 0 <= position < len(labels):
                mark[position] = 1
                context.append(sentence[position])
            else:
                context.append("bos" if offset < 0 else "eos")
        word_idx = [self.word_dict.get(w, UNK_IDX) for w in sentence]
        ctx = [[self.word_dict.get(w, UNK_IDX)] * n for w in context]
        pred_idx = [self.predicate_dict.get(predicate)] * n
        label_idx = [self.label_dict.get(w) for w in labels]
        return (np.array(word_idx), *(np.array(c) for c in ctx), np.array(pred_idx), np.array(mark),
                np.array(label_idx))

    def __len__(self):
        return len(self.sentences)

    def get_dict(self):
        """The word, predicate and label dictionaries.

        Returns:
            tuple: (word_dict, predicate_dict, label_dict).
        """
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self):
        """The path of the word embedding file.

        Returns:
            str: emb_file.
        """
        return self.emb_file
