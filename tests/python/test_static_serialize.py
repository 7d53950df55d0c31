"""oar.static's program and parameter serialization (serialize_program, serialize_persistables and
their inverses, save_to_file/load_from_file, normalize_program), static.save/load with
load_program_state/set_program_state, CompiledProgram/BuildStrategy and Variable: round trips
give the same Executor outputs; files and bytes are compared with real Paddle where it writes
the same thing."""
import os
import pickle
import warnings

import numpy as np
import pytest

import oar
from oar import static

pytestmark = pytest.mark.host_only


@pytest.fixture
def static_mode():
    oar.enable_static()
    try:
        yield
    finally:
        oar.disable_static()


def _mlp(seed=0, names=None):
    """main program: x [None, 3] -> Linear(3, 4) -> relu -> Linear(4, 2); returns (main, x, y)."""
    oar.seed(seed)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        if names:
            l1 = oar.nn.Linear(3, 4, weight_attr=oar.ParamAttr(name=names[0]), bias_attr=oar.ParamAttr(name=names[1]))
        else:
            l1 = oar.nn.Linear(3, 4)
        h = oar.nn.functional.relu(l1(x))
        y = oar.nn.Linear(4, 2)(h) if not names else h
    return main, x, y


FEED = {"x": np.arange(15, dtype="float32").reshape(5, 3) / 7.0 - 1.0}


def test_serialize_program_round_trip(static_mode):
    main, x, y = _mlp()
    exe = static.Executor(oar.CPUPlace())
    ref, = exe.run(main, feed=FEED, fetch_list=[y])
    data = static.serialize_program([x], [y], program=main)
    assert isinstance(data, bytes) and data.startswith(b"oar-program 1\n")
    params = static.serialize_persistables([x], [y], exe, program=main)
    assert isinstance(params, bytes) and len(params) > 0
    with static.scope_guard(static.Scope()):
        prog = static.deserialize_program(data)
        assert isinstance(prog, static.Program)
        assert static.deserialize_persistables(prog, params, exe) is None
        out, = exe.run(prog, feed=FEED)  # no fetch_list: the program's fetch ops
        np.testing.assert_array_equal(out, ref)
        out2, = exe.run(prog, feed=FEED, fetch_list=None)
        np.testing.assert_array_equal(out2, ref)


def test_serialize_uses_default_main_program(static_mode):
    main, x, y = _mlp()
    with static.program_guard(main):
        data = static.serialize_program(x, y)
    assert data == static.serialize_program([x], [y], program=main)


def test_serialize_files_round_trip(static_mode, tmp_path):
    main, x, y = _mlp(seed=3)
    exe = static.Executor(oar.CPUPlace())
    ref, = exe.run(main, feed=FEED, fetch_list=[y])
    static.save_to_file(str(tmp_path / "m.pdmodel"), static.serialize_program([x], [y], program=main))
    static.save_to_file(str(tmp_path / "m.pdiparams"), static.serialize_persistables([x], [y], exe, program=main))
    with static.scope_guard(static.Scope()):
        prog = static.deserialize_program(static.load_from_file(str(tmp_path / "m.pdmodel")))
        static.deserialize_persistables(prog, static.load_from_file(str(tmp_path / "m.pdiparams")), exe)
        out, = exe.run(prog, feed=FEED)
    np.testing.assert_array_equal(out, ref)


def test_serialized_program_is_pruned_for_inference(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        h = oar.nn.functional.dropout(x, p=0.5)
        y = h * 3.0
        unused = x + 100.0  # noqa: F841
    prog = static.deserialize_program(static.serialize_program([x], [y], program=main))
    out, = static.Executor().run(prog, feed={"x": np.ones((2, 4), "float32")})
    np.testing.assert_allclose(out, np.full((2, 4), 3.0))  # dropout in inference mode: identity
    assert prog.num_ops() < main.num_ops() + 1
    norm = static.normalize_program(main, [x], [y])
    assert str(norm) == str(prog)


def test_deserialize_errors(static_mode):
    main, x, y = _mlp()
    exe = static.Executor()
    with pytest.raises(TypeError, match="deserialize_program: data must be bytes"):
        static.deserialize_program("oar-program 1\n")
    with pytest.raises(ValueError, match="deserialize_program"):
        static.deserialize_program(b"\x00\x01garbage")
    prog = static.deserialize_program(static.serialize_program([x], [y], program=main))
    with pytest.raises(ValueError, match="deserialize_persistables"):
        static.deserialize_persistables(prog, b"\x00" * 10, exe)
    with pytest.raises(TypeError, match="deserialize_persistables: data must be bytes"):
        static.deserialize_persistables(prog, "abc", exe)
    with pytest.raises(TypeError, match="deserialize_persistables: program"):
        static.deserialize_persistables(None, b"", exe)
    with pytest.raises(TypeError, match="serialize_persistables: executor"):
        static.serialize_persistables([x], [y], None, program=main)
    with pytest.raises(TypeError, match="serialize_program: feed_vars and fetch_vars"):
        static.serialize_program([np.ones(3)], [y], program=main)
    with pytest.raises(ValueError, match="serialize_program: fetch_vars is empty"):
        static.serialize_program([x], [], program=main)
    with pytest.raises(TypeError, match="serialize_program: program"):
        static.serialize_program([x], [y], program="main")


def test_save_to_file_errors(tmp_path):
    with pytest.raises(ValueError, match="'content' type should be bytes"):
        static.save_to_file(str(tmp_path / "f"), "text")
    with pytest.raises(FileNotFoundError):
        static.load_from_file(str(tmp_path / "missing"))
    static.save_to_file(str(tmp_path / "f"), b"\x00abc")
    assert static.load_from_file(str(tmp_path / "f")) == b"\x00abc"


# ---------------------------------------------------------------- static.save / static.load

def _train_program(seed=0):
    oar.seed(seed)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        y = oar.nn.Linear(3, 2)(x)
        loss = oar.mean(y * y)
        opt = oar.optimizer.Adam(0.1)
        opt.minimize(loss)
    return main, x, y, loss, opt


def test_static_save_load_round_trip(static_mode, tmp_path):
    main, x, y, loss, opt = _train_program()
    exe = static.Executor(oar.CPUPlace())
    for _ in range(2):
        exe.run(main, feed=FEED, fetch_list=[loss])
    path = str(tmp_path / "ckpt" / "m")
    static.save(main, path)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["m.pdmodel", "m.pdopt", "m.pdparams"]
    with open(path + ".pdparams", "rb") as f:
        params = pickle.load(f)
    assert sorted(params) == sorted(main._program.parameter_names())
    assert all(isinstance(v, np.ndarray) for v in params.values())
    with open(path + ".pdopt", "rb") as f:
        opt_state = pickle.load(f)
    assert any(k.endswith("_moment1_0") for k in opt_state)
    saved_out, = exe.run(main.clone(for_test=True), feed=FEED, fetch_list=[y])
    next_loss, = exe.run(main, feed=FEED, fetch_list=[loss])  # one more step changes everything
    exe.run(main, feed=FEED, fetch_list=[loss])
    static.load(main, path, exe)
    out, = exe.run(main.clone(for_test=True), feed=FEED, fetch_list=[y])
    np.testing.assert_array_equal(out, saved_out)
    # The optimizer states came back too: the next step repeats exactly.
    again, = exe.run(main, feed=FEED, fetch_list=[loss])
    np.testing.assert_array_equal(again, next_loss)
    state = static.load_program_state(path)
    assert set(params) | set(opt_state) == set(state)
    assert sorted(static.load_program_state(path + ".pdparams")) == sorted(state)


def test_set_program_state(static_mode):
    main, x, y, loss, opt = _train_program()
    exe = static.Executor()
    names = sorted(main._program.parameter_names())
    shapes = {n: tuple(t.shape) for n, t in main._parameters().items()}
    zeros = {n: np.zeros(shapes[n], "float32") for n in names}
    with pytest.warns(UserWarning, match="not_a_param"):
        static.set_program_state(main, {**zeros, "not_a_param": np.ones(2)})
    out, = exe.run(main.clone(for_test=True), feed=FEED, fetch_list=[y])
    np.testing.assert_array_equal(out, np.zeros((5, 2), "float32"))
    with pytest.raises(ValueError, match="set_program_state: parameter .* has shape") as e:
        static.set_program_state(main, {names[0]: np.zeros((7, 7), "float32")})
    assert isinstance(e.value, AssertionError)  # as Paddle asserts
    with pytest.raises(TypeError, match="set_program_state: state_dict"):
        static.set_program_state(main, [1, 2])


def test_static_save_load_errors(static_mode, tmp_path):
    main, x, y, loss, opt = _train_program()
    with pytest.raises(TypeError, match="static.save: program"):
        static.save("main", str(tmp_path / "m"))
    with pytest.raises(ValueError, match="static.save: model_path"):
        static.save(main, str(tmp_path) + os.sep)
    with pytest.raises(FileNotFoundError, match="pdparams"):
        static.load(main, str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError):
        static.load_program_state(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="static.load: program"):
        static.load(1, str(tmp_path / "m"))


# ---------------------------------------------------------------- CompiledProgram, Variable

def test_compiled_program(static_mode):
    main, x, y = _mlp()
    exe = static.Executor()
    ref, = exe.run(main, feed=FEED, fetch_list=[y])
    bs = static.BuildStrategy()
    assert bs.enable_inplace is True and bs.fuse_elewise_add_act_ops is False
    bs.fuse_elewise_add_act_ops = True
    bs.reduce_strategy = static.BuildStrategy.ReduceStrategy.Reduce
    compiled = static.CompiledProgram(main, build_strategy=bs)
    assert compiled._build_strategy is bs and compiled.program is main
    out, = exe.run(compiled, feed=FEED, fetch_list=[y])
    np.testing.assert_array_equal(out, ref)
    out, = exe.run(static.CompiledProgram(main), feed=FEED, fetch_list=[y])
    np.testing.assert_array_equal(out, ref)
    with pytest.raises(TypeError, match="CompiledProgram"):
        static.CompiledProgram(1)
    with pytest.raises(TypeError, match="build_strategy"):
        static.CompiledProgram(main, build_strategy=1)
    with pytest.raises(AttributeError, match="no_such_option"):
        bs.no_such_option = 1
    with pytest.raises(TypeError, match="enable_inplace must be a bool"):
        bs.enable_inplace = 1


def test_variable_isinstance(static_mode):
    main, x, y = _mlp()
    assert isinstance(x, static.Variable) and isinstance(y, static.Variable)
    with pytest.raises(TypeError, match="Variable"):
        static.Variable()
    oar.disable_static()
    try:
        assert not isinstance(oar.ones([2]), static.Variable)
        assert not isinstance(np.ones(2), static.Variable)
    finally:
        oar.enable_static()


def test_load_inference_model_runs_without_fetch_list(static_mode, tmp_path):
    main, x, y = _mlp()
    exe = static.Executor()
    ref, = exe.run(main, feed=FEED, fetch_list=[y])
    static.save_inference_model(str(tmp_path / "m"), [x], [y], exe, program=main)
    with static.scope_guard(static.Scope()):
        prog, feeds, fetches = static.load_inference_model(str(tmp_path / "m"), exe)
        out, = exe.run(prog, feed=FEED)
        out2, = exe.run(prog, feed=FEED, fetch_list=fetches)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    np.testing.assert_array_equal(out, out2)


# ---------------------------------------------------------------- against real Paddle

@pytest.fixture
def paddle_static():
    paddle = pytest.importorskip("paddle")
    paddle.enable_static()
    try:
        yield paddle
    finally:
        paddle.disable_static()


def _paddle_linear(paddle, w, b):
    ps = paddle.static
    main, startup = ps.Program(), ps.Program()
    with ps.program_guard(main, startup):
        x = ps.data("x", [None, 3], "float32")
        lin = paddle.nn.Linear(3, 4, weight_attr=paddle.ParamAttr(name="fc.w_0"),
                               bias_attr=paddle.ParamAttr(name="fc.b_0"))
        y = paddle.nn.functional.relu(lin(x))
    exe = ps.Executor(paddle.CPUPlace())
    exe.run(startup)
    ps.set_program_state(main, {"fc.w_0": w, "fc.b_0": b})
    return main, x, y, exe


def _oar_linear(w, b):
    main, x, y = _mlp(names=("fc.w_0", "fc.b_0"))
    static.set_program_state(main, {"fc.w_0": w, "fc.b_0": b})
    return main, x, y


def _weights():
    rng = np.random.default_rng(7)
    return rng.standard_normal((3, 4)).astype("float32"), rng.standard_normal(4).astype("float32")


def test_serialize_persistables_bytes_match_paddle(paddle_static, tmp_path):
    """The parameter bytes are Paddle's tensor stream: the .pdiparams real Paddle writes for the
    same inference program."""
    paddle = paddle_static
    w, b = _weights()
    pmain, px, py, pexe = _paddle_linear(paddle, w, b)
    paddle.static.save_inference_model(str(tmp_path / "p"), [px], [py], pexe, program=pmain)
    with open(tmp_path / "p.pdiparams", "rb") as f:
        paddle_bytes = f.read()
    ref, = pexe.run(pmain, feed=FEED, fetch_list=[py])
    oar.enable_static()
    try:
        main, x, y = _oar_linear(w, b)
        exe = static.Executor()
        data = static.serialize_persistables([x], [y], exe, program=main)
        assert data == paddle_bytes
        with static.scope_guard(static.Scope()):
            prog = static.deserialize_program(static.serialize_program([x], [y], program=main))
            static.deserialize_persistables(prog, paddle_bytes, exe)  # Paddle's bytes read back
            out, = exe.run(prog, feed=FEED)
    finally:
        oar.disable_static()
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


def test_static_save_files_match_paddle(paddle_static, tmp_path):
    """static.save's .pdparams reads in real Paddle's load_program_state and static.load, and
    Paddle's reads in oar's."""
    paddle = paddle_static
    w, b = _weights()
    pmain, px, py, pexe = _paddle_linear(paddle, w, b)
    ref, = pexe.run(pmain, feed=FEED, fetch_list=[py])
    paddle.static.save(pmain, str(tmp_path / "p"))
    oar.enable_static()
    try:
        main, x, y = _oar_linear(np.zeros_like(w), np.zeros_like(b))
        static.save(main, str(tmp_path / "zeros"))
        static.load(main, str(tmp_path / "p"), static.Executor())  # Paddle's files into oar
        out, = static.Executor().run(main, feed=FEED, fetch_list=[y])
        np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
        static.save(main, str(tmp_path / "o"))
    finally:
        oar.disable_static()
    state = paddle.static.load_program_state(str(tmp_path / "o"))
    np.testing.assert_array_equal(state["fc.w_0"], w)
    np.testing.assert_array_equal(state["fc.b_0"], b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        paddle.static.load(pmain, str(tmp_path / "zeros"), pexe)  # oar's files into Paddle
    zero_out, = pexe.run(pmain, feed=FEED, fetch_list=[py])
    np.testing.assert_array_equal(zero_out, np.zeros_like(ref))
