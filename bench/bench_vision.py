"""Sampling and attention: interpolate, grid_sample and scaled_dot_product_attention, oar beside
PyTorch and Paddle in the same run.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_vision.py
(torch 1.13 has no scaled_dot_product_attention: its column runs softmax(q k^T * scale) v.)
"""
from harness import compare

BODY = r'''
rng = np.random.default_rng(0)
NF = F.nn.functional
x = T(rng.random((16, 64, 56, 56), dtype=np.float32))
if FW == "torch":
    up = lambda: NF.interpolate(x, size=(112, 112), mode="bilinear", align_corners=False)
else:
    up = lambda: NF.interpolate(x, size=[112, 112], mode="bilinear")
res["interpolate bilinear [16, 64, 56, 56] -> 112"] = best(up, 3)

xg = T(rng.random((8, 32, 64, 64), dtype=np.float32), grad=True)
grid = T((rng.random((8, 64, 64, 2), dtype=np.float32) * 2.2 - 1.1).astype(np.float32), grad=True)
gs = lambda: NF.grid_sample(xg, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
res["grid_sample bilinear [8, 32, 64, 64], grid [8, 64, 64, 2]"] = best(gs, 5)
def gs_fb():
    out = gs()
    out.sum().backward()
res["grid_sample fwd+bwd"] = best(gs_fb, 3)

B, S, H, D = 8, 128, 8, 64
qa, ka, va = (rng.standard_normal((B, S, H, D)).astype(np.float32) for _ in range(3))
if FW == "torch":
    q, k, v = (T(np.ascontiguousarray(a.transpose(0, 2, 1, 3)), grad=True) for a in (qa, ka, va))
    def sdpa():
        p = F.softmax(F.matmul(q, k.transpose(-1, -2)) * (1.0 / D ** 0.5), dim=-1)
        return F.matmul(p, v)
else:
    q, k, v = (T(a, grad=True) for a in (qa, ka, va))
    sdpa = lambda: NF.scaled_dot_product_attention(q, k, v)
res["sdpa [8, 128, 8, 64] fwd"] = best(sdpa, 10)
def sdpa_fb():
    out = sdpa()
    out.sum().backward()
res["sdpa [8, 128, 8, 64] fwd+bwd"] = best(sdpa_fb, 5)
'''

if __name__ == "__main__":
    compare(BODY)
