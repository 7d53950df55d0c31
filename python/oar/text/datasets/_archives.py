"""Opening the datasets' archives, with errors that name the dataset, the file and the member."""
from __future__ import annotations

import tarfile
import zipfile


def open_tar(dataset, path):
    """tarfile.open(path); a ValueError naming dataset and path when it is not a tar archive."""
    try:
        return tarfile.open(path)
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ValueError(f"{dataset}: {path!r} is not a readable tar archive ({e})") from e


def open_zip(dataset, path):
    """zipfile.ZipFile(path); a ValueError naming dataset and path when it is not a zip archive."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as e:
        raise ValueError(f"{dataset}: {path!r} is not a readable zip archive ({e})") from e


def tar_member(dataset, tar, name):
    """The file object of member name; a ValueError saying which member is missing."""
    try:
        return tar.extractfile(name)
    except KeyError:
        raise ValueError(f"{dataset}: the archive {tar.name!r} has no member {name!r}; is it the "
                         f"dataset's archive?") from None
