"""Input that must raise a typed error instead of crashing or hanging the process: sizes that
overflow, static-program values where data is needed, non-finite matrices for the iterative
LAPACK drivers, huge orders and counts. The registry-wide search for more is tests/fuzz/op_fuzz.cc
(ctest op_fuzz_short); these are the cases it and issue reports found, checked from Python."""
import math

import numpy as np
import pytest

import oar

F = oar.nn.functional


@pytest.mark.parametrize("make", [oar.zeros, oar.ones, oar.empty, oar.rand,
                                  lambda s: oar.full(s, 1.0)])
@pytest.mark.parametrize("shape", [[2**31, 2**31], [2**32, 2**32], [2**62, 4]])
def test_shapes_too_large_to_address_raise_memory_error(make, shape):
    # [2^31, 2^31] float32 once wrapped its byte count to 0 and crashed on the first write.
    with pytest.raises(MemoryError, match="addressed"):
        make(shape)


def test_a_zero_dim_makes_any_shape_empty():
    t = oar.zeros([2**40, 2**40, 0])
    assert t.shape == [2**40, 2**40, 0] and t.size == 0
    # NumPy itself refuses such a shape: the export says so instead of crashing
    with pytest.raises((TypeError, ValueError), match="too big"):
        t.numpy()


@pytest.mark.parametrize("call", [
    lambda x: oar.tile(x, [2**62, 2**62]),
    lambda x: oar.expand(x, [2**62, 2, 3]),
    lambda x: oar.broadcast_to(x, [2**40, 2**40, 2, 3]),
    lambda x: oar.repeat_interleave(x, 2**62, 0),
    lambda x: oar.arange(0, 2**62, 1),
    lambda x: oar.linspace(0, 1, 2**62),
    lambda x: oar.randperm(2**62),
    lambda x: oar.eye(2**40, 2**40),
    lambda x: F.one_hot(oar.to_tensor([1]), 2**62),
    lambda x: F.pad(oar.ones([1, 1, 4, 4]), [2**62, 2**62, 0, 0]),
    lambda x: F.conv2d(oar.ones([1, 1, 4, 4]), oar.ones([1, 1, 3, 3]), dilation=2**62),
    lambda x: F.interpolate(oar.ones([1, 1, 4, 4]), size=[2**31, 2**31]),
    lambda x: F.fold(oar.ones([1, 4, 4]), [2**31, 2**31], [2**40, 2**40]),
])
def test_sizes_computed_from_huge_arguments_raise(call):
    with pytest.raises((MemoryError, ValueError)) as info:
        call(oar.ones([2, 3]))
    # the message names real sizes, never a wrapped-around negative one
    assert "-9223372036854775" not in str(info.value) and "-4611686018427387904" not in str(info.value)


def test_svd_and_eigh_refuse_non_finite_matrices_instead_of_hanging():
    # NaN with Inf once sent LAPACK's ?gesdd into an endless loop.
    bad = np.array([[np.nan, np.inf], [1.0, -np.inf]], np.float32)
    with pytest.raises(ValueError, match="NaN or Inf"):
        oar.linalg.svd(oar.to_tensor(bad))
    with pytest.raises(ValueError, match="matrix 1 of the batch holds NaN or Inf"):
        oar.linalg.eigh(oar.to_tensor(np.stack([np.eye(2), bad.astype(np.float64)])))
    good = np.array([[2.0, 1.0], [1.0, 3.0]])
    np.testing.assert_allclose(oar.linalg.svd(oar.to_tensor(good))[1].numpy(),
                               np.linalg.svd(good)[1], rtol=1e-12)


def _polygamma_reference(n, x):
    """(-1)^(n+1) n! sum_k (x + k)^-(n+1) in log space, summed until the terms vanish."""
    log_terms = [math.lgamma(n + 1) - (n + 1) * math.log(x + k) for k in range(20000)]
    top = max(log_terms)
    total = math.fsum(math.exp(t - top) for t in log_terms)
    log_value = top + math.log(total)
    return (-1) ** (n + 1) * (math.inf if log_value > 709.7 else math.exp(log_value))


@pytest.mark.parametrize("n", [171, 200, 1000])
def test_polygamma_of_large_orders_is_fast_and_right(n):
    xs = np.array([0.5, 1.0, 3.0, 50.0, 400.0])
    got = oar.polygamma(oar.to_tensor(xs), n).numpy()
    for x, g in zip(xs, got):
        want = _polygamma_reference(n, x)
        if math.isinf(want) or abs(want) > 1e308:
            assert math.isinf(g) and np.sign(g) == np.sign(want)
        else:
            assert g == pytest.approx(want, rel=1e-10), (x, g, want)
    # left of zero the nearest pole's term alone overflows: an infinity of its sign
    left = oar.polygamma(oar.to_tensor([-0.25, -0.75, -1.5]), 2**40).numpy()
    assert np.all(np.isinf(left))
    odd = oar.polygamma(oar.to_tensor([-0.25, -0.75]), 2**40 + 1).numpy()
    assert np.all(odd == np.inf)


def test_multigammaln_of_large_p_matches_the_sum():
    x = np.array([60.0, 75.5])
    p = 100
    want = [sum(math.lgamma(v - i / 2) for i in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
            for v in x]
    np.testing.assert_allclose(oar.multigammaln(oar.to_tensor(x), p).numpy(), want, rtol=1e-12)
    # empty input with a huge p: no loop over p
    with pytest.raises((MemoryError, ValueError)):
        oar.multigammaln(oar.zeros([0], "float64"), 2**40)


def test_split_of_an_empty_dim_into_too_many_parts():
    assert len(oar.split(oar.zeros([0, 2]), 3)) == 3
    with pytest.raises(MemoryError, match="sections"):
        oar.split(oar.zeros([0, 2]), 2**40)


class TestStaticProgramValuesWhereDataIsNeeded:
    """Each of these once terminated the interpreter: a C++ exception escaped nanobind's noexcept
    argument conversion while reading a value that has no data yet."""

    def _build(self, fn):
        oar.enable_static()
        try:
            main = oar.static.Program()
            with oar.static.program_guard(main):
                x = oar.static.data("x", [4, 6], "float32")
                return fn(x)
        finally:
            oar.disable_static()

    def test_unflatten_with_a_program_value_as_shape_raises_value_error(self):
        with pytest.raises(ValueError, match="unflatten: argument 'shape' must be known"):
            self._build(lambda x: oar.unflatten(x, 1, oar.static.data("s", [2], "int64")))

    def test_unflatten_records_with_known_sizes(self):
        assert self._build(lambda x: oar.unflatten(x, 1, oar.to_tensor([2, 3]))).shape == [4, 2, 3]
        assert self._build(lambda x: oar.unflatten(x, -1, (3, -1))).shape == [4, 3, 2]

    @pytest.mark.parametrize("call", [
        lambda x: oar.reshape(x, [oar.static.data("s", [1], "int64"), 6]),
        lambda x: oar.full([2], oar.static.data("v", [1], "float32")),
    ])
    def test_ops_given_program_values_for_numbers_raise_type_error(self, call):
        with pytest.raises(TypeError):
            self._build(call)


def test_pylayer_saving_its_output_does_not_leak(tmp_path):
    """ctx.save_for_backward(output) once made a cycle (output -> node -> backward -> ctx -> output)
    through C++ that Python's collector cannot see: every such graph leaked, and nanobind listed
    the tensors, a type and hundreds of functions at exit."""
    import subprocess
    import sys
    script = tmp_path / "pylayer_leak.py"
    script.write_text(
        "import oar\n"
        "class Exp(oar.autograd.PyLayer):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        y = oar.exp(x)\n"
        "        ctx.save_for_backward(y, x)\n"
        "        return y\n"
        "    @staticmethod\n"
        "    def backward(ctx, dy):\n"
        "        y, x = ctx.saved_tensor()\n"
        "        return dy * y\n"
        "def step():\n"
        "    x = oar.to_tensor([1.0, 2.0], stop_gradient=False)\n"
        "    Exp.apply(x).sum().backward()\n"
        "    Exp.apply(x)  # a graph never differentiated\n"
        "    return x.grad.numpy()\n"
        "for _ in range(3):\n"
        "    g = step()\n"
        "print(g.tolist())\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "leaked" not in run.stderr, run.stderr
    np.testing.assert_allclose(eval(run.stdout), np.exp([1.0, 2.0]), rtol=1e-6)


def test_pylayer_output_alive_at_module_scope_does_not_leak(tmp_path):
    """An output kept in a module's globals holds its node, whose backward reaches the PyLayer
    class and so those globals: a cycle through C++. Interpreter exit releases the nodes'
    functions first (oar/autograd/py_layer.py's atexit handler), so nothing is reported leaked."""
    import subprocess
    import sys
    script = tmp_path / "pylayer_module_scope.py"
    script.write_text(
        "import oar\n"
        "class Square(oar.autograd.PyLayer):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        ctx.save_for_backward(x)\n"
        "        return x * x\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        x, = ctx.saved_tensor()\n"
        "        return 2 * x * g\n"
        "x = oar.to_tensor([1.0, 2.0], stop_gradient=False)\n"
        "y = Square.apply(x)\n"
        "y.sum().backward(retain_graph=True)\n"
        "print(x.grad.numpy().tolist())\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "leaked" not in run.stderr, run.stderr
    assert eval(run.stdout) == [2.0, 4.0]


def test_exiting_in_static_mode_does_not_leak():
    """A script that turns static mode on and exits without disable_static (most static scripts)
    made nanobind report the default program and its tracer as leaked."""
    import subprocess
    import sys
    script = ("import oar\n"
              "oar.enable_static()\n"
              "x = oar.static.data('x', [2, 3], 'float32')\n"
              "y = x * 2\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "leaked" not in run.stderr, run.stderr


@pytest.mark.parametrize("record", [
    b"\x80\x04\x95" + (2**40).to_bytes(8, "little"),  # FRAME of 1 TiB
    b"\x80\x02B" + (2**31).to_bytes(4, "little"),    # BINBYTES of 2 GiB (protocol 2: no frames)
    b"\x80\x04\x8e" + (2**50).to_bytes(8, "little"),  # BINBYTES8 of 1 PiB
    b"\x80\x05\x96" + (2**40).to_bytes(8, "little"),  # BYTEARRAY8 of 1 TiB (allocated before reading)
    b"\x80\x05\x95" + (20).to_bytes(8, "little") + b"\x96" + (2**40).to_bytes(8, "little"),  # in a frame
])
def test_damaged_lengths_in_a_checkpoint_read_as_truncation_not_allocation(tmp_path, record):
    path = tmp_path / "damaged.pdparams"
    path.write_bytes(record + b"\x00" * 64)
    with pytest.raises(ValueError, match="can't parse") as info:
        oar.load(str(path))
    assert "MemoryError" not in str(info.value)  # the reader never asked for the claimed size


@pytest.mark.parametrize("shape", [[0, 3], [3, 0], [0, 0], [2, 0, 3]])
def test_decompositions_of_empty_matrices(shape):
    """lu of a [0, 3] matrix once ended the Python process with exit status 0: LAPACK refused a
    leading dimension of 0 and its reference XERBLA called STOP."""
    x = oar.zeros(shape, "float64")
    a = np.zeros(shape)
    lu = oar.linalg.lu(x)
    assert lu[0].shape == shape
    u, s, vh = oar.linalg.svd(x, full_matrices=True)
    nu, ns, nvh = np.linalg.svd(a, full_matrices=True)
    for got, want in ((u, nu), (s, ns), (vh, nvh)):
        np.testing.assert_array_equal(got.numpy(), want)
    q, r = oar.linalg.qr(x, mode="complete")
    assert q.shape == list(np.linalg.qr(a, mode="complete")[0].shape)
    if shape[-1] == shape[-2]:
        assert oar.linalg.inv(x).shape == shape and oar.linalg.cholesky(x).shape == shape
        assert oar.linalg.eigh(x)[1].shape == shape
