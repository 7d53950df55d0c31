"""Thin public names filled from the conformance tool's per-namespace lists (docs/api_coverage.md):
paddle.incubate's operator names (wrappers over oar.geometric and oar ops), paddle.random.initial_seed,
paddle.version's library probes and paddle.utils.try_import; each compared with the real Paddle
when it is importable."""
import importlib.util

import numpy as np
import pytest

import oar

HAVE_PADDLE = importlib.util.find_spec("paddle") is not None
needs_paddle = pytest.mark.skipif(not HAVE_PADDLE, reason="paddle is not importable")


def _paddle():
    import paddle
    return paddle


def _run(fw, fn, *arrays, **kw):
    args = [fw.to_tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
    out = getattr(fw.incubate, fn)(*args, **kw)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [np.asarray(o.numpy()) for o in outs]


def _same(fn, *arrays, **kw):
    got, want = _run(oar, fn, *arrays, **kw), _run(_paddle(), fn, *arrays, **kw)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (fn, g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


rng = np.random.default_rng(3)
DATA = rng.standard_normal((5, 3)).astype(np.float32)
SEG = np.array([0, 0, 1, 2, 2], dtype=np.int64)


@needs_paddle
@pytest.mark.parametrize("fn", ["segment_sum", "segment_mean", "segment_max", "segment_min"])
def test_incubate_segment_ops_match_paddle(fn):
    _same(fn, DATA, SEG)


@needs_paddle
@pytest.mark.parametrize("pool", ["sum", "mean", "max", "min"])
def test_incubate_graph_send_recv_matches_paddle(pool):
    x = rng.standard_normal((4, 3)).astype(np.float32)
    src, dst = np.array([0, 1, 2, 0], dtype=np.int64), np.array([1, 2, 1, 0], dtype=np.int64)
    _same("graph_send_recv", x, src, dst, pool_type=pool)
    _same("graph_send_recv", x, src, dst, pool_type=pool, out_size=3)


def test_incubate_graph_send_recv_rejects_upper_case_pool_type():
    x = oar.ones([3, 2])
    idx = oar.to_tensor(np.array([0, 1], dtype=np.int64))
    with pytest.raises(ValueError, match="pool_type"):
        oar.incubate.graph_send_recv(x, idx, idx, pool_type="SUM")


@needs_paddle
def test_incubate_graph_reindex_matches_paddle():
    x = np.array([0, 1, 2], dtype=np.int64)
    nb = np.array([8, 9, 0, 4, 7, 6, 7], dtype=np.int64)
    cnt = np.array([2, 3, 2], dtype=np.int32)
    _same("graph_reindex", x, nb, cnt)
    with pytest.raises(ValueError):
        oar.incubate.graph_reindex(oar.to_tensor(x), oar.to_tensor(nb), oar.to_tensor(cnt),
                                   flag_buffer_hashtable=True)


def test_incubate_graph_sample_neighbors_samples_from_the_csc_columns():
    row = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype=np.int64)
    colptr = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype=np.int64)
    nodes = np.array([0, 8, 1, 2], dtype=np.int64)
    out, count = oar.incubate.graph_sample_neighbors(oar.to_tensor(row), oar.to_tensor(colptr),
                                                     oar.to_tensor(nodes), sample_size=2)
    out, count = out.numpy(), count.numpy()
    assert list(count) == [2, 2, 2, 1]
    start = 0
    for n, c in zip(nodes, count):
        assert set(out[start:start + c]) <= set(row[colptr[n]:colptr[n + 1]])
        start += c
    with pytest.raises(ValueError, match="eids"):
        oar.incubate.graph_sample_neighbors(oar.to_tensor(row), oar.to_tensor(colptr), oar.to_tensor(nodes),
                                            return_eids=True)


@needs_paddle
def test_incubate_softmax_mask_fuse_matches_paddle():
    x = rng.standard_normal((2, 2, 4, 4)).astype(np.float32)
    mask = np.where(rng.random((2, 1, 4, 4)) < 0.3, -10000.0, 0.0).astype(np.float32)
    _same("softmax_mask_fuse", x, mask)


def test_incubate_softmax_mask_fuse_upper_triangle_is_causal_softmax():
    # Paddle's CPU build has no kernel for it (GPU only): compared with the formula.
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    got = oar.incubate.softmax_mask_fuse_upper_triangle(oar.to_tensor(x)).numpy()
    masked = np.where(np.triu(np.ones((4, 4), bool), 1), -np.inf, x)
    e = np.exp(masked - masked.max(-1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(-1, keepdims=True), rtol=1e-6, atol=1e-7)
    assert np.all(got[..., 0, 1:] == 0)


@needs_paddle
@pytest.mark.parametrize("reduction", ["sum", "mean", "none", 0, 1, 2, "MEAN"])
def test_incubate_identity_loss_matches_paddle(reduction):
    _same("identity_loss", DATA, reduction=reduction)


def test_incubate_identity_loss_rejects_unknown_reduction():
    with pytest.raises(TypeError, match="Unsupported reduction type"):
        oar.incubate.identity_loss(oar.ones([2]), "max")


def test_random_initial_seed_is_the_last_seed():
    import oar.random
    oar.seed(5)
    assert oar.random.initial_seed() == 5
    state = oar.get_rng_state()
    oar.seed(123456789)
    assert oar.random.initial_seed() == 123456789
    oar.set_rng_state(state)


@needs_paddle
def test_random_initial_seed_matches_paddle():
    paddle = _paddle()
    paddle.seed(77)
    oar.seed(77)
    assert oar.random.initial_seed() == paddle.random.initial_seed() == 77


@needs_paddle
def test_version_library_probes_match_a_build_without_them():
    import paddle.version as pv
    for name in ("xpu_xre", "xpu_xccl", "xpu_xhpc", "tensorrt"):
        assert getattr(oar.version, name)() == getattr(pv, name)(), name
    assert oar.version.hip is None and pv.hip is None


def test_utils_try_import():
    assert oar.utils.try_import("json") is importlib.import_module("json")
    with pytest.raises(ImportError, match="pip install no_such_pkg_xyz"):
        oar.utils.try_import("no_such_pkg_xyz.sub")
    with pytest.raises(ImportError, match="opencv-python"):
        try:
            import cv2  # noqa: F401
            raise ImportError("opencv-python (cv2 is installed here)")
        except ImportError as e:
            if "installed here" in str(e):
                raise
            oar.utils.try_import("cv2")
    with pytest.raises(ImportError, match="^custom$"):
        oar.utils.try_import("no_such_pkg_xyz", "custom")


@needs_paddle
def test_utils_try_import_message_matches_paddle():
    paddle = _paddle()
    msgs = []
    for fw in (oar, paddle):
        with pytest.raises(ImportError) as e:
            fw.utils.try_import("no_such_pkg_xyz.mod")
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_incubate_graph_names_warn_deprecated():
    x = oar.ones([3, 2])
    idx = oar.to_tensor(np.array([0, 1], dtype=np.int64))
    with pytest.warns(DeprecationWarning, match="paddle.geometric.send_u_recv"):
        oar.incubate.graph_send_recv(x, idx, idx)
