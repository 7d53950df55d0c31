"""Compiling custom-op sources into a shared library against oar's headers and liboar, and
loading it (just in time, or through setuptools)."""
import hashlib
import os
import shlex
import subprocess
import sys

from ... import sysconfig
from ...framework.atomic_files import write_file
from .ops_module import module_from_library


def get_build_directory(verbose=False):
    """Where `load` builds (OAR_EXTENSION_DIR, else PADDLE_EXTENSION_DIR, else
    ~/.cache/oar_extensions), created if missing."""
    root = os.environ.get("OAR_EXTENSION_DIR") or os.environ.get("PADDLE_EXTENSION_DIR") or \
        os.path.join(os.path.expanduser("~"), ".cache", "oar_extensions")
    os.makedirs(root, exist_ok=True)
    if verbose:
        print(f"cpp_extension: building in {root}")
    return root


def _include_dirs():
    inc = sysconfig.get_include()
    # "paddle/extension.h" lives in oar's include tree under oar/extension.
    return [inc, os.path.join(inc, "oar", "extension")]


def _compile_flags():
    return ["-std=c++20", "-O2", "-fPIC", "-fvisibility=hidden"] + [f"-I{d}" for d in _include_dirs()]


def _link_flags():
    lib = sysconfig.get_lib()
    return ["-shared", f"-L{lib}", "-loar", f"-Wl,-rpath,{lib}"]


def _as_list(value, what, api):
    if value is None:
        return []
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{api}: {what} must be a list of str, got {value!r}")
    return list(value)


def load(name, sources, extra_cxx_cflags=None, extra_cuda_cflags=None, extra_ldflags=None,
         extra_include_paths=None, extra_library_paths=None, build_directory=None, verbose=False):
    """Compiles `sources` into a library of custom ops (once: a rebuild happens only when the
    sources or flags change) and returns a module with a function per op."""
    api = "cpp_extension.load"
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{api}: name must be a Python identifier, got {name!r}")
    sources = _as_list([sources] if isinstance(sources, str) else sources, "sources", api)
    if not sources:
        raise ValueError(f"{api}: sources is empty")
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"{api}: source file '{s}' does not exist")
        if s.endswith(".cu"):
            raise NotImplementedError(f"{api}: '{s}' is CUDA source; custom ops on GPUs are not built yet "
                                      "(oar's custom ops run on the CPU)")
    if extra_cuda_cflags:
        raise NotImplementedError(f"{api}: extra_cuda_cflags: custom ops on GPUs are not built yet")
    cflags = _compile_flags() + [f"-I{p}" for p in _as_list(extra_include_paths, "extra_include_paths", api)] + \
        _as_list(extra_cxx_cflags, "extra_cxx_cflags", api)
    ldflags = [f"-L{p}" for p in _as_list(extra_library_paths, "extra_library_paths", api)] + \
        _link_flags() + _as_list(extra_ldflags, "extra_ldflags", api)
    out_dir = os.path.join(build_directory or get_build_directory(verbose), name)
    os.makedirs(out_dir, exist_ok=True)
    library = os.path.join(out_dir, f"{name}.so")
    digest = hashlib.sha256()
    for s in sources:
        digest.update(os.path.abspath(s).encode())
        with open(s, "rb") as f:
            digest.update(f.read())
    digest.update(" ".join(cflags + ldflags).encode())
    digest.update(open(os.path.join(sysconfig.get_lib(), "liboar.so"), "rb").read(4096))
    stamp = os.path.join(out_dir, f"{name}.sha256")
    if not (os.path.exists(library) and os.path.exists(stamp) and open(stamp).read() == digest.hexdigest()):
        _compile(api, name, sources, cflags, ldflags, library, verbose)
        write_file(stamp, lambda f: f.write(digest.hexdigest().encode()))
    elif verbose:
        print(f"{api}: '{library}' is up to date")
    return module_from_library(name, library)


def _compile(api, name, sources, cflags, ldflags, library, verbose):
    tmp = f"{library}.{os.getpid()}.tmp"
    cmd = [os.environ.get("CXX", "g++")] + cflags + sources + ["-o", tmp] + ldflags
    if verbose:
        print(f"{api}: {shlex.join(cmd)}")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError as e:
        raise RuntimeError(f"{api}: no C++ compiler ({cmd[0]}): install g++ or set CXX") from e
    if done.returncode != 0:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise RuntimeError(f"{api}('{name}'): compiling failed (exit {done.returncode}):\n"
                           f"{done.stderr.strip()[-6000:]}\ncommand: {shlex.join(cmd)}")
    if verbose and done.stderr:
        print(done.stderr, file=sys.stderr)
    os.replace(tmp, library)  # atomic: a concurrent load never opens a half-written library


def CppExtension(sources, *args, **kwargs):
    """A setuptools Extension for custom ops, with oar's include paths, liboar and C++20."""
    from setuptools import Extension
    kwargs.setdefault("name", kwargs.pop("name", "custom_ops"))
    kwargs["include_dirs"] = list(kwargs.get("include_dirs", [])) + _include_dirs()
    kwargs["library_dirs"] = list(kwargs.get("library_dirs", [])) + [sysconfig.get_lib()]
    kwargs["runtime_library_dirs"] = list(kwargs.get("runtime_library_dirs", [])) + [sysconfig.get_lib()]
    kwargs["libraries"] = list(kwargs.get("libraries", [])) + ["oar"]
    kwargs["extra_compile_args"] = list(kwargs.get("extra_compile_args", [])) + ["-std=c++20", "-fvisibility=hidden"]
    kwargs["language"] = "c++"
    return Extension(sources=list(sources), *args, **kwargs)


def CUDAExtension(sources, *args, **kwargs):
    raise NotImplementedError("CUDAExtension: custom ops on GPUs are not built yet (oar's custom ops run on the CPU)")


_STUB = '''"""Custom ops built by oar.utils.cpp_extension.setup."""
import os as _os
from oar.utils.cpp_extension.ops_module import module_from_library as _load

_mod = _load(__name__, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), {library!r}))
globals().update({{k: v for k, v in vars(_mod).items() if not k.startswith("__")}})
'''


def setup(**attr):
    """setuptools.setup for a package of custom ops (paddle.utils.cpp_extension.setup): builds
    each CppExtension as a library and installs a Python module of the same name that loads it;
    `import <name>` then gives one function per op."""
    from setuptools import setup as setuptools_setup
    from setuptools.command.build_ext import build_ext

    class BuildExtension(build_ext):
        def get_ext_filename(self, ext_name):
            return os.path.join(*ext_name.split(".")) + "_ops.so"

        def run(self):
            super().run()
            for ext in self.extensions:  # the loader module beside each library
                target = self.get_ext_fullpath(ext.name)
                stub = os.path.join(os.path.dirname(target), ext.name.split(".")[-1] + ".py")
                write_file(stub, lambda f, t=target: f.write(_STUB.format(library=os.path.basename(t)).encode()))

    name = attr.get("name")
    ext_modules = attr.get("ext_modules")
    if not name or ext_modules is None:
        raise ValueError("cpp_extension.setup: give name and ext_modules (CppExtension(...))")
    if not isinstance(ext_modules, (list, tuple)):
        ext_modules = [ext_modules]
    for ext in ext_modules:
        ext.name = name if ext.name in ("custom_ops", None) else ext.name
    attr["ext_modules"] = list(ext_modules)
    attr.setdefault("cmdclass", {})["build_ext"] = BuildExtension
    return setuptools_setup(**attr)
