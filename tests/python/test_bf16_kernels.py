"""bfloat16 compute on the CPU: matmul and convolution in bfloat16 (oneDNN, float32 accumulation)
on CPUs with AVX512_BF16/AMX, converted to float32 elsewhere. Both paths are checked against a
float32 reference within bfloat16's rounding, forward and backward; the converting path runs in
a subprocess with OAR_CPU_ISA=avx2 (which turns the native one off)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import oar
import oar.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
pytestmark = pytest.mark.host_only  # the CPU's bfloat16 kernel paths (oneDNN or converting)


def bf16(shape, seed):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return oar.to_tensor(a).astype("bfloat16")


def close(got, ref, what):
    got = got.astype("float32").numpy()
    ref = ref.numpy()
    # bfloat16 keeps 8 significant bits: results round to within 2**-8 of their magnitude (the
    # float32 accumulation adds almost nothing to that).
    tol = 2.0 ** -7 * (np.abs(ref).max() + 1)
    assert np.abs(got - ref).max() <= tol, (what, np.abs(got - ref).max(), tol)


MATMULS = [((64, 96), (96, 80), False, False), ((96, 64), (96, 80), True, False),
           ((64, 96), (80, 96), False, True), ((3, 17, 33), (33, 5), False, False),
           ((2, 3, 8, 16), (1, 3, 16, 4), False, False), ((5, 7, 9), (5, 11, 9), False, True),
           ((16,), (16, 3), False, False)]


@pytest.mark.parametrize("xs,ys,tx,ty", MATMULS)
def test_matmul_bfloat16_forward_and_backward(xs, ys, tx, ty):
    x, y = bf16(xs, 1), bf16(ys, 2)
    x.stop_gradient = y.stop_gradient = False
    out = oar.matmul(x, y, tx, ty)
    assert out.dtype == oar.bfloat16
    xf, yf = x.astype("float32").detach(), y.astype("float32").detach()
    xf.stop_gradient = yf.stop_gradient = False
    ref = oar.matmul(xf, yf, tx, ty)
    close(out, ref, "forward")
    g = bf16(ref.shape, 3)
    gx, gy = oar.grad([out], [x, y], [g])
    rx, ry = oar.grad([ref], [xf, yf], [g.astype("float32")])
    assert gx.dtype == oar.bfloat16 and gy.dtype == oar.bfloat16
    close(gx, rx, "dx")
    close(gy, ry, "dy")


def test_matmul_bfloat16_strided_operands():
    base = bf16((40, 64), 4)
    x = base[::2, 3:35]  # rows and columns both strided
    y = bf16((48, 32), 5).transpose([1, 0])[:, ::2]
    close(oar.matmul(x, y), oar.matmul(x.astype("float32"), y.astype("float32")), "strided")


CONVS = [((2, 8, 12, 12), (6, 8, 3, 3), dict(padding=1, stride=2)),
         ((1, 4, 9, 9), (4, 1, 3, 3), dict(padding=1, groups=4)),
         ((2, 3, 10, 10), (5, 3, 1, 1), {}),
         ((2, 6, 7, 7), (4, 3, 3, 3), dict(groups=2, dilation=2, padding=2))]


@pytest.mark.parametrize("xs,ws,kw", CONVS)
def test_conv2d_bfloat16_forward_and_backward(xs, ws, kw):
    x, w, b = bf16(xs, 6), bf16(ws, 7), bf16((ws[0],), 8)
    for t in (x, w, b):
        t.stop_gradient = False
    out = F.conv2d(x, w, b, **kw)
    assert out.dtype == oar.bfloat16
    xf, wf, bfl = (t.astype("float32").detach() for t in (x, w, b))
    for t in (xf, wf, bfl):
        t.stop_gradient = False
    ref = F.conv2d(xf, wf, bfl, **kw)
    close(out, ref, "forward")
    g = bf16(ref.shape, 9)
    grads = oar.grad([out], [x, w, b], [g])
    refs = oar.grad([ref], [xf, wf, bfl], [g.astype("float32")])
    for got, r, name in zip(grads, refs, ("dx", "dw", "db")):
        close(got, r, name)


def test_conv_nhwc_bfloat16():
    x, w = bf16((2, 9, 9, 4), 10), bf16((6, 4, 3, 3), 11)
    out = F.conv2d(x, w, padding=1, data_format="NHWC")
    close(out, F.conv2d(x.astype("float32"), w.astype("float32"), padding=1, data_format="NHWC"), "nhwc")


def test_the_converting_path_on_an_avx2_cpu():
    """OAR_CPU_ISA=avx2 turns native bfloat16 off: the same checks must pass there."""
    env = dict(os.environ, OAR_CPU_ISA="avx2")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
                        "-k", "not converting_path"], env=env, capture_output=True, text=True, cwd=HERE)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
