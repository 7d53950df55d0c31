"""Tensor.type, value(), grad_, create_parameter and create_tensor, as Paddle 3.3.1 has them."""
import numpy as np
import pytest

import oar
from oar.framework.var_type import VarType


def test_type_is_dense_tensor():
    x = oar.ones([2])
    assert x.type is VarType.DENSE_TENSOR and x.type == VarType.LOD_TENSOR
    assert repr(x.type) == "<VarType.DENSE_TENSOR: 7>" and str(x.type) == "VarType.DENSE_TENSOR"
    assert int(x.type) == 7 and x.type.name == "DENSE_TENSOR"
    assert oar.nn.Linear(2, 2).weight.type is VarType.DENSE_TENSOR
    with pytest.raises(TypeError):
        x.type("float64")  # a property, not Paddle's old cast method


def test_value_is_the_tensor_itself():
    x = oar.to_tensor([1.0, 2.0])
    assert x.value() is x


def test_grad_underscore_reads_and_writes_the_gradient():
    w = oar.to_tensor([1.0, 2.0], stop_gradient=False)
    assert w.grad_ is None
    (w * w).sum().backward()
    np.testing.assert_array_equal(w.grad_.numpy(), [2.0, 4.0])
    w.grad_ = oar.to_tensor([3.0, 4.0])
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 4.0])


def test_create_parameter_is_the_function():
    assert oar.Tensor.create_parameter is oar.create_parameter
    p = oar.to_tensor([2, 3]).create_parameter("float64")  # the tensor is the shape argument
    assert p.shape == [2, 3] and p.dtype == oar.float64 and not p.stop_gradient


def test_create_tensor():
    t = oar.Tensor.create_tensor("float32")
    assert t.dtype == oar.float32 and t.shape == [0] and not t.persistable
    assert t.name.startswith("create_tensor")
    n = oar.Tensor.create_tensor(oar.int64, name="a", persistable=True)
    assert n.name == "a" and n.persistable and n.dtype == oar.int64
    with pytest.raises(TypeError):
        oar.Tensor.create_tensor("float33")
    with pytest.raises((TypeError, ValueError)):
        oar.ones([2]).create_tensor()  # the tensor is taken as the dtype, as in Paddle
