"""nn.functional speed: batch_norm, layer_norm, softmax, cross_entropy (forward and forward +
backward) and the embedding backward, oar beside PyTorch and Paddle in the same run.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_nn.py
"""
from harness import compare

BODY = r'''
if FW == "torch":
    bn = lambda x, rm, rv, w, b: NF.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1)
    ln = lambda x, w, b: NF.layer_norm(x, [256], w, b)
    sm = lambda x: NF.softmax(x, dim=-1)
else:
    bn = lambda x, rm, rv, w, b: NF.batch_norm(x, rm, rv, w, b, training=True)
    ln = lambda x, w, b: NF.layer_norm(x, 256, w, b)
    sm = lambda x: NF.softmax(x, axis=-1)
rng = np.random.default_rng(0)
# batch_norm: [32, 64, 56, 56], training, forward + backward (x, weight, bias)
x = T(rng.standard_normal((32, 64, 56, 56), dtype=np.float32), True)
w, b = T(np.ones(64, np.float32), True), T(np.zeros(64, np.float32), True)
rm, rv = T(np.zeros(64, np.float32)), T(np.ones(64, np.float32))
g = T(rng.standard_normal((32, 64, 56, 56), dtype=np.float32))
res["batch_norm 32x64x56x56 fwd"] = best(lambda: bn(x, rm, rv, w, b), 3, 5)
res["batch_norm 32x64x56x56 fwd+bwd"] = best(lambda: grad(bn(x, rm, rv, w, b), [x, w, b], g), 3, 5)
del x, g
# layer_norm: [2048, 256], forward + backward (x, weight, bias)
x = T(rng.standard_normal((16 * 128, 256), dtype=np.float32), True)
w, b = T(np.ones(256, np.float32), True), T(np.zeros(256, np.float32), True)
g = T(rng.standard_normal((16 * 128, 256), dtype=np.float32))
res["layer_norm 2048x256 fwd"] = best(lambda: ln(x, w, b), 20)
res["layer_norm 2048x256 fwd+bwd"] = best(lambda: grad(ln(x, w, b), [x, w, b], g), 20)
# softmax: [4096, 1000] along the last axis
x = T(rng.standard_normal((4096, 1000), dtype=np.float32), True)
g = T(rng.standard_normal((4096, 1000), dtype=np.float32))
res["softmax 4096x1000 fwd"] = best(lambda: sm(x), 10)
res["softmax 4096x1000 fwd+bwd"] = best(lambda: grad(sm(x), [x], g), 10)
# cross_entropy: [4096, 1000] logits, int64 labels, mean, forward + backward
lab = T(rng.integers(0, 1000, 4096).astype(np.int64))
res["cross_entropy 4096x1000 fwd"] = best(lambda: NF.cross_entropy(x, lab), 10)
res["cross_entropy 4096x1000 fwd+bwd"] = best(lambda: grad(NF.cross_entropy(x, lab), [x]), 10)
# embedding: [30000, 256] table, [64, 128] ids, forward + backward (dense weight grad)
wt = T(rng.standard_normal((30000, 256), dtype=np.float32), True)
ids = T(rng.integers(0, 30000, (64, 128)).astype(np.int64))
g = T(rng.standard_normal((64, 128, 256), dtype=np.float32))
res["embedding fwd"] = best(lambda: NF.embedding(ids, wt), 20)
res["embedding fwd+bwd"] = best(lambda: grad(NF.embedding(ids, wt), [wt], g), 10)
'''

if __name__ == "__main__":
    compare(BODY)
