"""python/oar/tensor/methods.py is the one place that attaches Python functions to Tensor: its
tables say what each such Tensor.X is, and nothing else attaches any."""
import types

import oar
from oar.tensor import inplace, methods

Tensor = oar.Tensor


def _listed():
    return {**methods.SPECIAL, **methods.REPLACES, **methods.METHODS}


def test_no_python_method_is_hidden_by_a_cpp_method_of_the_same_name():
    # A C++ method named as an entry of METHODS keeps the name; move the entry to REPLACES (the
    # Python version wins) or delete it (the C++ one does).
    assert methods.SHADOWED == []


def test_every_table_entry_is_what_tensor_has():
    for name, fn in _listed().items():
        got = Tensor.__dict__[name]
        if isinstance(fn, property):
            assert isinstance(got, property) and (got.fget, got.fset) == (fn.fget, fn.fset), name
        else:
            assert got is fn, name


def test_every_python_function_on_tensor_is_in_the_tables():
    listed = set(_listed()) | set(inplace.__all__)
    python_defined = []
    for name, value in Tensor.__dict__.items():
        fn = value.fget if isinstance(value, property) else value
        if isinstance(fn, types.FunctionType):
            python_defined.append(name)
    missing = sorted(n for n in python_defined if n not in listed)
    assert missing == [], f"attached outside tensor/methods.py: {missing}"
    assert len(python_defined) > 250
