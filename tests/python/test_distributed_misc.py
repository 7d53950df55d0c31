"""The smaller names of oar.distributed: the parameter-server entry rules, is_available,
get_backend, create_nccl_config, and across 2 processes: scatter/send/recv of object lists,
shutting a group down and restarting it, and the standalone Gloo context (gloo_*)."""
import numpy as np
import pytest

import oar
import oar.distributed as dist
from dist_util import all_ok, free_port, run_job

pytestmark = pytest.mark.host_only


def test_entries_match_paddle():
    assert dist.CountFilterEntry(5)._to_attr() == "count_filter_entry:5"
    assert dist.ShowClickEntry("s", "c")._to_attr() == "show_click_entry:s:c"
    assert dist.ProbabilityEntry(0.5)._to_attr() == "probability_entry:0.5"
    for bad in (lambda: dist.CountFilterEntry(-1), lambda: dist.CountFilterEntry(1.5),
                lambda: dist.ProbabilityEntry(1.0), lambda: dist.ProbabilityEntry(1),
                lambda: dist.ShowClickEntry("s", 3)):
        with pytest.raises(ValueError):
            bad()


def test_availability_and_backend():
    assert dist.is_available() == bool(oar._C._dist.available)
    assert dist.create_nccl_config({"commName": "x"}) is None and dist.create_nccl_config() is None
    with pytest.raises(TypeError):
        dist.create_nccl_config(3)
    with pytest.raises(RuntimeError, match="init_parallel_env"):
        dist.get_backend()
    with pytest.raises(RuntimeError, match="not initialized"):
        dist.gloo_barrier()
    with pytest.raises(ValueError, match="rank_num"):
        dist.gloo_init_parallel_env(0, 1, "127.0.0.1:1")


@pytest.mark.skipif(not oar._C._dist.available, reason="oar was built without Gloo")
def test_two_ranks(tmp_path):
    port = free_port()
    all_ok(run_job(tmp_path, 2, f"""
        dist.init_parallel_env()
        r = dist.get_rank()
        assert dist.get_backend() == "GLOO"
        out = []
        dist.scatter_object_list(out, [["a", 1], {{"b": 2}}] if r == 0 else None, src=0)
        assert out == ([["a", 1]] if r == 0 else [{{"b": 2}}]), out
        if r == 1:
            dist.send_object_list([np.arange(3), "x"], dst=0)
        else:
            got = [None, None]
            dist.recv_object_list(got, src=1)
            assert got[0].tolist() == [0, 1, 2] and got[1] == "x"
        g = dist.new_group([0, 1])
        dist.shutdown_process_group(g)
        try:
            dist.all_reduce(oar.ones([1]), group=g)
        except RuntimeError as e:
            assert "shut down" in str(e)
        else:
            raise AssertionError("a shut-down group must refuse collectives")
        dist.restart_process_group(g)
        x = oar.ones([1])
        dist.all_reduce(x, group=g)
        assert x.item() == 2.0
        dist.gloo_init_parallel_env(r, 2, "127.0.0.1:{port}")
        dist.gloo_barrier()
        dist.gloo_release()
        print("ok")
    """))
