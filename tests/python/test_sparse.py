"""oar.sparse: COO/CSR tensors, their functions and layers, against NumPy references, real
Paddle (where its CPU build runs the function) and central differences in float64."""
import numpy as np
import pytest

import oar
import oar.sparse as S
from oar.sparse._tensor import SparseTensor

RNG = np.random.default_rng(0)


def random_sparse(shape, density=0.4, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    dense = rng.uniform(-1, 1, size=shape).astype(dtype)
    dense[rng.random(shape) > density] = 0
    return dense


def central_grad(f, arr, eps=1e-6):
    g = np.zeros_like(arr)
    for i in np.ndindex(arr.shape):
        old = arr[i]
        arr[i] = old + eps
        fp = f(arr)
        arr[i] = old - eps
        fm = f(arr)
        arr[i] = old
        g[i] = (fp - fm) / (2 * eps)
    return g


def sparse_values_grad(build, values, weights):
    """Analytic d sum(out * w) / d values of build(values tensor) (a dense tensor result)."""
    v = oar.to_tensor(values, stop_gradient=False)
    out = build(v)
    out = out.to_dense() if isinstance(out, SparseTensor) else out
    (out * oar.to_tensor(weights)).sum().backward()
    return v.grad.numpy()


def check_values_grad(build, values, out_shape):
    w = RNG.uniform(-1, 1, size=out_shape)

    def f(arr):
        out = build(oar.to_tensor(arr))
        out = out.to_dense() if isinstance(out, SparseTensor) else out
        return float((out.numpy() * w).sum())

    np.testing.assert_allclose(sparse_values_grad(build, values, w), central_grad(f, values.copy()), atol=1e-6)


# ---------------------------------------------------------------- tensors

@pytest.mark.host_only
def test_coo_creation_repr_and_accessors():
    x = S.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
    assert str(x) == ("Tensor(shape=[2, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
                      "       indices=[[0, 1, 1],\n                [2, 0, 2]], \n       values=[1., 2., 3.])")
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr()
    assert (x.nnz(), x.sparse_dim(), x.dense_dim(), x.is_coalesced()) == (3, 2, 0, False)
    assert x.indices().dtype == oar.int64 and x.dtype == oar.float32
    np.testing.assert_array_equal(x.to_dense().numpy(), [[0, 0, 1], [2, 0, 3]])
    assert S.sparse_coo_tensor([[0, 1], [1, 0]], [1, 2]).dtype == oar.int64
    assert S.sparse_coo_tensor([[0, 3], [1, 0]], [1.0, 2.0]).shape == [4, 2]
    with pytest.raises(ValueError, match="minimum shape required is \\[4, 2\\]"):
        S.sparse_coo_tensor([[0, 3], [1, 0]], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError):
        S.sparse_coo_tensor([0, 1], [1.0, 2.0], [2])
    with pytest.raises(TypeError):
        S.sparse_coo_tensor([[0.5, 1.0]], [1.0, 2.0], [2])


@pytest.mark.host_only
def test_csr_creation_repr_and_conversions():
    d3 = np.array([[[0, 1.], [2, 0]], [[3, 0], [0, 0]]], "float32")
    c3 = oar.to_tensor(d3).to_sparse_csr()
    assert str(c3) == ("Tensor(shape=[2, 2, 2], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
                       "       crows=[0, 1, 2, 0, 1, 1], \n       cols=[1, 0, 0], \n       values=[1., 2., 3.])")
    np.testing.assert_array_equal(c3.to_dense().numpy(), d3)
    coo = c3.to_sparse_coo(3)
    np.testing.assert_array_equal(coo.indices().numpy(), [[0, 0, 1], [0, 1, 0], [1, 0, 0]])
    coo2 = oar.to_tensor(d3).to_sparse_coo(2)  # a dense last dim
    np.testing.assert_array_equal(coo2.indices().numpy(), [[0, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(coo2.values().numpy(), [[0, 1], [2, 0], [3, 0]])
    np.testing.assert_array_equal(coo2.to_dense().numpy(), d3)
    x = S.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 2.0], [2, 2])
    assert x.is_sparse_csr() and x.nnz() == 2
    with pytest.raises(ValueError, match="crows"):
        S.sparse_csr_tensor([0, 2, 1], [1, 0], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError, match="cols must lie"):
        S.sparse_csr_tensor([0, 1, 2], [1, 5], [1.0, 2.0], [2, 2])
    with pytest.raises(ValueError, match="2-D or batched 3-D"):
        oar.ones([2]).to_sparse_csr()


def test_dense_tensor_sparse_methods_raise_like_paddle():
    d = oar.ones([2, 3])
    assert d.sparse_dim() == 0 and d.dense_dim() == 2
    for name, err in (("values", NotImplementedError), ("to_dense", NotImplementedError),
                      ("coalesce", NotImplementedError), ("indices", SystemError), ("crows", SystemError),
                      ("cols", SystemError), ("nnz", SystemError), ("is_coalesced", TypeError)):
        with pytest.raises(err, match=name):
            getattr(d, name)()
    with pytest.raises(TypeError, match="to_dense"):
        S.sparse_coo_tensor([[0]], [1.0], [2]).numpy()
    with pytest.raises(TypeError, match="sparse COO or CSR"):
        S.sin(d)


def test_coalesce_sums_duplicates_and_is_differentiable():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    idx = [[0, 1, 1, 0], [2, 0, 2, 2]]
    c = S.coalesce(S.sparse_coo_tensor(idx, values, [2, 3]))
    assert c.is_coalesced()
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 1, 1], [2, 0, 2]])
    np.testing.assert_array_equal(c.values().numpy(), [5.0, 2.0, 3.0])
    check_values_grad(lambda v: S.coalesce(S.sparse_coo_tensor(idx, v, [2, 3])).values() * oar.to_tensor(
        [1.0, 2.0, 3.0], dtype="float64"), values, [3])


def test_sparse_gradients_land_on_the_leaf():
    x = oar.to_tensor([[0, 1.], [2, 0]]).detach().to_sparse_coo(2)
    x.stop_gradient = False
    S.sin(x).backward()
    assert x.grad.is_sparse_coo()
    np.testing.assert_allclose(x.grad.values().numpy(), np.cos([1.0, 2.0]), rtol=1e-6)
    y = oar.to_tensor([[0, 1.], [2, 0]]).to_sparse_csr()
    y.stop_gradient = False
    S.pow(y, 2).backward()
    np.testing.assert_allclose(y.grad.values().numpy(), [2.0, 4.0])
    assert y.grad.is_sparse_csr()


# ---------------------------------------------------------------- math

UNARY = {"sin": np.sin, "tan": np.tan, "asin": np.arcsin, "atan": np.arctan, "sinh": np.sinh, "tanh": np.tanh,
         "asinh": np.arcsinh, "atanh": np.arctanh, "sqrt": np.sqrt, "square": np.square, "log1p": np.log1p,
         "abs": np.abs, "neg": np.negative, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg, "expm1": np.expm1}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_unary_values_and_grads(name, fmt):
    dense = np.abs(random_sparse([3, 4], seed=1)) * 0.9
    t = oar.to_tensor(dense)
    x = t.to_sparse_coo(2) if fmt == "coo" else t.to_sparse_csr()
    out = getattr(S, name)(x)
    assert out.is_sparse_coo() == (fmt == "coo")
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(dense != 0, UNARY[name](dense), 0), rtol=1e-12)
    pattern = x

    def build(v):
        return getattr(S, name)(pattern._with_values(v))

    check_values_grad(build, x.values().numpy().copy(), [3, 4])


def test_pow_cast_isnan():
    x = S.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, float("nan")], [2, 2])
    np.testing.assert_allclose(S.pow(x, 3).values().numpy()[:1], [8.0])
    np.testing.assert_array_equal(S.isnan(x).values().numpy(), [False, True])
    y = S.cast(x, "int32", "float64")
    assert y.indices().dtype == oar.int32 and y.values().dtype == oar.float64
    c = S.cast(oar.ones([2, 2]).to_sparse_csr(), "int32")
    assert c.crows().dtype == oar.int32 and c.cols().dtype == oar.int32
    with pytest.raises(TypeError):
        S.cast(x, "float32")
    with pytest.raises(TypeError):
        S.pow(x, oar.ones([1]))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_binary_union_patterns(fmt):
    a = random_sparse([3, 4], seed=2)
    b = random_sparse([3, 4], seed=3)
    conv = (lambda d: oar.to_tensor(d).to_sparse_coo(2)) if fmt == "coo" else (
        lambda d: oar.to_tensor(d).to_sparse_csr())
    x, y = conv(a), conv(b)
    union = (a != 0) | (b != 0)
    for fn, ref in ((S.add, a + b), (S.subtract, a - b), (S.multiply, a * b)):
        out = fn(x, y)
        assert out.nnz() == union.sum()
        np.testing.assert_allclose(out.to_dense().numpy(), ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = a / b
    out = S.divide(x, y)
    assert out.nnz() == a.size
    np.testing.assert_allclose(out.to_dense().numpy(), expected)
    np.testing.assert_allclose((x + y).to_dense().numpy(), a + b)
    np.testing.assert_allclose((x * 2.0).to_dense().numpy(), a * 2)
    with pytest.raises(NotImplementedError, match="dense"):
        S.add(x, oar.to_tensor(b))
    with pytest.raises(ValueError, match="same shape"):
        S.add(x, conv(random_sparse([4, 4])))


def test_binary_grads():
    a, b = random_sparse([3, 4], seed=4), random_sparse([3, 4], seed=5)
    y = oar.to_tensor(b).to_sparse_coo(2)
    x = oar.to_tensor(a).to_sparse_coo(2)
    for fn in (S.add, S.subtract, S.multiply):
        check_values_grad(lambda v: fn(x._with_values(v), y), x.values().numpy().copy(), [3, 4])


def test_binary_patterns_match_paddle():
    paddle = pytest.importorskip("paddle")
    idx, vals = [[0, 1, 1], [2, 0, 2]], [5.0, 2.0, 3.0]
    for fn in ("add", "subtract", "multiply"):
        px = paddle.sparse.sparse_coo_tensor(idx, vals, [2, 3]).coalesce()
        py = paddle.sparse.sparse_coo_tensor([[1], [1]], [5.0], [2, 3])
        ox = S.sparse_coo_tensor(idx, vals, [2, 3]).coalesce()
        oy = S.sparse_coo_tensor([[1], [1]], [5.0], [2, 3])
        p, o = getattr(paddle.sparse, fn)(px, py), getattr(S, fn)(ox, oy)
        np.testing.assert_array_equal(o.indices().numpy(), p.indices().numpy())
        np.testing.assert_allclose(o.values().numpy(), p.values().numpy())


# ---------------------------------------------------------------- shape functions

def test_shape_functions_match_paddle():
    paddle = pytest.importorskip("paddle")
    idx, vals = [[0, 1, 1, 0], [2, 0, 2, 2]], [1.0, 2.0, 3.0, 4.0]
    px, ox = paddle.sparse.sparse_coo_tensor(idx, vals, [2, 3]), S.sparse_coo_tensor(idx, vals, [2, 3])
    cases = [(lambda m, x: m.transpose(x, [1, 0])), (lambda m, x: m.reshape(x, [3, 2])),
             (lambda m, x: m.sum(x)), (lambda m, x: m.sum(x, axis=1)), (lambda m, x: m.sum(x, axis=0, keepdim=True)),
             (lambda m, x: m.slice(x, [1], [0], [2])), (lambda m, x: m.slice(x, [0, 1], [-1, 1], [2, 3]))]
    for case in cases:
        p, o = case(paddle.sparse, px), case(S, ox)
        assert o.shape == list(p.shape)
        np.testing.assert_array_equal(o.indices().numpy(), p.indices().numpy())
        np.testing.assert_allclose(o.values().numpy().ravel(), p.values().numpy().ravel())


def test_shape_functions_grads_and_csr():
    a = random_sparse([3, 4], seed=6)
    x = oar.to_tensor(a).to_sparse_coo(2)
    check_values_grad(lambda v: S.transpose(x._with_values(v), [1, 0]), x.values().numpy().copy(), [4, 3])
    check_values_grad(lambda v: S.reshape(x._with_values(v), [2, 6]), x.values().numpy().copy(), [2, 6])
    check_values_grad(lambda v: S.sum(x._with_values(v), axis=0), x.values().numpy().copy(), [4])
    check_values_grad(lambda v: S.slice(x._with_values(v), [1], [1], [3]), x.values().numpy().copy(), [3, 2])
    c = oar.to_tensor(a).to_sparse_csr()
    np.testing.assert_allclose(S.transpose(c, [1, 0]).to_dense().numpy(), a.T)
    assert S.transpose(c, [1, 0]).is_sparse_csr()
    np.testing.assert_allclose(S.reshape(c, [4, 3]).to_dense().numpy(), a.reshape(4, 3))
    np.testing.assert_allclose(S.sum(c, axis=1, keepdim=True).to_dense().numpy(), a.sum(1, keepdims=True))
    with pytest.raises(IndexError):
        S.sum(x, axis=2)
    with pytest.raises(ValueError):
        S.reshape(x, [5, 3])


def test_mask_as_and_is_same_shape():
    mask = S.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], [2, 2])
    d = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(S.mask_as(oar.to_tensor(d), mask).values().numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(S.mask_as(oar.to_tensor(d), mask.to_sparse_csr()).values().numpy(), [2.0, 3.0])
    t = oar.to_tensor(d, stop_gradient=False)
    S.mask_as(t, mask).values().sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [[0, 1], [1, 0]])
    assert S.is_same_shape(mask, oar.ones([2, 2])) and not S.is_same_shape(mask, oar.ones([2]))


# ---------------------------------------------------------------- products

@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("batched", [False, True])
def test_matmul_values_and_grads(fmt, batched):
    shape = [2, 4, 5] if batched else [4, 5]
    a = random_sparse(shape, seed=7)
    b = RNG.uniform(-1, 1, size=shape[:-2] + [5, 3])
    t = oar.to_tensor(a)
    x = t.to_sparse_coo(len(shape)) if fmt == "coo" else t.to_sparse_csr()
    np.testing.assert_allclose(S.matmul(x, oar.to_tensor(b)).numpy(), a @ b, rtol=1e-12)
    check_values_grad(lambda v: S.matmul(x._with_values(v), oar.to_tensor(b)), x.values().numpy().copy(),
                      shape[:-1] + [3])
    bt = oar.to_tensor(b, stop_gradient=False)
    w = RNG.uniform(-1, 1, size=shape[:-1] + [3])
    (S.matmul(x, bt) * oar.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(bt.grad.numpy(), np.swapaxes(a, -1, -2) @ w, rtol=1e-10)


def test_matmul_sparse_sparse_mv_addmm():
    a, b = random_sparse([4, 5], seed=8), random_sparse([5, 3], seed=9)
    x, y = oar.to_tensor(a).to_sparse_csr(), oar.to_tensor(b).to_sparse_csr()
    out = S.matmul(x, y)
    assert out.is_sparse_csr()
    np.testing.assert_allclose(out.to_dense().numpy(), a @ b)
    vec = RNG.uniform(-1, 1, size=5)
    np.testing.assert_allclose(S.mv(x, oar.to_tensor(vec)).numpy(), a @ vec)
    np.testing.assert_allclose(S.mv(oar.to_tensor(a).to_sparse_coo(2), oar.to_tensor(vec)).numpy(), a @ vec)
    inp = RNG.uniform(-1, 1, size=[4, 3])
    np.testing.assert_allclose(S.addmm(oar.to_tensor(inp), x, oar.to_tensor(b), beta=0.5, alpha=2.0).numpy(),
                               0.5 * inp + 2.0 * (a @ b))
    with pytest.raises(ValueError, match="cannot multiply"):
        S.matmul(x, oar.ones([4, 3], "float64"))
    with pytest.raises(TypeError, match="dtype"):
        S.matmul(x, oar.ones([5, 3], "float32"))


@pytest.mark.parametrize("batched", [False, True])
def test_masked_matmul_values_and_grads(batched):
    lead = [2] if batched else []
    xa = RNG.uniform(-1, 1, size=lead + [4, 3])
    ya = RNG.uniform(-1, 1, size=lead + [3, 5])
    mask_dense = random_sparse(lead + [4, 5], seed=10)
    mask = oar.to_tensor(mask_dense).to_sparse_csr()
    out = S.masked_matmul(oar.to_tensor(xa), oar.to_tensor(ya), mask)
    np.testing.assert_allclose(out.to_dense().numpy(), np.where(mask_dense != 0, xa @ ya, 0), rtol=1e-12)
    check_values_grad(lambda v: S.masked_matmul(v, oar.to_tensor(ya), mask), xa.copy(), lead + [4, 5])
    check_values_grad(lambda v: S.masked_matmul(oar.to_tensor(xa), v, mask), ya.copy(), lead + [4, 5])
    coo = S.masked_matmul(oar.to_tensor(xa), oar.to_tensor(ya), oar.to_tensor(mask_dense).to_sparse_coo(len(lead) + 2))
    np.testing.assert_allclose(coo.to_dense().numpy(), out.to_dense().numpy())


def test_pca_lowrank_matches_dense_svd():
    a = random_sparse([8, 6], density=0.6, seed=11)
    u, s, v = S.pca_lowrank(oar.to_tensor(a).to_sparse_coo(2), q=6, center=True, niter=4)
    centred = a - a.mean(0, keepdims=True)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centred, compute_uv=False)[:6], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, centred, atol=1e-8)


# ---------------------------------------------------------------- nn

def _conv_input(seed=0):
    rng = np.random.default_rng(seed)
    dense = np.zeros((1, 3, 4, 4, 2), "float32")
    for p in [(0, 0, 0), (1, 2, 3), (2, 1, 1), (1, 1, 1), (0, 3, 2)]:
        dense[(0,) + p] = rng.random(2)
    return dense, rng.random((3, 3, 3, 2, 3)).astype("float32")


def test_conv_and_pool_match_paddle():
    paddle = pytest.importorskip("paddle")
    dense, w = _conv_input()
    px, ox = paddle.to_tensor(dense).to_sparse_coo(4), oar.to_tensor(dense).to_sparse_coo(4)
    pw, ow = paddle.to_tensor(w), oar.to_tensor(w)
    PF, OF = paddle.sparse.nn.functional, S.nn.functional
    for p, o in ((PF.conv3d(px, pw, padding=1), OF.conv3d(ox, ow, padding=1)),
                 (PF.conv3d(px, pw, stride=2), OF.conv3d(ox, ow, stride=2)),
                 (PF.subm_conv3d(px, pw, padding=1), OF.subm_conv3d(ox, ow, padding=1)),
                 (PF.max_pool3d(px, 2, 2), OF.max_pool3d(ox, 2, 2))):
        assert o.shape == list(p.shape)
        np.testing.assert_array_equal(o.indices().numpy(), p.indices().numpy())
        np.testing.assert_allclose(o.values().numpy(), p.values().numpy(), rtol=1e-5, atol=1e-6)
    p2 = PF.subm_conv2d(paddle.to_tensor(dense[:, 0]).to_sparse_coo(3), paddle.to_tensor(w[0]), padding=1)
    o2 = OF.subm_conv2d(oar.to_tensor(dense[:, 0]).to_sparse_coo(3), oar.to_tensor(w[0]), padding=1)
    np.testing.assert_allclose(o2.to_dense().numpy(), p2.to_dense().numpy(), rtol=1e-5, atol=1e-6)


def test_conv_matches_dense_convolution_and_grads():
    dense, w = _conv_input(1)
    dense, w = dense.astype("float64"), w.astype("float64")
    x = oar.to_tensor(dense).to_sparse_coo(4)
    out = S.nn.functional.conv3d(x, oar.to_tensor(w), oar.to_tensor([0.1, 0.2, 0.3], dtype="float64"), padding=1)
    ref = oar.nn.functional.conv3d(oar.to_tensor(dense), oar.to_tensor(w).transpose([4, 3, 0, 1, 2]),
                                   oar.to_tensor([0.1, 0.2, 0.3], dtype="float64"), padding=1,
                                   data_format="NDHWC").numpy()
    got = out.to_dense().numpy()
    active = np.abs(got).sum(-1) != 0
    np.testing.assert_allclose(got[active], ref[active], rtol=1e-10)
    check_values_grad(lambda v: S.nn.functional.subm_conv3d(x._with_values(v), oar.to_tensor(w), padding=1),
                      x.values().numpy().copy(), [1, 3, 4, 4, 3])
    check_values_grad(lambda v: S.nn.functional.conv3d(x, v, stride=2), w[:2, :2, :2].copy(), [1, 1, 2, 2, 3])
    check_values_grad(lambda v: S.nn.functional.max_pool3d(x._with_values(v), 2), x.values().numpy().copy(),
                      [1, 1, 2, 2, 2])


def test_layers_parameters_and_errors():
    conv = S.nn.Conv3D(2, 3, 3)
    assert [(n, p.shape) for n, p in conv.named_parameters()] == [("weight", [3, 3, 3, 2, 3]), ("bias", [3])]
    assert S.nn.SubmConv2D(2, 4, 3).weight.shape == [3, 3, 2, 4]
    bn = S.nn.BatchNorm(2)
    assert [n for n, _ in bn.named_parameters()] == ["weight", "bias", "_mean", "_variance"]
    dense, _ = _conv_input()
    x = oar.to_tensor(dense).to_sparse_coo(4)
    v = x.values().numpy()
    out = bn(x).values().numpy()
    np.testing.assert_allclose(out, (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    y = S.nn.SubmConv3D(2, 3, 3, padding=1)(x)
    assert y.nnz() == x.nnz() and y.shape == [1, 3, 4, 4, 3]
    assert S.nn.MaxPool3D(2)(x).shape == [1, 1, 2, 2, 2]
    assert S.nn.ReLU()(x).nnz() == x.nnz()
    with pytest.raises(ValueError, match="groups"):
        S.nn.functional.conv3d(x, oar.ones([3, 3, 3, 2, 3]), groups=2)
    with pytest.raises(ValueError, match="channels"):
        S.nn.functional.conv3d(x, oar.ones([3, 3, 3, 5, 3]))
    with pytest.raises(TypeError, match="COO"):
        S.nn.functional.conv3d(oar.to_tensor(dense), oar.ones([3, 3, 3, 2, 3]))


@pytest.mark.parametrize("fmt", ["csr", "coo"])
def test_softmax_over_stored_elements(fmt):
    a = random_sparse([2, 3, 4], seed=12)
    t = oar.to_tensor(a)
    x = t.to_sparse_csr() if fmt == "csr" else t.to_sparse_coo(3)
    got = S.nn.functional.softmax(x).to_dense().numpy()
    e = np.where(a != 0, np.exp(a - np.where(a != 0, a, -np.inf).max(-1, keepdims=True)), 0)
    np.testing.assert_allclose(got, e / np.maximum(e.sum(-1, keepdims=True), 1e-300), rtol=1e-12)
    check_values_grad(lambda v: S.nn.functional.softmax(x._with_values(v)), x.values().numpy().copy(), [2, 3, 4])


def test_softmax_matches_paddle():
    paddle = pytest.importorskip("paddle")
    a = random_sparse([3, 4], seed=13).astype("float32")
    p = paddle.sparse.nn.functional.softmax(paddle.to_tensor(a).to_sparse_csr())
    o = S.nn.functional.softmax(oar.to_tensor(a).to_sparse_csr())
    np.testing.assert_allclose(o.values().numpy(), p.values().numpy(), rtol=1e-6)


def test_attention_matches_dense_masked_softmax():
    b, h, s, d = 1, 2, 4, 3
    q, k, v = (RNG.uniform(-1, 1, size=[b, h, s, d]) for _ in range(3))
    pattern = np.tril(np.ones([s, s]))
    mask = oar.to_tensor(np.broadcast_to(pattern, [b * h, s, s]).copy()).to_sparse_csr()
    kp = np.array([[1, 1, 1, 0]], "float64")
    out = S.nn.functional.attention(oar.to_tensor(q), oar.to_tensor(k), oar.to_tensor(v), mask,
                                    key_padding_mask=oar.to_tensor(kp))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    allowed = (pattern[None, None] != 0) & (kp[:, None, None, :] != 0)
    scores = np.where(allowed, scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    np.testing.assert_allclose(out.numpy(), p @ v, rtol=1e-10)
    check_values_grad(lambda t: S.nn.functional.attention(t, oar.to_tensor(k), oar.to_tensor(v), mask),
                      q.copy(), [b, h, s, d])


# ---------------------------------------------------------------- the C++ ops under the products

def test_csr_ops_against_numpy_and_malformed_patterns():
    crows, cols = oar.to_tensor([0, 2, 2, 3]), oar.to_tensor([0, 2, 1])
    vals = np.array([1.5, -2.0, 3.0])
    a = np.zeros([3, 3])
    a[0, 0], a[0, 2], a[2, 1] = vals
    b = RNG.uniform(-1, 1, size=[3, 4])
    np.testing.assert_allclose(oar._C.sparse_csr_matmul(crows, cols, oar.to_tensor(vals), oar.to_tensor(b)).numpy(),
                               a @ b)
    np.testing.assert_allclose(oar._C.sparse_csr_matmul_t(crows, cols, oar.to_tensor(vals), oar.to_tensor(b), 3)
                               .numpy(), a.T @ b)
    x, y = RNG.uniform(-1, 1, size=[3, 5]), RNG.uniform(-1, 1, size=[3, 5])
    np.testing.assert_allclose(oar._C.sparse_csr_sampled_dot(crows, cols, oar.to_tensor(x), oar.to_tensor(y)).numpy(),
                               (x @ y.T)[[0, 0, 2], [0, 2, 1]])
    v32 = oar.to_tensor(vals.astype("float32"))
    np.testing.assert_allclose(oar._C.sparse_csr_matmul(crows, cols, v32, oar.to_tensor(b.astype("float32"))).numpy(),
                               a @ b, rtol=1e-5)
    with pytest.raises(IndexError, match="cols\\[1\\] = 7"):
        oar._C.sparse_csr_matmul(crows, oar.to_tensor([0, 7, 1]), oar.to_tensor(vals), oar.to_tensor(b))
    with pytest.raises(ValueError, match="must not decrease"):
        oar._C.sparse_csr_matmul(oar.to_tensor([0, 2, 1, 3]), cols, oar.to_tensor(vals), oar.to_tensor(b))
    with pytest.raises(ValueError, match="crows\\[-1\\]"):
        oar._C.sparse_csr_matmul(oar.to_tensor([0, 2, 2, 2]), cols, oar.to_tensor(vals), oar.to_tensor(b))
    with pytest.raises(TypeError, match="dtype"):
        oar._C.sparse_csr_matmul(crows, cols, oar.to_tensor(vals), oar.to_tensor(b.astype("float32")))
    with pytest.raises(TypeError, match="int64"):
        oar._C.sparse_csr_matmul(crows.astype("int32"), cols, oar.to_tensor(vals), oar.to_tensor(b))
    with pytest.raises(ValueError, match="2-D"):
        oar._C.sparse_csr_sampled_dot(crows, cols, oar.to_tensor(x[0]), oar.to_tensor(y))


def test_csr_ops_second_order_gradients():
    crows, cols = oar.to_tensor([0, 2, 2, 3]), oar.to_tensor([0, 2, 1])
    v = oar.to_tensor(np.array([1.5, -2.0, 3.0]), stop_gradient=False)
    b = oar.to_tensor(RNG.uniform(-1, 1, size=[3, 4]), stop_gradient=False)
    out = oar._C.sparse_csr_matmul(crows, cols, v, b)
    (gv,) = oar.grad((out * out).sum(), [v], create_graph=True)
    (ggb,) = oar.grad(gv.sum(), [b])
    # d/db sum_p d/dv_p sum(out^2) = d/db sum_p 2 out[r_p] . b[c_p], checked by central differences.
    bn = b.numpy().copy()

    def f(arr):
        vv = oar.to_tensor(np.array([1.5, -2.0, 3.0]), stop_gradient=False)
        o = oar._C.sparse_csr_matmul(crows, cols, vv, oar.to_tensor(arr))
        (g,) = oar.grad((o * o).sum(), [vv])
        return float(g.sum().numpy())

    np.testing.assert_allclose(ggb.numpy(), central_grad(f, bn), atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matmul_wide_dense_operands(dtype):
    # Widths past one register block (64 floats / 32 doubles) and with a tail: the kernel's
    # blocked path, which the small cases above never reach.
    rng = np.random.default_rng(5)
    for n in (32, 64, 100, 130, 256):
        a = rng.standard_normal((50, 40))
        a[rng.random((50, 40)) > 0.3] = 0
        b = rng.standard_normal((40, n))
        x = oar.to_tensor(a.astype(dtype)).to_sparse_csr()
        tol = 1e-4 if dtype == "float32" else 1e-10
        np.testing.assert_allclose(S.matmul(x, oar.to_tensor(b.astype(dtype))).numpy(), a @ b, rtol=tol, atol=tol)
        bt = oar.to_tensor(b.astype(dtype), stop_gradient=False)
        S.matmul(x, bt).sum().backward()
        np.testing.assert_allclose(bt.grad.numpy(), a.T @ np.ones((50, n)), rtol=tol, atol=tol)
