"""Sorting, top-k and gather/scatter: oar beside PyTorch and Paddle in the same run.
Usage: bash tools/setup_bench.sh && .venv/bin/python bench/bench_search.py
"""
from harness import compare

BODY = r'''
rng = np.random.default_rng(0)
x = T(rng.random((1024, 4096), dtype=np.float32))
last = {"dim": -1} if FW == "torch" else {"axis": -1}
res["topk k=10 of [1024, 4096] (last)"] = best(lambda: F.topk(x, 10, **last), 5)
res["argsort [1024, 4096] (last)"] = best(lambda: F.argsort(x, **last), 3)
res["sort [1024, 4096] (last)"] = best(lambda: F.sort(x, **last), 3)
table = T(rng.random((100000, 64), dtype=np.float32))
ids = T(rng.integers(0, 100000, 65536))
res["index_select 64K rows of [100K, 64]"] = best(
    lambda: F.index_select(table, ids, 0) if FW != "torch" else F.index_select(table, 0, ids), 20)
idx2 = T(rng.integers(0, 4096, (1024, 64)))
res["take_along_axis [1024, 64] of [1024, 4096]"] = best(
    lambda: F.take_along_axis(x, idx2, 1) if FW != "torch" else F.take_along_dim(x, idx2, 1), 20)
upd = T(rng.random((65536, 64), dtype=np.float32))
res["scatter-add 64K rows into [100K, 64]"] = best(
    lambda: F.index_add(table, ids, 0, upd) if FW != "torch" else table.index_add(0, ids, upd), 10)
'''

if __name__ == "__main__":
    compare(BODY)
