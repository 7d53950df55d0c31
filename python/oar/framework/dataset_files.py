"""Where the audio and text datasets find their files, and the error when one is missing.

oar never downloads. Without an explicit path a dataset reads Paddle's cache directory,
~/.cache/paddle/dataset (paddle.dataset.common.DATA_HOME: the temporary directory's .cache
when the home directory is not writable), so files fetched for Paddle are found as they are.
"""
from __future__ import annotations

import os
import tempfile


def data_home():
    """Paddle's dataset cache directory, looked up at each call (HOME may change)."""
    home = os.path.expanduser("~")
    if not os.access(home, os.W_OK):
        home = tempfile.gettempdir()
    return os.path.join(home, ".cache", "paddle", "dataset")


def missing_file_error(dataset, path, what, url):
    """The FileNotFoundError for a dataset file that is not there: it names the path, what was
    expected there and where Paddle downloads it from."""
    return FileNotFoundError(
        f"{dataset}: {path!r} not found. oar does not download datasets: download {url} and "
        f"put {what} at {path!r} (Paddle's cache directory is {data_home()!r}), or pass the path "
        f"of your copy.")


def require_file(dataset, path, what, url):
    """path, when it is a file; else missing_file_error."""
    if not os.path.isfile(path):
        raise missing_file_error(dataset, path, what, url)
    return path


def resolve(dataset, arg, path, download, folder, url):
    """The file a dataset reads for its argument `arg`: path when given, else where Paddle's
    download puts url (data_home()/folder/<url's last component>), which needs download=True,
    as in Paddle. The file must exist (missing_file_error names it and url)."""
    if path is None:
        if not download:
            raise AssertionError(f"{arg} is not set and downloading automatically is disabled")
        path = os.path.join(data_home(), folder, url.split("/")[-1])
    return require_file(dataset, path, f"the file downloaded from there ({arg})", url)
