"""OpTest: checks an op against a NumPy reference for each dtype and its gradient against
central differences in float64. Shared by every op test in this directory."""
import numpy as np

import oar

FLOAT_DTYPES = ["float32", "float64"]
INT_DTYPES = ["int32", "int64"]
TOL = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-5, "float64": 1e-10}


def rand(shape, dtype="float64", low=-1.0, high=1.0, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(int(low) if low < 0 else 0, max(int(high), 1) + 5, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    return rng.uniform(low, high, size=shape).astype(dtype)


def assert_close(actual, expected, dtype, what=""):
    actual = actual.numpy() if isinstance(actual, oar.Tensor) else np.asarray(actual)
    expected = np.asarray(expected)
    assert list(actual.shape) == list(expected.shape), f"{what}: shape {actual.shape} != {expected.shape}"
    tol = TOL.get(str(dtype), 0)
    if actual.dtype.kind in "biu" and expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected, err_msg=what)
    else:
        np.testing.assert_allclose(actual.astype(np.float64) if actual.dtype.kind != "c" else actual,
                                   expected, rtol=tol * 10, atol=tol * 10, equal_nan=True, err_msg=what)


def check_forward(op, ref, arrays, dtypes, kwargs=None, what=None):
    """op(*tensors, **kwargs) == ref(*arrays, **kwargs) for each dtype."""
    kwargs = kwargs or {}
    for dt in dtypes:
        xs = [a.astype(dt) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in arrays]
        ts = [oar.to_tensor(a) if isinstance(a, np.ndarray) else a for a in xs]
        out = op(*ts, **kwargs)
        exp = ref(*xs, **kwargs)
        if isinstance(out, (list, tuple)):
            for o, e in zip(out, exp):
                assert_close(o, e, dt, f"{what or op}[{dt}]")
        else:
            assert_close(out, np.asarray(exp), dt, f"{what or op}[{dt}]")
            if np.asarray(exp).dtype.kind == "f" and dt in ("float32", "float64"):
                assert out.dtype.name == dt, f"{what}: dtype {out.dtype} != {dt}"


def numeric_grad(f, arrays, i, eps=1e-6):
    """d sum(f(arrays) * w) / d arrays[i] by central differences (w fixed random weights)."""
    base = arrays[i]
    g = np.zeros_like(base)
    it = np.nditer(base, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = base[idx]
        base[idx] = old + eps
        fp = f()
        base[idx] = old - eps
        fm = f()
        base[idx] = old
        g[idx] = (fp - fm) / (2 * eps)
    return g


def check_grad(op, arrays, kwargs=None, wrt=None, atol=1e-6, rtol=1e-5, what=None):
    """Autograd gradients of sum(op(...) * w) match central differences, in float64."""
    kwargs = kwargs or {}
    arrays = [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in arrays]
    wrt = [i for i, a in enumerate(arrays) if isinstance(a, np.ndarray) and a.dtype.kind == "f"] if wrt is None else wrt
    rng = np.random.default_rng(123)
    ts = [oar.to_tensor(a, stop_gradient=(i not in wrt)) if isinstance(a, np.ndarray) else a
          for i, a in enumerate(arrays)]
    out = op(*ts, **kwargs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    weights = [rng.uniform(0.5, 1.5, size=o.shape) for o in outs]
    loss = None
    for o, w in zip(outs, weights):
        term = (o * oar.to_tensor(w)).sum()
        loss = term if loss is None else loss + term
    grads = oar.grad([loss], [ts[i] for i in wrt], allow_unused=True)

    def f():
        t2 = [oar.to_tensor(a) if isinstance(a, np.ndarray) else a for a in arrays]
        with oar.no_grad():
            o2 = op(*t2, **kwargs)
        o2 = list(o2) if isinstance(o2, (list, tuple)) else [o2]
        return sum(float((x.numpy() * w).sum()) for x, w in zip(o2, weights))

    for k, i in enumerate(wrt):
        num = numeric_grad(f, arrays, i)
        got = grads[k].numpy() if grads[k] is not None else np.zeros_like(num)
        np.testing.assert_allclose(got, num, atol=atol, rtol=rtol,
                                   err_msg=f"{what or op}: gradient of input {i}")
