"""Graph message passing speed (oar.geometric vs paddle.geometric, and PyTorch's index_add /
scatter_reduce, its usual way to write the same): send_u_recv (sum, mean, max), send_ue_recv,
send_uv and segment_sum on a random graph, forward and forward + backward, plus neighbour sampling.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_geometric.py
"""
from harness import compare

BODY = r'''
N, E, Fd = 20000, 200000, 64
rng = np.random.default_rng(0)
src_np = rng.integers(0, N, E).astype(np.int64)
dst_np = rng.integers(0, N, E).astype(np.int64)
x = T(rng.standard_normal((N, Fd), dtype=np.float32), True)
y = T(rng.standard_normal((E, 1), dtype=np.float32), True)
g = T(rng.standard_normal((N, Fd), dtype=np.float32))
src, dst = T(src_np), T(dst_np)
if FW == "torch":
    idx = dst[:, None].expand(-1, Fd)
    def u_recv(x, reduce):
        if reduce == "sum":
            return F.zeros(N, Fd).index_add(0, dst, x[src])
        return F.zeros(N, Fd).scatter_reduce(0, idx, x[src], "amax" if reduce == "max" else "mean", include_self=False)
    ue_recv = lambda x, y: F.zeros(N, Fd).index_add(0, dst, x[src] * y)
    uv = lambda x: x[src] + x[dst]
    seg_ids = F.sort(dst).values
    seg = lambda x: F.zeros(N, Fd).index_add(0, seg_ids[:N], x)
else:
    geo = F.geometric
    u_recv = lambda x, reduce: geo.send_u_recv(x, src, dst, reduce)
    ue_recv = lambda x, y: geo.send_ue_recv(x, y, src, dst, "mul", "sum")
    uv = lambda x: geo.send_uv(x, x, src, dst, "add")
    seg_ids = T(np.sort(dst_np)[:N])
    seg = lambda x: geo.segment_sum(x, seg_ids)
for r in ("sum", "mean", "max"):
    res[f"send_u_recv {r} fwd"] = best(lambda: u_recv(x, r), 3)
    res[f"send_u_recv {r} fwd+bwd"] = best(lambda: grad(u_recv(x, r), [x], g), 3)
res["send_ue_recv mul/sum fwd+bwd"] = best(lambda: grad(ue_recv(x, y), [x, y], g), 3)
ge = T(rng.standard_normal((E, Fd), dtype=np.float32))
res["send_uv add fwd"] = best(lambda: uv(x), 3)
res["send_uv add fwd+bwd"] = best(lambda: grad(uv(x), [x], ge), 3)
res["segment_sum fwd"] = best(lambda: seg(x), 10)
if FW != "torch":
    deg = rng.integers(0, 40, 100000)
    colptr = T(np.concatenate([[0], np.cumsum(deg)]).astype(np.int64))
    row = T(rng.integers(0, 100000, int(deg.sum())).astype(np.int64))
    nodes = T(rng.integers(0, 100000, 20000).astype(np.int64))
    res["sample_neighbors 20k nodes k=10"] = best(lambda: geo.sample_neighbors(row, colptr, nodes, sample_size=10), 3)
'''

if __name__ == "__main__":
    compare(BODY)
