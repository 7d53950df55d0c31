"""static.Print, static.nn.static_pylayer and py_func: program ops whose kernels call back into
Python (oar._C._register_python_op), checked against Paddle 3.3.1's outputs (recorded here)."""
import numpy as np
import pytest

import oar

pytestmark = pytest.mark.host_only  # printed places and programs run on the host executor


@pytest.fixture
def static_mode():
    oar.enable_static()
    yield
    oar.disable_static()


def _run(main, feed, fetch):
    return oar.static.Executor().run(main, feed=feed, fetch_list=fetch)


def test_print_formats_like_paddle(static_mode, capsys):
    main = oar.static.Program()
    with oar.static.program_guard(main, oar.static.Program()):
        x = oar.static.data("x", [-1, 3], "float32")
        oar.static.Print(x, message="msg", summarize=2, print_tensor_layout=False, print_tensor_lod=False)
        oar.static.Print(x)  # every field, the default summarize (20)
        y = x * 2.0
    _run(main, {"x": np.arange(6, dtype="float32").reshape(2, 3)}, [y])
    out = capsys.readouterr().out
    # Paddle 3.3.1 prints exactly these lines for the same calls.
    assert out == ("Variable: var\n  - message: msg\n  - place: Place(cpu)\n  - shape: [2, 3]\n  - dtype: float32\n"
                   "  - data: [0.000000 1.000000]\n"
                   "Variable: var\n  - lod: {}\n  - place: Place(cpu)\n  - shape: [2, 3]\n  - layout: NCHW\n"
                   "  - dtype: float32\n  - data: [0.000000 1.000000 2.000000 3.000000 4.000000 5.000000]\n")


def test_print_first_n_integers_and_backward_phase(static_mode, capsys):
    main = oar.static.Program()
    with oar.static.program_guard(main, oar.static.Program()):
        i = oar.static.data("i", [3], "int64")
        oar.static.Print(i, first_n=1, print_tensor_name=False, print_tensor_lod=False, print_tensor_layout=False,
                         print_tensor_shape=False, print_tensor_type=False)
        x = oar.static.data("x", [2], "float32")
        x.stop_gradient = False
        p = oar.static.Print(x, print_phase="backward", print_tensor_lod=False, print_tensor_layout=False)
        (g,) = oar.static.gradients([oar.sum(p * 3.0)], [x])
    feed = {"i": np.array([4, 5, 6]), "x": np.array([1.0, 2.0], "float32")}
    for _ in range(2):
        (grad,) = _run(main, feed, [g])
    np.testing.assert_array_equal(grad, [3.0, 3.0])
    out = capsys.readouterr().out
    assert out.count("  - place: Place(cpu)\n  - data: [4 5 6]\n") == 1  # first_n=1: once in two runs
    # the backward phase prints the gradient reaching x, each run
    assert out.count("Variable: var\n  - place: Place(cpu)\n  - shape: [2]\n  - dtype: float32\n"
                     "  - data: [3.000000 3.000000]\n") == 2


def test_print_is_kept_by_dead_code_elimination(static_mode, capsys):
    main = oar.static.Program()
    with oar.static.program_guard(main, oar.static.Program()):
        x = oar.static.data("x", [1], "float32")
        oar.static.Print(x, message="kept")
        y = x + 1.0
    compiled = oar.static.CompiledProgram(main) if hasattr(oar.static, "CompiledProgram") else main
    _run(compiled, {"x": np.array([1.0], "float32")}, [y])
    assert "kept" in capsys.readouterr().out


def test_print_errors():
    with pytest.raises(AssertionError, match="only supported in static graph mode"):
        oar.static.Print(oar.ones([1]))
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            x = oar.static.data("x", [1], "float32")
            with pytest.raises(ValueError, match="print_phase"):
                oar.static.Print(x, print_phase="sideways")
    finally:
        oar.disable_static()


def test_static_pylayer_uses_the_custom_backward(static_mode):
    main = oar.static.Program()
    with oar.static.program_guard(main, oar.static.Program()):
        x = oar.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        y = oar.static.nn.static_pylayer(lambda a: oar.tanh(a) * 2, [x], lambda g: g * 3)
        (g,) = oar.static.gradients([oar.mean(y)], [x])
    assert list(y.shape) == [-1, 3]
    out, grad = _run(main, {"x": np.ones([2, 3], "float32")}, [y, g])
    # Paddle 3.3.1: [[1.5231884] * 3] * 2 and the custom gradient 3 / 6 = 0.5 everywhere.
    np.testing.assert_allclose(out, np.full([2, 3], 1.5231884), rtol=1e-6)
    np.testing.assert_allclose(grad, np.full([2, 3], 0.5))


def test_static_pylayer_several_inputs_outputs_and_no_backward(static_mode):
    main = oar.static.Program()
    with oar.static.program_guard(main, oar.static.Program()):
        a = oar.static.data("a", [2], "float32")
        b = oar.static.data("b", [2], "float32")
        a.stop_gradient = b.stop_gradient = False
        s, d = oar.static.nn.static_pylayer(lambda u, v: [u + v, u - v], [a, b],
                                            lambda gs, gd: [gs + gd, gs - gd])
        ga, gb = oar.static.gradients([oar.sum(s * 2.0 + d)], [a, b])
        frozen = oar.static.nn.static_pylayer(lambda u: u * 5.0, [a])
    feed = {"a": np.array([1.0, 2.0], "float32"), "b": np.array([3.0, 5.0], "float32")}
    s_, d_, ga_, gb_, f_ = _run(main, feed, [s, d, ga, gb, frozen])
    np.testing.assert_allclose(s_, [4.0, 7.0])
    np.testing.assert_allclose(d_, [-2.0, -3.0])
    np.testing.assert_allclose(ga_, [3.0, 3.0])  # gs + gd = 2 + 1
    np.testing.assert_allclose(gb_, [1.0, 1.0])  # gs - gd
    np.testing.assert_allclose(f_, [5.0, 10.0])
    assert frozen.stop_gradient


def test_static_pylayer_and_py_func_errors():
    with pytest.raises(AssertionError, match="use PyLayer instead"):
        oar.static.nn.static_pylayer(lambda a: a, [oar.ones([1])])
    with pytest.raises(AssertionError, match="only supported in static graph mode"):
        oar.static.py_func(lambda a: a, oar.ones([1]), oar.ones([1]))
    oar.enable_static()
    try:
        with oar.static.program_guard(oar.static.Program(), oar.static.Program()):
            x = oar.static.data("x", [1], "float32")
            with pytest.raises(TypeError, match="The type of 'X' in py_func must be"):
                oar.static.py_func(lambda a: a, x, x)
            with pytest.raises(TypeError, match="forward_fn must be callable"):
                oar.static.nn.static_pylayer(3, [x])
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            y = oar.static.data("y", [1], "float32")
            y.stop_gradient = False
            bad = oar.static.nn.static_pylayer(lambda a: a * 2.0, [y], lambda g: [g, g])
            (g,) = oar.static.gradients([oar.sum(bad)], [y])
        with pytest.raises(ValueError, match="backward_fn returned 2 gradients for 1 inputs"):
            _run(main, {"y": np.ones([1], "float32")}, [g])
    finally:
        oar.disable_static()
