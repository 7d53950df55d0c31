"""The docs point at files that exist. Every repository path written in backticks in docs/*.md,
README.md and CONTRIBUTING.md (inline `code` and fenced blocks) must name a file or folder of the
checkout. Rules:
  - generated or local trees are allowed by rule: build/ and gen/ (the generator writes
    build/release/gen/), the generated include prefix oar/ops/generated/, .venv/, .venv-bench/,
    .ccache/ and out/ (what the examples write);
  - a glob (bench/bench_*.py) must match at least one path; a brace list (oar/x.{h,cc}) is
    expanded and every member must exist;
  - a placeholder component (<family>, <target>) stops the check: the folder before it must exist.
A candidate is a slash-separated token whose first component is an entry of the repository root
(oar/, tools/, ...) or that ends in a source or doc extension (.h, .cc, .py, .md, ...): a relative
path such as kernels/cpu/loops.h (missing its oar/ prefix) fails too. Absolute paths (/dev/shm)
and URLs are not checked."""
import glob
import itertools
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATED = ("build/", "gen/", "oar/ops/generated/", ".venv/", ".venv-bench/", ".ccache/", "out/")
EXTENSIONS = (".h", ".cc", ".cu", ".cuh", ".inc", ".py", ".pyi", ".md", ".yaml", ".sh", ".txt", ".toml",
              ".json", ".cmake", ".supp")
# A path-like token: components of word characters, dots, dashes, globs, braces and placeholders.
COMPONENT = r"(?:[\w.*<>-]|\{[\w.,]+\})"
PATH = re.compile(r"(?<![\w./~$-])(" + COMPONENT + r"+(?:/" + COMPONENT + r"*)+)")
FENCE = re.compile(r"^(```|~~~)[^\n]*\n(.*?)^\1[ \t]*$", re.S | re.M)
INLINE = re.compile(r"(`+)(.+?)\1", re.S)


def doc_files(root=ROOT):
    files = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    files += [os.path.join(root, n) for n in ("README.md", "CONTRIBUTING.md")
              if os.path.exists(os.path.join(root, n))]
    return files


def code_spans(text):
    """The contents of fenced blocks and inline code spans of a markdown text."""
    spans = [m.group(2) for m in FENCE.finditer(text)]
    rest = FENCE.sub("\n", text)
    spans += [m.group(2) for m in INLINE.finditer(rest)]
    return spans


def candidates(span, top_level):
    """The repository paths written in one code span."""
    for m in PATH.finditer(span):
        path = m.group(1).rstrip(".,:;")
        if "://" in span[m.start():m.end() + 3] or not path or path.startswith("/"):
            continue
        first = path.split("/", 1)[0]
        if first in top_level or first in ("gen", "build", "out") or path.rstrip("/").endswith(EXTENSIONS):
            yield path


def expand_braces(path):
    """oar/x.{h,cc} -> [oar/x.h, oar/x.cc]."""
    parts = re.split(r"\{([^{}]*,[^{}]*)\}", path)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def missing_reason(path, root=ROOT):
    """None when `path` is fine, else why not."""
    if path.startswith(GENERATED) or path.rstrip("/") + "/" in GENERATED:
        return None
    for p in expand_braces(path):
        comps = p.rstrip("/").split("/")
        # A placeholder: only the folder before it is checked.
        for i, c in enumerate(comps):
            if "<" in c or ">" in c:
                comps = comps[:i]
                break
        if not comps:
            return "nothing before the placeholder"
        sub = "/".join(comps)
        if any(ch in sub for ch in "*?["):
            if not glob.glob(os.path.join(root, sub)):
                return f"no file matches the glob '{sub}'"
        elif not os.path.exists(os.path.join(root, sub)):
            return f"'{sub}' does not exist"
    return None


def broken_paths(files, root=ROOT):
    top_level = set(os.listdir(root))
    out = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        for span in code_spans(text):
            for path in candidates(span, top_level):
                why = missing_reason(path, root)
                if why:
                    out.append(f"{os.path.relpath(f, root)}: `{path}`: {why}")
    return sorted(set(out))


def test_docs_exist():
    names = {os.path.relpath(f, ROOT) for f in doc_files()}
    for needed in ("README.md", "CONTRIBUTING.md", "docs/architecture.md", "docs/ops.md", "docs/autograd.md",
                   "docs/ir.md", "docs/runtime.md", "docs/python.md", "docs/devices.md", "docs/distributed.md"):
        assert needed in names, f"{needed} is missing"


def test_every_path_in_the_docs_exists():
    broken = broken_paths(doc_files())
    assert not broken, "docs point at paths that are not in the repository:\n  " + "\n  ".join(broken)


def test_checker_finds_a_missing_path(tmp_path):
    """The check itself: a doc naming a missing file fails, real files, globs, braces,
    placeholders and generated paths pass."""
    (tmp_path / "oar" / "core").mkdir(parents=True)
    (tmp_path / "oar" / "core" / "tensor.h").write_text("")
    (tmp_path / "oar" / "core" / "tensor.cc").write_text("")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "gen_ops.py").write_text("")
    doc = tmp_path / "doc.md"
    doc.write_text("Read `oar/core/tensor.h`, `oar/core/tensor.{h,cc}`, `oar/core/*.h`, `oar/core/<x>.h`,\n"
                   "`build/release/gen/py/bind_x.cc`, `gen/oar/ops/generated/api.h`, `/dev/shm`, `a/b`.\n"
                   "```\n.venv/bin/python tools/gen_ops.py\n```\n"
                   "But `oar/core/missing.h`, `tools/gone.sh --flag`, `oar/core/tensor.{h,cpp}`,\n"
                   "`oar/nothing/<family>.yaml`, `oar/core/*.yaml` and `kernels/cpu/loops.h` do not exist.\n"
                   "```bash\nbash tools/absent.sh\n```\n")
    broken = broken_paths([str(doc)], str(tmp_path))
    named = sorted(b.split("`")[1] for b in broken)
    assert named == sorted(["oar/core/missing.h", "tools/gone.sh", "oar/core/tensor.{h,cpp}",
                            "oar/nothing/<family>.yaml", "oar/core/*.yaml", "kernels/cpu/loops.h",
                            "tools/absent.sh"]), broken


@pytest.mark.parametrize("path,expected", [
    ("oar/ops/infer_meta/<family>.{h,cc}", ["oar/ops/infer_meta/<family>.h", "oar/ops/infer_meta/<family>.cc"]),
    ("tools/gen_ops.py", ["tools/gen_ops.py"]),
])
def test_expand_braces(path, expected):
    assert expand_braces(path) == expected
