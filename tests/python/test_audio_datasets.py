"""oar.audio.datasets: ESC50 and TESS on small synthetic copies of their layouts in a temporary
HOME, against Paddle's classes reading the same files (file lists, labels, features), the fold
split, and the error naming where the files go when they are missing."""
import os

import numpy as np
import pytest

import oar

RNG = np.random.default_rng(9)


def _esc50(home):
    root = home / ".cache" / "paddle" / "dataset" / "ESC-50-master"
    (root / "meta").mkdir(parents=True)
    (root / "audio").mkdir()
    rows = ["filename,fold,target,category,esc10,src_file,take"]
    for i in range(10):
        name = f"{i % 5 + 1}-{i}-A-{i * 3}.wav"
        rows.append(f"{name},{i % 5 + 1},{i * 3},cat{i},False,{i},A")
        oar.audio.save(str(root / "audio" / name), oar.to_tensor(RNG.uniform(-0.5, 0.5, (1, 3000)).astype("float32")),
                       16000)
    (root / "meta" / "esc50.csv").write_text("\n".join(rows) + "\n")
    return root


def _tess(home):
    root = home / ".cache" / "paddle" / "dataset" / "TESS_Toronto_emotional_speech_set"
    emotions = ["angry", "disgust", "fear", "happy", "neutral", "ps", "sad"]
    for i in range(9):
        sub = root / f"speaker{i % 2}"
        sub.mkdir(parents=True, exist_ok=True)
        oar.audio.save(str(sub / f"OAF_word{i}_{emotions[i % 7]}.wav"),
                       oar.to_tensor(RNG.uniform(-0.5, 0.5, (1, 2500)).astype("float32")), 8000)
    return root


def test_esc50(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    _esc50(tmp_path)
    dev = oar.audio.datasets.ESC50(mode="dev", split=2)
    train = oar.audio.datasets.ESC50(mode="train", split=2)
    assert len(dev) == 2 and len(train) == 8
    assert dev.labels == [3, 18]
    wav, label = dev[0]
    assert wav.shape == [3000] and label == 3
    mfcc = oar.audio.datasets.ESC50(mode="dev", split=2, feat_type="mfcc", n_mfcc=20, n_fft=512)
    assert mfcc[1][0].shape == [20, 24] and mfcc[1][1] == 18
    paddle = pytest.importorskip("paddle")
    import paddle.audio.datasets.esc50 as paddle_esc50
    monkeypatch.setattr(paddle_esc50, "DATA_HOME", str(tmp_path / ".cache" / "paddle" / "dataset"))
    for mode in ("dev", "train"):
        expected = paddle.audio.datasets.ESC50(mode=mode, split=2, feat_type="logmelspectrogram", n_fft=512)
        got = oar.audio.datasets.ESC50(mode=mode, split=2, feat_type="logmelspectrogram", n_fft=512)
        assert got.files == expected.files and got.labels == expected.labels
        np.testing.assert_allclose(got[0][0].numpy(), expected[0][0].numpy(), rtol=1e-4, atol=1e-3)


def test_tess(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    _tess(tmp_path)
    dev = oar.audio.datasets.TESS(mode="dev", n_folds=3, split=1)
    train = oar.audio.datasets.TESS(mode="train", n_folds=3, split=1)
    assert len(dev) == 3 and len(train) == 6
    # files in sorted path order, dealt into the folds in turn
    every = sorted(dev.files + train.files)
    assert dev.files == every[0::3] and train.files == [f for f in every if f not in every[0::3]]
    for path, label in zip(dev.files + train.files, dev.labels + train.labels):
        assert os.path.basename(path)[:-4].split("_")[2] == dev.label_list[label]
    feat, _ = oar.audio.datasets.TESS(mode="dev", n_folds=3, feat_type="spectrogram", n_fft=256)[0]
    assert feat.shape == [129, 5]
    paddle = pytest.importorskip("paddle")
    import paddle.audio.datasets.tess as paddle_tess
    monkeypatch.setattr(paddle_tess, "DATA_HOME", str(tmp_path / ".cache" / "paddle" / "dataset"))
    expected = paddle.audio.datasets.TESS(mode="dev", n_folds=1, split=1)
    got = oar.audio.datasets.TESS(mode="dev", n_folds=1, split=1)
    # Paddle takes os.walk's order, oar sorts: the same files and labels
    assert sorted(zip(got.files, got.labels)) == sorted(zip(expected.files, expected.labels))


def test_datasets_name_where_the_files_go(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="oar does not download") as info:
        oar.audio.datasets.ESC50()
    assert "ESC-50-master.zip" in str(info.value) and "esc50.csv" in str(info.value)
    with pytest.raises(FileNotFoundError, match="TESS_Toronto_emotional_speech_set"):
        oar.audio.datasets.TESS()
    with pytest.raises(AssertionError, match="1 <= split <= 5"):
        oar.audio.datasets.ESC50(split=6)
    with pytest.raises(AssertionError, match="n_folds"):
        oar.audio.datasets.TESS(n_folds=0)
    _esc50(tmp_path)
    with pytest.raises(RuntimeError, match="Unknown feat_type"):
        oar.audio.datasets.ESC50(feat_type="chroma")
