"""oar/_C.pyi (nanobind's stubgen, run by the build) gives editors, type checkers and help() the
signature of every C++ binding: it is installed beside the extension and names every generated op
and the Tensor class with its methods."""
import ast
import os

import oar


def _stub():
    path = os.path.join(os.path.dirname(oar._C.__file__), "_C.pyi")
    assert os.path.exists(path), f"{path} is missing: the build writes it (nanobind_add_stub)"
    with open(path) as f:
        return ast.parse(f.read())


def test_stub_declares_every_generated_op():
    tree = _stub()
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    missing = [op for op in oar._C._generated_ops if op not in functions]
    assert not missing, f"_C.pyi lacks {len(missing)} generated ops, e.g. {missing[:5]}"


def test_stub_declares_tensor_methods_with_arguments():
    tree = _stub()
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    methods = {n.name: n for n in tensor.body if isinstance(n, ast.FunctionDef)}
    for name in oar._C._method_ops:
        assert name in methods, f"_C.pyi: Tensor lacks method {name}"
    matmul = methods["matmul"]
    assert [a.arg for a in matmul.args.args][:4] == ["self", "y", "transpose_x", "transpose_y"]
