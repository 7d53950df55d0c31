"""oar.hub against paddle.hub on a temporary hubconf.py: the entry points list() finds, help()'s
docstring, load() with keyword arguments and the dependencies check, Paddle's errors for a bad
source, a non-string model and a missing entry point; remote sources read Paddle's cache or raise
saying to clone and use source='local'; load_state_dict_from_url reads the file where Paddle
would have downloaded it."""
import os
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import oar
from oar.hapi import hub as oar_hub

HUBCONF = textwrap.dedent('''
    """A hub repository for the tests."""
    import helper_module  # a module is not callable: no entry point

    dependencies = ["numpy"]
    VERSION = "1.0"            # not callable: no entry point


    def mlp(hidden=4, depth=2):
        """Builds a toy MLP description."""
        return {"hidden": helper_module.double(hidden), "depth": depth}


    def no_doc():
        return "no doc"


    def _private():
        return None


    class Net:
        """A class entry point."""
        def __init__(self, width=1):
            self.width = width
''')


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "hubconf.py").write_text(HUBCONF)
    # hubconf imports a module of its own repository: the directory is on sys.path while it runs
    (tmp_path / "helper_module.py").write_text("def double(x):\n    return 2 * x\n")
    yield str(tmp_path)
    sys.modules.pop("helper_module", None)


def _paddle():
    return pytest.importorskip("paddle")


def test_list_help_load_local(repo):
    assert oar.hub.list(repo, source="local") == ["Net", "mlp", "no_doc"]
    assert oar.hub.help(repo, "mlp", source="local") == "Builds a toy MLP description."
    assert oar.hub.help(repo, "no_doc", source="local") is None
    assert oar.hub.load(repo, "mlp", source="local", hidden=3) == {"hidden": 6, "depth": 2}
    assert oar.hub.load(repo, "Net", source="local", width=5).width == 5
    assert "hubconf" not in sys.modules  # read afresh each time, as Paddle


def test_matches_paddle(repo):
    paddle = _paddle()
    assert oar.hub.list(repo, source="local") == paddle.hub.list(repo, source="local")
    for name in ("mlp", "no_doc", "Net"):
        assert oar.hub.help(repo, name, source="local") == paddle.hub.help(repo, name, source="local")
    assert (oar.hub.load(repo, "mlp", source="local", hidden=2, depth=5)
            == paddle.hub.load(repo, "mlp", source="local", hidden=2, depth=5))
    assert sorted(oar.hub.__all__) == sorted(paddle.hub.__all__)


def test_a_changed_hubconf_is_read_again(repo):
    assert oar.hub.list(repo, source="local") == ["Net", "mlp", "no_doc"]
    with open(os.path.join(repo, "hubconf.py"), "a") as f:
        f.write("\ndef another():\n    return 1\n")
    assert oar.hub.list(repo, source="local") == ["Net", "another", "mlp", "no_doc"]


def _errors(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the type and message are what is compared)
        return type(e), str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda hub, repo: hub.list(repo, source="svn"),
    lambda hub, repo: hub.help(repo, "mlp", source="ftp"),
    lambda hub, repo: hub.load(repo, "mlp", source="http"),
    lambda hub, repo: hub.load(repo, 3, source="local"),
    lambda hub, repo: hub.help(repo, "missing", source="local"),
    lambda hub, repo: hub.load(repo, "VERSION", source="local"),
])
def test_errors_match_paddle(repo, call):
    paddle = _paddle()
    expected = _errors(lambda: call(paddle.hub, repo))
    got = _errors(lambda: call(oar.hub, repo))
    assert expected is not None and got is not None
    assert issubclass(got[0], expected[0]) and got[1] == expected[1]


def test_missing_dependencies(tmp_path):
    (tmp_path / "hubconf.py").write_text(
        "dependencies = ['numpy', 'no_such_module_xyz', 'also_missing_abc']\ndef m():\n    return 1\n")
    with pytest.raises(RuntimeError, match=r"^Missing dependencies: no_such_module_xyz, also_missing_abc$"):
        oar.hub.load(str(tmp_path), "m", source="local")
    # list and help do not check them, as Paddle
    assert oar.hub.list(str(tmp_path), source="local") == ["m"]
    paddle = pytest.importorskip("paddle")
    with pytest.raises(RuntimeError, match=r"^Missing dependencies: no_such_module_xyz, also_missing_abc$"):
        paddle.hub.load(str(tmp_path), "m", source="local")


def test_no_hubconf_or_a_failing_import(tmp_path):
    with pytest.raises(RuntimeError, match="no hubconf.py in"):
        oar.hub.list(str(tmp_path), source="local")
    (tmp_path / "hubconf.py").write_text("import no_such_module_xyz\n")
    with pytest.raises(RuntimeError, match="Please make sure config exists") as info:
        oar.hub.list(str(tmp_path), source="local")
    assert isinstance(info.value.__cause__, ImportError)
    assert str(tmp_path) not in sys.path and "hubconf" not in sys.modules


@pytest.mark.parametrize("source", ["github", "gitee"])
def test_remote_source_without_a_cache_says_to_clone(tmp_path, monkeypatch, source):
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(RuntimeError, match="no network access") as info:
        oar.hub.list("owner/repo", source=source)
    assert isinstance(info.value, oar_hub.HubNotAvailableError)
    branch = "main" if source == "github" else "master"
    assert f"branch '{branch}'" in str(info.value) and "source='local'" in str(info.value)
    with pytest.raises(ValueError, match="repo_owner/repo_name"):
        oar.hub.load("not-a-repo", "m", source=source)


def test_remote_source_reads_paddles_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HOME", str(tmp_path))
    cached = tmp_path / ".cache" / "paddle" / "hub" / "owner_repo_release_v1"
    cached.mkdir(parents=True)
    (cached / "hubconf.py").write_text("def m(x=1):\n    '''doc'''\n    return x\n")
    assert oar.hub.list("owner/repo:release/v1", source="github") == ["m"]
    assert "Using cache found in" in capsys.readouterr().err
    assert oar.hub.load("owner/repo:release/v1", "m", source="gitee", x=7) == 7
    with pytest.raises(RuntimeError, match="force_reload=True"):
        oar.hub.load("owner/repo:release/v1", "m", source="github", force_reload=True)


def test_load_state_dict_from_url(tmp_path):
    state = {"w": oar.to_tensor(np.arange(3.0, dtype=np.float32))}
    oar.save(state, str(tmp_path / "net.pdparams"))
    got = oar.hub.load_state_dict_from_url("https://example.com/a/net.pdparams", model_dir=str(tmp_path))
    np.testing.assert_array_equal(got["w"].numpy(), [0, 1, 2])
    got = oar.hub.load_state_dict_from_url("https://example.com/x", model_dir=str(tmp_path),
                                           file_name="net.pdparams", map_location="np")
    assert isinstance(got["w"], np.ndarray)
    got = oar.hub.load_state_dict_from_url("https://example.com/a/net.pdparams", model_dir=str(tmp_path),
                                           map_location="cpu")
    assert isinstance(got["w"], oar.Tensor)
    # a zip holding one file: extracted beside it, then loaded
    sub = tmp_path / "z"
    sub.mkdir()
    with zipfile.ZipFile(sub / "net.zip", "w") as archive:
        archive.write(str(tmp_path / "net.pdparams"), "inner.pdparams")
    got = oar.hub.load_state_dict_from_url("https://example.com/net.zip", model_dir=str(sub))
    np.testing.assert_array_equal(got["w"].numpy(), [0, 1, 2])
    assert (sub / "inner.pdparams").is_file()
    with pytest.raises(RuntimeError, match="no network access") as info:
        oar.hub.load_state_dict_from_url("https://example.com/missing.pdparams", model_dir=str(tmp_path))
    assert "missing.pdparams" in str(info.value)
    with pytest.raises(ValueError, match="map_location"):
        oar.hub.load_state_dict_from_url("https://example.com/a/net.pdparams", model_dir=str(tmp_path),
                                         map_location="tpu")


def test_load_state_dict_from_url_reads_a_file_paddle_saved(tmp_path):
    paddle = _paddle()
    paddle.save({"b": paddle.to_tensor([1.5, 2.5])}, str(tmp_path / "p.pdparams"))
    got = oar.hub.load_state_dict_from_url("https://example.com/p.pdparams", model_dir=str(tmp_path))
    np.testing.assert_array_equal(got["b"].numpy(), [1.5, 2.5])
    expected = paddle.hub.load_state_dict_from_url("https://example.com/p.pdparams", model_dir=str(tmp_path))
    np.testing.assert_array_equal(expected["b"].numpy(), [1.5, 2.5])
