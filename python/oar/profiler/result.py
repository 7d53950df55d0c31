"""A recorded trace: its events, the Chrome trace-event file made from them, and oar's own result
file (what export_protobuf writes and load_profiler_result reads back)."""
from __future__ import annotations

import json
import os

from ..framework.atomic_files import write_file
from .events import Event

_FORMAT = "oar-profiler-result"
_VERSION = 1


class ProfilerResult:
    """The events of one trace (Profiler.profiler_result; load_profiler_result's result).

    Attributes:
        events (list): Event records (name, type, start_ns, end_ns, thread_id, input_shapes,
            input_dtypes), in the order they ended.
        peak_memory (dict|None): The host allocator's peak 'allocated' and 'reserved' bytes during
            the trace, when the profiler had profile_memory.
        extra (dict): The trace's CPU utilisation ('process_utilization', 'system_utilization', in %).
    """

    def __init__(self, events, peak_memory=None, extra=None):
        self.events = list(events)
        self.peak_memory = peak_memory
        self.extra = dict(extra or {})

    def get_data(self):
        """The events, as a list of Event."""
        return self.events

    def chrome_trace(self):
        """The trace as Chrome trace-event JSON (a dict): one complete ('X') event per event, one
        row per thread, times in microseconds from the trace's first event; op events carry their
        input shapes and dtypes in args when recorded."""
        origin = min((e.start_ns for e in self.events), default=0)
        pid = os.getpid()
        trace = [{"name": "process_name", "ph": "M", "pid": pid, "args": {"name": f"oar (pid {pid})"}}]
        for tid in sorted({e.thread_id for e in self.events}):
            trace.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": f"thread {tid}"}})
        for e in sorted(self.events, key=lambda e: (e.start_ns, -e.end_ns)):
            item = {"name": e.name, "cat": e.type, "ph": "X", "pid": pid, "tid": e.thread_id,
                    "ts": (e.start_ns - origin) / 1e3, "dur": max(e.end_ns - e.start_ns, 0) / 1e3}
            if e.input_shapes:
                item["args"] = {"Input Dims": e.input_shapes, "Input type": e.input_dtypes}
            trace.append(item)
        return {"displayTimeUnit": "ms", "traceEvents": trace}

    def save_chrome_trace(self, path):
        """Writes chrome_trace() to path (crash-safely: a temporary file renamed into place)."""
        data = json.dumps(self.chrome_trace()).encode()
        write_file(path, lambda f: f.write(data))

    def save(self, path, format="pb"):
        """Writes the result in oar's own format (JSON inside; load it with load_profiler_result)."""
        body = {"format": _FORMAT, "version": _VERSION, "peak_memory": self.peak_memory, "extra": self.extra,
                "events": [[e.name, e.type, e.start_ns, e.end_ns, e.thread_id, e.input_shapes, e.input_dtypes]
                           for e in self.events]}
        data = json.dumps(body).encode()
        write_file(path, lambda f: f.write(data))


def load_profiler_result(filename: str) -> ProfilerResult:
    """Reads a result written by export_protobuf or Profiler.export(format='pb').

    Args:
        filename (str): The file.

    Returns:
        ProfilerResult: its events (print them with oar.profiler's summary tables:
        ``Profiler``'s summary of a loaded result, or statistic.print_summary).

    Examples:
        >>> import oar.profiler as profiler
        >>> # result = profiler.load_profiler_result("./profiler_log/host_x_time_y.paddle_trace.pb")
    """
    try:
        with open(filename, "rb") as f:
            body = json.loads(f.read().decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"load_profiler_result: '{filename}' is not an oar profiler result ({e})") from None
    if not isinstance(body, dict) or body.get("format") != _FORMAT:
        raise ValueError(f"load_profiler_result: '{filename}' is not an oar profiler result (Paddle's protobuf "
                         "traces are not read)")
    if body.get("version") != _VERSION:
        raise ValueError(f"load_profiler_result: '{filename}' has version {body.get('version')}, "
                         f"this oar reads version {_VERSION}")
    try:
        events = [Event(str(n), str(t), int(s), int(e), int(tid), list(shapes), list(dtypes))
                  for n, t, s, e, tid, shapes, dtypes in body["events"]]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"load_profiler_result: '{filename}' has malformed events ({e})") from None
    return ProfilerResult(events, body.get("peak_memory"), body.get("extra"))
