"""Flowers (Oxford 102 Flowers) and VOC2012 segmentation, read from Paddle's archives.

Flowers: 102flowers.tgz (jpg/image_00001.jpg, ...), imagelabels.mat ('labels': 1 x n, 1-based
classes) and setid.mat ('trnid', 'valid', 'tstid': 1-based image numbers). As in Paddle, mode
'train' reads 'tstid' (the larger split) and 'test' reads 'trnid'.

VOC2012: VOCtrainval_11-May-2012.tar with VOCdevkit/VOC2012/ImageSets/Segmentation/<set>.txt,
JPEGImages/<id>.jpg and SegmentationClass/<id>.png; mode 'train' reads 'trainval', 'test'
'train', 'valid' 'val' (Paddle's map).

Images are read from the archives themselves (nothing is extracted or downloaded).
"""
import io
import tarfile

import numpy as np

from ...io import Dataset
from . import _files
from ._image_dataset import default_dtype_name
from ._matfile import loadmat


def _check_mode(cls, mode):
    if not isinstance(mode, str) or mode.lower() not in ("train", "valid", "test"):
        raise AssertionError(f"{cls}: mode should be 'train', 'valid' or 'test', but got {mode!r}")
    return mode.lower()


def _open_tar(cls, path):
    try:
        return tarfile.open(path, mode="r")
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ValueError(f"{cls}: {path!r} is not a readable tar archive ({e})") from e


def _read_member(cls, archive, members, name, path):
    if name not in members:
        raise ValueError(f"{cls}: {path!r} has no member {name!r}")
    return archive.extractfile(members[name]).read()


class Flowers(Dataset):
    """The Oxford 102 Flowers dataset. Items are (image, label): image a PIL image (backend 'pil')
    or an HWC array in the default dtype (backend 'cv2'), after ``transform``; label an int64
    array of shape [1].

    Args:
        data_file (str, optional): Path of 102flowers.tgz. Default: None.
        label_file (str, optional): Path of imagelabels.mat. Default: None.
        setid_file (str, optional): Path of setid.mat. Default: None.
        mode (str, optional): 'train', 'valid' or 'test'. Default: 'train'.
        transform (callable, optional): Applied to each image. Default: None.
        download (bool, optional): Allow leaving paths out: the files are then read from Paddle's
            cache directory ~/.cache/paddle/dataset/flowers/ (oar never downloads; a missing file
            raises FileNotFoundError). Default: True.
        backend (str, optional): 'pil' or 'cv2'; None means get_image_backend(). Default: None.

    Examples:
        >>> import oar
        >>> from oar.vision.datasets import Flowers
        >>> try:
        ...     Flowers(data_file="/no/such/102flowers.tgz")
        ... except FileNotFoundError as e:
        ...     print("102flowers.tgz" in str(e))
        True
    """

    FOLDER = "flowers"
    FLAGS = {"train": "tstid", "test": "trnid", "valid": "valid"}
    URLS = {"data_file": ("102flowers.tgz", "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"),
            "label_file": ("imagelabels.mat", "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"),
            "setid_file": ("setid.mat", "http://paddlemodels.bj.bcebos.com/flowers/setid.mat")}

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train",
                 transform=None, download=True, backend=None):
        cls = type(self).__name__
        self.mode = _check_mode(cls, mode)
        self.backend = _files.check_backend(cls, backend)
        paths = {}
        for arg, given in (("data_file", data_file), ("label_file", label_file),
                           ("setid_file", setid_file)):
            filename, url = self.URLS[arg]
            path = _files.given_or_default(cls, arg, given, download, self.FOLDER, filename)
            paths[arg] = _files.require_file(cls, path, (filename,),
                                             _files.folder_path(self.FOLDER), url)
        self.data_file, self.label_file, self.setid_file = (
            paths["data_file"], paths["label_file"], paths["setid_file"])
        self.transform = transform
        flag = self.FLAGS[self.mode]
        labels = loadmat(self.label_file).get("labels")
        sets = loadmat(self.setid_file).get(flag)
        if labels is None:
            raise ValueError(f"{cls}: {self.label_file!r} holds no 'labels' array")
        if sets is None:
            raise ValueError(f"{cls}: {self.setid_file!r} holds no {flag!r} array")
        self.labels = np.asarray(labels).reshape(-1)
        self.indexes = np.asarray(sets).reshape(-1).astype(np.int64)
        self._tar = _open_tar(cls, self.data_file)
        self._members = {m.name.lstrip("./"): m for m in self._tar.getmembers() if m.isfile()}
        self.dtype = default_dtype_name()

    def __getitem__(self, idx):
        from PIL import Image
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype("int64")
        name = f"jpg/image_{index:05}.jpg"
        data = _read_member(type(self).__name__, self._tar, self._members, name, self.data_file)
        image = Image.open(io.BytesIO(data))
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label
        return image.astype(self.dtype), label

    def __len__(self):
        return len(self.indexes)


class VOC2012(Dataset):
    """The PASCAL VOC2012 segmentation dataset. Items are (image, label): PIL images (backend
    'pil'), or HWC / HW arrays in the default dtype (backend 'cv2'); ``transform`` is applied to
    the image only.

    Args:
        data_file (str, optional): Path of VOCtrainval_11-May-2012.tar. Default: None.
        mode (str, optional): 'train' (the 'trainval' list), 'valid' ('val') or 'test'
            ('train'). Default: 'train'.
        transform (callable, optional): Applied to each image. Default: None.
        download (bool, optional): Allow leaving the path out: the file is then read from
            Paddle's cache directory ~/.cache/paddle/dataset/voc2012/ (oar never downloads; a
            missing file raises FileNotFoundError). Default: True.
        backend (str, optional): 'pil' or 'cv2'; None means get_image_backend(). Default: None.

    Examples:
        >>> import oar
        >>> from oar.vision.datasets import VOC2012
        >>> try:
        ...     VOC2012(data_file="/no/such/VOCtrainval_11-May-2012.tar")
        ... except FileNotFoundError as e:
        ...     print("VOCtrainval_11-May-2012.tar" in str(e))
        True
    """

    FOLDER = "voc2012"
    ARCHIVE = "VOCtrainval_11-May-2012.tar"
    URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
    FLAGS = {"train": "trainval", "test": "train", "valid": "val"}
    SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
    DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
    LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        cls = type(self).__name__
        self.mode = _check_mode(cls, mode)
        self.backend = _files.check_backend(cls, backend)
        self.flag = self.FLAGS[self.mode]
        path = _files.given_or_default(cls, "data_file", data_file, download, self.FOLDER,
                                       self.ARCHIVE)
        self.data_file = _files.require_file(cls, path, (self.ARCHIVE,),
                                             _files.folder_path(self.FOLDER), self.URL)
        self.transform = transform
        self.data_tar = _open_tar(cls, self.data_file)
        self.name2mem = {m.name: m for m in self.data_tar.getmembers()}
        sets = _read_member(cls, self.data_tar, self.name2mem, self.SET_FILE.format(self.flag),
                            self.data_file)
        ids = [line.strip().decode("utf-8") for line in sets.splitlines() if line.strip()]
        self.data = [self.DATA_FILE.format(i) for i in ids]
        self.labels = [self.LABEL_FILE.format(i) for i in ids]
        self.dtype = default_dtype_name()

    def __getitem__(self, idx):
        from PIL import Image
        cls = type(self).__name__
        data = _read_member(cls, self.data_tar, self.name2mem, self.data[idx], self.data_file)
        label = _read_member(cls, self.data_tar, self.name2mem, self.labels[idx], self.data_file)
        data = Image.open(io.BytesIO(data))
        label = Image.open(io.BytesIO(label))
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        tar = getattr(self, "data_tar", None)
        if tar is not None:
            tar.close()
