"""The profiler's events: what the C++ recorder (oar/ops/op_profiler.h) hands over, the event
types Paddle names (TracerEventType), and RecordEvent, the user's own ranges."""
from __future__ import annotations

import functools
import threading
import time
from contextlib import ContextDecorator
from dataclasses import dataclass, field
from enum import Enum

from .. import _C


class TracerEventType(Enum):
    """Kinds of events, as Paddle's (paddle.base.core.TracerEventType)."""
    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14
    DygraphKernelLaunch = 15
    StaticKernelLaunch = 16


@dataclass
class Event:
    """One recorded event: an op call or a range (times in nanoseconds of one steady clock)."""
    name: str
    type: str
    start_ns: int
    end_ns: int
    thread_id: int
    input_shapes: list = field(default_factory=list)
    input_dtypes: list = field(default_factory=list)

    @property
    def duration_ns(self):
        return self.end_ns - self.start_ns


# Read by the hooks in Layer.__call__, backward, Optimizer.step and the DataLoader: a module
# global, so that a profiler that is off costs one attribute read.
recording = False
# While a Profiler runs (recording or timer_only): the DataLoader adds the time its batches took.
timing = False
_reader_seconds = 0.0
_depth = threading.local()


def add_reader_seconds(seconds):
    global _reader_seconds
    _reader_seconds += seconds


def take_reader_seconds():
    """The DataLoader's time since the last call (step_info's reader_cost)."""
    global _reader_seconds
    seconds, _reader_seconds = _reader_seconds, 0.0
    return seconds


def record_range(name, event_type, start_ns):
    """Records [start_ns, now] as a range of the given type on this thread."""
    _C._profiler_record_range(name, event_type, start_ns, _C._profiler_now_ns())


class RecordEvent(ContextDecorator):
    """A range of the user's code that the profiler records (its name appears in the summary's
    UserDefined table and on the trace's timeline). Use it as a context manager, a decorator, or
    with begin() and end().

    Args:
        name (str): The range's name.
        event_type (TracerEventType, optional): Its type. Default: TracerEventType.PythonUserDefined.

    Examples:
        >>> import oar
        >>> import oar.profiler as profiler
        >>> with profiler.RecordEvent("load"):
        ...     x = oar.ones([2, 2])
        >>> record = profiler.RecordEvent("step")
        >>> record.begin()
        >>> y = x + 1
        >>> record.end()
    """

    def __init__(self, name: str, event_type: TracerEventType = TracerEventType.PythonUserDefined):
        self.name = name
        self.event_type = event_type
        self._start = None

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()

    def begin(self):
        """Starts the range (nothing is recorded while no profiler records)."""
        self._start = _C._profiler_now_ns() if recording else None

    def end(self):
        """Ends the range begun by begin()."""
        if self._start is not None and recording:
            record_range(self.name, self.event_type.name, self._start)
        self._start = None


class phase:
    """A Forward/Backward/Optimization/Dataloader range for the framework's own hooks, entered only
    while recording (the hooks test `recording` first): only the outermost of nested ranges of one
    type is recorded, so a layer calling its sublayers is one Forward."""
    __slots__ = ("type", "start")

    def __init__(self, event_type):
        self.type = event_type
        self.start = None

    def __enter__(self):
        depth = getattr(_depth, self.type, 0)
        setattr(_depth, self.type, depth + 1)
        if depth == 0:
            self.start = _C._profiler_now_ns()
        return self

    def __exit__(self, *exc):
        setattr(_depth, self.type, getattr(_depth, self.type) - 1)
        if self.start is not None:
            record_range(self.type, self.type, self.start)


def in_phase(event_type):
    """Decorates a framework entry point (backward, Optimizer.step) so that, while recording, its
    run is one range of event_type; off, the cost is one global read."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if not recording:
                return fn(*args, **kwargs)
            with phase(event_type):
                return fn(*args, **kwargs)
        return call
    return wrap


def timed_batches(next_fn):
    """Decorates a DataLoader iterator's __next__: while a Profiler runs, the batch's time counts
    as reader cost (step_info), and while recording it is a Dataloader range."""
    @functools.wraps(next_fn)
    def call(self):
        if not timing:
            return next_fn(self)
        start_ns, start = _C._profiler_now_ns(), time.perf_counter()
        try:
            return next_fn(self)
        finally:
            add_reader_seconds(time.perf_counter() - start)
            if recording:
                record_range("Dataloader", "Dataloader", start_ns)
    return call
