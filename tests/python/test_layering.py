"""The C++ layers include one way (docs/architecture.md): core <- shape rules <- kernels <- ops
<- autograd/ir <- passes/runtime/inference. Checked on the #include lines of oar/, so a
shortcut up the stack fails here instead of growing into a rebuild-the-world dependency."""
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
INCLUDE = re.compile(r'^#include "(oar/[^"]+)"', re.M)

# What each low layer may include (by path prefix); everything above them may include these.
ALLOWED = {
    "oar/core/": ("oar/core/", "oar/device/"),
    "oar/device/": ("oar/core/", "oar/device/"),
    "oar/ops/infer_meta/": ("oar/core/", "oar/device/", "oar/ops/infer_meta/"),
    "oar/kernels/": ("oar/core/", "oar/device/", "oar/ops/infer_meta/", "oar/kernels/"),
}
# The layers above the op library: nothing in the op library or below includes them.
UPPER = ("oar/pass/", "oar/runtime/", "oar/inference/", "oar/jit/", "oar/io/")
BELOW_UPPER = ("oar/core/", "oar/device/", "oar/ops/", "oar/kernels/", "oar/autograd/", "oar/ir/")
# Headers that include every op family: for users (oar/oar.h), never for oar's own files.
UMBRELLAS = ("oar/ops/generated/api.h", "oar/ops/generated/ir_shape_only.h")


def _includes():
    for root, _, files in os.walk(os.path.join(ROOT, "oar")):
        for name in files:
            if name.endswith((".h", ".cc", ".inc")):
                path = os.path.join(root, name)
                rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
                with open(path) as f:
                    for inc in INCLUDE.findall(f.read()):
                        yield rel, inc


def test_the_include_graph_was_read():
    edges = list(_includes())
    assert len(edges) > 500
    assert ("oar/ops/tensor_methods.cc", "oar/core/tensor.h") in edges


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_low_layers_include_only_below(layer):
    bad = [f"{f} includes {inc}" for f, inc in _includes()
           if f.startswith(layer) and not inc.startswith(ALLOWED[layer])]
    assert not bad, "\n".join(bad)


def test_the_op_library_does_not_include_the_layers_above_it():
    bad = [f"{f} includes {inc}" for f, inc in _includes()
           if f.startswith(BELOW_UPPER) and inc.startswith(UPPER)]
    assert not bad, "\n".join(bad)


def test_own_files_include_op_families_not_the_umbrellas():
    # An umbrella in a file of oar's would make that file recompile whenever any op is added.
    bad = [f"{f} includes {inc}" for f, inc in _includes() if inc in UMBRELLAS and f != "oar/oar.h"]
    assert not bad, "\n".join(bad)


def test_tensor_h_includes_nothing_generated():
    with open(os.path.join(ROOT, "oar/core/tensor.h")) as f:
        text = f.read()
    assert "generated" not in "".join(INCLUDE.findall(text))


# Files above the op library that call host kernels directly: each is named, with its reason, in
# docs/architecture.md. A new one either goes through an op or is added there and here.
KERNEL_SIDE_DOORS = {
    "oar/runtime/inplace_ops.cc",
    "oar/inference/predictor.cc",
    "oar/autograd/tensor_autograd.cc",
    "python/src/tensor_bind.cc",
    "python/src/optimizer_bind.cc",
}


def test_kernel_calls_outside_the_op_library_are_the_named_ones():
    found = set()
    for top in ("oar", "python/src"):
        for root, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                path = os.path.join(root, name)
                rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
                if rel.startswith(("oar/kernels/", "oar/ops/")) or not name.endswith((".h", ".cc")):
                    continue
                with open(path) as f:
                    if any(inc.startswith("oar/kernels/") for inc in INCLUDE.findall(f.read())):
                        found.add(rel)
    assert found == KERNEL_SIDE_DOORS
    with open(os.path.join(ROOT, "docs", "architecture.md")) as f:
        doc = f.read()
    assert all(f"`{p}`" in doc for p in KERNEL_SIDE_DOORS)
