"""oar.vision.datasets.Flowers and VOC2012 on tiny archives built in Paddle's layouts (nothing is
downloaded); VOC2012 is also compared with Paddle itself when it imports."""
import io
import struct
import tarfile
import zlib

import numpy as np
import pytest

import oar
from oar.vision.datasets import VOC2012, Flowers
from oar.vision.datasets._matfile import loadmat

Image = pytest.importorskip("PIL.Image")


def _mat_matrix(name, arr):
    """One miMATRIX element (MATLAB 5) holding a real double array."""
    def element(typ, data):
        pad = -len(data) % 8
        return struct.pack("<II", typ, len(data)) + data + b"\0" * pad
    arr = np.asarray(arr, dtype=np.float64)
    body = (element(6, struct.pack("<II", 6, 0))  # flags: mxDOUBLE_CLASS
            + element(5, np.asarray(arr.shape, dtype="<i4").tobytes())
            + element(1, name.encode())
            + element(9, arr.tobytes(order="F")))
    return struct.pack("<II", 14, len(body)) + body


def write_mat(path, arrays, compress=False):
    header = b"MATLAB 5.0 MAT-file, oar test".ljust(116, b" ") + b"\0" * 8 + struct.pack("<H", 0x0100) + b"IM"
    out = header
    for name, arr in arrays.items():
        m = _mat_matrix(name, arr)
        if compress:
            z = zlib.compress(m)
            m = struct.pack("<II", 15, len(z)) + z
        out += m
    with open(path, "wb") as f:
        f.write(out)


def _jpeg(arr):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="JPEG", quality=95)
    return buf.getvalue()


def _png(arr):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


def _add(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


@pytest.fixture
def flowers_files(tmp_path):
    rng = np.random.default_rng(0)
    images = [np.full((6 + i, 5, 3), 30 * i + 20, dtype=np.uint8) for i in range(6)]
    data = tmp_path / "102flowers.tgz"
    with tarfile.open(data, "w:gz") as tar:
        for i, im in enumerate(images):
            _add(tar, f"jpg/image_{i + 1:05}.jpg", _jpeg(im))
    labels = tmp_path / "imagelabels.mat"
    write_mat(labels, {"labels": np.array([[3, 1, 4, 1, 5, 9]])}, compress=True)
    setid = tmp_path / "setid.mat"
    write_mat(setid, {"trnid": np.array([[2, 4]]), "valid": np.array([[6]]),
                      "tstid": np.array([[1, 3, 5]])})
    return str(data), str(labels), str(setid), images


def test_matfile_reader(tmp_path):
    for compress in (False, True):
        p = tmp_path / f"a{compress}.mat"
        write_mat(p, {"x": np.arange(6).reshape(2, 3), "y": np.array([[7.5]])}, compress)
        got = loadmat(p)
        np.testing.assert_array_equal(got["x"], np.arange(6).reshape(2, 3))
        assert got["y"].shape == (1, 1) and got["y"][0, 0] == 7.5
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"x" * 10)
    with pytest.raises(ValueError, match="MATLAB"):
        loadmat(bad)


def test_flowers_modes_and_items(flowers_files):
    data, labels, setid, images = flowers_files
    ds = Flowers(data, labels, setid, mode="train")  # 'train' reads tstid, as Paddle
    assert len(ds) == 3
    img, label = ds[1]
    assert isinstance(img, Image.Image) and img.size == (5, 8)
    assert label.dtype == np.int64 and label.shape == (1,) and label[0] == 4
    assert np.abs(np.asarray(img).astype(int) - images[2]).max() <= 2  # JPEG round trip of a flat image
    ds = Flowers(data, labels, setid, mode="test", backend="cv2")
    assert len(ds) == 2
    img, label = ds[0]
    assert img.dtype == np.float32 and img.shape == (7, 5, 3) and label.tolist() == [1]
    ds = Flowers(data, labels, setid, mode="valid", transform=lambda im: im[:2], backend="cv2")
    img, label = ds[0]
    assert img.shape == (2, 5, 3) and label.tolist() == [9]


def test_flowers_missing_files_and_errors(flowers_files, tmp_path):
    data, labels, setid, _ = flowers_files
    with pytest.raises(FileNotFoundError, match="imagelabels.mat"):
        Flowers(data, str(tmp_path / "nope.mat"), setid)
    with pytest.raises(ValueError, match="download=False"):
        Flowers(data, None, setid, download=False)
    with pytest.raises(AssertionError, match="mode"):
        Flowers(data, labels, setid, mode="dev")
    with pytest.raises(ValueError, match="backend"):
        Flowers(data, labels, setid, backend="opencv")


@pytest.fixture
def voc_file(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "VOCtrainval_11-May-2012.tar"
    ids = {"trainval": ["a", "b", "c"], "train": ["a", "b"], "val": ["c"]}
    with tarfile.open(path, "w") as tar:
        for flag, names in ids.items():
            _add(tar, f"VOCdevkit/VOC2012/ImageSets/Segmentation/{flag}.txt",
                 ("\n".join(names) + "\n").encode())
        for i, n in enumerate("abc"):
            img = (rng.random((4 + i, 6, 3)) * 255).astype(np.uint8)
            seg = rng.integers(0, 21, (4 + i, 6)).astype(np.uint8)
            _add(tar, f"VOCdevkit/VOC2012/JPEGImages/{n}.jpg", _jpeg(img))
            _add(tar, f"VOCdevkit/VOC2012/SegmentationClass/{n}.png", _png(seg))
    return str(path)


def test_voc2012_items(voc_file):
    ds = VOC2012(voc_file, mode="train")
    assert len(ds) == 3
    img, seg = ds[2]
    assert img.size == (6, 6) and seg.mode == "L"
    ds = VOC2012(voc_file, mode="valid", backend="cv2")
    assert len(ds) == 1
    img, seg = ds[0]
    assert img.dtype == np.float32 and img.shape == (6, 6, 3) and seg.shape == (6, 6)
    assert len(VOC2012(voc_file, mode="test")) == 2


def test_voc2012_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="VOCtrainval_11-May-2012.tar"):
        VOC2012(str(tmp_path / "VOCtrainval_11-May-2012.tar"))
    with pytest.raises(ValueError, match="download=False"):
        VOC2012(download=False)


@pytest.mark.host_only
def test_voc2012_against_paddle(voc_file):
    paddle = pytest.importorskip("paddle")
    for mode in ("train", "valid", "test"):
        for backend in ("pil", "cv2"):
            ours = VOC2012(voc_file, mode=mode, backend=backend)
            theirs = paddle.vision.datasets.VOC2012(voc_file, mode=mode, backend=backend)
            assert len(ours) == len(theirs)
            for i in range(len(ours)):
                for a, b in zip(ours[i], theirs[i]):
                    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
                    assert np.asarray(a).dtype == np.asarray(b).dtype
