"""Static mode: programs built from op calls, run by the executor; control flow; backward and
optimizers in static programs (same losses as eager, step by step); clone(for_test); errors."""
import numpy as np
import pytest


import oar
import oar.nn.functional as F
from oar import static

# Host programs: these run on the CPU place (test_device_custom_cpu.py runs programs on a device).
pytestmark = pytest.mark.host_only


@pytest.fixture
def static_mode():
    main, startup = static.Program(), static.Program()
    oar.enable_static()
    try:
        with static.program_guard(main, startup):
            yield main
    finally:
        oar.disable_static()


def test_build_and_run(static_mode):
    x = static.data("x", [None, 3], "float32")
    assert x.shape == [-1, 3]
    y = F.relu(x) * 2.0 + oar.ones([3])
    assert repr(x) == "Value(define_op_name=data, index=0, dtype=tensor<-1x3xf32>, stop_gradient=True)"
    assert not oar.in_dynamic_mode()
    exe = static.Executor(oar.CPUPlace())
    feed = np.array([[-1.0, 0.5, 2.0], [3.0, -2.0, 0.0]], dtype="float32")
    out, = exe.run(static_mode, feed={"x": feed}, fetch_list=[y])
    np.testing.assert_allclose(out, np.maximum(feed, 0) * 2 + 1)
    # The batch dim is -1: another batch size runs the same program.
    out, = exe.run(static_mode, feed={"x": np.ones((5, 3), "float32")}, fetch_list=[y])
    assert out.shape == (5, 3)
    assert "relu" in static_mode._op_names()


def test_symbolic_tensors_have_no_data(static_mode):
    x = static.data("x", [2], "float32")
    with pytest.raises(RuntimeError, match="static program"):
        x.numpy()


def test_feed_errors(static_mode):
    x = static.data("x", [None, 3], "float32")
    y = x + 1.0
    exe = static.Executor()
    with pytest.raises(KeyError, match="'x'"):
        exe.run(static_mode, feed={}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"input 'x': expected float32\[-1, 3\], got float64\[2, 3\]"):
        exe.run(static_mode, feed={"x": np.ones((2, 3))}, fetch_list=[y])
    with pytest.raises(ValueError, match=r"input 'x': expected float32\[-1, 3\], got float32\[2, 4\]"):
        exe.run(static_mode, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[y])
    with pytest.raises(ValueError, match="already has an input named 'x'"):
        static.data("x", [1], "float32")


def test_fetch_list_forms_are_paddles(static_mode):
    """fetch_list: one target, a list or tuple of targets, or lists/tuples of them nested one level
    (a model's tuple of outputs), flattened in order as Paddle does."""
    x = static.data("x", [2, 3], "float32")
    a, b, c = x * 2.0, x + 1.0, x - 1.0
    exe = static.Executor(oar.CPUPlace())
    feed = {"x": np.arange(6, dtype="float32").reshape(2, 3)}
    xv = feed["x"]
    want = {"a": xv * 2, "b": xv + 1, "c": xv - 1}
    cases = [(a, "a"), ([a, b], "ab"), ((a, b), "ab"), ([(a, b), c], "abc"), (((a, b),), "ab"),
             ([[a], (b, c)], "abc"), ((a, [b]), "ab")]
    for fetch_list, names in cases:
        outs = exe.run(static_mode, feed=feed, fetch_list=fetch_list)
        assert len(outs) == len(names)
        for out, name in zip(outs, names):
            np.testing.assert_array_equal(out, want[name])
    # Anything else is refused: a generator or a set, as Paddle's assert; a number inside, a TypeError.
    for bad in [(t for t in [a]), {a}, 5]:
        with pytest.raises(AssertionError, match="fetch_list must be a tensor, a name, or a list or tuple"):
            exe.run(static_mode, feed=feed, fetch_list=bad)
    with pytest.raises(TypeError, match="fetch_list items must be tensors of the program"):
        exe.run(static_mode, feed=feed, fetch_list=[a, 3])


def test_runtime_error_names_op_inputs_and_user_line(static_mode):
    x = static.data("x", [None, 3], "float32")
    w = static.data("w", [None, 4], "float32")
    y = oar.matmul(x, w)  # the inner dims only meet at run time
    exe = static.Executor()
    with pytest.raises(ValueError) as err:
        exe.run(static_mode, feed={"x": np.ones((2, 3), "float32"), "w": np.ones((5, 4), "float32")}, fetch_list=[y])
    msg = str(err.value)
    assert "op 'matmul'" in msg and "float32[2, 3], float32[5, 4]" in msg and "test_static.py:" in msg


def test_cond_and_while_loop(static_mode):
    x = static.data("x", [1], "float32")
    y = static.nn.cond(oar.sum(x) > 0, lambda: x * 10.0, lambda: x - 100.0)
    i = oar.full([1], 0, "int64")
    total = oar.zeros([1], "float32")
    _, total = static.nn.while_loop(lambda i, t: i < 5, lambda i, t: [i + 1, t + x], [i, total])
    exe = static.Executor()
    for v in (2.0, -3.0):
        a, b = exe.run(static_mode, feed={"x": np.array([v], "float32")}, fetch_list=[y, total])
        np.testing.assert_allclose(a, [v * 10 if v > 0 else v - 100])
        np.testing.assert_allclose(b, [5 * v])
    names = static_mode._op_names()
    assert "cond" in names and "while_loop" in names


def test_cond_branches_must_agree(static_mode):
    x = static.data("x", [1], "float32")
    with pytest.raises(ValueError, match="same structure"):
        static.nn.cond(oar.sum(x) > 0, lambda: (x, x), lambda: x)


def test_cond_and_while_loop_in_dynamic_mode():
    x = oar.to_tensor([2.0])
    assert float(static.nn.cond(x > 0, lambda: x * 10.0, lambda: x)) == 20.0
    i, = static.nn.while_loop(lambda i: i < 4, lambda i: [i + 1], [oar.to_tensor(0)])
    assert int(i) == 4


def _mlp(seed):
    oar.seed(seed)
    return oar.nn.Sequential(oar.nn.Linear(4, 8), oar.nn.Tanh(), oar.nn.Linear(8, 3))


def _batches():
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((6, 4)).astype("float32"), rng.integers(0, 3, (6, 1)).astype("int64"))
            for _ in range(5)]


@pytest.mark.parametrize("opt", ["SGD", "Adam", "Momentum"])
def test_static_training_matches_eager_step_by_step(opt):
    make = {"SGD": lambda ps: oar.optimizer.SGD(0.1, parameters=ps),
            "Adam": lambda ps: oar.optimizer.Adam(0.01, parameters=ps),
            "Momentum": lambda ps: oar.optimizer.Momentum(0.05, momentum=0.9, parameters=ps)}[opt]
    net = _mlp(7)
    optimizer = make(net.parameters())
    eager = []
    for xb, yb in _batches():
        loss = F.cross_entropy(net(oar.to_tensor(xb)), oar.to_tensor(yb))
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        eager.append(float(loss))

    main = static.Program()
    oar.enable_static()
    try:
        with static.program_guard(main, static.Program()):
            net2 = _mlp(7)
            x = static.data("x", [None, 4], "float32")
            y = static.data("y", [None, 1], "int64")
            loss = F.cross_entropy(net2(x), y)
            _, params_grads = make(net2.parameters()).minimize(loss)
            assert len(params_grads) == 4
        exe = static.Executor()
        got = [float(exe.run(main, feed={"x": xb, "y": yb}, fetch_list=[loss])[0]) for xb, yb in _batches()]
    finally:
        oar.disable_static()
    np.testing.assert_allclose(got, eager, rtol=1e-6, atol=1e-7)
    for p, q in zip(net.parameters(), net2.parameters()):
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-5, atol=1e-6)


def test_append_backward_and_gradients_match_eager(static_mode):
    net = _mlp(3)
    x = static.data("x", [None, 4], "float32")
    x.stop_gradient = False
    loss = oar.mean(net(x) ** 2)
    pairs = static.append_backward(loss)
    dx, = static.gradients([loss], [x])
    xb = _batches()[0][0]
    outs = static.Executor().run(static_mode, feed={"x": xb}, fetch_list=[g for _, g in pairs] + [dx])
    oar.disable_static()
    xe = oar.to_tensor(xb, stop_gradient=False)
    le = oar.mean(net(xe) ** 2)
    grads = oar.grad([le], [p for p, _ in pairs] + [xe])
    oar.enable_static()
    for got, want in zip(outs, grads):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_clone_for_test_turns_off_dropout(static_mode):
    x = static.data("x", [None, 16], "float32")
    y = F.dropout(x, 0.5, training=True)
    test_program = static_mode.clone(for_test=True)
    exe = static.Executor()
    feed = {"x": np.ones((4, 16), "float32")}
    out, = exe.run(test_program, feed=feed, fetch_list=[y])
    np.testing.assert_array_equal(out, feed["x"])
    out, = exe.run(static_mode, feed=feed, fetch_list=[y])
    assert (out == 0).any()


def test_static_nn_layers(static_mode):
    x = static.data("img", [None, 3, 8, 8], "float32")
    h = static.nn.conv2d(x, 4, 3, padding=1, act="relu")
    h = static.nn.batch_norm(h, is_test=True)
    out = static.nn.fc(h, 5, activation="softmax")
    assert out.shape == [-1, 5]
    got, = static.Executor().run(static_mode, feed={"img": np.random.rand(2, 3, 8, 8).astype("float32")},
                                 fetch_list=[out])
    np.testing.assert_allclose(got.sum(1), np.ones(2), rtol=1e-5)


def test_save_and_load_inference_model(static_mode, tmp_path):
    net = _mlp(5)
    x = static.data("x", [None, 4], "float32")
    y = F.softmax(net(x))
    loss = oar.mean(y)
    oar.optimizer.SGD(0.1, parameters=net.parameters()).minimize(loss)
    exe = static.Executor()
    xb = _batches()[0][0]
    want, = exe.run(static_mode.clone(for_test=True), feed={"x": xb}, fetch_list=[y])
    prefix = str(tmp_path / "model")
    static.save_inference_model(prefix, [x], [y], exe)
    program, feed_names, fetch_targets = static.load_inference_model(prefix, exe)
    assert feed_names == ["x"]
    assert "grad" not in program._op_names()  # pruned to the inference part
    got, = exe.run(program, feed={"x": xb}, fetch_list=fetch_targets)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_shape_tensor_and_numel_tensor_resolve_unknown_dims(static_mode):
    x = static.data("x", [None, 3], "float32")
    s, n = oar.shape(x), oar.numel(x)  # the shape_tensor and numel_tensor ops
    assert s.shape == [2] and n.shape == []
    got_s, got_n = static.Executor().run(static_mode, feed={"x": np.zeros((5, 3), "float32")}, fetch_list=[s, n])
    np.testing.assert_array_equal(got_s, [5, 3])
    assert int(got_n) == 15
    assert "shape_tensor" in static_mode._op_names() and "numel_tensor" in static_mode._op_names()


def test_detach_stops_the_gradient_in_programs(static_mode):
    net = _mlp(9)
    x = static.data("x", [None, 4], "float32")
    h = net[0](x)
    loss = oar.mean(net[2](oar.tanh(h.detach())) ** 2)  # no gradient reaches the first layer
    assert "detach_value" in static_mode._op_names()
    pairs = dict((p.name, g) for p, g in static.append_backward(loss, parameter_list=net.parameters()))
    w0 = net[0].weight
    xb = _batches()[0][0]
    g0, g2 = static.Executor().run(static_mode, feed={"x": xb}, fetch_list=[pairs[w0.name], pairs[net[2].weight.name]])
    np.testing.assert_array_equal(g0, np.zeros_like(g0))
    assert np.abs(g2).sum() > 0


def test_indexing_dims_of_unknown_size(static_mode):
    x = static.data("x", [None, 3], "float32")
    first, last, rows, tail = x[0], x[-1], x[1:, 1], x[-2:]
    exe = static.Executor()
    feed = np.arange(15, dtype="float32").reshape(5, 3)
    got = exe.run(static_mode, feed={"x": feed}, fetch_list=[first, last, rows, tail])
    for g, want in zip(got, [feed[0], feed[-1], feed[1:, 1], feed[-2:]]):
        np.testing.assert_array_equal(g, want)
    with pytest.raises(IndexError, match="out of bounds"):
        bad = x[7]
        exe.run(static_mode, feed={"x": feed}, fetch_list=[bad])


def test_advanced_indexing_in_programs(static_mode):
    x = static.data("x", [None, 4], "float32")
    idx = static.data("idx", [3], "int64")
    col = static.data("col", [3], "int64")
    rows, picked = x[idx], oar.gather_nd(x, oar.stack([idx, col], 1))
    assert rows.shape == [3, 4] and picked.shape == [3]
    feed = {"x": np.arange(20, dtype="float32").reshape(5, 4), "idx": np.array([4, 0, 2]),
            "col": np.array([1, 3, 0])}
    got_rows, got_picked = static.Executor().run(static_mode, feed=feed, fetch_list=[rows, picked])
    np.testing.assert_array_equal(got_rows, feed["x"][[4, 0, 2]])
    np.testing.assert_array_equal(got_picked, feed["x"][[4, 0, 2], [1, 3, 0]])


def test_data_dependent_shapes_in_programs(static_mode):
    # Bool masks, masked_select and nonzero: result sizes known only when the program runs (-1).
    x = static.data("x", [None, 3], "float32")
    by_mask, by_rows, rows_col = x[x > 1.0], x[x[:, 0] > 1.0], x[x[:, 0] > 1.0, 1]
    selected, coords = oar.masked_select(x, x > 1.0), oar.nonzero(x > 1.0)
    assert by_mask.shape == [-1] and by_rows.shape == [-1, 3] and rows_col.shape == [-1]
    assert selected.shape == [-1] and coords.shape == [-1, 2]
    a = np.array([[0, 2, 1], [3, 0, 5], [1, 1, 1], [4, 4, 0]], np.float32)
    got = static.Executor().run(static_mode, feed={"x": a},
                                fetch_list=[by_mask, by_rows, rows_col, selected, coords])
    for g, want in zip(got, [a[a > 1], a[a[:, 0] > 1], a[a[:, 0] > 1, 1], a[a > 1], np.argwhere(a > 1)]):
        np.testing.assert_array_equal(g, want)
    # Another batch size, another count: the same program.
    b = np.full((2, 3), 2.0, np.float32)
    got = static.Executor().run(static_mode, feed={"x": b}, fetch_list=[by_mask, coords])
    np.testing.assert_array_equal(got[0], b.ravel())
    np.testing.assert_array_equal(got[1], np.argwhere(b > 1))
    # A mask beside an index tensor broadcasts its coordinates with it, as NumPy does; counts
    # that do not broadcast raise when the program runs.
    cols = static.data("cols", [2], "int64")
    picked = x[x[:, 0] > 1.0, cols]
    a2 = np.array([[0, 1, 2], [3, 4, 5], [6, 7, 8]], np.float32)
    got = static.Executor().run(static_mode, feed={"x": a2, "cols": np.array([2, 0])}, fetch_list=[picked])
    np.testing.assert_array_equal(got[0], a2[a2[:, 0] > 1, np.array([2, 0])])
    with pytest.raises(IndexError, match="could not be broadcast together with shapes \\[3\\] \\[2\\]"):
        three_rows = np.arange(12, dtype=np.float32).reshape(4, 3)  # three rows pass the mask
        static.Executor().run(static_mode, feed={"x": three_rows, "cols": np.array([2, 0])}, fetch_list=[picked])
    with pytest.raises(TypeError, match="must be a bool tensor"):
        oar.masked_select(x, x)


def test_unique_in_programs(static_mode):
    x = static.data("x", [None, 3], "int64")
    flat = oar.unique(x, return_index=True, return_inverse=True, return_counts=True, dtype="int32")
    rows = oar.unique(x, return_inverse=True, return_counts=True, axis=0)
    runs = oar.unique_consecutive(x, return_counts=True)
    assert [t.shape for t in flat] == [[-1], [-1], [-1, 3], [-1]]
    assert [t.shape for t in rows] == [[-1, 3], [-1], [-1]] and flat[1].dtype == oar.int32
    fetch = [*flat, *rows, *runs]
    for a in (np.array([[1, 2, 2], [3, 1, 1], [1, 2, 2]]), np.array([[5, 5, 5]])):
        got = static.Executor().run(static_mode, feed={"x": a}, fetch_list=fetch)
        want = [*np.unique(a, return_index=True, return_inverse=True, return_counts=True),
                *np.unique(a, return_inverse=True, return_counts=True, axis=0)[::2],
                np.unique(a, axis=0, return_inverse=True)[1]]
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[2], want[2].reshape(a.shape))
        np.testing.assert_array_equal(got[3], want[3])
        np.testing.assert_array_equal(got[4], want[4])
        np.testing.assert_array_equal(got[5], want[6].ravel())
        np.testing.assert_array_equal(got[6], want[5])
        flat_a = a.ravel()
        starts = np.r_[True, flat_a[1:] != flat_a[:-1]]
        np.testing.assert_array_equal(got[7], flat_a[starts])
        np.testing.assert_array_equal(got[8], np.diff(np.r_[np.flatnonzero(starts), flat_a.size]))


def _eager(fn, *arrays):
    """fn run eagerly on tensors of `arrays` (static mode is suspended), as NumPy arrays."""
    with static.mode.eager():
        out = fn(*[oar.to_tensor(a) for a in arrays])
    return [o.numpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def _run_both(program, feeds, fetch, fn):
    """Runs `program` on each feed dict and checks that every fetched value equals fn run eagerly
    on the same arrays (same dtype, shape and values); returns the static results."""
    results = []
    for feed in feeds:
        got = static.Executor().run(program, feed=feed, fetch_list=fetch)
        want = _eager(fn, *feed.values())
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
            np.testing.assert_array_equal(g, w)
        results.append(got)
    return results


def test_bincount_and_histogram_in_programs(static_mode):
    # Output sizes (bincount) and ranges (histogram) come from the data when the program runs.
    x = static.data("x", [None], "int64")
    w = static.data("w", [None], "float64")
    v = static.data("v", [None], "float32")

    def fn(x, w, v):
        return [oar.bincount(x), x.bincount(minlength=8), oar.bincount(x, weights=w),
                oar.histogram(v, bins=5), v.histogram(bins=4, min=0, max=3),
                oar.histogram(v, bins=3, weight=w, density=True)]

    fetch = fn(x, w, v)
    assert fetch[0].shape == [-1] and fetch[3].shape == [5]
    rng = np.random.default_rng(3)
    feeds = [{"x": np.array([1, 2, 1, 5]), "w": rng.random(4), "v": (rng.random(4) * 3).astype(np.float32)},
             {"x": np.array([0, 11, 3, 3, 3, 7]), "w": rng.random(6), "v": np.array([-2, 4, 0.5, 9, 9, 1], np.float32)},
             {"x": np.array([2, 2]), "w": rng.random(2), "v": np.array([1.5, 1.5], np.float32)},
             {"x": np.zeros([0], np.int64), "w": np.zeros([0]), "v": np.zeros([0], np.float32)}]
    results = _run_both(static_mode, feeds, fetch, fn)
    for feed, got in zip(feeds, results):
        np.testing.assert_array_equal(got[0], np.bincount(feed["x"]))
        np.testing.assert_array_equal(got[1], np.bincount(feed["x"], minlength=8))
        np.testing.assert_allclose(got[2], np.bincount(feed["x"], feed["w"]), rtol=1e-12)
        np.testing.assert_array_equal(got[4], np.histogram(feed["v"], 4, (0, 3))[0])
    assert [len(r[0]) for r in results] == [6, 12, 3, 0] and results[3][1].tolist() == [0] * 8
    assert results[3][3].tolist() == [0] * 5  # an empty input: range (-1, 1), no counts
    np.testing.assert_array_equal(results[0][3], np.histogram(feeds[0]["v"], 5)[0])
    np.testing.assert_array_equal(results[1][3], [1, 2, 1, 0, 2])  # range [-2, 9]
    np.testing.assert_array_equal(results[2][3], [0, 0, 2, 0, 0])  # one value: range 0.5 .. 2.5
    # A negative value raises the eager error when the program runs.
    with pytest.raises(ValueError, match="bincount: argument 'x' must hold non-negative values"):
        static.Executor().run(static_mode, feed={"x": np.array([3, -1]), "w": np.ones(2), "v": np.ones(2, np.float32)},
                              fetch_list=fetch[:1])


def test_histogram_bin_edges_and_linspace_in_programs(static_mode):
    # Ends that come from the data (histogram_bin_edges' range) or are program values
    # (linspace's start and stop): the linspace kernel reads them when the program runs.
    v = static.data("v", [None], "float32")
    lo = static.data("lo", [], "float64")
    hi = static.data("hi", [1], "float32")

    def fn(v, lo, hi):
        return [oar.histogram_bin_edges(v, bins=4), oar.histogram_bin_edges(v, 3, min=-1, max=2),
                oar.linspace(lo, hi, 5), oar.linspace(0, hi, 3, "float64")]

    fetch = fn(v, lo, hi)
    assert fetch[0].shape == [5] and fetch[2].shape == [5]
    feeds = [{"v": np.array([3, -1, 0.5, 7], np.float32), "lo": np.array(-2.0), "hi": np.array([1.5], np.float32)},
             {"v": np.array([2, 2], np.float32), "lo": np.array(0.1), "hi": np.array([0.1], np.float32)},
             {"v": np.zeros([0], np.float32), "lo": np.array(1e6), "hi": np.array([-3.0], np.float32)}]
    results = _run_both(static_mode, feeds, fetch, fn)
    np.testing.assert_allclose(results[0][0], np.histogram_bin_edges(feeds[0]["v"], 4), rtol=1e-6)
    np.testing.assert_allclose(results[1][0], [1, 1.5, 2, 2.5, 3])  # one value: widened by one
    np.testing.assert_allclose(results[2][0], [-1, -0.5, 0, 0.5, 1])  # empty: (-1, 1)
    np.testing.assert_allclose(results[0][1], [-1, 0, 1, 2])
    np.testing.assert_allclose(results[0][2], np.linspace(-2.0, 1.5, 5), rtol=1e-6)
    np.testing.assert_allclose(results[2][3], np.linspace(0, -3.0, 3))
    with pytest.raises(ValueError, match="linspace: argument 'stop' must hold one value, got shape \\[2\\]"):
        oar.linspace(lo, static.data("two", [2], "float32"), 3)


def test_repeat_interleave_with_an_int_count_keeps_known_sizes(static_mode):
    # A Python int count over a known dim gives a known size in the program (the count op would
    # give -1); the unknown batch dim stays -1, and an empty batch runs.
    v = static.data("v", [None, 3, 4], "float32")

    def fn(v):
        return [oar.repeat_interleave(v, 2, 1), v.repeat_interleave(3, -1), oar.repeat_interleave(v, 2, 0)]

    fetch = fn(v)
    assert [f.shape for f in fetch] == [[-1, 6, 4], [-1, 3, 12], [-1, 3, 4]]
    feeds = [{"v": np.random.default_rng(5).standard_normal((2, 3, 4)).astype(np.float32)},
             {"v": np.zeros((0, 3, 4), np.float32)}]
    results = _run_both(static_mode, feeds, fetch, fn)
    np.testing.assert_array_equal(results[0][1], np.repeat(feeds[0]["v"], 3, -1))
    assert [r.shape for r in results[1]] == [(0, 6, 4), (0, 3, 12), (0, 3, 4)]


def test_repeat_interleave_and_sequence_mask_in_programs(static_mode):
    x = static.data("x", [None, 3], "float32")
    r = static.data("r", [3], "int64")
    lens = static.data("lens", [None], "int64")
    top = static.data("top", [], "int64")

    def fn(x, r, lens, top):
        return [oar.repeat_interleave(x, r, axis=1), x.repeat_interleave(r[:1]), oar.repeat_interleave(x, 2, axis=0),
                F.sequence_mask(lens), F.sequence_mask(lens, maxlen=top, dtype="float32"),
                F.sequence_mask(lens, maxlen=4, dtype="bool"), oar.arange(0, top + 3, 2)]

    fetch = fn(x, r, lens, top)
    assert fetch[6].shape == [-1]
    assert fetch[0].shape == [-1, -1] and fetch[3].shape == [-1, -1] and fetch[5].shape == [-1, 4]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    feeds = [{"x": a, "r": np.array([1, 0, 3]), "lens": np.array([1, 3, 0]), "top": np.array(2)},
             {"x": a[:1], "r": np.array([2, 2, 2]), "lens": np.array([5, 2]), "top": np.array(-1)},
             {"x": a, "r": np.array([0, 0, 0]), "lens": np.zeros([0], np.int64), "top": np.array(3)}]
    results = _run_both(static_mode, feeds, fetch, fn)
    for feed, got in zip(feeds, results):
        np.testing.assert_array_equal(got[0], np.repeat(feed["x"], feed["r"], 1))
        np.testing.assert_array_equal(got[1], np.repeat(feed["x"], feed["r"][0]))
        np.testing.assert_array_equal(got[2], np.repeat(feed["x"], 2, 0))
        width = max(int(feed["lens"].max(initial=0)), 0)
        np.testing.assert_array_equal(got[3], (np.arange(width) < feed["lens"][:, None]).astype(np.int64))
        np.testing.assert_array_equal(got[4], np.arange(max(int(feed["top"]), 0)) < feed["lens"][:, None])
        np.testing.assert_array_equal(got[6], np.arange(0, int(feed["top"]) + 3, 2))
    assert [r[0].shape for r in results] == [(2, 4), (1, 6), (2, 0)] and [r[3].shape for r in results] == [(3, 3), (2, 5), (0, 0)]
    with pytest.raises(ValueError, match="repeat_interleave: 'repeats' must be non-negative, got -1"):
        static.Executor().run(static_mode, feed={**feeds[0], "r": np.array([1, -1, 2])}, fetch_list=fetch[:1])


def test_lstsq_and_matrix_exp_in_programs(static_mode):
    a = static.data("a", [5, 3], "float64")
    b = static.data("b", [5, 2], "float64")
    m = static.data("m", [None, 3, 3], "float64")

    def fn(a, b, m):
        return [*oar.linalg.lstsq(a, b, driver="gelsd"), oar.linalg.matrix_exp(m)]

    fetch = fn(a, b, m)
    assert fetch[1].shape == [-1] and fetch[4].shape == [-1, 3, 3]
    rng = np.random.default_rng(5)
    deficient = np.ones((5, 3))
    feeds = [{"a": rng.random((5, 3)), "b": rng.random((5, 2)), "m": rng.random((2, 3, 3)) * 0.1},
             {"a": deficient, "b": rng.random((5, 2)), "m": rng.random((1, 3, 3)) * 40}]
    full, low = _run_both(static_mode, feeds, fetch, fn)
    assert full[1].shape == (2,) and low[1].shape == (0,)  # residuals only at full rank
    np.testing.assert_allclose(full[1], np.linalg.lstsq(feeds[0]["a"], feeds[0]["b"], rcond=None)[1], rtol=1e-9)
    assert full[2] == 3 and low[2] == 1
    s = rng.random((3, 3))
    s = (s + s.T) * 3  # a norm that needs squarings
    wv, vv = np.linalg.eigh(s)
    got, = static.Executor().run(static_mode, feed={**feeds[0], "m": s[None]}, fetch_list=fetch[4:])
    np.testing.assert_allclose(got[0], (vv * np.exp(wv)) @ vv.T, rtol=1e-10)


def test_matrix_exp_gradient_in_programs(static_mode):
    m = static.data("m", [3, 3], "float64")
    m.stop_gradient = False
    out = oar.linalg.matrix_exp(m)
    loss = (out * out).sum()
    grad, = static.gradients([loss], [m])
    x = np.random.default_rng(8).random((3, 3)) * 2
    got = static.Executor().run(static_mode, feed={"m": x}, fetch_list=[out, grad])
    with static.mode.eager():
        t = oar.to_tensor(x, stop_gradient=False)
        e = oar.linalg.matrix_exp(t)
        g, = oar.grad([(e * e).sum()], [t])
    np.testing.assert_array_equal(got[0], e.numpy())
    np.testing.assert_array_equal(got[1], g.numpy())


# In-place APIs in a static program (Paddle's TestStaticInplaceAutoGeneratedAPI): x.op_() records
# op, and x (and the returned tensor) names the result afterwards, whatever layer implements op_.
STATIC_INPLACE = [("abs_", ()), ("exp_", ()), ("sqrt_", ()), ("tanh_", ()), ("relu_", ()),
                  ("frac_", ()), ("log1p_", ()), ("expm1_", ()), ("acos_", ()), ("asin_", ()), ("atan_", ()),
                  ("cosh_", ()), ("sinh_", ()), ("tan_", ()), ("logit_", ()), ("cumsum_", (1,)),
                  ("cumprod_", (1,)), ("clip_", (0.3, 0.6)), ("scale_", (2.0,)), ("flatten_", ()),
                  ("unsqueeze_", (0,)), ("transpose_", ([1, 0],)), ("reshape_", ([4, 3],)),
                  ("cast_", ("float64",)), ("floor_", ()), ("reciprocal_", ())]


@pytest.mark.parametrize("name,args", STATIC_INPLACE, ids=[n for n, _ in STATIC_INPLACE])
def test_static_inplace_apis_rebind_x(name, args):
    a = np.random.default_rng(0).uniform(0.2, 0.9, (3, 4)).astype("float32")
    expected = getattr(oar, name[:-1])(oar.to_tensor(a), *args).numpy()
    oar.enable_static()
    try:
        main = oar.static.Program()
        with oar.static.program_guard(main, oar.static.Program()):
            x = oar.static.data("x", [3, 4], "float32")
            y = getattr(oar, name)(x, *args)
            after = x + 0  # x read after the in-place op: the result's value
        got, x_after = oar.static.Executor().run(main, feed={"x": a}, fetch_list=[y, after])
    finally:
        oar.disable_static()
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(x_after, expected, rtol=1e-6)
