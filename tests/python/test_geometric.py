"""oar.geometric (paddle.geometric): message passing, segment reductions, neighbour sampling and
reindexing, against NumPy references, numeric gradients in float64 and real Paddle."""
import numpy as np
import pytest

import oar
import oar.geometric as G
from op_test import assert_close, check_grad

REDUCES = ["sum", "mean", "max", "min"]
MESSAGES = ["add", "sub", "mul", "div"]


# ---- NumPy references ----------------------------------------------------------------------
def _pad(a, rank):
    """[rows, f...] -> [rows, 1, ..., f...] with `rank` feature dims (features align on the right)."""
    return a.reshape((a.shape[0],) + (1,) * (rank - (a.ndim - 1)) + a.shape[1:])


def _messages(xs, ys, message):
    rank = max(xs.ndim, ys.ndim) - 1
    a, b = _pad(xs, rank), _pad(ys, rank)
    return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[message]


def _reduce(msg, dst, n, reduce):
    out = np.zeros((n,) + msg.shape[1:], dtype=msg.dtype)
    for d in range(n):
        sel = msg[dst == d]
        if len(sel):
            if reduce == "mean" and msg.dtype.kind in "iu":
                out[d] = np.trunc(sel.sum(0) / len(sel)).astype(msg.dtype)
            else:
                out[d] = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min}[reduce](sel, axis=0)
    return out


def ref_send_u_recv(x, src, dst, reduce_op="sum", out_size=None):
    n = out_size if out_size and out_size > 0 else x.shape[0]
    return _reduce(x[src], dst, n, reduce_op)


def ref_send_ue_recv(x, y, src, dst, message_op="add", reduce_op="sum", out_size=None):
    n = out_size if out_size and out_size > 0 else x.shape[0]
    y = y.reshape(-1, 1) if y.ndim == 1 else y
    return _reduce(_messages(x[src], y, message_op), dst, n, reduce_op)


def ref_send_uv(x, y, src, dst, message_op="add"):
    return _messages(x[src], y[dst], message_op)


def ref_segment(data, ids, reduce):
    return _reduce(data, ids, int(ids.max()) + 1 if len(ids) else 0, reduce)


def _graph(nodes=5, edges=9, seed=0):
    """Distinct random edges (a repeated edge would tie with itself under max and min)."""
    pairs = np.random.default_rng(seed).choice(nodes * nodes, edges, replace=False)
    return pairs // nodes, pairs % nodes


# ---- message passing -------------------------------------------------------------------------
@pytest.mark.parametrize("reduce_op", REDUCES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_send_u_recv_matches_numpy(reduce_op, dtype):
    src, dst = _graph()
    x = (np.random.default_rng(1).uniform(-5, 5, (5, 3, 2)) * (1 if dtype.startswith("f") else 10)).astype(dtype)
    out = G.send_u_recv(oar.to_tensor(x), oar.to_tensor(src), oar.to_tensor(dst), reduce_op)
    assert out.dtype.name == dtype
    assert_close(out, ref_send_u_recv(x, src, dst, reduce_op), dtype, reduce_op)


@pytest.mark.parametrize("out_size", [None, 0, -1, 7, "tensor"])
def test_send_u_recv_out_size(out_size):
    src, dst = _graph()
    x = np.random.default_rng(2).standard_normal((5, 3)).astype("float32")
    size = oar.to_tensor(8) if out_size == "tensor" else out_size
    out = G.send_u_recv(oar.to_tensor(x), oar.to_tensor(src, dtype="int32"), oar.to_tensor(dst, dtype="int32"),
                        "sum", out_size=size)
    n = 8 if out_size == "tensor" else out_size
    assert_close(out, ref_send_u_recv(x, src, dst, "sum", n), "float32")


@pytest.mark.parametrize("message_op", MESSAGES)
@pytest.mark.parametrize("reduce_op", REDUCES)
def test_send_ue_recv_matches_numpy(message_op, reduce_op):
    src, dst = _graph()
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 2, (5, 4)).astype("float32")
    for y in (rng.uniform(0.5, 2, (9, 4)), rng.uniform(0.5, 2, (9, 1)), rng.uniform(0.5, 2, (9,)),
              rng.uniform(0.5, 2, (9, 3, 1))):
        y = y.astype("float32")
        out = G.send_ue_recv(oar.to_tensor(x), oar.to_tensor(y), oar.to_tensor(src), oar.to_tensor(dst),
                             message_op, reduce_op)
        assert_close(out, ref_send_ue_recv(x, y, src, dst, message_op, reduce_op), "float32",
                     f"{message_op}/{reduce_op} y{y.shape}")


@pytest.mark.parametrize("message_op", MESSAGES)
def test_send_uv_matches_numpy(message_op):
    src, dst = _graph()
    rng = np.random.default_rng(4)
    x = rng.uniform(0.5, 2, (5, 3)).astype("float64")
    for y in (rng.uniform(0.5, 2, (5, 3)), rng.uniform(0.5, 2, (5, 1)), rng.uniform(0.5, 2, (5, 2, 3))):
        out = G.send_uv(oar.to_tensor(x), oar.to_tensor(y), oar.to_tensor(src), oar.to_tensor(dst), message_op)
        assert_close(out, ref_send_uv(x, y, src, dst, message_op), "float64", f"{message_op} y{y.shape}")


def test_half_precision_accumulates_in_float32():
    src = np.zeros(64, dtype="int64")
    dst = np.zeros(64, dtype="int64")
    x = np.full((1, 2), 0.1, dtype="float32")
    for dt in ("float16", "bfloat16"):
        out = G.send_u_recv(oar.to_tensor(x).astype(dt), oar.to_tensor(src), oar.to_tensor(dst), "sum")
        assert out.dtype.name == dt
        np.testing.assert_allclose(out.astype("float32").numpy(), np.full((1, 2), 6.4), rtol=1e-2)


def test_integer_division_by_zero_raises():
    x = oar.to_tensor([[4], [6]])
    y = oar.to_tensor([[2], [0]])
    with pytest.raises(ValueError, match="division by zero"):
        G.send_ue_recv(x, y, oar.to_tensor([0, 1]), oar.to_tensor([0, 1]), "div", "sum")


# ---- gradients (float64, central differences) --------------------------------------------------
@pytest.mark.parametrize("reduce_op", REDUCES)
def test_send_u_recv_grad(reduce_op):
    src, dst = _graph()
    x = np.random.default_rng(5).standard_normal((5, 3))
    check_grad(lambda t: G.send_u_recv(t, oar.to_tensor(src), oar.to_tensor(dst), reduce_op), [x],
               what=f"send_u_recv {reduce_op}")


@pytest.mark.parametrize("message_op", MESSAGES)
@pytest.mark.parametrize("reduce_op", REDUCES)
def test_send_ue_recv_grad(message_op, reduce_op):
    src, dst = _graph()
    rng = np.random.default_rng(6)
    x = rng.uniform(0.5, 2, (5, 3))
    for y in (rng.uniform(0.5, 2, (9, 3)), rng.uniform(0.5, 2, (9, 1)), rng.uniform(0.5, 2, (9, 2, 1))):
        check_grad(lambda a, b: G.send_ue_recv(a, b, oar.to_tensor(src), oar.to_tensor(dst), message_op, reduce_op),
                   [x.copy(), y], what=f"send_ue_recv {message_op}/{reduce_op} y{y.shape}")


@pytest.mark.parametrize("message_op", MESSAGES)
def test_send_uv_grad(message_op):
    src, dst = _graph()
    rng = np.random.default_rng(7)
    x = rng.uniform(0.5, 2, (5, 3))
    for y in (rng.uniform(0.5, 2, (5, 3)), rng.uniform(0.5, 2, (5, 1)), rng.uniform(0.5, 2, (5, 2, 3))):
        check_grad(lambda a, b: G.send_uv(a, b, oar.to_tensor(src), oar.to_tensor(dst), message_op),
                   [x.copy(), y], what=f"send_uv {message_op} y{y.shape}")


def test_max_gradient_reaches_every_tie():
    t = oar.to_tensor([[1.0], [1.0], [0.0]], stop_gradient=False)
    G.send_u_recv(t, oar.to_tensor([0, 1, 2]), oar.to_tensor([0, 0, 0]), "max").sum().backward()
    np.testing.assert_array_equal(t.grad.numpy().ravel(), [1, 1, 0])


def test_send_uv_double_backward():
    x = oar.to_tensor(np.random.default_rng(8).uniform(0.5, 2, (4, 2)), stop_gradient=False)
    y = oar.to_tensor(np.random.default_rng(9).uniform(0.5, 2, (4, 2)), stop_gradient=False)
    src, dst = oar.to_tensor([0, 1, 2, 3, 0]), oar.to_tensor([1, 2, 3, 0, 0])
    out = G.send_uv(x, y, src, dst, "mul")
    (gx,) = oar.grad([out.sum()], [x], create_graph=True)
    (gy,) = oar.grad([gx.sum()], [y])
    # d/dy of sum_e y[dst[e]] (summed over features) is the number of edges into each node.
    np.testing.assert_allclose(gy.numpy(), np.repeat(np.bincount(dst.numpy(), minlength=4)[:, None], 2, 1))


# ---- segments ----------------------------------------------------------------------------------
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_segment_matches_numpy(reduce, dtype):
    ids = np.array([0, 0, 2, 2, 2, 5, 6])
    data = (np.random.default_rng(10).uniform(-5, 5, (7, 3)) * (1 if dtype.startswith("f") else 10)).astype(dtype)
    fn = getattr(G, f"segment_{reduce}")
    out = fn(oar.to_tensor(data), oar.to_tensor(ids, dtype="int32"))
    assert out.dtype.name == dtype
    assert_close(out, ref_segment(data, ids, reduce), dtype, reduce)


@pytest.mark.parametrize("reduce", REDUCES)
def test_segment_grad(reduce):
    ids = np.array([0, 0, 2, 2, 2, 3])
    data = np.random.default_rng(11).standard_normal((6, 2))
    check_grad(lambda t: getattr(G, f"segment_{reduce}")(t, oar.to_tensor(ids)), [data], what=f"segment_{reduce}")


def test_segment_edge_cases_and_errors():
    assert G.segment_sum(oar.ones([0, 2]), oar.to_tensor([], dtype="int64")).shape == [0, 2]
    np.testing.assert_array_equal(G.segment_sum(oar.ones([3]), oar.to_tensor([0, 1, 1])).numpy(), [1, 2])
    with pytest.raises(ValueError, match="sorted"):
        G.segment_sum(oar.ones([4, 2]), oar.to_tensor([2, 0, 1, 0]))
    with pytest.raises(IndexError, match="negative"):
        G.segment_sum(oar.ones([4, 2]), oar.to_tensor([-1, 0, 1, 1]))
    with pytest.raises(ValueError, match="same size"):
        G.segment_sum(oar.ones([3, 2]), oar.to_tensor([0, 1]))
    with pytest.raises(TypeError, match="segment_ids"):
        G.segment_sum(oar.ones([2, 2]), oar.to_tensor([0.0, 1.0]))


def test_message_passing_errors():
    x = oar.ones([3, 2])
    src, dst = oar.to_tensor([0, 1]), oar.to_tensor([1, 2])
    with pytest.raises(ValueError, match="reduce_op should be"):
        G.send_u_recv(x, src, dst, "prod")
    with pytest.raises(ValueError, match="message_op should be"):
        G.send_ue_recv(x, oar.ones([2, 2]), src, dst, "pow")
    with pytest.raises(ValueError, match="same shape"):
        G.send_u_recv(x, src, oar.to_tensor([0]))
    with pytest.raises(IndexError, match="src_index"):
        G.send_u_recv(x, oar.to_tensor([0, 5]), dst)
    with pytest.raises(IndexError, match="dst_index"):
        G.send_u_recv(x, src, dst, out_size=2)  # dst 2 does not fit 2 rows
    with pytest.raises(TypeError, match="src_index"):
        G.send_u_recv(x, src.astype("float32"), dst)
    with pytest.raises(ValueError, match="one row per edge"):
        G.send_ue_recv(x, oar.ones([3, 2]), src, dst)
    with pytest.raises(ValueError, match="[Bb]roadcast"):
        G.send_ue_recv(x, oar.ones([2, 3]), src, dst)
    with pytest.raises(TypeError):
        G.send_u_recv(x.numpy(), src, dst)


def test_in_a_static_program_as_in_eager():
    src, dst = _graph()
    x = np.random.default_rng(12).standard_normal((5, 3)).astype("float32")
    ids = np.array([0, 0, 1, 3, 3])
    eager = [G.send_u_recv(oar.to_tensor(x), oar.to_tensor(src), oar.to_tensor(dst), "mean").numpy(),
             G.segment_max(oar.to_tensor(x), oar.to_tensor(ids)).numpy()]
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            xv = oar.static.data("x", [5, 3], "float32")
            s = oar.static.data("s", [9], "int64")
            d = oar.static.data("d", [9], "int64")
            i = oar.static.data("i", [5], "int64")
            a = G.send_u_recv(xv, s, d, "mean")
            b = G.segment_max(xv, i)
        exe = oar.static.Executor()
        got = exe.run(main, feed={"x": x, "s": src, "d": dst, "i": ids}, fetch_list=[a, b])
    finally:
        oar.disable_static()
    for g, e in zip(got, eager):
        np.testing.assert_array_equal(g, e)


# ---- sampling ----------------------------------------------------------------------------------
ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])


def _neighbours(v):
    return ROW[COLPTR[v]:COLPTR[v + 1]]


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("sample_size", [-1, 1, 2, 5])
def test_sample_neighbors_picks_distinct_neighbours(weighted, sample_size):
    nodes = np.array([0, 8, 1, 2, 7, 5])
    eids = np.arange(13) * 10
    args = [oar.to_tensor(ROW), oar.to_tensor(COLPTR)]
    if weighted:
        args.append(oar.rand([13]) + 0.1)
    args.append(oar.to_tensor(nodes))
    fn = G.weighted_sample_neighbors if weighted else G.sample_neighbors
    nb, count, got_eids = fn(*args, sample_size=sample_size, eids=oar.to_tensor(eids), return_eids=True)
    assert count.dtype.name == "int32" and nb.dtype.name == "int64"
    nb, count, got_eids = nb.numpy(), count.numpy(), got_eids.numpy()
    start = 0
    for v, c in zip(nodes, count):
        deg = COLPTR[v + 1] - COLPTR[v]
        assert c == (deg if sample_size < 0 else min(deg, sample_size))
        picked_eids = got_eids[start:start + c]
        assert len(set(picked_eids)) == c, "an edge picked twice"
        positions = picked_eids // 10
        assert np.all((positions >= COLPTR[v]) & (positions < COLPTR[v + 1]))
        np.testing.assert_array_equal(nb[start:start + c], ROW[positions])
        if c == deg:
            np.testing.assert_array_equal(nb[start:start + c], _neighbours(v))
        start += c
    assert start == len(nb)


def test_sample_neighbors_is_uniform_and_seeded():
    row = np.arange(10)
    colptr = np.array([0, 10])
    nodes = oar.zeros([6000], dtype="int64")
    oar.seed(7)
    nb, count = G.sample_neighbors(oar.to_tensor(row), oar.to_tensor(colptr), nodes, sample_size=3)
    freq = np.bincount(nb.numpy(), minlength=10) / 6000
    np.testing.assert_allclose(freq, 0.3, atol=0.03)
    oar.seed(7)
    again, _ = G.sample_neighbors(oar.to_tensor(row), oar.to_tensor(colptr), nodes, sample_size=3)
    np.testing.assert_array_equal(again.numpy(), nb.numpy())


def test_weighted_sample_neighbors_follows_weights():
    row = np.arange(4)
    colptr = np.array([0, 4])
    weight = oar.to_tensor([1.0, 2.0, 0.0, 5.0])
    nb, _ = G.weighted_sample_neighbors(oar.to_tensor(row), oar.to_tensor(colptr), weight,
                                        oar.zeros([8000], dtype="int64"), sample_size=1)
    freq = np.bincount(nb.numpy(), minlength=4) / 8000
    np.testing.assert_allclose(freq, [1 / 8, 2 / 8, 0, 5 / 8], atol=0.03)
    # With room for three, the zero-weight edge still loses to every positive one.
    nb, _ = G.weighted_sample_neighbors(oar.to_tensor(row), oar.to_tensor(colptr), weight,
                                        oar.zeros([50], dtype="int64"), sample_size=3)
    assert 2 not in set(nb.numpy().tolist())


def test_sampling_errors():
    row, colptr = oar.to_tensor(ROW), oar.to_tensor(COLPTR)
    with pytest.raises(ValueError, match="eids"):
        G.sample_neighbors(row, colptr, oar.to_tensor([0]), return_eids=True)
    with pytest.raises(IndexError, match="input_nodes"):
        G.sample_neighbors(row, colptr, oar.to_tensor([10]))
    with pytest.raises(TypeError, match="dtype"):
        G.sample_neighbors(row.astype("int32"), colptr, oar.to_tensor([0]), sample_size=2)
    with pytest.raises(TypeError, match="row"):
        G.sample_neighbors(row.astype("float32"), colptr, oar.to_tensor([0]))
    with pytest.raises(ValueError, match="non-negative"):
        G.weighted_sample_neighbors(row, colptr, -oar.ones([13]), oar.to_tensor([0]), sample_size=1)
    with pytest.raises(ValueError, match="sample_size"):
        G.sample_neighbors(row, colptr, oar.to_tensor([0]), sample_size=0)


# ---- reindexing --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_reindex_graph(dtype):
    x = oar.to_tensor([0, 1, 2], dtype=dtype)
    neighbors = oar.to_tensor([8, 9, 0, 4, 7, 6, 7], dtype=dtype)
    count = oar.to_tensor([2, 3, 2], dtype="int32")
    src, dst, nodes = G.reindex_graph(x, neighbors, count)
    assert src.dtype.name == dtype and nodes.dtype.name == dtype
    np.testing.assert_array_equal(src.numpy(), [3, 4, 0, 5, 6, 7, 6])
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(nodes.numpy(), [0, 1, 2, 8, 9, 4, 7, 6])


def test_reindex_heter_graph():
    x = oar.to_tensor([0, 1, 2])
    a, b = oar.to_tensor([8, 9, 0, 4, 7, 6, 7]), oar.to_tensor([0, 5, 3])
    ca, cb = oar.to_tensor([2, 3, 2], dtype="int32"), oar.to_tensor([1, 1, 1], dtype="int32")
    src, dst, nodes = G.reindex_heter_graph(x, [a, b], [ca, cb])
    np.testing.assert_array_equal(src.numpy(), [3, 4, 0, 5, 6, 7, 6, 0, 8, 9])
    np.testing.assert_array_equal(dst.numpy(), [0, 0, 1, 1, 1, 2, 2, 0, 1, 2])
    np.testing.assert_array_equal(nodes.numpy(), [0, 1, 2, 8, 9, 4, 7, 6, 5, 3])


def test_reindex_errors():
    x = oar.to_tensor([0, 1])
    with pytest.raises(ValueError, match="add up"):
        G.reindex_graph(x, oar.to_tensor([4, 5, 6]), oar.to_tensor([1, 1], dtype="int32"))
    with pytest.raises(ValueError, match="one entry per node"):
        G.reindex_graph(x, oar.to_tensor([4]), oar.to_tensor([1], dtype="int32"))
    with pytest.raises(TypeError, match="count"):
        G.reindex_graph(x, oar.to_tensor([4, 5]), oar.to_tensor([1, 1]))
    with pytest.raises(TypeError):
        G.reindex_heter_graph(x, oar.to_tensor([4, 5]), oar.to_tensor([1, 1], dtype="int32"))


# ---- against real Paddle -----------------------------------------------------------------------
def test_message_passing_and_segments_match_paddle():
    paddle = pytest.importorskip("paddle")
    src, dst = _graph(6, 14, seed=21)
    rng = np.random.default_rng(22)
    x = rng.uniform(0.5, 2, (6, 3)).astype("float32")
    y = rng.uniform(0.5, 2, (14, 3)).astype("float32")
    z = rng.uniform(0.5, 2, (6, 3)).astype("float32")

    def run(lib, geo, fn):
        tx = lib.to_tensor(x, stop_gradient=False)
        ty = lib.to_tensor(y, stop_gradient=False)
        tz = lib.to_tensor(z, stop_gradient=False)
        out = fn(geo, tx, ty, tz, lib.to_tensor(src), lib.to_tensor(dst))
        w = lib.to_tensor(np.arange(out.size, dtype="float32").reshape(out.shape) % 5)
        (out * w).sum().backward()
        grads = [t.grad.numpy() if t.grad is not None else None for t in (tx, ty, tz)]
        return out.numpy(), grads

    cases = {}
    for r in REDUCES:
        cases[f"u_recv {r}"] = lambda g, a, b, c, s, d, r=r: g.send_u_recv(a, s, d, r)
        for m in MESSAGES:
            cases[f"ue_recv {m} {r}"] = lambda g, a, b, c, s, d, r=r, m=m: g.send_ue_recv(a, b, s, d, m, r)
    for m in MESSAGES:
        cases[f"uv {m}"] = lambda g, a, b, c, s, d, m=m: g.send_uv(a, c, s, d, m)
    ids = np.sort(np.random.default_rng(23).integers(0, 4, 6))
    for r in REDUCES:
        cases[f"segment {r}"] = lambda g, a, b, c, s, d, r=r: getattr(g, f"segment_{r}")(a, _ids_like(a, ids))
    for name, fn in cases.items():
        got, got_g = run(oar, oar.geometric, fn)
        exp, exp_g = run(paddle, paddle.geometric, fn)
        np.testing.assert_allclose(got, exp, rtol=1e-5, atol=1e-6, err_msg=name)
        for k, (a, b) in enumerate(zip(got_g, exp_g)):
            if b is None:
                assert a is None or not np.any(a), f"{name}: input {k} has a gradient Paddle does not"
            else:
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"{name}: grad of input {k}")


def _ids_like(t, ids):
    lib = oar if isinstance(t, oar.Tensor) else __import__("paddle")
    return lib.to_tensor(ids)


def test_reindex_matches_paddle():
    paddle = pytest.importorskip("paddle")
    rng = np.random.default_rng(31)
    x = np.array([3, 10, 7])
    nb = rng.integers(0, 20, 12)
    count = np.array([5, 3, 4], dtype="int32")
    nb2 = rng.integers(0, 30, 6)
    count2 = np.array([1, 2, 3], dtype="int32")
    for lib_args in [((nb,), (count,)), ((nb, nb2), (count, count2))]:
        outs = []
        for lib in (oar, paddle):
            geo = lib.geometric
            tn = [lib.to_tensor(a) for a in lib_args[0]]
            tc = [lib.to_tensor(a) for a in lib_args[1]]
            if len(tn) == 1:
                outs.append([t.numpy() for t in geo.reindex_graph(lib.to_tensor(x), tn[0], tc[0])])
            else:
                outs.append([t.numpy() for t in geo.reindex_heter_graph(lib.to_tensor(x), tn, tc)])
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a, b)
