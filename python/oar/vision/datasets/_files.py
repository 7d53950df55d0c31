"""Where the datasets look for their files, and the error when one is missing.

oar never downloads. The default location is Paddle's cache, ~/.cache/paddle/dataset/<name>/, so
files fetched for Paddle are found as they are.
"""
import os


def data_home():
    return os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset")


def folder_path(folder):
    """Where a dataset's files live by default: <data_home>/<folder>."""
    return os.path.join(data_home(), folder)


def default_path(folder, filename):
    return os.path.join(folder_path(folder), filename)


def given_or_default(dataset, arg, path, download, folder, filename):
    """The path the caller gave for `arg`, else the default one: the caller's download=True is
    what allows leaving it out (oar reads the default place, where Paddle would have downloaded
    to), so with download=False a missing path is a ValueError naming arg and the file."""
    if path is None and not download:
        raise ValueError(f"{dataset}: {arg} is not set and downloading automatically is disabled "
                         f"(download=False); pass the path of {filename}")
    return path or default_path(folder, filename)


def require_file(dataset, path, expected, where, url_hint):
    """Raises FileNotFoundError naming the path, the expected file names and where they go."""
    if os.path.isfile(path):
        return path
    names = ", ".join(expected)
    raise FileNotFoundError(
        f"{dataset}: data file not found: {path!r}. oar does not download datasets; expected the "
        f"file(s) {names} in {where} (Paddle's cache directory), as distributed at {url_hint}, or "
        f"pass their paths explicitly.")


def check_mode(dataset, mode):
    if not isinstance(mode, str) or mode.lower() not in ("train", "test"):
        raise ValueError(f"{dataset}: mode should be 'train' or 'test', but got {mode!r}")
    return mode.lower()


def check_backend(dataset, backend):
    if backend is None:
        from ..image import get_image_backend
        backend = get_image_backend()
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{dataset}: expected backend are one of ['pil', 'cv2'], but got {backend!r}")
    return backend
