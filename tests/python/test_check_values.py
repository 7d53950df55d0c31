"""check_values: value checks of Python layers that run when the op runs, so static programs check
their data at run time (eagerly the check is immediate)."""
import numpy as np
import pytest

import oar
import oar.nn.functional as F
from oar import _C, static


def test_passes_x_through_and_its_gradient():
    x = oar.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = _C.check_values(x, x > 0, "never shown")
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0, 3.0])
    (g,) = oar.grad([(y * y).sum()], [x])
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0, 6.0])
    assert "check_values" not in dir(oar)  # internal: oar._C only


@pytest.mark.host_only  # raised from inside the host kernel (a device kernel's error is oar's External one)
def test_raises_the_message_eagerly():
    x = oar.to_tensor([1.0, -2.0])
    with pytest.raises(ValueError, match="x must be positive"):
        _C.check_values(x, x > 0, "x must be positive")
    empty = oar.zeros([0])
    assert _C.check_values(empty, empty > 0, "unused").shape == [0]  # nothing to check


@pytest.mark.host_only  # raised from inside the host kernel (a device kernel's error is oar's External one)
def test_bad_ok_dtype():
    x = oar.to_tensor([1.0])
    with pytest.raises(TypeError, match="check_values: argument 'ok' must be a bool tensor, but received dtype float32"):
        _C.check_values(x, x, "unused")


@pytest.fixture
def program():
    oar.enable_static()
    try:
        yield static.Program()
    finally:
        oar.disable_static()


def test_programs_check_when_they_run(program):
    with static.program_guard(program):
        x = static.data("x", [-1], "float32")
        v = static.data("v", [-1], "float32")
        loss = F.gaussian_nll_loss(x, x * 0.5, v)
        mg = oar.multigammaln(x, 2)
        label = static.data("label", [2, 3], "int64")
        mlm = F.multi_label_margin_loss(static.data("inp", [2, 3], "float32"), label)
    exe = static.Executor()
    xv, vv = np.array([1.5, 2.0], np.float32), np.array([1.0, 2.0], np.float32)
    inp = np.array([[0.1, 0.2, 0.4], [0.8, 0.1, 0.3]], np.float32)
    good = {"x": xv, "v": vv, "label": np.array([[2, -1, 0], [0, 1, -1]]), "inp": inp}
    got = exe.run(program, feed=good, fetch_list=[loss, mg, mlm])
    oar.disable_static()
    try:
        want = [F.gaussian_nll_loss(oar.to_tensor(xv), oar.to_tensor(xv * 0.5), oar.to_tensor(vv)),
                oar.multigammaln(oar.to_tensor(xv), 2),
                F.multi_label_margin_loss(oar.to_tensor(inp), oar.to_tensor(good["label"]))]
    finally:
        oar.enable_static()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="argument 'variance' has negative entries"):
        exe.run(program, feed=dict(good, v=np.array([-1.0, 2.0], np.float32)), fetch_list=[loss])
    with pytest.raises(ValueError, match=r"must be greater than \(p - 1\) / 2 = 0.5"):
        exe.run(program, feed=dict(good, x=np.array([0.25, 2.0], np.float32)), fetch_list=[mg])
    with pytest.raises(ValueError, match=r"label values must be in \[-1, 3\)"):
        exe.run(program, feed=dict(good, label=np.array([[3, -1, 0], [0, 1, -1]])), fetch_list=[mlm])
