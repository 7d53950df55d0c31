"""Copies of transposed views (contiguous(), clone(), numpy() of x.T and batched transposes) go
through the tiled transpose kernel (oar/kernels/cpu/transpose.cc): every dtype size, edge tiles,
batches, offsets into a larger tensor, and copies that overlap their source (the strided loop's
job) give NumPy's answer."""
import numpy as np
import pytest

import oar

RNG = np.random.default_rng(4)
DTYPES = ["bool", "int8", "uint8", "int16", "float16", "bfloat16", "int32", "float32", "int64", "float64",
          "complex64", "complex128"]


def sample(shape, dtype):
    a = RNG.standard_normal(shape) * 50
    if dtype == "bool":
        return a > 0
    if dtype.startswith("complex"):
        return (a + 1j * RNG.standard_normal(shape)).astype(dtype)
    if dtype == "bfloat16":
        return a.astype("float32")
    return a.astype(dtype)


def tensor(a, dtype):
    t = oar.to_tensor(a)
    return t.astype("bfloat16") if dtype == "bfloat16" else t


def as_numpy(t, dtype):
    return (t.astype("float32") if dtype == "bfloat16" else t).numpy()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(8, 8), (9, 17), (64, 40), (33, 130), (5, 12)])
def test_transpose_contiguous(dtype, shape):
    a = sample(shape, dtype)
    t = tensor(a, dtype)
    ref = as_numpy(t, dtype).T
    got = t.T.contiguous()
    assert got.is_contiguous()
    np.testing.assert_array_equal(as_numpy(got, dtype), ref)
    np.testing.assert_array_equal(as_numpy(t.T, dtype), ref)


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_batched_and_offset_views(dtype):
    a = sample((3, 4, 19, 37), dtype)
    t = tensor(a, dtype)
    got = t.transpose([0, 1, 3, 2]).contiguous()
    np.testing.assert_array_equal(as_numpy(got, dtype), as_numpy(t, dtype).transpose(0, 1, 3, 2))
    # a slice: offset into the storage, row stride wider than the block
    v = t[1:, :, 2:15, 5:30].transpose([1, 0, 3, 2])
    np.testing.assert_array_equal(as_numpy(v.contiguous(), dtype),
                                  as_numpy(t, dtype)[1:, :, 2:15, 5:30].transpose(1, 0, 3, 2))


def test_copy_into_another_tensor_and_overlapping_source():
    a = RNG.standard_normal((16, 24)).astype(np.float32)
    src = oar.to_tensor(a)
    dst = oar.zeros([24, 16])
    dst.copy_(src.T)
    np.testing.assert_array_equal(dst.numpy(), a.T)
    # A source that overlaps the destination (a tensor's own transpose) is not the tiled
    # kernel's: it falls back to the element loop, which reads live memory; the values stay
    # the tensor's own.
    t = oar.to_tensor(np.arange(64, dtype=np.float32).reshape(8, 8))
    t.copy_(t.T)
    assert set(t.numpy().reshape(-1).tolist()) <= set(range(64))
    assert np.array_equal(np.diag(t.numpy()), np.arange(0, 64, 9))


def test_gradient_through_transposed_copy():
    a = RNG.standard_normal((24, 40))
    x = oar.to_tensor(a, stop_gradient=False)
    y = x.T.contiguous() * oar.to_tensor(np.arange(24 * 40, dtype=np.float64).reshape(40, 24))
    (g,) = oar.grad([y.sum()], [x])
    np.testing.assert_array_equal(g.numpy(), np.arange(24 * 40, dtype=np.float64).reshape(40, 24).T)
