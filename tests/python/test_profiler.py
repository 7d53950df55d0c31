"""oar.profiler: the scheduler's states against Paddle's, what a trace records (ops with shapes,
phases, RecordEvent, ProfileStep per recorded step), the summary tables, Chrome trace files,
oar's result files, the static executor, and nothing recorded or installed when off."""
import glob
import json
import os

import numpy as np
import pytest

import oar
import oar.profiler as profiler
from oar.profiler import events as profiler_events


def _train_steps(prof, steps, record_name="step"):
    net = oar.nn.Sequential(oar.nn.Linear(8, 16), oar.nn.ReLU(), oar.nn.Linear(16, 2))
    opt = oar.optimizer.Adam(parameters=net.parameters())
    data = oar.io.DataLoader(oar.io.TensorDataset([oar.randn([8 * steps, 8])]), batch_size=8)
    for (x,) in data:
        with profiler.RecordEvent(record_name):
            loss = net(x).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
        prof.step(num_samples=8)


@pytest.mark.parametrize("kwargs", [dict(closed=1, ready=1, record=2, repeat=2, skip_first=1),
                                    dict(closed=0, ready=0, record=1), dict(closed=2, ready=0, record=3, repeat=1)])
def test_make_scheduler_matches_paddle(kwargs):
    mine = profiler.make_scheduler(**kwargs)
    expected = {
        (1, 1, 2, 2, 1): ["CLOSED", "CLOSED", "READY", "RECORD", "RECORD_AND_RETURN", "CLOSED", "READY", "RECORD",
                          "RECORD_AND_RETURN", "CLOSED", "CLOSED"],
        (0, 0, 1, 0, 0): ["RECORD_AND_RETURN"] * 11,
        (2, 0, 3, 1, 0): ["CLOSED", "CLOSED", "RECORD", "RECORD", "RECORD_AND_RETURN"] + ["CLOSED"] * 6,
    }[(kwargs["closed"], kwargs["ready"], kwargs["record"], kwargs.get("repeat", 0), kwargs.get("skip_first", 0))]
    assert [mine(i).name for i in range(11)] == expected
    paddle = pytest.importorskip("paddle")
    theirs = paddle.profiler.make_scheduler(**kwargs)
    assert [mine(i).name for i in range(11)] == [theirs(i).name for i in range(11)]


def test_a_trace_records_ops_phases_and_steps(tmp_path):
    traces = []
    prof = profiler.Profiler(scheduler=(1, 3), record_shapes=True, on_trace_ready=lambda p: traces.append(p))
    prof.start()
    _train_steps(prof, 4)
    prof.stop()
    assert len(traces) == 1  # handed over once, at the end of step 2
    events = prof.profiler_result.events
    types = {e.type for e in events}
    assert {"Operator", "Forward", "Backward", "Optimization", "Dataloader", "ProfileStep",
            "PythonUserDefined"} <= types
    steps = sorted(e.name for e in events if e.type == "ProfileStep")
    assert steps == ["ProfileStep#1", "ProfileStep#2"]  # steps 0 and 3 were not recorded
    ops = [e for e in events if e.type == "Operator"]
    names = {e.name for e in ops}
    # linear is one op (a composite is observed as a whole); backward's matmuls are ops of their own
    assert {"linear", "relu", "mean", "matmul", "adam_"} <= names
    linear = next(e for e in ops if e.name == "linear")
    assert linear.input_shapes[:2] == [[8, 8], [8, 16]] and linear.input_dtypes[0] == "float32"
    assert all(e.end_ns >= e.start_ns and e.thread_id > 0 for e in events)
    assert len([e for e in events if e.type == "PythonUserDefined"]) == 2
    # Forward is the outermost layer only: one per step, not one per sublayer.
    assert len([e for e in events if e.type == "Forward"]) == 2


def test_ready_steps_are_dropped_and_repeats_hand_over_each_cycle():
    results = []
    prof = profiler.Profiler(scheduler=profiler.make_scheduler(closed=1, ready=1, record=1, repeat=2),
                             on_trace_ready=lambda p: results.append(p.profiler_result))
    with prof:
        for _ in range(7):
            oar.ones([2, 2]).sum()
            prof.step()
    assert len(results) == 2
    for r, step in zip(results, (2, 5)):
        assert [e.name for e in r.events if e.type == "ProfileStep"] == [f"ProfileStep#{step}"]
        assert {e.name for e in r.events if e.type == "Operator"} == {"ones", "sum"}
        assert len([e for e in r.events if e.type == "Operator"]) == 2  # the READY step's ops are gone


def test_nothing_is_recorded_when_off():
    assert not oar._C._profiler_running()
    prof = profiler.Profiler(scheduler=(2, 3), on_trace_ready=lambda p: None)
    prof.start()
    assert not oar._C._profiler_running() and not profiler_events.recording  # step 0 is CLOSED
    oar.ones([2]).sum()
    prof.step()
    prof.step()
    assert oar._C._profiler_running()
    prof.stop()
    assert not oar._C._profiler_running() and not profiler_events.recording
    with profiler.RecordEvent("ignored"):
        oar.ones([2]).sum()  # no profiler: nothing recorded, nothing raised


def test_summary_tables(capsys):
    prof = profiler.Profiler(record_shapes=True, profile_memory=True, on_trace_ready=lambda p: None)
    with prof:
        _train_steps(prof, 2, record_name="my_range")
    prof.summary(sorted_by=profiler.SortedKeys.CPUTotal, op_detail=True, time_unit="us")
    out = capsys.readouterr().out
    for title in ("Device Summary", "Overview Summary", "Model Summary", "Operator Summary", "UserDefined Summary",
                  "Memory Summary"):
        assert title in out
    assert "Time unit: us" in out
    assert "float32[8, 8], float32[8, 16], float32[16]" in out  # op_detail: the first linear's input shapes
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert lines["my_range"][1] == "2"  # calls
    assert lines["linear"][1] == "4" and lines["matmul"][1] == "6"  # per step: 2 linears; 3 backward matmuls
    prof.summary(views=profiler.SummaryView.OperatorView, thread_sep=True, op_detail=False)
    out = capsys.readouterr().out
    assert "Thread: " in out and "Overview Summary" not in out and "float32[8, 8]" not in out
    with pytest.raises(ValueError, match="time_unit"):
        prof.summary(time_unit="min")


def test_chrome_trace_and_result_files(tmp_path):
    prof = profiler.Profiler(record_shapes=True, on_trace_ready=profiler.export_chrome_tracing(str(tmp_path / "log")))
    with prof:
        _train_steps(prof, 2)
    (path,) = glob.glob(str(tmp_path / "log" / "*.paddle_trace.json"))
    assert os.path.basename(path).startswith(f"host_") and f"pid_{os.getpid()}_time_" in path
    with open(path) as f:
        trace = json.load(f)
    events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert {"matmul", "Forward", "Backward", "ProfileStep#0", "step"} <= {e["name"] for e in events}
    assert all(e["dur"] >= 0 and e["ts"] >= 0 and isinstance(e["tid"], int) for e in events)
    assert any(e["name"] == "thread_name" for e in trace["traceEvents"])
    assert any("Input Dims" in e.get("args", {}) for e in events)
    prof.export(str(tmp_path / "again.json"))
    prof.export(str(tmp_path / "result.pb"), format="pb")
    loaded = profiler.load_profiler_result(str(tmp_path / "result.pb"))
    assert [(e.name, e.start_ns) for e in loaded.events] == [(e.name, e.start_ns) for e in prof.profiler_result.events]
    (tmp_path / "bad.pb").write_bytes(b"\x08\x01garbage")
    with pytest.raises(ValueError, match="not an oar profiler result"):
        profiler.load_profiler_result(str(tmp_path / "bad.pb"))
    with pytest.raises(ValueError, match="format should be 'json' or 'pb'"):
        prof.export(str(tmp_path / "x"), format="xml")
    handler = profiler.export_protobuf(str(tmp_path / "pb"))
    handler(prof)
    assert glob.glob(str(tmp_path / "pb" / "*.paddle_trace.pb"))


def test_static_executor_ops_are_recorded():
    oar.enable_static()
    try:
        main, startup = oar.static.Program(), oar.static.Program()
        with oar.static.program_guard(main, startup):
            x = oar.static.data("x", [4, 3], "float32")
            y = oar.nn.functional.relu(oar.matmul(x, x, transpose_y=True))
        exe = oar.static.Executor()
        prof = profiler.Profiler(on_trace_ready=lambda p: None)
        with prof:
            exe.run(main, feed={"x": np.ones((4, 3), np.float32)}, fetch_list=[y])
    finally:
        oar.disable_static()
    assert {"matmul", "relu"} <= {e.name for e in prof.profiler_result.events if e.type == "Operator"}


def test_timer_only_and_step_info():
    prof = profiler.Profiler(timer_only=True, on_trace_ready=lambda p: None)
    with prof:
        _train_steps(prof, 3)
        info = prof.step_info(unit="images")
    assert prof.profiler_result is None and not oar._C._profiler_running()
    assert info.startswith("reader_cost: ") and " batch_cost: " in info and info.endswith(" images/s")
    assert float(info.split("reader_cost: ")[1].split(" s")[0]) > 0  # the DataLoader's time was counted


def test_bad_arguments():
    with pytest.raises(ValueError, match="start, end"):
        profiler.Profiler(scheduler=(3, 1))
    with pytest.raises(RuntimeError, match="no trace has been recorded"):
        profiler.Profiler(on_trace_ready=lambda p: None).summary()


def test_predictor_ops_are_recorded_and_results_unchanged(tmp_path):
    from oar.static import InputSpec
    net = oar.nn.Sequential(oar.nn.Linear(6, 5), oar.nn.ReLU(), oar.nn.Linear(5, 3), oar.nn.Sigmoid())
    net.eval()
    prefix = str(tmp_path / "model")
    oar.jit.save(net, prefix, input_spec=[InputSpec([None, 6], "float32", "x")])
    predictor = oar.inference.create_predictor(oar.inference.Config(prefix + ".pdmodel", prefix + ".pdiparams"))
    x = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)

    def run():
        predictor.get_input_handle("x").copy_from_cpu(x)
        predictor.run()
        return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    plain = run()
    prof = profiler.Profiler(on_trace_ready=lambda p: None)
    with prof:
        profiled = run()
    np.testing.assert_array_equal(plain, profiled)
    ops = [e.name for e in prof.profiler_result.events if e.type == "Operator"]
    assert ops  # every op the predictor ran, in-place variants included (they take the op path when observed)
    assert any("sigmoid" in name or "fused" in name for name in ops)
