"""Fused ops of oar.incubate against the unfused composition they replace (in each framework) and
Paddle's fused op where its CPU build has one: the residual RMSNorm and LayerNorm of a transformer
block, SwiGLU and the masked softmax of attention, forward and forward + backward.
"fused" rows run incubate's op in oar and Paddle, and the unfused composition in PyTorch (which
has no such op); "unfused" rows run the composition everywhere.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_incubate.py
"""
from harness import compare

BODY = r'''
rng = np.random.default_rng(0)
B, S, D, H = 8, 512, 1024, 16
x = T(rng.standard_normal((B, S, D), dtype=np.float32), True)
r = T(rng.standard_normal((B, S, D), dtype=np.float32), True)
w = T(rng.uniform(0.5, 1.5, D).astype(np.float32), True)
b = T(rng.standard_normal(D, dtype=np.float32), True)
g = T(rng.standard_normal((B, S, D), dtype=np.float32))
if FW == "torch":
    def rms_unfused(x, r, w):
        h = x + r
        return h * F.rsqrt((h * h).mean(-1, keepdim=True) + 1e-6) * w
    ln_unfused = lambda x, r, w, b: NF.layer_norm(x + r, [D], w, b, 1e-5)
    rms_fused, ln_fused = rms_unfused, ln_unfused
    swiglu = lambda t: NF.silu(t[..., :D // 2]) * t[..., D // 2:]
    smask = lambda s, m: F.softmax(s + m, -1)
else:
    IF = F.incubate.nn.functional
    def rms_unfused(x, r, w):
        h = x + r
        return h * F.rsqrt((h * h).mean(-1, keepdim=True) + 1e-6) * w
    ln_unfused = lambda x, r, w, b: NF.layer_norm(x + r, D, w, b, 1e-5)
    rms_fused = lambda x, r, w: IF.fused_rms_norm(x, w, None, 1e-6, 2, residual=r)[0]
    ln_fused = lambda x, r, w, b: IF.fused_layer_norm(x, w, b, 1e-5, begin_norm_axis=2, residual=r)[0]
    swiglu = lambda t: NF.swiglu(t)
    smask = lambda s, m: F.incubate.softmax_mask_fuse(s, m)
def case(name, fn, number):
    try:
        res[name] = best(fn, number)
    except Exception:  # Paddle's CPU build lacks some fused kernels (and their gradients)
        pass
case("rms_norm+residual fused fwd", lambda: rms_fused(x, r, w), 5)
case("rms_norm+residual unfused fwd", lambda: rms_unfused(x, r, w), 5)
case("rms_norm+residual fused fwd+bwd", lambda: grad(rms_fused(x, r, w), [x, r, w], g), 3)
case("rms_norm+residual unfused fwd+bwd", lambda: grad(rms_unfused(x, r, w), [x, r, w], g), 3)
case("layer_norm+residual fused fwd", lambda: ln_fused(x, r, w, b), 5)
case("layer_norm+residual unfused fwd", lambda: ln_unfused(x, r, w, b), 5)
case("layer_norm+residual fused fwd+bwd", lambda: grad(ln_fused(x, r, w, b), [x, r, w, b], g), 3)
case("layer_norm+residual unfused fwd+bwd", lambda: grad(ln_unfused(x, r, w, b), [x, r, w, b], g), 3)
gs = T(rng.standard_normal((B, S, D // 2), dtype=np.float32))
case("swiglu fwd", lambda: swiglu(x), 5)
case("swiglu fwd+bwd", lambda: grad(swiglu(x), [x], gs), 3)
s = T(rng.standard_normal((2, H, S, S), dtype=np.float32), True)
m = T(np.where(rng.random((2, 1, S, S)) < 0.1, -1e4, 0).astype(np.float32))
gm = T(rng.standard_normal((2, H, S, S), dtype=np.float32))
case("softmax_mask_fuse fwd", lambda: smask(s, m), 5)
case("softmax_mask_fuse fwd+bwd", lambda: grad(smask(s, m), [s], gm), 3)
'''

if __name__ == "__main__":
    compare(BODY)
