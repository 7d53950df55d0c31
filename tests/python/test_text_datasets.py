"""oar.text.datasets on small synthetic files in Paddle's layouts, against real Paddle reading the
same files (items, dictionaries, splits) and NumPy references; where Paddle's result depends on
set order (Movielens, Conll05st ids) or on its bugs (WMT16's target dictionary), the items are
compared through the dictionaries. Missing files give FileNotFoundError naming where they go;
download=False without a path gives Paddle's AssertionError."""
import gzip
import io
import os
import tarfile
import zipfile

import numpy as np
import pytest

import oar
from oar.text import datasets

RNG = np.random.default_rng(17)


def _tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def _paddle_datasets():
    paddle = pytest.importorskip("paddle")
    return paddle.text.datasets


def _same_items(a, b):
    assert len(a) == len(b)
    for i in range(len(a)):
        for x, y in zip(a[i], b[i]):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x, y)


# ---- UCIHousing ----

def _housing(path, rows=20):
    data = RNG.uniform(0, 100, (rows, 14))
    with open(path, "w") as f:  # Paddle's layout: whitespace-separated, 14 numbers a row
        for row in data:
            f.write(" ".join(f"{v:.4f}" for v in row) + "\n")
    return str(path), np.loadtxt(path)


def test_uci_housing(tmp_path):
    path, raw = _housing(tmp_path / "housing.data")
    norm = raw.copy()
    norm[:, :13] = (raw[:, :13] - raw[:, :13].mean(0)) / (raw[:, :13].max(0) - raw[:, :13].min(0))
    train = datasets.UCIHousing(data_file=path, mode="train")
    test = datasets.UCIHousing(data_file=path, mode="TEST")
    assert len(train) == 16 and len(test) == 4
    features, target = train[3]
    assert features.dtype == np.float32 and features.shape == (13,) and target.shape == (1,)
    np.testing.assert_allclose(features, norm[3, :13], rtol=1e-6)
    np.testing.assert_allclose(test[0][1], norm[16, 13:], rtol=1e-6)
    oar.set_default_dtype("float64")
    try:
        assert datasets.UCIHousing(data_file=path)[0][0].dtype == np.float64
    finally:
        oar.set_default_dtype("float32")
    paddle_ds = _paddle_datasets()
    for mode in ("train", "test"):
        _same_items(datasets.UCIHousing(data_file=path, mode=mode), paddle_ds.UCIHousing(data_file=path, mode=mode))


def test_uci_housing_default_path_and_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError) as info:
        datasets.UCIHousing()
    message = str(info.value)
    assert os.path.join(str(tmp_path), ".cache", "paddle", "dataset", "uci_housing", "housing.data") in message
    assert "oar does not download" in message and "paddlemodels.bj.bcebos.com/uci_housing/housing.data" in message
    cache = tmp_path / ".cache" / "paddle" / "dataset" / "uci_housing"
    cache.mkdir(parents=True)
    _housing(cache / "housing.data", rows=10)
    assert len(datasets.UCIHousing(mode="test")) == 2  # read from Paddle's cache
    with pytest.raises(AssertionError, match="data_file is not set and downloading automatically is disabled"):
        datasets.UCIHousing(download=False)
    with pytest.raises(FileNotFoundError, match="nowhere.data"):
        datasets.UCIHousing(data_file=str(tmp_path / "nowhere.data"))
    with pytest.raises(AssertionError, match="mode should be 'train' or 'test'"):
        datasets.UCIHousing(mode="dev")
    (tmp_path / "bad.data").write_text("1 2 3\n")
    with pytest.raises(ValueError, match="rows of 14 numbers"):
        datasets.UCIHousing(data_file=str(tmp_path / "bad.data"))


# ---- Imdb ----

def _imdb(path):
    words = ["good", "bad", "film", "plot", "great", "awful", "the", "a"]
    members = {}
    for part in ("train", "test"):
        for polarity in ("pos", "neg"):
            for i in range(4):
                text = " ".join(RNG.choice(words, 12)) + "!, The END.\n"
                members[f"aclImdb/{part}/{polarity}/{i}_{i + 3}.txt"] = text.encode()
    members["aclImdb/README"] = b"not a review"
    return _tar(path, members)


def test_imdb(tmp_path):
    path = _imdb(tmp_path / "aclImdb_v1.tar.gz")
    imdb = datasets.Imdb(data_file=path, mode="train", cutoff=3)
    assert len(imdb) == 8 and imdb.labels == [0] * 4 + [1] * 4
    assert imdb.word_idx["<unk>"] == len(imdb.word_idx) - 1 and b"end" in imdb.word_idx
    doc, label = imdb[5]
    assert doc.dtype == np.int64 and label.tolist() == [1]
    paddle_ds = _paddle_datasets()
    for mode in ("train", "test"):
        ours = datasets.Imdb(data_file=path, mode=mode, cutoff=3)
        theirs = paddle_ds.Imdb(data_file=path, mode=mode, cutoff=3)
        assert ours.word_idx == theirs.word_idx
        _same_items(ours, theirs)


# ---- Imikolov ----

def _ptb(path):
    vocab = [f"w{i}" for i in range(12)]
    def text(lines):
        return "".join(" ".join(RNG.choice(vocab, RNG.integers(2, 9))) + "\n" for _ in range(lines)).encode()
    # 100 train lines + 30 valid: <s>/<e> count 130, more than any word (Paddle cannot order ties
    # between the str markers and bytes words)
    return _tar(path, {f"./simple-examples/data/ptb.{part}.txt": text(n)
                       for part, n in (("train", 100), ("valid", 30), ("test", 20))})


@pytest.mark.parametrize("data_type,window_size", [("NGRAM", 3), ("NGRAM", 5), ("SEQ", -1), ("seq", 6)])
def test_imikolov(tmp_path, data_type, window_size):
    path = _ptb(tmp_path / "simple-examples.tgz")
    paddle_ds = _paddle_datasets()
    for mode in ("train", "test"):
        ours = datasets.Imikolov(path, data_type, window_size, mode, min_word_freq=40)
        theirs = paddle_ds.Imikolov(path, data_type, window_size, mode, min_word_freq=40)
        assert ours.word_idx == theirs.word_idx
        _same_items(ours, theirs)
    ngrams = datasets.Imikolov(path, "NGRAM", 2, "train", min_word_freq=40)
    assert all(len(item) == 2 for item in ngrams)
    with pytest.raises(AssertionError, match="Invalid gram length"):
        datasets.Imikolov(path, "NGRAM", -1)
    with pytest.raises(AssertionError, match="data type should be"):
        datasets.Imikolov(path, "CHAR")


# ---- Movielens ----

def _movielens(path):
    movies = ["1::Toy Story (1995)::Animation|Children's|Comedy", "2::Jumanji (1995)::Adventure|Fantasy",
              "3::Grumpier Old Men (1995)::Comedy|Romance", "4::The Story of Us (1999)::Comedy|Drama"]
    users = ["1::F::1::10::48067", "2::M::56::16::70072", "3::M::25::15::55117"]
    ratings = [f"{RNG.integers(1, 4)}::{RNG.integers(1, 5)}::{RNG.integers(1, 6)}::97830{i}" for i in range(60)]
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ml-1m/movies.dat", "\n".join(movies) + "\n")
        z.writestr("ml-1m/users.dat", "\n".join(users) + "\n")
        z.writestr("ml-1m/ratings.dat", "\n".join(ratings) + "\n")
        z.writestr("ml-1m/README", "about")
    return str(path)


def test_movielens(tmp_path):
    path = _movielens(tmp_path / "ml-1m.zip")
    train = datasets.Movielens(data_file=path, mode="train", test_ratio=0.3, rand_seed=4)
    test = datasets.Movielens(data_file=path, mode="test", test_ratio=0.3, rand_seed=4)
    assert len(train) + len(test) == 60 and 0 < len(test) < 30
    assert list(train.categories_dict) == sorted(train.categories_dict)  # ids of the sorted genres
    item = train[0]
    assert len(item) == 8 and item[0].dtype == np.int64 and item[7].dtype == np.float64
    assert str(train.user_info[2]) == "<UserInfo id(2), gender(M), age(56), job(16)>"
    paddle_ds = _paddle_datasets()
    state = np.random.get_state()
    for mode, ours in (("train", train), ("test", test)):
        theirs = paddle_ds.Movielens(data_file=path, mode=mode, test_ratio=0.3, rand_seed=4)
        assert len(ours) == len(theirs)
        words = {v: k for k, v in ours.movie_title_dict.items()}, {v: k for k, v in theirs.movie_title_dict.items()}
        genres = {v: k for k, v in ours.categories_dict.items()}, {v: k for k, v in theirs.categories_dict.items()}
        for i in range(len(ours)):
            a, b = ours[i], theirs[i]
            for j in (0, 1, 2, 3, 4, 7):  # user and movie ids, features, rating
                np.testing.assert_array_equal(a[j], b[j])
            assert [genres[0][k] for k in a[5]] == [genres[1][k] for k in b[5]]
            assert [words[0][k] for k in a[6]] == [words[1][k] for k in b[6]]
    np.random.set_state(state)


# ---- WMT14 ----

def _wmt14(path):
    src_words, trg_words = [f"fr{i}" for i in range(10)], [f"en{i}" for i in range(10)]
    def pairs(n):
        lines = [" ".join(RNG.choice(src_words, RNG.integers(1, 7))) + "\t" + " ".join(RNG.choice(trg_words, 5))
                 for _ in range(n)]
        lines.append("a line without a tab")
        lines.append(" ".join(["fr1"] * 85) + "\ten1")  # too long: left out
        return ("\n".join(lines) + "\n").encode()
    head = "<s>\n<e>\n<unk>\n"
    return _tar(path, {"wmt14/src.dict": (head + "\n".join(src_words) + "\n").encode(),
                       "wmt14/trg.dict": (head + "\n".join(trg_words) + "\n").encode(),
                       "wmt14/train/train": pairs(15), "wmt14/test/test": pairs(5), "wmt14/gen/gen": pairs(4)})


@pytest.mark.parametrize("mode", ["train", "test", "gen"])
def test_wmt14(tmp_path, mode):
    path = _wmt14(tmp_path / "wmt14.tgz")
    ours = datasets.WMT14(data_file=path, mode=mode, dict_size=8)
    assert len(ours) == {"train": 15, "test": 5, "gen": 4}[mode]
    src, trg, trg_next = ours[0]
    assert src[0] == 0 and src[-1] == 1 and trg[0] == 0 and trg_next[-1] == 1
    assert max(src.max(), trg.max()) < 8  # words past the dictionary are <unk> (2)
    theirs = _paddle_datasets().WMT14(data_file=path, mode=mode, dict_size=8)
    _same_items(ours, theirs)
    assert ours.get_dict() == theirs.get_dict() and ours.get_dict(True) == theirs.get_dict(True)
    with pytest.raises(AssertionError, match="dict_size should be set as positive number"):
        datasets.WMT14(data_file=path)


# ---- WMT16 ----

def _wmt16(path):
    en, de = [f"en{i}" for i in range(9)], [f"de{i}" for i in range(14)]
    def pairs(n):
        return ("\n".join(" ".join(RNG.choice(en, RNG.integers(1, 6))) + "\t" + " ".join(RNG.choice(de, 4))
                          for _ in range(n)) + "\nno tab here\n").encode()
    return _tar(path, {"wmt16/train": pairs(30), "wmt16/test": pairs(6), "wmt16/val": pairs(5)})


def _reference_dict(path, column, size):
    with tarfile.open(path) as tar:
        lines = tar.extractfile("wmt16/train").read().decode().splitlines()
    counts = {}
    for line in lines:
        parts = line.split("\t")
        if len(parts) == 2:
            for w in parts[column].split():
                counts[w] = counts.get(w, 0) + 1
    ranked = sorted(counts, key=lambda w: -counts[w])  # stable: first seen first among equals
    return {w: i for i, w in enumerate(["<s>", "<e>", "<unk>"] + ranked[:size - 3])}


@pytest.mark.parametrize("lang", ["en", "de"])
def test_wmt16(tmp_path, monkeypatch, lang):
    path = _wmt16(tmp_path / "wmt16.tar.gz")
    src_col = 0 if lang == "en" else 1
    ours = datasets.WMT16(data_file=path, mode="val", src_dict_size=8, trg_dict_size=10, lang=lang)
    assert ours.get_dict(lang) == _reference_dict(path, src_col, 8)
    assert ours.get_dict("de" if lang == "en" else "en") == _reference_dict(path, 1 - src_col, 10)
    assert ours.get_dict(lang, reverse=True)[0] == "<s>"
    assert len(ours) == 5
    with tarfile.open(path) as tar:
        first = tar.extractfile("wmt16/val").read().decode().splitlines()[0].split("\t")
    trg_dict = ours.trg_dict
    np.testing.assert_array_equal(ours[0][1], [0] + [trg_dict.get(w, 2) for w in first[1 - src_col].split()])
    # Paddle writes its dictionaries into its cache directory: point that at tmp_path
    paddle = pytest.importorskip("paddle")
    monkeypatch.setattr(paddle.dataset.common, "DATA_HOME", str(tmp_path))
    (tmp_path / "wmt16").mkdir()
    theirs = paddle.text.datasets.WMT16(data_file=path, mode="val", src_dict_size=8, trg_dict_size=10, lang=lang)
    # the source side is Paddle's; Paddle builds the target dictionary from the source column
    assert ours.src_dict == theirs.src_dict
    for a, b in zip(ours.src_ids, theirs.src_ids):
        assert a == b
    assert len(ours.trg_ids) == len(theirs.trg_ids)


# ---- Conll05st ----

PROPS = [  # (word, verb column, argument columns), a blank line between sentences
    [("The", "-", "(A0*", "*"), ("cat", "-", "*)", "*"), ("sat", "sit", "(V*)", "(A1*"),
     ("down", "-", "*", "*)"), ("and", "-", "*", "*"), ("purred", "purr", "*", "(V*)")],
    [("Dogs", "-", "(A0*)"), ("bark", "bark", "(V*)"), ("loudly", "-", "(AM-MNR*)")],
]


def _conll(tmp_path):
    words, props = [], []
    for sentence in PROPS:
        for word, *columns in sentence:
            words.append(word)
            props.append("  ".join(columns))
        words.append("")
        props.append("")
    data = _tar(tmp_path / "conll05st-tests.tar.gz", {
        "conll05st-release/test.wsj/words/test.wsj.words.gz": gzip.compress(("\n".join(words) + "\n").encode()),
        "conll05st-release/test.wsj/props/test.wsj.props.gz": gzip.compress(("\n".join(props) + "\n").encode())})
    files = {"word": "bos\neos\nThe\ncat\nsat\ndown\nDogs\nbark\n", "verb": "sit\npurr\nbark\n",
             "target": "B-A0\nI-A0\nB-A1\nI-A1\nB-V\nI-V\nB-AM-MNR\nI-AM-MNR\nO\n", "emb": "0.1 0.2\n"}
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    return [data, *paths]


def test_conll05st(tmp_path):
    paths = _conll(tmp_path)
    ours = datasets.Conll05st(*paths)
    assert len(ours) == 3  # one item per predicate
    assert list(ours.label_dict) == ["B-A0", "I-A0", "B-A1", "I-A1", "B-V", "I-V", "B-AM-MNR", "I-AM-MNR", "O"]
    item = ours[1]  # "purr": the verb at the end
    assert item[7].tolist() == [0, 0, 0, 1, 1, 1] and item[4].tolist() == [1] * 6  # ctx_p1: 'eos' (id 1)
    assert ours.get_embedding() == paths[4]
    theirs = _paddle_datasets().Conll05st(*paths)
    assert len(theirs) == 3
    ours_labels, their_labels = ({v: k for k, v in d.label_dict.items()} for d in (ours, theirs))
    for i in range(3):
        a, b = ours[i], theirs[i]
        for j in range(8):
            np.testing.assert_array_equal(a[j], b[j])
        assert [ours_labels[k] for k in a[8]] == [their_labels[k] for k in b[8]]
    assert ours.get_dict()[:2] == theirs.get_dict()[:2]


# ---- missing files ----

@pytest.mark.parametrize("cls,kwargs,expected", [
    ("Imdb", {}, os.path.join("imdb", "imdb%2FaclImdb_v1.tar.gz")),
    ("Imikolov", dict(data_type="NGRAM", window_size=2),
     os.path.join("imikolov", "imikolov%2Fsimple-examples.tgz")),
    ("Movielens", {}, os.path.join("sentiment", "movielens%2Fml-1m.zip")),
    ("WMT14", dict(dict_size=10), os.path.join("wmt14", "wmt14.tgz")),
    ("WMT16", dict(src_dict_size=10, trg_dict_size=10), os.path.join("wmt16", "wmt16.tar.gz")),
    ("Conll05st", {}, os.path.join("conll05st", "conll05st-tests.tar.gz")),
])
def test_missing_files_name_where_they_go(tmp_path, monkeypatch, cls, kwargs, expected):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="oar does not download") as info:
        getattr(datasets, cls)(**kwargs)
    assert os.path.join(str(tmp_path), ".cache", "paddle", "dataset", expected) in str(info.value)
    with pytest.raises(AssertionError, match="is not set and downloading automatically is disabled"):
        getattr(datasets, cls)(download=False, **kwargs)


def test_not_an_archive(tmp_path):
    (tmp_path / "x.tgz").write_bytes(b"garbage")
    with pytest.raises(ValueError, match="not a readable tar archive"):
        datasets.Imdb(data_file=str(tmp_path / "x.tgz"))
    with pytest.raises(ValueError, match="not a readable zip archive"):
        datasets.Movielens(data_file=str(tmp_path / "x.tgz"))
    _tar(tmp_path / "empty.tgz", {"other": b""})
    with pytest.raises(ValueError, match="no member './simple-examples/data/ptb.train.txt'"):
        datasets.Imikolov(str(tmp_path / "empty.tgz"), "SEQ")


def test_namespace_matches_paddle():
    paddle = pytest.importorskip("paddle")
    assert sorted(oar.text.__all__) == sorted(paddle.text.__all__)
    for name in oar.text.__all__:
        assert getattr(oar.text, name) is not None
