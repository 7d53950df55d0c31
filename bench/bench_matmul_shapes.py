"""float32 matmul at the shapes of a training step (bench_train.py's Transformer encoder and GPT
decoder): the forward products, the weight gradients (A transposed), the input gradients (B
transposed: dX = dY W^T) and the attention heads' batched products, with GFLOP/s beside each,
oar beside PyTorch and Paddle in the same run.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_matmul_shapes.py
"""
from harness import compare

BODY = r'''
rng = np.random.default_rng(0)
def mm(a, b, ta, tb):
    if FW == "torch":
        return F.matmul(a.transpose(-1, -2) if ta else a, b.transpose(-1, -2) if tb else b)
    return F.matmul(a, b, transpose_x=ta, transpose_y=tb)
# (name, A's shape, B's shape, transpose A, transpose B)
cases = [
    ("enc fwd 2048x256 @ 256x1024", (2048, 256), (256, 1024), False, False),
    ("enc dX 2048x1024 @ (256x1024)T", (2048, 1024), (256, 1024), False, True),
    ("enc dW (2048x256)T @ 2048x1024", (2048, 256), (2048, 1024), True, False),
    ("enc QK^T 128x[128x32 . (128x32)T]", (128, 128, 32), (128, 128, 32), False, True),
    ("gpt fwd 2048x384 @ 384x1536", (2048, 384), (384, 1536), False, False),
    ("gpt head dX 2048x4096 @ (384x4096)T", (2048, 4096), (384, 4096), False, True),
    ("gpt head dW (2048x384)T @ 2048x4096", (2048, 384), (2048, 4096), True, False),
    ("gpt QK^T 48x[256x64 . (256x64)T]", (48, 256, 64), (48, 256, 64), False, True),
    ("gpt PV 48x[256x256 . 256x64]", (48, 256, 256), (48, 256, 64), False, False),
]
for name, sa, sb, ta, tb in cases:
    a, b = T(rng.standard_normal(sa, dtype=np.float32)), T(rng.standard_normal(sb, dtype=np.float32))
    res[name] = best(lambda: mm(a, b, ta, tb), 5, 5)
'''

def flops(name):
    """2 M N K (times the batch) of a case, from its name's shapes."""
    import re
    dims = [tuple(map(int, d.split("x"))) for d in re.findall(r"(\d+x\d+)", name)]
    batch = int(name.split("x[")[0].split()[-1]) if "x[" in name else 1
    (r0, c0), (r1, c1) = dims[-2], dims[-1]
    transposed_a, transposed_b = f"({r0}x{c0})T" in name, f"({r1}x{c1})T" in name
    m, k = (c0, r0) if transposed_a else (r0, c0)
    n = r1 if transposed_b else c1
    return 2 * m * n * k * batch


if __name__ == "__main__":
    compare(BODY, extra=lambda case, t: f"   oar {flops(case) / t / 1e9:6.1f} GFLOP/s")
