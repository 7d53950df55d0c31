"""oar.incubate's top level (paddle.incubate): softmax_mask_fuse(_upper_triangle), identity_loss,
LookAhead, ModelAverage and the legacy graph functions, against NumPy references, float64
gradients, real Paddle (where its CPU build runs them) and Paddle's errors."""
import numpy as np
import pytest

import oar
from op_test import assert_close, check_grad, rand


def t(a):
    return oar.to_tensor(a)


def np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# ---- softmax with mask ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_mask_fuse(dtype):
    x, mask = rand((2, 3, 4, 5), dtype, seed=1), rand((2, 1, 4, 5), dtype, -3, 0, seed=2)
    assert_close(oar.incubate.softmax_mask_fuse(t(x), t(mask)), np_softmax(x + mask), dtype)
    causal = np.where(np.tril(np.ones((4, 5))) > 0, 0.0, -np.inf)
    assert_close(oar.incubate.softmax_mask_fuse_upper_triangle(t(x)), np_softmax(x + causal), dtype)


def test_softmax_mask_fuse_gradients():
    x, mask = rand((1, 2, 3, 3), seed=1), rand((1, 1, 3, 3), seed=2)
    check_grad(lambda x: oar.incubate.softmax_mask_fuse(x, t(mask)), [x])
    check_grad(oar.incubate.softmax_mask_fuse_upper_triangle, [x])


def test_softmax_mask_fuse_matches_paddle():
    paddle = pytest.importorskip("paddle")
    x, mask = rand((2, 2, 4, 4), "float32", seed=1), rand((2, 1, 4, 4), "float32", -2, 0, seed=2)
    exp = paddle.incubate.softmax_mask_fuse(paddle.to_tensor(x), paddle.to_tensor(mask))
    assert_close(oar.incubate.softmax_mask_fuse(t(x), t(mask)), exp.numpy(), "float32")


def test_softmax_mask_fuse_errors():
    x = oar.ones([2, 2, 3, 3])
    with pytest.raises(ValueError, match="4D"):
        oar.incubate.softmax_mask_fuse(oar.ones([2, 3, 3]), oar.ones([2, 3, 3]))
    with pytest.raises(ValueError, match="second dim must be 1"):
        oar.incubate.softmax_mask_fuse(x, oar.ones([2, 2, 3, 3]))
    with pytest.raises(ValueError, match="0th dim"):
        oar.incubate.softmax_mask_fuse(x, oar.ones([1, 1, 3, 3]))
    with pytest.raises(ValueError, match="4D"):
        oar.incubate.softmax_mask_fuse_upper_triangle(oar.ones([3, 3]))
    with pytest.raises(TypeError, match="float16"):
        oar.incubate.softmax_mask_fuse_upper_triangle(oar.ones([1, 1, 3, 3], "int32"))


# ---- identity_loss ----

def test_identity_loss():
    x = rand((2, 3), seed=1)
    for reduction, exp in (("sum", x.sum()), (0, x.sum()), ("mean", x.mean()), (1, x.mean()), ("none", x), (2, x)):
        assert_close(oar.incubate.identity_loss(t(x), reduction), exp, "float64", str(reduction))
    check_grad(lambda x: oar.incubate.identity_loss(x, "mean"), [x])
    with pytest.raises(TypeError, match="Unsupported reduction type"):
        oar.incubate.identity_loss(t(x), "foo")
    with pytest.raises(ValueError, match="reduction should be 0, 1 and 2"):
        oar.incubate.identity_loss(t(x), 3)


def test_identity_loss_matches_paddle():
    paddle = pytest.importorskip("paddle")
    x = rand((2, 3), "float32", seed=1)
    for reduction in ("sum", "mean", "none", 0, 1, 2):
        exp = paddle.incubate.identity_loss(paddle.to_tensor(x), reduction)
        assert_close(oar.incubate.identity_loss(t(x), reduction), exp.numpy(), "float32", str(reduction))


# ---- LookAhead and ModelAverage ----

def _train(lib, opt_factory, steps, w0, after=None):
    """A linear model trained by lib's optimizer on fixed data; the weights after each step."""
    lib.seed(0)
    linear = lib.nn.Linear(3, 2)
    linear.weight.set_value(lib.to_tensor(w0))
    linear.bias.set_value(lib.to_tensor(np.zeros(2, "float32")))
    opt = opt_factory(lib, linear)
    x = lib.to_tensor(rand((4, 3), "float32", seed=5))
    history = []
    for _ in range(steps):
        loss = (linear(x) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        history.append(linear.weight.numpy().copy())
        if after:
            after(opt)
    return history, opt, linear


def _lookahead(lib, linear):
    sgd = lib.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
    return lib.incubate.LookAhead(sgd, alpha=0.3, k=3)


def test_lookahead_matches_numpy():
    w0 = rand((3, 2), "float32", seed=1)
    got, _, _ = _train(oar, _lookahead, 7, w0)
    x = rand((4, 3), "float32", seed=5).astype(np.float64)
    w, b, slow = w0.astype(np.float64), np.zeros(2), None
    for step in range(1, 8):
        dy = 2 * (x @ w + b) / (4 * 2)
        w, b = w - 0.1 * x.T @ dy, b - 0.1 * dy.sum(0)
        if step == 1:
            slow = [w.copy(), b.copy()]
        if step % 3 == 0:
            slow = [s + 0.3 * (p - s) for s, p in zip(slow, (w, b))]
            w, b = slow[0].copy(), slow[1].copy()
        np.testing.assert_allclose(got[step - 1], w, rtol=1e-5, atol=1e-6)


def test_lookahead_matches_paddle():
    paddle = pytest.importorskip("paddle")
    w0 = rand((3, 2), "float32", seed=1)
    exp, _, _ = _train(paddle, _lookahead, 7, w0)
    got, _, _ = _train(oar, _lookahead, 7, w0)
    np.testing.assert_allclose(np.array(got), np.array(exp), rtol=1e-5, atol=1e-6)


def test_lookahead_errors():
    sgd = oar.optimizer.SGD(0.1, parameters=oar.nn.Linear(2, 2).parameters())
    with pytest.raises(ValueError, match="alpha"):
        oar.incubate.LookAhead(sgd, alpha=1.5)
    with pytest.raises(ValueError, match="k should be a positive integer"):
        oar.incubate.LookAhead(sgd, k=0)
    with pytest.raises(ValueError, match="inner optimizer"):
        oar.incubate.LookAhead(None)


def _model_average(lib, linear):
    sgd = lib.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
    avg = lib.incubate.ModelAverage(0.5, parameters=linear.parameters(), min_average_window=2, max_average_window=3)

    class Both:
        def step(self):
            sgd.step()
            avg.step()

        def clear_grad(self):
            sgd.clear_grad()
    both = Both()
    both.avg = avg
    return both


def test_model_average_matches_paddle():
    paddle = pytest.importorskip("paddle")
    w0 = rand((3, 2), "float32", seed=1)
    for steps in (1, 2, 3, 5, 8):
        results = []
        for lib in (paddle, oar):
            history, opt, linear = _train(lib, _model_average, steps, w0)
            with opt.avg.apply():
                averaged = linear.weight.numpy().copy()
            results.append((averaged, linear.weight.numpy().copy()))
        np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-5, atol=1e-6, err_msg=f"{steps} steps")
        np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-6, err_msg="restored")


def test_model_average_window_in_numpy():
    w0 = rand((3, 2), "float32", seed=1)
    history, opt, linear = _train(oar, _model_average, 5, w0)
    # min 2, max 3, rate 0.5: windows close after steps 2 ([1, 2]) and 4 ([3, 4]); 5 is open.
    with opt.avg.apply(need_restore=False):
        np.testing.assert_allclose(linear.weight.numpy(), np.mean(history[2:5], 0), rtol=1e-5)
    opt.avg.restore()
    np.testing.assert_allclose(linear.weight.numpy(), history[-1])


# ---- legacy graph functions ----

ROW = [3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7]
COLPTR = [0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13]


def test_graph_send_recv_and_segments_are_geometric():
    x = rand((3, 4), seed=1)
    src, dst = t(np.array([0, 1, 2, 0])), t(np.array([1, 2, 1, 0]))
    for pool in ("sum", "mean", "max", "min"):
        assert_close(oar.incubate.graph_send_recv(t(x), src, dst, pool, out_size=4),
                     oar.geometric.send_u_recv(t(x), src, dst, pool, out_size=4).numpy(), "float64")
    with pytest.raises(ValueError, match="pool_type"):
        oar.incubate.graph_send_recv(t(x), src, dst, "prod")
    assert oar.incubate.segment_sum is oar.geometric.segment_sum
    assert oar.incubate.segment_max is oar.geometric.segment_max


def test_graph_functions_match_paddle():
    paddle = pytest.importorskip("paddle")
    x = rand((3, 4), "float32", seed=1)
    src, dst = np.array([0, 1, 2, 0]), np.array([1, 2, 1, 0])
    exp = paddle.incubate.graph_send_recv(paddle.to_tensor(x), paddle.to_tensor(src), paddle.to_tensor(dst), "mean")
    assert_close(oar.incubate.graph_send_recv(t(x), t(src), t(dst), "mean"), exp.numpy(), "float32")
    nodes, nbrs, count = np.array([0, 1, 2]), np.array([8, 9, 0, 4, 7, 6, 7]), np.array([2, 3, 2], "int32")
    exp = paddle.incubate.graph_reindex(*(paddle.to_tensor(a) for a in (nodes, nbrs, count)))
    got = oar.incubate.graph_reindex(t(nodes), t(nbrs), t(count))
    for g, e in zip(got, exp):
        np.testing.assert_array_equal(g.numpy(), e.numpy())
    # Sampling 2 of at most 2 neighbours is deterministic: the same neighbours and counts as
    # Paddle (whose CPU kernel aborts with the default sample_size=-1).
    row, colptr, inp = np.array(ROW), np.array(COLPTR), np.array([0, 8, 1, 2])
    exp = paddle.incubate.graph_sample_neighbors(*(paddle.to_tensor(a) for a in (row, colptr, inp)), sample_size=2)
    got = oar.incubate.graph_sample_neighbors(t(row), t(colptr), t(inp), sample_size=2)
    for g, e in zip(got, exp):
        np.testing.assert_array_equal(g.numpy(), e.numpy())
    # One hop of khop sampling keeping every neighbour (none has more than 2): Paddle's exact
    # outputs. (Paddle's CPU kernel fails or aborts for several hops, and for some sample sizes.)
    eids = np.arange(13) * 10
    exp = paddle.incubate.graph_khop_sampler(*(paddle.to_tensor(a) for a in (row, colptr, inp)), [2],
                                             sorted_eids=paddle.to_tensor(eids), return_eids=True)
    got = oar.incubate.graph_khop_sampler(t(row), t(colptr), t(inp), [2], sorted_eids=t(eids), return_eids=True)
    assert len(got) == len(exp) == 5
    for g, e in zip(got, exp):
        assert g.shape == list(e.shape) and g.dtype.name == str(e.dtype).split(".")[-1]
        np.testing.assert_array_equal(g.numpy(), e.numpy())


def test_graph_khop_sampler_invariants():
    row, colptr = np.array(ROW), np.array(COLPTR)
    inp = np.array([0, 8, 1, 2])
    oar.seed(3)
    src, dst, sample_index, reindex_nodes, eids = oar.incubate.graph_khop_sampler(
        t(row), t(colptr), t(inp), [2, 2], sorted_eids=t(np.arange(13) * 10), return_eids=True)
    src, dst, nodes, eids = src.numpy().ravel(), dst.numpy().ravel(), sample_index.numpy(), eids.numpy()
    np.testing.assert_array_equal(reindex_nodes.numpy(), np.arange(4))
    np.testing.assert_array_equal(nodes[:4], inp)
    assert len(set(nodes)) == len(nodes)
    # Every sampled edge is an edge of the graph (src -> dst in CSC form), with its id.
    for s, d, e in zip(nodes[src], nodes[dst], eids):
        lo, hi = colptr[d], colptr[d + 1]
        assert s in row[lo:hi] and row[e // 10] == s and lo <= e // 10 < hi
    # Hop 1: at most 2 neighbours per input node; hop 2 starts from the nodes hop 1 reached.
    for i in range(4):
        assert (dst == i).sum() == min(2, colptr[inp[i] + 1] - colptr[inp[i]])
    assert set(dst) <= set(range(len(nodes)))


def test_graph_khop_sampler_errors():
    row, colptr, inp = t(np.array(ROW)), t(np.array(COLPTR)), t(np.array([0, 1]))
    with pytest.raises(ValueError, match="sorted_eid"):
        oar.incubate.graph_khop_sampler(row, colptr, inp, [2], return_eids=True)
    with pytest.raises(TypeError, match="sample_sizes"):
        oar.incubate.graph_khop_sampler(row, colptr, inp, 2)
    with pytest.raises(ValueError, match="perm_buffer"):
        oar.incubate.graph_sample_neighbors(row, colptr, inp, flag_perm_buffer=True)
    with pytest.raises(ValueError, match="value_buffer"):
        oar.incubate.graph_reindex(inp, inp, t(np.array([1, 1], "int32")), flag_buffer_hashtable=True)
