"""The public API reference: every public name of oar's Paddle namespaces has a docstring, and every
`>>>` example in those docstrings runs.

Public names: a namespace's __all__ where it has one, else its names without a leading underscore;
callables only (functions, classes, nanobind ops), submodules left out; plus the public methods of
oar.Tensor. A name is undocumented when its docstring is missing, blank, or only nanobind's
signature line(s) ("softplus(x: oar._C.Tensor, ...) -> oar._C.Tensor").

  - test_every_public_name_is_documented: an undocumented name fails unless it is listed in
    docstring_backlog.txt (qualified names, one a line, sorted). A backlog name that has a docstring
    fails too, as does one that no longer exists: the backlog only shrinks; delete a name from it
    when you document it.
  - test_complete_namespaces_have_examples: the namespaces in COMPLETE are done; each of their names
    has an Examples section (a `>>>` line), so a new name there comes with its example.
  - test_docstring_examples: every docstring with `>>>` lines (a public name's own, and those of the
    public methods and properties of its classes) is one doctest, run with the standard doctest module
    (ELLIPSIS | NORMALIZE_WHITESPACE) in a namespace holding `oar`; a failure names the object.

Regenerate the backlog after a large change with `python tests/python/test_docstrings.py --write-backlog`
(it keeps only undocumented names: review the diff)."""
import doctest
import importlib
import inspect
import io
import os
import re
import sys

import pytest

import oar

NAMESPACES = [
    "oar", "oar.nn", "oar.nn.functional", "oar.nn.utils", "oar.nn.initializer", "oar.optimizer",
    "oar.optimizer.lr", "oar.metric", "oar.io", "oar.linalg", "oar.static", "oar.static.nn", "oar.jit", "oar.vision",
    "oar.vision.transforms", "oar.vision.models", "oar.vision.datasets", "oar.vision.ops", "oar.fft", "oar.signal", "oar.profiler",
    "oar.distribution", "oar.hub", "oar.audio", "oar.audio.functional", "oar.audio.features",
    "oar.audio.backends", "oar.audio.datasets", "oar.text", "oar.geometric", "oar.incubate.autograd",
    "oar.incubate", "oar.incubate.nn", "oar.incubate.nn.functional",
    "oar.cuda", "oar.distributed.communication.stream", "oar.utils", "oar.utils.download",
    "oar.distributed", "oar.distributed.rpc", "oar.sparse", "oar.sparse.nn", "oar.sparse.nn.functional",
    "oar.compat", "oar.compat.nn", "oar.compat.nn.functional", "oar.device.xpu", "oar.nn.attention",
    "oar.incubate.asp", "oar.incubate.optimizer.functional", "oar.callbacks",
    "oar.distributed.fleet", "oar.distributed.fleet.utils", "oar.distributed.io", "oar.incubate.distributed.fleet",
    "oar.incubate.distributed.utils.io.dist_save", "oar.incubate.distributed.utils.io.save_for_auto",
]
# Namespaces whose every name (backlog aside) must carry an example.
COMPLETE = ["oar.nn", "oar.nn.utils", "oar.optimizer", "oar.optimizer.lr", "oar.metric", "oar.io",
            "oar.vision.transforms", "oar.vision.ops", "oar.fft", "oar.signal", "oar.profiler", "oar.distribution", "oar.hub",
            "oar.audio", "oar.audio.functional", "oar.audio.features", "oar.audio.backends", "oar.audio.datasets",
            "oar.text", "oar.geometric", "oar.incubate", "oar.incubate.nn",
            "oar.incubate.nn.functional", "oar.distributed.communication.stream", "oar.utils.download",
            "oar.distributed.rpc", "oar.sparse", "oar.sparse.nn", "oar.sparse.nn.functional",
            "oar.compat", "oar.compat.nn", "oar.compat.nn.functional", "oar.device.xpu", "oar.nn.attention",
            "oar.incubate.asp", "oar.incubate.optimizer.functional",
            "oar.distributed.fleet.utils", "oar.distributed.io", "oar.incubate.distributed.fleet",
            "oar.incubate.distributed.utils.io.dist_save", "oar.incubate.distributed.utils.io.save_for_auto"]
BACKLOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "docstring_backlog.txt")
# nanobind's generated docstring: one "name(args) -> result" line per overload.
SIGNATURE = re.compile(r"[A-Za-z_][\w.]*\(.*\)\s*->\s*\S.*")
OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _public(namespace):
    module = importlib.import_module(namespace)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    for name in sorted(set(names)):
        obj = getattr(module, name, None)
        if obj is not None and callable(obj) and not inspect.ismodule(obj):
            yield f"{namespace}.{name}", obj


def public_names():
    """{qualified name: object} over NAMESPACES and oar.Tensor's public methods."""
    names = {}
    for namespace in NAMESPACES:
        names.update(_public(namespace))
    for name in sorted(dir(oar.Tensor)):
        if name.startswith("_"):
            continue
        obj = inspect.getattr_static(oar.Tensor, name)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = getattr(oar.Tensor, name)
        if callable(obj) and not isinstance(obj, type):
            names[f"oar.Tensor.{name}"] = obj
    return names


def own_doc(obj):
    """The object's own docstring (a class does not inherit its base's here)."""
    doc = vars(obj).get("__doc__") if isinstance(obj, type) else getattr(obj, "__doc__", None)
    return doc if isinstance(doc, str) else ""


def is_documented(obj):
    lines = [line.strip() for line in own_doc(obj).strip().splitlines() if line.strip()]
    return any(not SIGNATURE.fullmatch(line) for line in lines)


def read_backlog():
    if not os.path.exists(BACKLOG):
        return []
    with open(BACKLOG) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


NAMES = public_names()


def test_backlog_is_sorted_and_unique():
    backlog = read_backlog()
    assert backlog == sorted(set(backlog)), "docstring_backlog.txt must be sorted, one name a line, no repeats"


def test_every_public_name_is_documented():
    backlog = set(read_backlog())
    missing = sorted(n for n, obj in NAMES.items() if not is_documented(obj) and n not in backlog)
    done = sorted(n for n in backlog if n in NAMES and is_documented(NAMES[n]))
    gone = sorted(n for n in backlog if n not in NAMES)
    problems = []
    if missing:
        problems.append(f"{len(missing)} public names have no docstring (write one; the backlog only "
                        f"shrinks): " + ", ".join(missing))
    if done:
        problems.append(f"{len(done)} backlog names now have a docstring: delete them from "
                        f"tests/python/docstring_backlog.txt: " + ", ".join(done))
    if gone:
        problems.append(f"{len(gone)} backlog names are no longer public: delete them from "
                        f"tests/python/docstring_backlog.txt: " + ", ".join(gone))
    assert not problems, "\n".join(problems)


def test_complete_namespaces_have_examples():
    backlog = set(read_backlog())
    lacking = sorted(n for n, obj in NAMES.items()
                     if n.rsplit(".", 1)[0] in COMPLETE and n not in backlog and ">>>" not in own_doc(obj))
    assert not lacking, "these names of a complete namespace have no Examples section: " + ", ".join(lacking)


def _examples():
    """(name, docstring) for every docstring with examples: each public object once (under its first
    name), then the public methods and properties its class defines itself."""
    seen, found = set(), []

    def add(name, obj):
        if id(obj) in seen:
            return
        seen.add(id(obj))
        doc = own_doc(obj)
        if ">>>" in doc:
            found.append((name, doc))

    for name, obj in NAMES.items():
        add(name, obj)
        if isinstance(obj, type) and (obj.__module__ or "").startswith("oar"):
            for attr, member in sorted(vars(obj).items()):
                if attr.startswith("_"):
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if callable(member) or isinstance(member, property):
                    add(f"{name}.{attr}", member)
    return found


EXAMPLES = _examples()


@pytest.mark.host_only  # the examples print Place(cpu)
@pytest.mark.parametrize("name,doc", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_docstring_examples(name, doc):
    test = doctest.DocTestParser().get_doctest(doc, {"oar": oar}, name, None, 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    dtype, rng = oar.get_default_dtype(), oar.get_rng_state()  # examples seed and may set them
    try:
        result = runner.run(test, out=out.write)
    finally:
        oar.set_default_dtype(dtype)
        oar.set_rng_state(rng)
    assert result.failed == 0, f"the example of {name} fails:\n{out.getvalue()}"


def write_backlog():
    undocumented = sorted(n for n, obj in NAMES.items() if not is_documented(obj))
    with open(BACKLOG, "w") as f:
        f.writelines(n + "\n" for n in undocumented)
    print(f"{len(undocumented)} names written to {BACKLOG}")


if __name__ == "__main__" and "--write-backlog" in sys.argv:
    write_backlog()
