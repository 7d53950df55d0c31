"""oar.vision.datasets: MNIST/FashionMNIST and Cifar10/100 read small files written here in the real
formats (gzip'ed IDX, pickled batches in a tar.gz); Digits reads the bundled data file."""
import gzip
import io
import os
import pickle
import struct
import tarfile

import numpy as np
import pytest

import oar
from oar.vision import datasets as D
from oar.vision import transforms as T

Image = pytest.importorskip("PIL.Image")


# ---- writers for the real formats --------------------------------------------------------------

def write_idx_images(path, images, magic=2051, extra=b""):
    n, rows, cols = images.shape
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">IIII", magic, n, rows, cols) + images.astype(np.uint8).tobytes() + extra)


def write_idx_labels(path, labels, magic=2049):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">II", magic, len(labels)) + np.asarray(labels, np.uint8).tobytes())


def make_mnist(tmp_path, n=7, prefix="train"):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, n)
    ip = tmp_path / f"{prefix}-images-idx3-ubyte.gz"
    lp = tmp_path / f"{prefix}-labels-idx1-ubyte.gz"
    write_idx_images(ip, images)
    write_idx_labels(lp, labels)
    return str(ip), str(lp), images, labels


def make_cifar(path, batches, label_key=b"labels"):
    """batches: {member name: (uint8 data [n, 3072], labels)}."""
    with tarfile.open(path, "w:gz") as tar:
        for name, (data, labels) in batches.items():
            blob = pickle.dumps({b"data": data, label_key: list(labels), b"batch_label": b"x"})
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))


def cifar_batches(rng, names, n=3):
    return {name: (rng.integers(0, 256, (n, 3072), dtype=np.uint8), rng.integers(0, 10, n))
            for name in names}


# ---- MNIST -------------------------------------------------------------------------------------

def test_mnist_items_pil_backend(tmp_path):
    ip, lp, images, labels = make_mnist(tmp_path)
    ds = D.MNIST(image_path=ip, label_path=lp, mode="train")
    assert isinstance(ds, oar.io.Dataset) and len(ds) == 7
    img, label = ds[3]
    assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (28, 28)
    np.testing.assert_array_equal(np.asarray(img), images[3])
    assert label.dtype == np.int64 and label.shape == (1,) and label[0] == labels[3]


def test_mnist_cv2_backend_and_transform(tmp_path):
    ip, lp, images, labels = make_mnist(tmp_path)
    img, label = D.MNIST(ip, lp, backend="cv2")[2]
    assert isinstance(img, np.ndarray) and img.dtype == np.float32 and img.shape == (28, 28)
    np.testing.assert_array_equal(img, images[2])
    ds = D.MNIST(ip, lp, transform=T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]))
    t, _ = ds[1]
    assert isinstance(t, oar.Tensor) and t.shape == [1, 28, 28]
    np.testing.assert_allclose(t.numpy()[0], (images[1] / np.float32(255) - 0.5) / 0.5, rtol=1e-6, atol=1e-7)


def test_fashion_mnist_and_default_location(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    where = tmp_path / ".cache" / "paddle" / "dataset" / "fashion-mnist"
    where.mkdir(parents=True)
    _, _, images, labels = make_mnist(where, n=4, prefix="t10k")
    ds = D.FashionMNIST(mode="test", backend="cv2")
    assert len(ds) == 4
    np.testing.assert_array_equal(ds[0][0], images[0])
    # MNIST's own folder is empty: the error names the exact file and the folder to put it in
    with pytest.raises(FileNotFoundError) as e:
        D.MNIST(mode="train")
    msg = str(e.value)
    assert os.path.join(str(tmp_path), ".cache", "paddle", "dataset", "mnist",
                        "train-images-idx3-ubyte.gz") in msg
    assert "train-labels-idx1-ubyte.gz" in msg and "does not download" in msg


def test_mnist_errors(tmp_path):
    ip, lp, images, labels = make_mnist(tmp_path)
    missing = str(tmp_path / "nope.gz")
    with pytest.raises(FileNotFoundError, match="nope.gz"):
        D.MNIST(image_path=missing, label_path=lp)
    with pytest.raises(ValueError, match="download=False"):
        D.MNIST(image_path=ip, download=False)
    with pytest.raises(ValueError, match="mode should be 'train' or 'test'"):
        D.MNIST(ip, lp, mode="val")
    with pytest.raises(ValueError, match="backend"):
        D.MNIST(ip, lp, backend="tensor")
    bad = str(tmp_path / "bad-magic.gz")
    write_idx_images(bad, images, magic=2049)
    with pytest.raises(ValueError, match=r"bad-magic.gz.*magic number 0x00000801, expected 0x00000803"):
        D.MNIST(bad, lp)
    short = str(tmp_path / "short.gz")
    with gzip.open(short, "wb") as f:
        f.write(struct.pack(">IIII", 2051, 7, 28, 28) + b"\0" * 100)
    with pytest.raises(ValueError, match=r"short.gz.*holds 116 bytes, expected 5504"):
        D.MNIST(short, lp)
    plain = tmp_path / "plain.gz"
    plain.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="plain.gz.*not a readable gzip file"):
        D.MNIST(str(plain), lp)
    few = str(tmp_path / "few-labels.gz")
    write_idx_labels(few, labels[:3])
    with pytest.raises(ValueError, match="7 images but .* 3 labels"):
        D.MNIST(ip, few)
    badl = str(tmp_path / "bad-label-magic.gz")
    write_idx_labels(badl, labels, magic=7)
    with pytest.raises(ValueError, match="bad-label-magic.gz.*expected 0x00000801"):
        D.MNIST(ip, badl)


def test_mnist_live_against_paddle(tmp_path):
    paddle = pytest.importorskip("paddle")
    ip, lp, _, _ = make_mnist(tmp_path, n=100)  # Paddle's reader walks in blocks of 100
    for backend in ("pil", "cv2"):
        ours = D.MNIST(ip, lp, backend=backend)
        theirs = paddle.vision.datasets.MNIST(ip, lp, backend=backend)
        assert len(ours) == len(theirs)
        for k in (0, 57, 99):
            (oi, ol), (ti, tl) = ours[k], theirs[k]
            assert type(oi) is type(ti)
            np.testing.assert_array_equal(np.asarray(oi), np.asarray(ti))
            assert np.asarray(oi).dtype == np.asarray(ti).dtype
            assert ol.dtype == tl.dtype and ol.shape == tl.shape and (ol == tl).all()


# ---- CIFAR -------------------------------------------------------------------------------------

def test_cifar10_train_and_test(tmp_path):
    rng = np.random.default_rng(1)
    names = ["cifar-10-batches-py/data_batch_2", "cifar-10-batches-py/data_batch_1",
             "cifar-10-batches-py/test_batch"]
    batches = cifar_batches(rng, names)
    path = str(tmp_path / "cifar-10-python.tar.gz")
    make_cifar(path, batches)
    ds = D.Cifar10(data_file=path, mode="train")
    assert len(ds) == 6
    # members in sorted name order: data_batch_1 first
    data1, labels1 = batches[names[1]]
    img, label = ds[1]
    assert isinstance(img, Image.Image) and img.mode == "RGB" and img.size == (32, 32)
    np.testing.assert_array_equal(np.asarray(img), data1[1].reshape(3, 32, 32).transpose(1, 2, 0))
    assert label.dtype == np.int64 and label.shape == () and label == labels1[1]
    data2, labels2 = batches[names[0]]
    arr, label = D.Cifar10(path, backend="cv2")[4]
    assert arr.dtype == np.float32 and arr.shape == (32, 32, 3)
    np.testing.assert_array_equal(arr, data2[1].reshape(3, 32, 32).transpose(1, 2, 0))
    test = D.Cifar10(path, mode="test", transform=T.ToTensor())
    assert len(test) == 3 and test[0][0].shape == [3, 32, 32]


def test_cifar100_fine_labels(tmp_path):
    rng = np.random.default_rng(2)
    batches = cifar_batches(rng, ["cifar-100-python/train", "cifar-100-python/test"], n=4)
    path = str(tmp_path / "cifar-100-python.tar.gz")
    make_cifar(path, batches, label_key=b"fine_labels")
    ds = D.Cifar100(path, mode="test")
    assert len(ds) == 4
    assert ds[2][1] == batches["cifar-100-python/test"][1][2]


def test_cifar_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError) as e:
        D.Cifar10()
    assert os.path.join(str(tmp_path), ".cache", "paddle", "dataset", "cifar",
                        "cifar-10-python.tar.gz") in str(e.value)
    with pytest.raises(FileNotFoundError, match="cifar-100-python.tar.gz"):
        D.Cifar100()
    with pytest.raises(ValueError, match="download=False"):
        D.Cifar10(download=False)
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b garbage")
    with pytest.raises(ValueError, match="junk.tar.gz.*not a readable tar archive"):
        D.Cifar10(str(junk))
    rng = np.random.default_rng(3)
    wrong = str(tmp_path / "wrong.tar.gz")
    make_cifar(wrong, cifar_batches(rng, ["x/other"]))
    with pytest.raises(ValueError, match="no batch whose name contains 'data_batch'"):
        D.Cifar10(wrong)
    bad_shape = str(tmp_path / "bad-shape.tar.gz")
    make_cifar(bad_shape, {"b/data_batch_1": (np.zeros((2, 100), np.uint8), [1, 2])})
    with pytest.raises(ValueError, match=r"data_batch_1.*shape \[2, 100\]"):
        D.Cifar10(bad_shape)
    with pytest.raises(ValueError, match="mode should be 'train' or 'test'"):
        D.Cifar10(bad_shape, mode="dev")


def test_cifar_live_against_paddle(tmp_path):
    paddle = pytest.importorskip("paddle")
    rng = np.random.default_rng(4)
    path = str(tmp_path / "cifar-10-python.tar.gz")
    make_cifar(path, cifar_batches(rng, ["c/data_batch_1", "c/data_batch_2", "c/test_batch"], n=5))
    for backend in ("pil", "cv2"):
        ours = D.Cifar10(path, backend=backend)
        theirs = paddle.vision.datasets.Cifar10(path, backend=backend)
        assert len(ours) == len(theirs)
        for k in range(len(ours)):
            (oi, ol), (ti, tl) = ours[k], theirs[k]
            np.testing.assert_array_equal(np.asarray(oi), np.asarray(ti))
            assert np.asarray(oi).dtype == np.asarray(ti).dtype
            assert ol.dtype == tl.dtype and ol.shape == tl.shape and ol == tl


def test_transform_sees_what_paddle_gives_it(tmp_path):
    """The shared item code (ImageDataset) keeps each dataset's own input to `transform`: with
    the 'cv2' backend MNIST hands over float32, Cifar the stored uint8 HWC array; with 'pil' both
    a PIL image."""
    paddle = pytest.importorskip("paddle")
    ip, lp, _, _ = make_mnist(tmp_path, n=100)
    cifar = str(tmp_path / "cifar-10-python.tar.gz")
    make_cifar(cifar, cifar_batches(np.random.default_rng(5), ["c/data_batch_1", "c/test_batch"]))
    for backend in ("pil", "cv2"):
        for args, name in (((ip, lp), "MNIST"), ((cifar,), "Cifar10")):
            seen = []

            def spy(image):
                arr = np.asarray(image)
                seen.append((type(image).__name__, str(arr.dtype), arr.shape))
                return image
            getattr(D, name)(*args, backend=backend, transform=spy)[1]
            getattr(paddle.vision.datasets, name)(*args, backend=backend, transform=spy)[1]
            assert seen[0] == seen[1], (name, backend, seen)


# ---- Digits (bundled) --------------------------------------------------------------------------

def test_digits_bundled_split():
    pixels, labels = __import__("oar.vision.datasets.digits", fromlist=["x"]).load_digits_array()
    assert pixels.shape == (1797, 8, 8) and pixels.max() == 16 and set(labels) == set(range(10))
    train, test = D.Digits("train"), D.Digits("test")
    assert len(train) + len(test) == 1797
    counts = np.bincount(labels, minlength=10)
    test_counts = np.bincount(test.labels[:, 0], minlength=10)
    np.testing.assert_array_equal(test_counts, np.floor(counts * 0.2).astype(int))  # stratified
    np.testing.assert_array_equal(np.bincount(train.labels[:, 0], minlength=10), counts - test_counts)
    # fixed: the global seed does not move it, and a different ratio changes only the sizes
    oar.seed(123)
    np.random.seed(5)
    again = D.Digits("test")
    np.testing.assert_array_equal(again.images, test.images)
    assert len(D.Digits("test", test_ratio=0.5)) == int(np.floor(counts * 0.5).sum())


def test_digits_items():
    ds = D.Digits("train")
    img, label = ds[0]
    assert isinstance(img, Image.Image) and img.mode == "L" and img.size == (8, 8)
    assert label.dtype == np.int64 and label.shape == (1,)
    raw, raw_labels = __import__("oar.vision.datasets.digits", fromlist=["x"]).load_digits_array()
    # sample 0 of class 0 stays in train; 0..16 becomes round(v * 255 / 16)
    scaled = np.floor(raw[0].astype(np.float64) * 255 / 16 + 0.5).astype(np.uint8)
    np.testing.assert_array_equal(np.asarray(img), scaled)
    assert label[0] == raw_labels[0]
    arr, _ = D.Digits("test", backend="cv2")[0]
    assert arr.dtype == np.float32 and arr.shape == (8, 8) and arr.max() <= 255
    t, _ = D.Digits("test", transform=T.Compose([T.Resize(16), T.ToTensor()]))[3]
    assert isinstance(t, oar.Tensor) and t.shape == [1, 16, 16]
    with pytest.raises(ValueError, match="test_ratio should be a number in \\(0, 1\\)"):
        D.Digits(test_ratio=1.5)
    with pytest.raises(ValueError, match="mode should be 'train' or 'test'"):
        D.Digits("valid")


def test_digits_data_file_is_installed_with_the_package():
    from oar.vision.datasets import digits
    assert os.path.isfile(digits.DATA_FILE)
    assert os.path.dirname(digits.DATA_FILE) == os.path.join(os.path.dirname(D.__file__), "data")


def test_image_backend_switch():
    import oar.vision as V
    assert V.get_image_backend() == "pil"
    V.set_image_backend("cv2")
    try:
        img, _ = D.Digits("test")[0]
        assert isinstance(img, np.ndarray)
    finally:
        V.set_image_backend("pil")
    with pytest.raises(ValueError, match="backend"):
        V.set_image_backend("opencv")


# ---- DatasetFolder / ImageFolder ----------------------------------------------------------------

FOLDER_FILES = ["class_0/abc.jpg", "class_0/def.png", "class_1/ghi.jpeg", "class_1/jkl.PNG",
                "class_1/mno/pqr.jpeg", "class_1/mno/stu.jpg", "top.png", "class_2/notes.txt"]


def make_folder(tmp_path):
    """Images (PNG data whatever the extension: the loaders read the content), a text file, an empty
    class folder; returns the root and each image's pixels."""
    rng = np.random.default_rng(3)
    pixels = {}
    for rel in FOLDER_FILES:
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".txt"):
            path.write_text("not an image")
            continue
        pixels[rel] = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
        Image.fromarray(pixels[rel]).save(path, format="PNG")
    (tmp_path / "empty").mkdir()
    return str(tmp_path), pixels


def rel(root, paths):
    return [os.path.relpath(p, root) for p in paths]


def test_dataset_folder(tmp_path):
    root, pixels = make_folder(tmp_path)
    data = D.DatasetFolder(root)
    assert data.classes == ["class_0", "class_1", "class_2", "empty"]
    assert data.class_to_idx == {"class_0": 0, "class_1": 1, "class_2": 2, "empty": 3}
    # Sorted, nested folders included, extensions case-insensitive, the .txt and top-level files left out.
    expected = ["class_0/abc.jpg", "class_0/def.png", "class_1/ghi.jpeg", "class_1/jkl.PNG",
                "class_1/mno/pqr.jpeg", "class_1/mno/stu.jpg"]
    assert rel(root, [p for p, _ in data.samples]) == expected
    assert data.targets == [0, 0, 1, 1, 1, 1] and [t for _, t in data.samples] == data.targets
    assert len(data) == 6 and data.dtype == "float32"
    item = data[3]
    assert isinstance(item, tuple) and item[1] == 1 and item[0].mode == "RGB"
    np.testing.assert_array_equal(np.asarray(item[0]), pixels["class_1/jkl.PNG"])
    oar.vision.set_image_backend("cv2")
    try:
        image, _ = data[3]  # an RGB uint8 HWC array, as Paddle's cv2 loader gives
        assert image.dtype == np.uint8
        np.testing.assert_array_equal(image, pixels["class_1/jkl.PNG"])
    finally:
        oar.vision.set_image_backend("pil")
    only_jpg = D.DatasetFolder(root, loader=lambda p: p, extensions=(".jpg",),
                               transform=lambda p: os.path.basename(p))
    assert rel(root, [p for p, _ in only_jpg.samples]) == ["class_0/abc.jpg", "class_1/mno/stu.jpg"]
    assert only_jpg[1] == ("stu.jpg", 1)
    tensors = D.DatasetFolder(root, transform=T.Compose([T.Resize(8), T.ToTensor()]))
    assert tensors[0][0].shape == [3, 8, 11] and tensors[0][0].dtype == oar.float32
    # is_valid_file is used when extensions is not given (Paddle 3.3.1 ignores it).
    jpeg = D.DatasetFolder(root, is_valid_file=lambda p: p.endswith(".jpeg"))
    assert rel(root, [p for p, _ in jpeg.samples]) == ["class_1/ghi.jpeg", "class_1/mno/pqr.jpeg"]
    with pytest.raises(RuntimeError, match="Found 0 directories in subfolders of: .*\nSupported extensions are: "
                                           ".gif"):
        D.DatasetFolder(root, extensions=(".gif",))
    with pytest.raises(AssertionError, match="`extensions` must be list or tuple"):
        D.DatasetFolder(root, extensions=".png")
    with pytest.raises(FileNotFoundError):
        D.DatasetFolder(str(tmp_path / "missing"))


def test_image_folder(tmp_path):
    root, pixels = make_folder(tmp_path)
    data = D.ImageFolder(root)
    assert rel(root, data.samples) == ["top.png", "class_0/abc.jpg", "class_0/def.png", "class_1/ghi.jpeg",
                                       "class_1/jkl.PNG", "class_1/mno/pqr.jpeg", "class_1/mno/stu.jpg"]
    item = data[0]
    assert isinstance(item, list) and len(item) == 1  # [sample], as Paddle
    np.testing.assert_array_equal(np.asarray(item[0]), pixels["top.png"])
    pngs = D.ImageFolder(root, extensions=[".png"], transform=np.asarray)
    assert rel(root, pngs.samples) == ["top.png", "class_0/def.png", "class_1/jkl.PNG"]
    assert pngs[1][0].shape == (5, 7, 3)
    with pytest.raises(RuntimeError, match="Found 0 files in subfolders of"):
        D.ImageFolder(root, extensions=(".gif",))


def test_folders_beside_paddle(tmp_path):
    paddle = pytest.importorskip("paddle")
    root, _ = make_folder(tmp_path)
    for kwargs in [{}, {"extensions": (".jpg", ".png")}]:
        ours, theirs = D.DatasetFolder(root, **kwargs), paddle.vision.datasets.DatasetFolder(root, **kwargs)
        assert (ours.classes, ours.class_to_idx, ours.samples, ours.targets, ours.extensions) == \
               (theirs.classes, theirs.class_to_idx, theirs.samples, theirs.targets, theirs.extensions)
        for i in range(len(theirs)):
            (a, la), (b, lb) = ours[i], theirs[i]
            assert la == lb and a.mode == b.mode
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        ours, theirs = D.ImageFolder(root, **kwargs), paddle.vision.datasets.ImageFolder(root, **kwargs)
        assert ours.samples == theirs.samples
        np.testing.assert_array_equal(np.asarray(ours[-1][0]), np.asarray(theirs[-1][0]))
    paddle.vision.set_image_backend("cv2")
    oar.vision.set_image_backend("cv2")
    try:
        np.testing.assert_array_equal(D.DatasetFolder(root)[2][0],
                                      paddle.vision.datasets.DatasetFolder(root)[2][0])
    finally:
        paddle.vision.set_image_backend("pil")
        oar.vision.set_image_backend("pil")
