"""oar.profiler: Paddle's profiler (paddle.profiler). While a Profiler records, every op call
(eager, in static programs and in the predictor) and every RecordEvent range is timed by the C++
recorder (oar/ops/op_profiler.h); the framework marks its Forward, Backward, Optimization and
Dataloader phases. summary() prints Paddle's tables, the trace handlers write Chrome trace-event
JSON (Perfetto, chrome://tracing) or oar's result files."""
from .events import RecordEvent, TracerEventType
from .profiler import (Profiler, ProfilerState, ProfilerTarget, export_chrome_tracing, export_protobuf,
                       make_scheduler)
from .result import ProfilerResult, load_profiler_result
from .statistic import SortedKeys, SummaryView

__all__ = ["ProfilerState", "ProfilerTarget", "make_scheduler", "export_chrome_tracing", "export_protobuf",
           "Profiler", "RecordEvent", "load_profiler_result", "SortedKeys", "SummaryView"]
