"""paddle.profiler's Profiler: a state machine over training steps (the scheduler says, per step,
whether to record) around the C++ recorder, with the trace handlers Paddle has."""
from __future__ import annotations

import datetime
import os
import socket
import time
import warnings
from enum import Enum

from .. import _C
from . import events as _events
from .result import ProfilerResult


class ProfilerState(Enum):
    """What the profiler does during a step: CLOSED (nothing), READY (records, and drops it: a
    warm-up), RECORD (records), RECORD_AND_RETURN (records, and hands the trace over at the end).

    Examples:
        >>> import oar.profiler as profiler
        >>> print(profiler.make_scheduler(closed=0, ready=0, record=2)(0))
        ProfilerState.RECORD
    """
    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


class ProfilerTarget(Enum):
    """Devices to profile. oar records host events (CPU); device kernels run inside the ops the
    host records.

    Examples:
        >>> import oar.profiler as profiler
        >>> prof = profiler.Profiler(targets=[profiler.ProfilerTarget.CPU], on_trace_ready=lambda p: None)
    """
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM_DEVICE = 3


def make_scheduler(*, closed: int, ready: int, record: int, repeat: int = 0, skip_first: int = 0):
    """A scheduler: after skip_first CLOSED steps, cycles of `closed` CLOSED steps, `ready` READY
    steps and `record` recorded steps (the last RECORD_AND_RETURN), `repeat` times (0: forever).

    Args:
        closed (int): Steps per cycle without profiling.
        ready (int): Warm-up steps per cycle (recorded and dropped).
        record (int): Recorded steps per cycle.
        repeat (int, optional): Cycles; 0 repeats until the end. Default: 0.
        skip_first (int, optional): Steps skipped before the first cycle. Default: 0.

    Returns:
        callable: step number -> ProfilerState.

    Examples:
        >>> import oar.profiler as profiler
        >>> s = profiler.make_scheduler(closed=1, ready=1, record=2, repeat=1)
        >>> print([s(i).name for i in range(5)])
        ['CLOSED', 'READY', 'RECORD', 'RECORD_AND_RETURN', 'CLOSED']
    """
    def scheduler(step: int) -> ProfilerState:
        step -= skip_first
        if step < 0:
            return ProfilerState.CLOSED
        period = closed + ready + record
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        at = step % period
        if at < closed:
            return ProfilerState.CLOSED
        if at < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD if at < period - 1 else ProfilerState.RECORD_AND_RETURN
    return scheduler


def _range_scheduler(start: int, end: int):
    """scheduler=(start, end): record steps start .. end - 1, return at end - 1."""
    def scheduler(step: int) -> ProfilerState:
        if step < start or step >= end:
            return ProfilerState.CLOSED
        return ProfilerState.RECORD_AND_RETURN if step == end - 1 else ProfilerState.RECORD
    return scheduler


def _always_record(step: int) -> ProfilerState:
    return ProfilerState.RECORD


def _system_cpu_ticks():
    """(busy, total) jiffies of all CPUs from /proc/stat (None where there is no such file)."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _utilization_clock():
    return time.perf_counter(), time.process_time(), _system_cpu_ticks()


def _utilization(begin, end):
    """CPU utilisation between two _utilization_clock() readings, in % as Paddle's Device Summary."""
    wall = end[0] - begin[0]
    out = {"process_utilization": 100.0 * (end[1] - begin[1]) / wall if wall > 0 else 0.0}
    if begin[2] and end[2] and end[2][1] > begin[2][1]:
        out["system_utilization"] = 100.0 * (end[2][0] - begin[2][0]) / (end[2][1] - begin[2][1])
    return out


def _trace_name(worker_name, suffix):
    worker_name = worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"
    now = datetime.datetime.now().strftime("%Y_%m_%d_%H_%M_%S_%f")
    return f"{worker_name}_time_{now}.{suffix}"


def _trace_handler(dir_name, worker_name, format):
    """on_trace_ready writing each trace into dir_name (created now) in the given export format."""
    try:
        os.makedirs(dir_name, exist_ok=True)
    except OSError as e:
        raise RuntimeError(f"Can not create directory '{dir_name}' for saving profiling results.") from e

    def handle(prof):
        prof.export(os.path.join(dir_name, _trace_name(worker_name, f"paddle_trace.{format}")), format=format)
    return handle


def export_chrome_tracing(dir_name: str, worker_name: str | None = None):
    """A trace handler (on_trace_ready) writing each trace as Chrome trace-event JSON (open it in
    Perfetto or chrome://tracing) into dir_name, named <worker>_time_<time>.paddle_trace.json.

    Args:
        dir_name (str): The folder (created when missing).
        worker_name (str, optional): The file's prefix. Default: None (host_<hostname>pid_<pid>).

    Returns:
        callable: Profiler -> None.

    Examples:
        >>> import tempfile
        >>> import oar.profiler as profiler
        >>> handler = profiler.export_chrome_tracing(tempfile.mkdtemp())
    """
    return _trace_handler(dir_name, worker_name, "json")


def export_protobuf(dir_name: str, worker_name: str | None = None):
    """A trace handler writing each trace in oar's own result format (load it back with
    load_profiler_result) into dir_name, named <worker>_time_<time>.paddle_trace.pb. The format
    is oar's (JSON inside), not Paddle's protobuf schema.

    Args:
        dir_name (str): The folder (created when missing).
        worker_name (str, optional): The file's prefix. Default: None (host_<hostname>pid_<pid>).

    Returns:
        callable: Profiler -> None.

    Examples:
        >>> import tempfile
        >>> import oar.profiler as profiler
        >>> handler = profiler.export_protobuf(tempfile.mkdtemp())
    """
    return _trace_handler(dir_name, worker_name, "pb")


class Profiler:
    """Records what the program runs (every op call with its thread, times and, with record_shapes,
    input shapes; RecordEvent ranges; the Forward/Backward/Optimization/Dataloader phases; one
    ProfileStep per step) and reports it: summary() prints Paddle's tables, export() and the
    trace handlers write files.

    Args:
        targets (list, optional): ProfilerTarget values. Default: None (CPU, and the current device).
        scheduler (callable|tuple, optional): step -> ProfilerState (see make_scheduler), or
            (start, end) to record steps start .. end - 1. Default: None (record throughout).
        on_trace_ready (callable, optional): Called with the profiler when a trace is complete.
            Default: None (export_chrome_tracing('./profiler_log/')).
        record_shapes (bool, optional): Keep each op's input shapes and dtypes. Default: False.
        profile_memory (bool, optional): Report the host allocator's peak memory. Default: False.
        timer_only (bool, optional): Only time the steps (step_info), without recording. Default: False.
        emit_nvtx (bool, optional): Accepted for compatibility (no NVTX ranges). Default: False.
        custom_device_types (list, optional): Accepted for compatibility. Default: [].
        with_flops (bool, optional): Accepted for compatibility (FLOPs are not counted). Default: False.

    Examples:
        >>> import oar
        >>> import oar.profiler as profiler
        >>> with profiler.Profiler(scheduler=(1, 3), on_trace_ready=lambda p: None) as prof:
        ...     for step in range(4):
        ...         y = oar.ones([4, 4]).matmul(oar.ones([4, 4]))
        ...         prof.step()
        >>> print(sorted({e.name for e in prof.profiler_result.events if e.type == "Operator"}))
        ['matmul', 'ones']
    """

    def __init__(self, *, targets=None, scheduler=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, timer_only=False, emit_nvtx=False, custom_device_types=None,
                 with_flops=False):
        self.targets = list(targets) if targets is not None else [ProfilerTarget.CPU]
        if isinstance(scheduler, (tuple, list)):
            if len(scheduler) != 2 or scheduler[0] < 0 or scheduler[1] <= scheduler[0]:
                raise ValueError(f"scheduler as a tuple must be (start, end) with 0 <= start < end, got {scheduler}")
            if scheduler[0] == 0:
                warnings.warn("Profiler will record data after enabling profiler immediately, some data collected "
                              "at the beginning of profiling may be 'noisy' because of overhead.")
            scheduler = _range_scheduler(*scheduler)
        self.scheduler = scheduler or _always_record
        self.on_trace_ready = on_trace_ready if on_trace_ready is not None else export_chrome_tracing("./profiler_log/")
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.timer_only = timer_only
        self.step_num = 0
        self.current_state = ProfilerState.CLOSED
        self.profiler_result = None
        self._step_start_ns = None
        self._step_times = []  # (seconds, samples) of the steps since the last step_info
        self._step_timer = None
        self._clock_at_begin = None

    # ---- the state machine ----

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def _recording(self, state):
        return state in (ProfilerState.READY, ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)

    def _begin_trace(self):
        if self.profile_memory:
            from ..device import reset_max_memory_allocated, reset_max_memory_reserved
            reset_max_memory_allocated("cpu")
            reset_max_memory_reserved("cpu")
        _C._profiler_start(self.record_shapes)
        _events.recording = True
        self._clock_at_begin = _utilization_clock()

    def _end_trace(self):
        _events.recording = False
        raw = _C._profiler_stop()
        return [_events.Event(*e) for e in raw]

    def start(self):
        """Starts profiling at step 0 (recording if the scheduler says so)."""
        self._step_timer = time.perf_counter()
        _events.timing = True
        if self.timer_only:
            return
        self.current_state = self.scheduler(self.step_num)
        if self._recording(self.current_state):
            self._begin_trace()
            self._step_start_ns = _C._profiler_now_ns()

    def step(self, num_samples: int | None = None):
        """Ends the current step and begins the next: records the step's ProfileStep range, and
        starts, stops or hands over the trace as the scheduler's next state requires.

        Args:
            num_samples (int, optional): Samples in this step, for step_info's throughput. Default: None.
        """
        now = time.perf_counter()
        if self._step_timer is not None:
            self._step_times.append((now - self._step_timer, num_samples))
        self._step_timer = now
        if self.timer_only:
            self.step_num += 1
            return
        previous = self.current_state
        if self._recording(previous) and self._step_start_ns is not None:
            _events.record_range(f"ProfileStep#{self.step_num}", "ProfileStep", self._step_start_ns)
        self.step_num += 1
        self.current_state = self.scheduler(self.step_num)
        self._transition(previous, self.current_state)
        self._step_start_ns = _C._profiler_now_ns() if self._recording(self.current_state) else None

    def _transition(self, previous, current):
        if previous == ProfilerState.CLOSED:
            if self._recording(current):
                self._begin_trace()
        elif previous == ProfilerState.READY:
            if current in (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN):
                self._end_trace()  # the warm-up's events are dropped
                self._begin_trace()
            elif current == ProfilerState.CLOSED:
                self._end_trace()
        elif previous == ProfilerState.RECORD:
            if current == ProfilerState.CLOSED:
                self._finish_trace()
        elif previous == ProfilerState.RECORD_AND_RETURN:
            self._finish_trace()
            if self._recording(current):
                self._begin_trace()

    def _finish_trace(self):
        events = self._end_trace()
        self.profiler_result = ProfilerResult(events, peak_memory=self._peak_memory(),
                                              extra=_utilization(self._clock_at_begin, _utilization_clock()))
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _peak_memory(self):
        if not self.profile_memory:
            return None
        from ..device import max_memory_allocated, max_memory_reserved
        return {"allocated": max_memory_allocated("cpu"), "reserved": max_memory_reserved("cpu")}

    def stop(self):
        """Stops profiling; a trace being recorded is finished and handed to on_trace_ready."""
        _events.timing = False
        if self.timer_only:
            return
        if self._recording(self.current_state) and self._step_start_ns is not None:
            _events.record_range(f"ProfileStep#{self.step_num}", "ProfileStep", self._step_start_ns)
        if self.current_state in (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN):
            self._finish_trace()
        elif self.current_state == ProfilerState.READY:
            self._end_trace()
        self.current_state = ProfilerState.CLOSED
        self._step_start_ns = None

    # ---- reports ----

    def step_info(self, unit: str | None = None) -> str:
        """The average step time since the last call, and the throughput when steps gave num_samples.

        Args:
            unit (str, optional): The unit of the samples in the throughput. Default: None ('samples'
                when num_samples were given, else 'steps').

        Returns:
            str: e.g. 'reader_cost: 0.00000 s batch_cost: 0.01234 s ips: 81.037 steps/s'.
        """
        times = self._step_times
        self._step_times = []
        if not times:
            return "reader_cost: 0.00000 s batch_cost: 0.00000 s ips: 0.000 steps/s"
        batch_cost = sum(t for t, _ in times) / len(times)
        samples = [n for _, n in times if n is not None]
        if samples:
            ips = sum(samples) / sum(t for t, _ in times)
            unit = unit or "samples"
        else:
            ips = 1.0 / batch_cost if batch_cost else 0.0
            unit = "steps"
        reader_cost = _events.take_reader_seconds() / len(times)
        return f"reader_cost: {reader_cost:.5f} s batch_cost: {batch_cost:.5f} s ips: {ips:.3f} {unit}/s"

    def export(self, path: str = "", format: str = "json"):
        """Writes the last trace: 'json' as Chrome trace-event JSON, 'pb' in oar's result format.

        Args:
            path (str): The file.
            format (str, optional): 'json' or 'pb'. Default: 'json'.
        """
        if self.profiler_result is None:
            raise RuntimeError("Profiler.export: no trace has been recorded yet (record a step first)")
        if format == "json":
            self.profiler_result.save_chrome_trace(path)
        elif format == "pb":
            self.profiler_result.save(path)
        else:
            raise ValueError(f"Profiler.export: format should be 'json' or 'pb', got '{format}'")

    def summary(self, sorted_by=None, op_detail=True, thread_sep=False, time_unit="ms", views=None):
        """Prints Paddle's summary tables of the last trace: device utilisation, overview by event
        type, model phases, operators (with input shapes under op_detail when recorded), user
        ranges, and memory when profile_memory.

        Args:
            sorted_by (SortedKeys, optional): The operators' order. Default: None (CPUTotal).
            op_detail (bool, optional): List each operator's input shapes under it. Default: True.
            thread_sep (bool, optional): One operator table per thread. Default: False.
            time_unit (str, optional): 's', 'ms', 'us' or 'ns'. Default: 'ms'.
            views (SummaryView|list, optional): The tables to print. Default: None (all).
        """
        from .statistic import SortedKeys, print_summary
        if self.profiler_result is None:
            raise RuntimeError("Profiler.summary: no trace has been recorded yet (record a step first)")
        print_summary(self.profiler_result, sorted_by or SortedKeys.CPUTotal, op_detail, thread_sep, time_unit,
                      views)
