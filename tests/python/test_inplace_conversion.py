"""In-place variants written in Python (python/oar/tensor/inplace.py) and the conversion methods
of paddle.Tensor (python/oar/tensor/conversion.py)."""
import numpy as np
import pytest

import oar
from op_test import rand

T = oar.to_tensor


@pytest.mark.parametrize("name,ref,low,high", [
    ("acos_", np.arccos, -0.9, 0.9), ("asin_", np.arcsin, -0.9, 0.9), ("atan_", np.arctan, -2, 2),
    ("cosh_", np.cosh, -2, 2), ("sinh_", np.sinh, -2, 2), ("tan_", np.tan, -1, 1),
    ("log10_", np.log10, 0.1, 3), ("log1p_", np.log1p, 0, 3), ("log2_", np.log2, 0.1, 3),
    ("sigmoid_", lambda a: 1 / (1 + np.exp(-a)), -3, 3), ("frac_", lambda a: a - np.trunc(a), -3, 3),
    ("logit_", lambda a: np.log(a / (1 - a)), 0.1, 0.9), ("sinc_", np.sinc, -2, 2),
])
def test_unary_inplace(name, ref, low, high):
    a = rand((3, 4), low=low, high=high, seed=51)
    t = T(a.copy())
    v0 = t.inplace_version if hasattr(t, "inplace_version") else None
    out = getattr(t, name)()
    assert out is t
    np.testing.assert_allclose(t.numpy(), ref(a), rtol=1e-12)
    if v0 is not None:
        assert t.inplace_version == v0 + 1
    # The same through oar.<name> when Paddle has it at top level.
    if hasattr(oar, name):
        t2 = T(a.copy())
        getattr(oar, name)(t2)
        np.testing.assert_allclose(t2.numpy(), ref(a), rtol=1e-12)


def test_binary_inplace_and_errors():
    a, b = rand((3, 4), low=1, high=3, seed=52), rand((4,), low=1, high=3, seed=53)
    for name, ref in [("mul_", np.multiply), ("sub_", np.subtract), ("div_", np.divide),
                      ("hypot_", np.hypot), ("floor_mod_", np.mod), ("mod_", np.mod)]:
        t = T(a.copy())
        getattr(t, name)(T(b))
        np.testing.assert_allclose(t.numpy(), ref(a, b), rtol=1e-12, err_msg=name)
    t = T(a.copy())
    t.pow_(2)
    np.testing.assert_allclose(t.numpy(), a ** 2)
    # x cannot broadcast in place; x keeps its dtype; leaves that need grad are refused.
    with pytest.raises(ValueError, match=r"mul_: the result shape \[3, 4\] differs from the shape of x \[4\]"):
        T(b.copy()).mul_(T(a))
    with pytest.raises(TypeError, match="acos_: the result dtype float32 differs from x's dtype int64"):
        T(np.array([1, 2])).acos_()
    p = T(a.copy(), stop_gradient=False)
    with pytest.raises(ValueError, match="acos_: Leaf Tensor that doesn't stop gradient"):
        p.acos_()
    with oar.no_grad():
        p.zero_()
    np.testing.assert_array_equal(p.numpy(), 0)


def test_inplace_keeps_autograd_history():
    p = T(rand((3,), low=0.1, high=0.9, seed=54), stop_gradient=False)
    y = p * 1.0
    y.asin_()
    y.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 1 / np.sqrt(1 - p.numpy() ** 2), rtol=1e-12)


def test_fill_zero_uniform_normal():
    oar.seed(11)  # the bounds below hold for this draw whatever ran before (pytest's order varies)
    t = T(np.zeros((200, 50)))
    t.fill_(2.5)
    np.testing.assert_array_equal(t.numpy(), 2.5)
    t.uniform_(-2, 3)
    assert t.numpy().min() >= -2 and t.numpy().max() < 3 and abs(t.numpy().mean() - 0.5) < 0.05
    t.normal_(1.0, 2.0)
    assert abs(t.numpy().mean() - 1.0) < 0.05 and abs(t.numpy().std() - 2.0) < 0.05
    a = T(np.zeros(5)).uniform_(0, 1, seed=9).numpy()
    np.testing.assert_array_equal(a, T(np.zeros(5)).uniform_(0, 1, seed=9).numpy())
    t.zero_()
    assert not t.numpy().any()


def test_conversion_methods():
    x = T(np.array([1.5, -2.5, 0.0], np.float32))
    expect = {"bool": "bool", "byte": "uint8", "char": "int8", "short": "int16", "int": "int32",
              "long": "int64", "half": "float16", "bfloat16": "bfloat16", "float": "float32",
              "double": "float64", "cfloat": "complex64", "cdouble": "complex128"}
    for m, dt in expect.items():
        assert getattr(x, m)().dtype.name == dt, m
    np.testing.assert_array_equal(x.long().numpy(), [1, -2, 0])
    assert x.type_as(T(np.array([1]))).dtype == oar.int64
    z = x.new_zeros([2, 3])
    assert z.shape == [2, 3] and z.dtype == oar.float32 and not z.numpy().any()
    assert x.new_ones([2], dtype="int32").dtype == oar.int32
    np.testing.assert_array_equal(x.new_full([2], 7).numpy(), [7, 7])
    assert x.new_empty([4]).shape == [4]
    assert x.itemsize == 4 and x.is_same_shape(T(np.ones(3)))
    assert not x.requires_grad
    x.requires_grad_()
    assert x.requires_grad and not x.stop_gradient
    assert oar.zeros([2, 3, 4]).mT.shape == [2, 4, 3]
    with pytest.raises(RuntimeError, match="cannot place data on Place\\(gpu:0\\)"):
        x.cuda()


@pytest.mark.parametrize("name,dfdx", [
    ("log_", lambda a: 1 / a), ("sin_", np.cos), ("sqrt_", lambda a: 0.5 / np.sqrt(a)),
    ("reciprocal_", lambda a: -1 / a ** 2), ("rsqrt_", lambda a: -0.5 * a ** -1.5),
])
def test_generated_inplace_on_a_recorded_tensor(name, dfdx):
    # The op saves its input for backward; in place, it must save a copy of the old value.
    a = rand((4,), low=0.5, high=2, seed=55)
    p = T(a, stop_gradient=False)
    y = p * 1.0
    getattr(y, name)()
    y.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), dfdx(a), rtol=1e-12, err_msg=name)


def test_generated_binary_inplace_on_a_recorded_tensor():
    a, b = rand((3,), low=0.5, high=2, seed=56), rand((3,), low=0.5, high=2, seed=57)
    p, q = T(a, stop_gradient=False), T(b, stop_gradient=False)
    y = p * 1.0
    y.multiply_(q)
    (y * y).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 2 * a * b * b, rtol=1e-12)
    np.testing.assert_allclose(q.grad.numpy(), 2 * a * a * b, rtol=1e-12)


@pytest.mark.host_only  # where a host tensor lives (a device run checks its own place elsewhere)
def test_host_tensor_place_attributes():
    x = T(np.array([[1.5, -2.0], [3.0, 4.0]], np.float32))
    assert x.cpu() is x and x.to("cpu") is x
    assert x.device == "cpu" and x.get_device() == -1


def test_dtype_named_casts_and_attributes():
    x = T(np.array([[1.5, -2.0], [3.0, 4.0]], np.float32))
    for name in ("uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                 "float64", "complex64", "complex128"):
        assert getattr(x, name)().dtype.name == name
    assert x.to("float64").dtype == oar.float64
    assert x.to(T(np.array([1]))).dtype == oar.int64
    assert x.strides == [2, 1] and x.T.strides == [1, 2] and x.stride(0) == 2 and x.get_strides() == [2, 1]
    assert x.offset == 0 and x[1].offset == 8  # bytes, as Paddle
    assert not x.is_cuda and x.is_dense()
    assert not x.is_sparse() and not x.persistable and x.placements is None
    v0 = x.inplace_version
    x.set_value(np.zeros((2, 2)))
    assert x.inplace_version == v0 + 1 and not x.numpy().any()
    with pytest.raises(ValueError, match=r"set_value: the value's shape \[3\] differs"):
        x.set_value(np.zeros(3))
    np.testing.assert_array_equal(x.data.numpy(), x.numpy())
    y = T(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(y.apply(lambda t: t * 2).numpy(), [2, 4])
    y.apply_(lambda t: t + 1)
    np.testing.assert_array_equal(y.numpy(), [2, 3])
    with pytest.raises(RuntimeError, match="apply: cannot apply"):
        T(np.ones(2), stop_gradient=False).apply(lambda t: t)
    np.testing.assert_array_equal(y.repeat(2, 1).numpy(), np.tile(y.numpy(), (2, 1)))
    np.testing.assert_array_equal(T(np.array([True, False])).where(T(np.ones(2)), T(np.zeros(2))).numpy(), [1, 0])
    p = T(np.ones(2), stop_gradient=False)
    assert p.gradient() is None
    (p * 3).sum().backward()
    np.testing.assert_array_equal(p.gradient(), [3, 3])


def test_shape_ops_in_place():
    a = rand((2, 3, 1), seed=58)
    t = T(a.copy())
    assert t.reshape_([3, 2]) is t and t.shape == [3, 2]
    np.testing.assert_array_equal(t.numpy(), a.reshape(3, 2))
    t = T(a.copy())
    oar.squeeze_(t, 2)
    assert t.shape == [2, 3]
    t.unsqueeze_(0)
    assert t.shape == [1, 2, 3]
    t.flatten_()
    assert t.shape == [6]
    t = T(a[:, :, 0].copy())
    t.transpose_([1, 0])
    np.testing.assert_array_equal(t.numpy(), a[:, :, 0].T)
    t.t_()
    np.testing.assert_array_equal(t.numpy(), a[:, :, 0])
    # History moves onto the reshaped tensor; something saved from the old shape refuses to run.
    p = T(a, stop_gradient=False)
    y = p * 2.0
    y.reshape_([6])
    (y * y).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), 8 * a)
    q = T(a, stop_gradient=False)
    z = q * 1.0
    w = z.exp()  # exp saves its output z-shaped result, and mul saved nothing of z
    s = z.sin()  # sin saves z itself
    z.reshape_([6])
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        s.sum().backward()
    with pytest.raises(ValueError, match="reshape_: Leaf Tensor that doesn't stop gradient"):
        T(a, stop_gradient=False).reshape_([6])


def test_dtype_changing_and_other_inplace():
    x = T(np.array([1.0, 2.0, 3.0]))
    assert x.cast_("int32") is x and x.dtype == oar.int32
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3])
    y = T(np.array([1.0, 2.0, 3.0]))
    y.equal_(T(np.array([1.0, 0.0, 3.0])))
    assert y.dtype == oar.bool
    np.testing.assert_array_equal(y.numpy(), [True, False, True])
    for name, ref in (("less_than_", np.less), ("less_equal_", np.less_equal), ("greater_than_", np.greater),
                      ("greater_equal_", np.greater_equal), ("not_equal_", np.not_equal), ("less_", np.less)):
        a = np.array([1.0, 2.0, 3.0])
        t = T(a.copy())
        getattr(t, name)(T(np.array([2.0, 2.0, 2.0])))
        np.testing.assert_array_equal(t.numpy(), ref(a, 2.0), err_msg=name)
    w = T(np.array([1.0, 2.0, 3.0]))
    oar.where_(T(np.array([True, False, True])), w, 0.0)
    np.testing.assert_array_equal(w.numpy(), [1, 0, 3])
    m = T(np.ones((3, 3)))
    m.fill_diagonal_(9.0)
    np.testing.assert_array_equal(m.numpy(), np.where(np.eye(3, dtype=bool), 9, 1))
    tall = np.ones((7, 3))
    np.fill_diagonal(tall, 5.0, wrap=True)
    t = T(np.ones((7, 3)))
    t.fill_diagonal_(5.0, wrap=True)
    np.testing.assert_array_equal(t.numpy(), tall)
    p = T(np.ones(2), stop_gradient=False)
    q = p * 2.0
    q.detach_()
    assert q.stop_gradient and q.is_leaf
    r = T(np.zeros(2000))
    r.random_(3, 7)
    assert set(np.unique(r.numpy())) == {3, 4, 5, 6}
    with pytest.raises(ValueError, match=r"random_: 'to' \(1\) must be greater than 'from_' \(2\)"):
        r.random_(2, 1)
    a = rand((3, 4), low=-3, high=3, seed=59)
    t = T(a.copy())
    t.renorm_(2.0, 0, 1.0)
    n = np.linalg.norm(a, axis=1, keepdims=True)
    np.testing.assert_allclose(t.numpy(), np.where(n > 1, a / n, a), rtol=1e-12)
    t = T(np.zeros((3, 2)))
    t.scatter_(T(np.array([2, 0])), T(np.ones((2, 2))))
    np.testing.assert_array_equal(t.numpy(), [[1, 1], [0, 0], [1, 1]])
