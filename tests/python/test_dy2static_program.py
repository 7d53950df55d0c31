"""dy2static with the real static mode: oar.jit.to_static turns tensor-dependent control flow into
IR `cond` / `while_loop` ops, Python control flow stays Python, and running the program gives the
eager results."""
import numpy as np
import pytest

import oar
from oar import static
from oar.jit import Dy2StaticError
from oar.static import InputSpec


def t(v):
    return oar.to_tensor(np.asarray(v, dtype="float32"))


def program_text(static_fn):
    return str(static_fn.concrete_program.main_program)


def run_both(fn, *inputs, spec_shape=(3,)):
    sf = oar.jit.to_static(fn, input_spec=[InputSpec(list(spec_shape), "float32")] * len(inputs))
    got = sf(*inputs)
    want = fn(*inputs)
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, (tuple, list)) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g.numpy()), np.asarray(oar.to_tensor(w).numpy()
                                   if not isinstance(w, oar.Tensor) else w.numpy()), rtol=1e-6)
    return sf


def tensor_if(x):
    if x.mean() > 0:
        y = x + 1
    elif x.mean() > -1:
        y = x * 10
    else:
        y = x - 1
    return y


def tensor_while_break(x):
    i = 0
    while x.sum() < 100:
        x = x * 2
        i += 1
        if x.max() > 50:
            break
    return x, i


def tensor_for_rows(x):
    acc = x[0] * 0
    for row in x:
        if row.sum() > 0:
            acc = acc + row
        else:
            acc = acc - row
    return acc


def early_return(x):
    if x.sum() > 0:
        return x * 2
    x = x - 1
    return x * 3


FLAG = True


def python_if(x):
    if FLAG:
        x = x + 1
    return x


@pytest.mark.parametrize("v", [[1.0, 2.0, 3.0], [-0.5, 0.0, 0.2], [-3.0, -2.0, -1.0]])
def test_tensor_if_builds_cond(v):
    sf = run_both(tensor_if, t(v))
    assert "cond(" in program_text(sf)


@pytest.mark.parametrize("v", [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5], [200.0, 0.0, 0.0]])
def test_tensor_while_builds_while_loop(v):
    sf = run_both(tensor_while_break, t(v))
    assert "while_loop(" in program_text(sf)


def test_for_over_tensor_rows():
    m = t(np.arange(-6, 6).reshape(4, 3))
    sf = run_both(tensor_for_rows, m, spec_shape=(4, 3))
    assert "while_loop(" in program_text(sf)


@pytest.mark.parametrize("v", [[1.0, 2.0, 3.0], [-3.0, -2.0, -1.0]])
def test_early_return(v):
    run_both(early_return, t(v))


def test_python_if_stays_python():
    sf = run_both(python_if, t([1.0, 2.0, 3.0]))
    assert "cond(" not in program_text(sf)


def test_layer_forward():
    class Net(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = oar.nn.Linear(3, 3)

        def forward(self, x):
            y = self.fc(x)
            if y.mean() > 0:
                y = oar.nn.functional.relu(y)
            return y

    oar.seed(1)
    net = Net()
    x = t(np.linspace(-1, 1, 6).reshape(2, 3))
    want = net(x).numpy()
    static_net = oar.jit.to_static(net, input_spec=[InputSpec([2, 3], "float32")])
    np.testing.assert_allclose(static_net(x).numpy(), want, rtol=1e-5)


def test_return_in_tensor_loop_is_rejected():
    def f(x):
        while x.sum() < 10:
            x = x + 1
            if x.sum() > 5:
                return x
        return x
    with pytest.raises(Dy2StaticError, match="`return` inside a `while` loop"):
        oar.jit.to_static(f, input_spec=[InputSpec([3], "float32")])(t([1.0, 1.0, 1.0]))


def test_loop_over_unknown_batch_dim():
    def f(x):
        acc = x.sum() * 0
        for i in range(x.shape[0]):           # x.shape[0] is -1 in the program: read at run time
            acc = acc + x.sum() * 2
        return acc
    sf = oar.jit.to_static(f, input_spec=[InputSpec([-1, 3], "float32")])
    x1 = t(np.arange(3).reshape(1, 3))
    probe = {}

    def shape_is_recorded(x):
        probe["symbolic"] = static.is_symbolic(oar.shape(x))
        return x
    oar.jit.to_static(shape_is_recorded, input_spec=[InputSpec([-1, 3], "float32")])(x1)
    if not probe["symbolic"]:
        # programs have no shape op yet: reading the unknown size must fail loudly, not use -1
        with pytest.raises(Dy2StaticError, match=r"`.shape` of a tensor whose shape is unknown"):
            sf(x1)
        return
    for rows in (1, 4):
        x = t(np.arange(rows * 3).reshape(rows, 3))
        np.testing.assert_allclose(sf(x).numpy(), f(x).numpy(), rtol=1e-6)
    assert "while_loop(" in program_text(sf)


def _helper(x):
    if x.max() > 2:
        return x / 2
    return x * 2


def calls_user_helper(x):
    return _helper(x) + _helper(x * 3)


def while_continue(x):
    i = 0
    total = x * 0
    while i < 6:
        i += 1
        if x.sum() * i > 20:
            continue
        total = total + x * i
    return total


def logical_and_ternary(x):
    ok = x.sum() > 0 and not x.max() > 5
    y = x * 2 if ok else x - 1
    z = x if x.min() < -1 or x.max() > 2 else x * 0
    return y, z


def nested_tensor_ifs(x):
    if x.sum() > 0:
        if x.max() > 2:
            y = x * 3
        else:
            y = x * 2
    else:
        y = -x
    return y


def tensor_while_python_counter(x):
    steps = 0
    while x.max() < 10:
        x = x + 3
        steps = steps + 1
    return x, steps


@pytest.mark.parametrize("fn", [calls_user_helper, while_continue, logical_and_ternary,
                                nested_tensor_ifs, tensor_while_python_counter])
@pytest.mark.parametrize("v", [[1.0, 2.0, 3.0], [-2.0, 0.5, 1.0], [6.0, 0.0, 0.0]])
def test_programs_equal_eager(fn, v):
    sf = run_both(fn, t(v))
    text = program_text(sf)
    assert "cond(" in text or "while_loop(" in text


def test_sublayer_with_tensor_control_flow():
    class Gate(oar.nn.Layer):
        def forward(self, x):
            if x.mean() > 0:
                x = x * 2
            return x

    class Net(oar.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = oar.nn.Linear(3, 3)
            self.gate = Gate()

        def forward(self, x):
            return self.gate(self.fc(x))

    oar.seed(3)
    net = Net()
    x = t(np.linspace(-1, 1, 6).reshape(2, 3))
    for sign in (1.0, -1.0):
        want = net(x * sign).numpy()
        static_net = oar.jit.to_static(net, input_spec=[InputSpec([2, 3], "float32")])
        np.testing.assert_allclose(static_net(x * sign).numpy(), want, rtol=1e-5)
    assert "cond(" in str(net.forward.concrete_program.main_program)
