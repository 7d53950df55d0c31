"""paddle.utils.download: the weights cache (~/.cache/paddle/hapi/weights, Paddle's). oar never
downloads: a file that is not in the cache raises FileNotFoundError naming where to put it."""
import hashlib
import os
import os.path as osp
import tarfile
import zipfile

__all__ = ["get_weights_path_from_url"]

WEIGHTS_HOME = osp.expanduser("~/.cache/paddle/hapi/weights")


def is_url(path):
    """Whether `path` is an http(s) URL."""
    return path.startswith("http://") or path.startswith("https://")


def _md5_ok(path, md5sum):
    if md5sum is None:
        return True
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest() == md5sum


def _members(names):
    return [n.replace("../", "") for n in names]


def _decompress(path):
    """Extracts an archive next to itself (once) and returns what it holds: its one file, its one
    top directory, or a directory named after the archive holding its several entries."""
    folder = osp.dirname(path)
    if tarfile.is_tarfile(path):
        with tarfile.open(path) as tar:
            names = _members(tar.getnames())
            extract = lambda dest: tar.extractall(dest, filter="data")  # noqa: E731
            return _place(path, folder, names, extract)
    with zipfile.ZipFile(path) as z:
        return _place(path, folder, _members(z.namelist()), z.extractall)


def _place(path, folder, names, extract):
    tops = {n.strip("/").split("/")[0] for n in names if n.strip("/")}
    if len(names) == 1 and "/" not in names[0].strip("/"):
        target, dest = osp.join(folder, names[0]), folder
    elif len(tops) == 1:
        target, dest = osp.join(folder, tops.pop()), folder
    else:
        stem = osp.basename(path)
        for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
            if stem.endswith(ext):
                stem = stem[:-len(ext)]
                break
        target = dest = osp.join(folder, stem)
    if not osp.exists(target):
        os.makedirs(dest, exist_ok=True)
        extract(dest)
    return target


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True, method="get"):
    """The local copy of `url` under root_dir (root_dir/<the URL's file name>), extracted when it
    is a zip or tar archive. oar does not download: a missing copy (or one whose MD5 differs from
    md5sum) raises FileNotFoundError naming the path to put the file at."""
    assert is_url(url), f"downloading from {url} not a url"
    path = osp.join(root_dir, osp.split(url)[-1])
    if not osp.exists(path):
        raise FileNotFoundError(f"{path} does not exist, and oar does not download files: fetch {url} and put it "
                                f"at {path}")
    if check_exist and not _md5_ok(path, md5sum):
        raise FileNotFoundError(f"{path} does not match md5sum {md5sum}: replace it with the file at {url}")
    if decompress and (tarfile.is_tarfile(path) or zipfile.is_zipfile(path)):
        path = _decompress(path)
    return path


def get_weights_path_from_url(url, md5sum=None):
    """The local path of the weights at `url`: ~/.cache/paddle/hapi/weights/<the URL's file
    name> (Paddle's cache, extracted when it is an archive). oar never downloads: when the file is
    not there (or its MD5 differs from md5sum) this raises FileNotFoundError naming the path to put
    it at.

    Args:
        url (str): The weights' URL.
        md5sum (str, optional): The file's expected MD5 hex digest. Default: None, not checked.

    Returns:
        str: The local path.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.utils.download.get_weights_path_from_url('https://example.com/none.pdparams')
        ... except FileNotFoundError as e:
        ...     print('put it at' in str(e))
        True
    """
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)
