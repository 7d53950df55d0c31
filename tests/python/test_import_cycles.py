"""No module of python/oar imports, at module scope, a module that imports it back (directly or
through others): tools/import_cycles.py finds none. The tool itself is checked on small packages
written here: what counts as an edge and what does not."""
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "import_cycles.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))

import import_cycles  # noqa: E402


def test_oar_has_no_import_cycles():
    run = subprocess.run([sys.executable, TOOL], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "no import cycles" in run.stdout


def _package(tmp_path, files):
    pkg = tmp_path / "pkg"
    for rel, text in files.items():
        path = pkg / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return str(pkg)


def _cycles(pkg):
    return import_cycles.find_cycles(pkg)[3]


def test_a_module_scope_cycle_is_found_and_the_tool_exits_1(tmp_path):
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "from . import b\n",
                              "b.py": "from .a import f\n"})
    assert _cycles(pkg) == [["pkg.a", "pkg.b", "pkg.a"]]
    run = subprocess.run([sys.executable, TOOL, pkg, "--verbose"], capture_output=True, text=True)
    assert run.returncode == 1
    assert "pkg.a -> pkg.b -> pkg.a" in run.stdout
    assert "b.py:1 imports pkg.a" in run.stdout


def test_imports_inside_functions_do_not_count(tmp_path):
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "from . import b\n",
                              "b.py": "def f():\n    from . import a\n    return a\n"})
    assert _cycles(pkg) == []


def test_imports_in_module_level_blocks_and_class_bodies_count(tmp_path):
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "try:\n    from . import b\nexcept ImportError:\n    pass\n",
                              "b.py": "class K:\n    from .a import x\n"})
    assert _cycles(pkg) == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_name_from_a_package_init_is_an_edge_to_that_init(tmp_path):
    # sub.py reads `helper` from pkg/__init__.py, which imports sub: a cycle, even though
    # pkg contains sub.
    pkg = _package(tmp_path, {"__init__.py": "from .sub import g\nhelper = 1\n",
                              "sub.py": "from . import helper\n"})
    assert _cycles(pkg) == [["pkg", "pkg.sub", "pkg"]]


def test_importing_a_submodule_runs_the_init_of_packages_above_it(tmp_path):
    # a imports pkg.inner.leaf, which runs pkg/inner/__init__.py, which imports a.
    pkg = _package(tmp_path, {"__init__.py": "", "a.py": "from .inner.leaf import f\n",
                              "inner/__init__.py": "from .. import a\n", "inner/leaf.py": "f = 1\n"})
    assert _cycles(pkg) == [["pkg.a", "pkg.inner", "pkg.a"]]


def test_a_submodule_importing_a_sibling_does_not_cycle_with_its_own_package(tmp_path):
    pkg = _package(tmp_path, {"__init__.py": "from .a import f\nfrom .b import g\n",
                              "a.py": "from .b import g\nf = 1\n", "b.py": "g = 2\n"})
    assert _cycles(pkg) == []


def test_the_compiled_extension_is_not_a_node(tmp_path):
    # `from . import _C` names the extension module, not pkg/__init__.py (which imports a).
    pkg = _package(tmp_path, {"__init__.py": "from . import a\n", "a.py": "from . import _C\n"})
    assert _cycles(pkg) == []
