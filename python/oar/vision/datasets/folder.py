"""Datasets of image files in folders (paddle.vision.datasets.DatasetFolder / ImageFolder).

DatasetFolder reads root/<class>/.../<file>: one class per subfolder of root (sorted names, indices
from 0), every file below it whose name has an allowed extension a sample. ImageFolder reads every
allowed file below root, without labels. Files are listed once, when the dataset is made, and
loaded when an item is read.
"""
import os

import numpy as np

from ...framework.dtype import get_default_dtype
from ...framework.errors import AssertTypeError
from ...io import Dataset
from ..image import get_image_backend

__all__ = ["DatasetFolder", "ImageFolder"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions):
    """Whether filename ends with one of extensions (a list or tuple; case-insensitive)."""
    if not isinstance(extensions, (list, tuple)):
        raise AssertTypeError("`extensions` must be list or tuple.")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def _file_filter(extensions, is_valid_file):
    """The test a file must pass: its extension when extensions are given (they win over
    is_valid_file, as in Paddle), else is_valid_file, else the image extensions."""
    if extensions is None and is_valid_file is not None:
        return is_valid_file
    allowed = IMG_EXTENSIONS if extensions is None else extensions
    return lambda path: has_valid_extension(path, allowed)


def _files_below(folder, keep):
    """Every file below folder (symlinked folders followed) that passes keep, in sorted order."""
    found = []
    for root, _, names in sorted(os.walk(folder, followlinks=True)):
        for name in sorted(names):
            path = os.path.join(root, name)
            if keep(path):
                found.append(path)
    return found


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    """The (path, class index) samples below dir's class folders."""
    dir = os.path.expanduser(dir)
    keep = _file_filter(extensions, is_valid_file)
    return [(path, class_to_idx[target]) for target in sorted(class_to_idx)
            if os.path.isdir(os.path.join(dir, target))
            for path in _files_below(os.path.join(dir, target), keep)]


def pil_loader(path):
    """The image at path as an RGB PIL image."""
    from PIL import Image
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def cv2_loader(path):
    """The image at path as an RGB uint8 HWC array, as cv2.cvtColor(cv2.imread(path), COLOR_BGR2RGB)
    gives (read with PIL: oar does not depend on OpenCV)."""
    return np.asarray(pil_loader(path))


def default_loader(path):
    """pil_loader or cv2_loader, after oar.vision.get_image_backend()."""
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


def _describe(extensions, is_valid_file):
    if extensions is None and is_valid_file is not None:
        return "those is_valid_file accepts"
    return ",".join(IMG_EXTENSIONS if extensions is None else extensions)


class DatasetFolder(Dataset):
    """A dataset of files arranged one folder per class::

        root/class_a/1.ext
        root/class_a/2.ext
        root/class_b/123.ext
        root/class_b/nested/456.ext

    Item i is ``(sample, class_index)``: the file loaded by ``loader``, then passed through
    ``transform``.

    Args:
        root (str): The root folder.
        loader (Callable, optional): Loads a sample from its path. None uses a PIL RGB image, or an
            RGB uint8 HWC array when the image backend is 'cv2'. Default: None.
        extensions (list[str]|tuple[str], optional): The file extensions kept. None keeps
            ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp') unless
            is_valid_file is given. Default: None.
        transform (Callable, optional): Applied to each loaded sample. Default: None.
        is_valid_file (Callable, optional): Takes a file's path and says whether to keep it; used
            when extensions is None (Paddle 3.3.1 ignores it, always filtering by extension).
            Default: None.

    Attributes:
        classes (list[str]): The class names (the subfolders of root, sorted).
        class_to_idx (dict[str, int]): Each class name's index.
        samples (list[tuple[str, int]]): (path, class index) of every sample.
        targets (list[int]): The class index of every sample.

    Examples:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from PIL import Image
        >>> import oar
        >>> root = tempfile.mkdtemp()
        >>> for path in ["cat/a.png", "cat/b.jpg", "dog/c.png", "dog/notes.txt"]:
        ...     os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
        ...     Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(os.path.join(root, path), format="PNG")
        >>> data = oar.vision.datasets.DatasetFolder(root)
        >>> print(data.classes, data.class_to_idx, data.targets, len(data))
        ['cat', 'dog'] {'cat': 0, 'dog': 1} [0, 0, 1] 3
        >>> image, label = data[2]
        >>> print(image.size, label)
        (4, 4) 1
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        self.classes, self.class_to_idx = self._find_classes(root)
        samples = make_dataset(root, self.class_to_idx, extensions, is_valid_file)
        if not samples:
            raise RuntimeError(f"Found 0 directories in subfolders of: {root}\n"
                               f"Supported extensions are: {_describe(extensions, is_valid_file)}")
        self.loader = default_loader if loader is None else loader
        self.extensions = IMG_EXTENSIONS if extensions is None else extensions
        self.samples = samples
        self.targets = [target for _, target in samples]
        self.dtype = get_default_dtype()

    def _find_classes(self, dir):
        """(sorted class names, {name: index}) from the subfolders of dir."""
        classes = sorted(entry.name for entry in os.scandir(dir) if entry.is_dir())
        return classes, {name: i for i, name in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """A dataset of the image files below a folder, at any depth, without labels::

        root/1.ext
        root/2.ext
        root/sub_dir/3.ext

    Item i is ``[sample]`` (a one-element list, as Paddle returns it): the file loaded by
    ``loader``, then passed through ``transform``.

    Args:
        root (str): The root folder.
        loader (Callable, optional): Loads a sample from its path. None uses a PIL RGB image, or an
            RGB uint8 HWC array when the image backend is 'cv2'. Default: None.
        extensions (list[str]|tuple[str], optional): The file extensions kept. None keeps
            ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp') unless
            is_valid_file is given. Default: None.
        transform (Callable, optional): Applied to each loaded sample. Default: None.
        is_valid_file (Callable, optional): Takes a file's path and says whether to keep it; used
            when extensions is None (Paddle 3.3.1 ignores it, always filtering by extension).
            Default: None.

    Attributes:
        samples (list[str]): The path of every sample.

    Examples:
        >>> import os, tempfile
        >>> import numpy as np
        >>> from PIL import Image
        >>> import oar
        >>> root = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(root, "sub"))
        >>> for path in ["a.png", "sub/b.png"]:
        ...     Image.fromarray(np.zeros((4, 6, 3), np.uint8)).save(os.path.join(root, path))
        >>> data = oar.vision.datasets.ImageFolder(root, extensions=(".png",))
        >>> print(len(data), [os.path.relpath(p, root) for p in data.samples])
        2 ['a.png', 'sub/b.png']
        >>> print(data[0][0].size)
        (6, 4)
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        samples = _files_below(os.path.expanduser(root), _file_filter(extensions, is_valid_file))
        if not samples:
            raise RuntimeError(f"Found 0 files in subfolders of: {root}\n"
                               f"Supported extensions are: {_describe(extensions, is_valid_file)}")
        self.loader = default_loader if loader is None else loader
        self.extensions = IMG_EXTENSIONS if extensions is None else extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
