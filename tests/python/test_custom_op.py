"""Custom C++ operators (oar.utils.cpp_extension): a Paddle custom-op source
(examples/custom_op/custom_ops.cc, `#include "paddle/extension.h"`) builds unchanged, its ops run
eagerly against NumPy, differentiate through their grad ops (checked numerically in float64), and
bad sources, arguments and kernels raise clear errors."""
import os

import numpy as np
import pytest

import oar
from oar.utils import cpp_extension

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "custom_op", "custom_ops.cc")


@pytest.fixture(scope="module")
def ops(tmp_path_factory):
    return cpp_extension.load("oar_test_custom_ops", [EXAMPLE], build_directory=str(tmp_path_factory.mktemp("ext")))


def test_forward_matches_numpy(ops):
    x = np.random.RandomState(0).standard_normal([3, 5]).astype("float32")
    y = np.random.RandomState(1).standard_normal([3, 5]).astype("float32")
    np.testing.assert_array_equal(ops.custom_relu(oar.to_tensor(x)).numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(ops.scaled_add(oar.to_tensor(x), oar.to_tensor(y), 0.5).numpy(), x + 0.5 * y, rtol=1e-6)
    np.testing.assert_allclose(ops.scaled_add(oar.to_tensor(x), y=oar.to_tensor(y), alpha=2).numpy(), x + 2 * y,
                               rtol=1e-6)
    mean, var = ops.moments(oar.to_tensor(x.astype("float64")), True)
    np.testing.assert_allclose(mean.numpy(), x.mean(-1), rtol=1e-6)
    np.testing.assert_allclose(var.numpy(), x.var(-1), rtol=1e-5)
    mean, var = ops.moments(oar.to_tensor(x), axis_last=False)
    assert mean.shape == [] and abs(float(mean) - x.mean()) < 1e-6
    # A non-contiguous input reaches the kernel as a contiguous copy.
    xt = oar.to_tensor(x).transpose([1, 0])
    np.testing.assert_array_equal(ops.custom_relu(xt).numpy(), np.maximum(x.T, 0))


def test_gradients_through_grad_ops(ops):
    x = oar.to_tensor(np.random.RandomState(2).standard_normal([4, 3]), stop_gradient=False)
    y = oar.to_tensor(np.random.RandomState(3).standard_normal([4, 3]), stop_gradient=False)
    out = ops.scaled_add(ops.custom_relu(x), y, 3.0)
    (out * out).sum().backward()
    xv, yv = x.numpy(), y.numpy()
    g = 2 * (np.maximum(xv, 0) + 3 * yv)
    np.testing.assert_allclose(x.grad.numpy(), g * (xv > 0), rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), 3 * g, rtol=1e-10)


def test_numeric_gradient_float64(ops):
    rng = np.random.RandomState(4)
    x0 = rng.uniform(0.1, 1.0, [2, 3]) * np.sign(rng.standard_normal([2, 3]))  # away from relu's kink
    y0 = rng.standard_normal([2, 3])

    def loss(xv, yv):
        out = ops.scaled_add(ops.custom_relu(oar.to_tensor(xv)), oar.to_tensor(yv), 0.7)
        return float((out * out * out).sum())

    x = oar.to_tensor(x0, stop_gradient=False)
    y = oar.to_tensor(y0, stop_gradient=False)
    out = ops.scaled_add(ops.custom_relu(x), y, 0.7)
    (out * out * out).sum().backward()
    eps = 1e-6
    for arr, grad in ((x0, x.grad.numpy()), (y0, y.grad.numpy())):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            plus, minus = arr.copy(), arr.copy()
            plus[i] += eps
            minus[i] -= eps
            num[i] = (loss(plus, y0) - loss(minus, y0)) / (2 * eps) if arr is x0 else \
                (loss(x0, plus) - loss(x0, minus)) / (2 * eps)
        np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-7)


def test_gradient_arriving_as_a_broadcast_view(ops):
    """sum's gradient is a stride-0 view: the grad kernel must see it contiguous."""
    for dtype in ("float32", "float64"):
        x = oar.to_tensor(np.array([[-1.0, 2.0], [3.0, -4.0]], dtype), stop_gradient=False)
        ops.scaled_add(ops.custom_relu(x), x, 0.5).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [[0.5, 1.5], [1.5, 0.5]])


def test_ops_without_grad_op_and_no_grad_mode(ops):
    x = oar.to_tensor(np.ones([2, 3], "float32"), stop_gradient=False)
    mean, _ = ops.moments(x, True)
    assert mean.stop_gradient  # no grad op: no history
    with oar.no_grad():
        assert ops.custom_relu(x).stop_gradient


def test_argument_errors(ops):
    x = oar.ones([2, 2])
    with pytest.raises(TypeError, match=r"scaled_add\(\) missing argument\(s\): alpha"):
        ops.scaled_add(x, x)
    with pytest.raises(TypeError, match=r"attribute 'alpha' must be float"):
        ops.scaled_add(x, x, "2")
    with pytest.raises(TypeError, match=r"input 'x' must be a Tensor"):
        ops.custom_relu(np.ones(3))
    with pytest.raises(TypeError, match="unexpected keyword argument 'beta'"):
        ops.scaled_add(x, x, 1.0, beta=2)
    with pytest.raises(ValueError, match=r"scaled_add: X and Y must have the same shape"):
        ops.scaled_add(x, oar.ones([3]), 1.0)
    with pytest.raises(ValueError, match=r"function \"custom_relu\" is not implemented for data type `int32`"):
        ops.custom_relu(oar.ones([2], dtype="int32"))


class _CustomNet(oar.nn.Layer):
    def __init__(self, ops):
        super().__init__()
        self.ops = ops
        self.fc = oar.nn.Linear(4, 3)

    def forward(self, x):
        return self.ops.scaled_add(self.ops.custom_relu(self.fc(x)), self.fc(x), 0.25)


def test_custom_ops_in_to_static_programs_saved_models_and_the_predictor(ops, tmp_path):
    oar.seed(1)
    net = _CustomNet(ops)
    x = np.random.RandomState(5).standard_normal([5, 4]).astype("float32")
    want = net(oar.to_tensor(x)).numpy()
    static = oar.jit.to_static(net, input_spec=[oar.static.InputSpec([None, 4], "float32", "x")])
    np.testing.assert_allclose(static(oar.to_tensor(x)).numpy(), want, rtol=1e-6)
    # Training through the program: the grad ops run as in dynamic mode.
    loss = static(oar.to_tensor(x)).square().mean()
    loss.backward()
    assert net.fc.weight.grad is not None and float(net.fc.weight.grad.abs().sum()) > 0
    # A saved model with custom ops: oar's own format (Paddle has no form for them), loaded while
    # the library is loaded, by jit.load and by the predictor.
    prefix = str(tmp_path / "custom")
    with pytest.warns(UserWarning, match="custom_relu"):
        oar.jit.save(net, prefix, input_spec=[oar.static.InputSpec([None, 4], "float32", "x")])
    assert "custom_relu" in open(prefix + ".pdmodel").read()
    np.testing.assert_allclose(oar.jit.load(prefix)(oar.to_tensor(x)).numpy(), want, rtol=1e-6)
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    h = predictor.get_input_handle("x")
    h.reshape([5, 4])
    h.copy_from_cpu(x)
    predictor.run()
    np.testing.assert_allclose(predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu(), want,
                               rtol=1e-6)


def test_build_is_cached_and_errors_are_clear(tmp_path):
    src = tmp_path / "twice.cc"
    src.write_text('#include "paddle/extension.h"\n'
                   'std::vector<paddle::Tensor> Id(const paddle::Tensor& x) { return {x}; }\n'
                   'std::vector<std::vector<int64_t>> Wrong(const std::vector<int64_t>& x) { return {{1}}; }\n'
                   'PD_BUILD_OP(oar_test_identity).Inputs({"X"}).Outputs({"Out"}).SetKernelFn(PD_KERNEL(Id))'
                   '.SetInferShapeFn(PD_INFER_SHAPE(Wrong));\n')
    mod = cpp_extension.load("oar_test_identity_ops", [str(src)], build_directory=str(tmp_path))
    lib = os.path.join(str(tmp_path), "oar_test_identity_ops", "oar_test_identity_ops.so")
    built = os.path.getmtime(lib)
    assert cpp_extension.load("oar_test_identity_ops", [str(src)], build_directory=str(tmp_path)) is mod
    assert os.path.getmtime(lib) == built
    # The kernel's output disagrees with its infer-shape function.
    with pytest.raises(ValueError, match=r"oar_test_identity: output 'Out' has shape \[2, 2\] but the infer-shape "
                                         r"function says \[1\]"):
        mod.oar_test_identity(oar.ones([2, 2]))
    # The same op name from a second library.
    again = tmp_path / "again"
    again.mkdir()
    with pytest.raises(ValueError, match="custom op 'oar_test_identity' is registered twice"):
        cpp_extension.load("oar_test_identity_again", [str(src)], build_directory=str(again))
    # A source that does not compile: the compiler's message.
    bad = tmp_path / "bad.cc"
    bad.write_text('#include "paddle/extension.h"\nstd::vector<paddle::Tensor> F(const paddle::Tensor& x) '
                   '{ return {x.frobnicate()}; }\n')
    with pytest.raises(RuntimeError, match=r"(?s)compiling failed.*frobnicate"):
        cpp_extension.load("oar_test_bad_ops", [str(bad)], build_directory=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        cpp_extension.load("oar_test_missing", [str(tmp_path / "missing.cc")], build_directory=str(tmp_path))
    with pytest.raises(ValueError, match="identifier"):
        cpp_extension.load("not a name", [str(src)], build_directory=str(tmp_path))
