"""oar.hub, as paddle.hub: models published by a repository's hubconf.py.

A hub repository is a directory holding hubconf.py; its public callables are the entry points,
and an optional `dependencies` list names modules that must be importable before load() calls
one. source='local' reads the directory given. oar has no network access: for 'github' and
'gitee' it uses the copy Paddle would have cached (~/.cache/paddle/hub/<owner>_<repo>_<branch>)
when there is one, and otherwise raises, saying to clone the repository and pass source='local'.
load_state_dict_from_url likewise reads the file where Paddle would have downloaded it.
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import warnings
import zipfile
from urllib.parse import urlparse

__all__ = ["list", "help", "load", "load_state_dict_from_url"]

_SOURCES = ("github", "gitee", "local")
_HUBCONF = "hubconf.py"
_DEPENDENCIES = "dependencies"


class HubNotAvailableError(RuntimeError):
    """What a remote hub source or URL raises when its files are not on this machine."""


def _hub_cache_dir():
    # Paddle's hub cache (hapi/hub.py's HUB_DIR), where paddle.hub.load leaves downloaded repos.
    return os.path.expanduser(os.path.join("~", ".cache", "paddle", "hub"))


def _check_source(source):
    if source not in _SOURCES:
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "gitee" | "local".')


def _parse_repo(repo, source):
    """(owner, name, branch) of "owner/name[:branch]"; the default branch is Paddle's."""
    branch = "main" if source == "github" else "master"
    spec = repo
    if ":" in repo:
        spec, _, branch = repo.partition(":")
    parts = spec.split("/")
    if len(parts) != 2 or not all(parts) or not branch:
        raise ValueError(f'oar.hub: repo_dir {repo!r} is not of the form "repo_owner/repo_name[:branch]" '
                         f'(source={source!r})')
    return parts[0], parts[1], branch


def _remote_repo_dir(repo, source, force_reload):
    """The local copy of a github/gitee repository: Paddle's cache of it, as paddle.hub uses it
    when force_reload is False. Anything else would need a download."""
    owner, name, branch = _parse_repo(repo, source)
    cached = os.path.join(_hub_cache_dir(), "_".join([owner, name, branch.replace("/", "_")]))
    if not force_reload and os.path.isdir(cached):
        sys.stderr.write(f"Using cache found in {cached}\n")
        return cached
    if force_reload:
        why = "force_reload=True asks for a fresh download"
    else:
        why = f"there is no cached copy at {cached!r}"
    raise HubNotAvailableError(
        f"oar.hub: cannot fetch {repo!r} from {source}: oar has no network access and {why}. "
        f"Clone the repository (git clone, branch {branch!r}) and pass its directory with "
        f"source='local', e.g. oar.hub.load('/path/to/{name}', model, source='local').")


def _repo_dir(repo_dir, source, force_reload):
    _check_source(source)
    if source == "local":
        return repo_dir
    return _remote_repo_dir(repo_dir, source, force_reload)


def _import_hubconf(repo_dir):
    """Runs repo_dir/hubconf.py as a fresh module. repo_dir is first on sys.path while it runs,
    so that hubconf can import the repository's own modules (as paddle.hub's __import__ does)."""
    path = os.path.join(repo_dir, _HUBCONF)
    if not os.path.isfile(path):
        raise RuntimeError(f"oar.hub: no {_HUBCONF} in {repo_dir!r}: a hub repository has one at its top")
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    # Registered while it runs (dataclasses and pickling look a module up there), then
    # removed as paddle.hub removes it, so that the next repository's hubconf is read afresh.
    previous = sys.modules.get("hubconf")
    sys.modules["hubconf"] = module
    sys.path.insert(0, repo_dir)
    try:
        spec.loader.exec_module(module)
    except ImportError as e:
        # Paddle's message; the cause says what failed to import.
        raise RuntimeError("Please make sure config exists or repo error messages above fixed when "
                           f"importing ({path}: {e})") from e
    finally:
        sys.path.remove(repo_dir)
        if previous is None:
            sys.modules.pop("hubconf", None)
        else:
            sys.modules["hubconf"] = previous
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a str of function name")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _is_importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def _check_dependencies(module):
    missing = [name for name in getattr(module, _DEPENDENCIES, None) or () if not _is_importable(name)]
    if missing:
        raise RuntimeError("Missing dependencies: {}".format(", ".join(missing)))


def list(repo_dir, source="github", force_reload=False):  # noqa: A001 (Paddle's name)
    """The entry points of a hub repository: the public callables its hubconf.py defines.

    Args:
        repo_dir (str): For source='local', the repository's directory. For 'github' and 'gitee',
            "repo_owner/repo_name[:branch]" (default branch 'main' on github, 'master' on gitee):
            oar reads Paddle's cached copy of it and raises HubNotAvailableError (a RuntimeError)
            when there is none, as it cannot download.
        source (str, optional): 'github', 'gitee' or 'local'. Default: 'github'.
        force_reload (bool, optional): Ignore the cached copy of a remote repository (which
            then needs a download, so it raises). Default: False.

    Returns:
        list[str]: The entry point names, sorted.

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> with tempfile.TemporaryDirectory() as repo:
        ...     with open(os.path.join(repo, 'hubconf.py'), 'w') as f:
        ...         _ = f.write("import oar\\n"
        ...                     "def tiny_mlp(hidden=4):\\n"
        ...                     "    return oar.nn.Linear(2, hidden)\\n")
        ...     print(oar.hub.list(repo, source='local'))
        ['tiny_mlp']
    """
    module = _import_hubconf(_repo_dir(repo_dir, source, force_reload))
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(repo_dir, model, source="github", force_reload=False):  # noqa: A001 (Paddle's name)
    """The docstring of one entry point of a hub repository.

    Args:
        repo_dir (str): The repository: a directory (source='local') or "owner/name[:branch]"
            (see oar.hub.list).
        model (str): The entry point's name.
        source (str, optional): 'github', 'gitee' or 'local'. Default: 'github'.
        force_reload (bool, optional): Ignore the cached copy of a remote repository. Default: False.

    Returns:
        str: The entry point's __doc__ (None when it has none).

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> with tempfile.TemporaryDirectory() as repo:
        ...     with open(os.path.join(repo, 'hubconf.py'), 'w') as f:
        ...         _ = f.write("def tiny_mlp(hidden=4):\\n"
        ...                     "    '''A two-layer MLP.'''\\n")
        ...     print(oar.hub.help(repo, 'tiny_mlp', source='local'))
        A two-layer MLP.
    """
    module = _import_hubconf(_repo_dir(repo_dir, source, force_reload))
    return _entry(module, model).__doc__


def load(repo_dir, model, source="github", force_reload=False, **kwargs):
    """Calls an entry point of a hub repository, typically building a model.

    The modules named by hubconf's `dependencies` list must be importable first: missing ones
    raise RuntimeError("Missing dependencies: ...").

    Args:
        repo_dir (str): The repository: a directory (source='local') or "owner/name[:branch]"
            (see oar.hub.list).
        model (str): The entry point's name.
        source (str, optional): 'github', 'gitee' or 'local'. Default: 'github'.
        force_reload (bool, optional): Ignore the cached copy of a remote repository. Default: False.
        **kwargs: Passed to the entry point.

    Returns:
        What the entry point returns (usually an oar.nn.Layer).

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> with tempfile.TemporaryDirectory() as repo:
        ...     with open(os.path.join(repo, 'hubconf.py'), 'w') as f:
        ...         _ = f.write("import oar\\n"
        ...                     "dependencies = ['numpy']\\n"
        ...                     "def tiny_mlp(hidden=4):\\n"
        ...                     "    return oar.nn.Sequential(oar.nn.Linear(2, hidden),\\n"
        ...                     "                             oar.nn.Linear(hidden, 1))\\n")
        ...     model = oar.hub.load(repo, 'tiny_mlp', source='local', hidden=8)
        >>> print(model[0].weight.shape)
        [2, 8]
    """
    module = _import_hubconf(_repo_dir(repo_dir, source, force_reload))
    _check_dependencies(module)
    return _entry(module, model)(**kwargs)


def get_dir():
    """Paddle's hub directory: $PADDLE_HOME/hub, PADDLE_HOME defaulting to $XDG_CACHE_HOME/paddle
    (~/.cache/paddle)."""
    if os.getenv("PADDLE_HUB"):
        warnings.warn("PADDLE_HUB is deprecated, please use env PADDLE_HOME instead")
    home = os.getenv("PADDLE_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "paddle"))
    return os.path.join(os.path.expanduser(home), "hub")


@contextlib.contextmanager
def _device_guard(device):
    from ..device import get_device, set_device
    previous = get_device()
    if device in ("cpu", "gpu", "xpu", "npu"):
        set_device(device if device == "cpu" else f"{device}:0")
    try:
        yield
    finally:
        set_device(previous)


def _load_file(path, map_location):
    from ..framework.io import load as oar_load
    if map_location in ("numpy", "np"):
        return oar_load(path, return_numpy=True)
    if map_location:
        with _device_guard(map_location):
            return oar_load(path)
    return oar_load(path)


def _single_member_zip(path):
    # Paddle's legacy format: a zip holding exactly one file, the checkpoint.
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        members = archive.infolist()
    return len(members) == 1 and not members[0].is_dir()


def load_state_dict_from_url(url, model_dir=None, check_hash=False, file_name=None, map_location=None):
    """Loads a checkpoint that paddle.hub.load_state_dict_from_url would download from url.

    oar cannot download: the file is read from where Paddle keeps it, model_dir/<file name>
    (model_dir defaulting to oar.hub's get_dir()/checkpoints, i.e. ~/.cache/paddle/hub/checkpoints),
    and a missing file raises HubNotAvailableError (a RuntimeError) naming that path. A zip archive
    holding a single file is extracted into model_dir and that file is loaded, as Paddle does.

    Args:
        url (str): The checkpoint's URL; its last path component is the file name.
        model_dir (str, optional): The directory holding the file. Default: None.
        check_hash (bool, optional): Paddle checks the hash while downloading; a file already
            there is not checked, by Paddle or here. Default: False.
        file_name (str, optional): The file's name, instead of the URL's. Default: None.
        map_location (str, optional): 'cpu', 'gpu', 'xpu' or 'npu' (the device the tensors are
            loaded to), 'numpy' or 'np' (NumPy arrays), or None. Default: None.

    Returns:
        The loaded object (usually a state dict).

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> with tempfile.TemporaryDirectory() as model_dir:
        ...     oar.save({'w': oar.ones([2])}, os.path.join(model_dir, 'tiny.pdparams'))
        ...     state = oar.hub.load_state_dict_from_url('https://example.com/models/tiny.pdparams',
        ...                                              model_dir=model_dir, map_location='numpy')
        >>> print(state['w'])
        [1. 1.]
    """
    if map_location is not None and map_location not in ("cpu", "gpu", "xpu", "npu", "numpy", "np"):
        raise ValueError(f"map_location should be one of 'cpu', 'gpu', 'xpu', 'npu', 'numpy', 'np' "
                         f"or None, but got {map_location!r}")
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.isfile(cached):
        raise HubNotAvailableError(
            f"oar.hub.load_state_dict_from_url: oar has no network access and {cached!r} does not "
            f"exist. Download {url} yourself and put it there (or pass model_dir/file_name naming "
            f"where it is).")
    if _single_member_zip(cached):
        with zipfile.ZipFile(cached) as archive:
            member = archive.infolist()[0]
            archive.extract(member, model_dir)
        cached = os.path.join(model_dir, member.filename)
    return _load_file(cached, map_location)

