"""Bad input raises the Python exception Paddle raises, naming the op, argument and values."""
import pytest

import oar


def test_broadcast_mismatch():
    with pytest.raises(ValueError, match=r"add.*Broadcast dimension mismatch.*\[2, 3\].*\[2, 4\]"):
        oar.ones([2, 3]) + oar.ones([2, 4])


def test_matmul_inner_dimension_mismatch():
    with pytest.raises(ValueError, match=r"matmul.*\[2, 3\].*\[2, 4\]"):
        oar.matmul(oar.ones([2, 3]), oar.ones([2, 4]))


def test_concat_rank_mismatch():
    with pytest.raises(ValueError, match=r"concat.*\[2, 3\].*\[2\]"):
        oar.concat([oar.ones([2, 3]), oar.ones([2])])


def test_impossible_reshape():
    with pytest.raises(ValueError, match=r"reshape.*\[2, 3\].*\[4\]"):
        oar.reshape(oar.ones([2, 3]), [4])


def test_axis_out_of_range():
    with pytest.raises(ValueError, match=r"sum.*axis|sum.*dim"):
        oar.sum(oar.ones([2, 3]), axis=3)
    with pytest.raises(ValueError, match="transpose"):
        oar.transpose(oar.ones([2, 3]), [0, 2])


def test_unsupported_dtype():
    with pytest.raises(TypeError, match="bitwise_and"):
        oar.bitwise_and(oar.ones([2]), oar.ones([2]))
    with pytest.raises(TypeError, match="Type promotion"):
        oar.to_tensor([1, 2], dtype="int32") + oar.to_tensor([1, 2])


def test_inplace_on_leaf_requiring_grad():
    p = oar.ones([2])
    p.stop_gradient = False
    with pytest.raises(ValueError, match="Leaf Tensor"):
        p.exp_()


def test_bad_to_tensor_and_index():
    with pytest.raises(TypeError):
        oar.to_tensor({"a": 1})
    with pytest.raises(IndexError):
        oar.ones([2, 3])[0, 0, 0]
    with pytest.raises(ValueError, match="shape"):
        oar.zeros([-1, 2])
