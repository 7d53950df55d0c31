"""The summary tables Profiler.summary prints (Paddle's layout): device utilisation, an overview by
event type, the model's phases, operators, user-defined ranges and memory. Host times only: oar
records no device timeline, so Paddle's GPU columns are left out rather than printed as zeros."""
from __future__ import annotations

from collections import defaultdict
from enum import Enum


class SortedKeys(Enum):
    """The operator table's order (the GPU keys sort by the host times: no device timeline).

    Examples:
        >>> import oar.profiler as profiler
        >>> print(profiler.SortedKeys.CPUAvg.name)
        CPUAvg
    """
    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(Enum):
    """The tables summary() can print (views=...); oar prints Device, Over, Model, Operator, UDF
    and Memory views (the others need device or distributed timelines).

    Examples:
        >>> import oar.profiler as profiler
        >>> views = [profiler.SummaryView.OperatorView, profiler.SummaryView.UDFView]
    """
    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}
_PHASES = ("Forward", "Backward", "Optimization", "Dataloader")
_USER_TYPES = ("PythonUserDefined", "UserDefined")


def _merged_length(intervals):
    """The length covered by the union of [start, end] intervals (overlaps count once)."""
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


class _Stats:
    __slots__ = ("calls", "total", "max", "min")

    def __init__(self):
        self.calls, self.total, self.max, self.min = 0, 0, 0, None

    def add(self, ns):
        self.calls += 1
        self.total += ns
        self.max = max(self.max, ns)
        self.min = ns if self.min is None else min(self.min, ns)


def _table(title, header, rows, widths, note=None, unit=None):
    """Paddle's table layout: a titled rule, the time unit, the header between rules, the rows
    (a str row is printed as is: a thread's label), a rule, the note."""
    line = "  ".join("-" * w for w in widths) + "  "

    def fmt(cells):
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + "  "
    width = len(line)
    out = [f" {title} ".center(width, "-")] + ([f"Time unit: {unit}"] if unit else []) + [line, fmt(header), line]
    for r in rows:
        out.append(r if isinstance(r, str) else fmt(r))
    out.append(line)
    if note:
        out.append(note)
    out.append("-" * width)
    return "\n".join(out) + "\n"


def _stat_cell(st, unit, whole):
    u = _UNITS[unit]
    ratio = 100.0 * st.total / whole if whole else 0.0
    return f"{st.total / u:.2f} / {st.total / st.calls / u:.2f} / {st.max / u:.2f} / {(st.min or 0) / u:.2f} / {ratio:.2f}"


def _device_view(result):
    extra = result.extra or {}
    process = extra.get("process_utilization")
    system = extra.get("system_utilization")
    rows = [["CPU(Process)", "-" if process is None else f"{process:.2f}"],
            ["CPU(System)", "-" if system is None else f"{system:.2f}"]]
    note = ("Note:\nCPU(Process) Utilization = Current process CPU time over all cpu cores / elapsed time, so max "
            "utilization can be reached 100% * number of cpu cores.\nCPU(System) Utilization = All processes CPU "
            "time over all cpu cores(busy time) / (busy time + idle time).")
    return _table("Device Summary", ["Device", "Utilization (%)"], rows, [30, 20], note)


def _span(events):
    steps = [e for e in events if e.type == "ProfileStep"]
    pool = steps or events
    return _merged_length([(e.start_ns, e.end_ns) for e in pool]) if pool else 0


def _overview(events, unit):
    whole = _span(events)
    by_type = defaultdict(list)
    for e in events:
        by_type[e.type].append(e)
    u = _UNITS[unit]
    rows = []
    order = sorted(by_type, key=lambda t: (t != "ProfileStep", -_merged_length([(e.start_ns, e.end_ns)
                                                                                 for e in by_type[t]])))
    for t in order:
        length = _merged_length([(e.start_ns, e.end_ns) for e in by_type[t]])
        name = t if t == "ProfileStep" else "  " + t
        rows.append([name, len(by_type[t]), f"{length / u:.2f}", f"{100.0 * length / whole if whole else 0.0:.2f}"])
    note = ("Note:\nIn this table, We sum up all collected events in terms of event type.\nEvents with different "
            "types may overlap or inclusion, e.g. ProfileStep includes Operator, so the sum of ratios is not 100%.\n"
            "The time of events in the same type with overlap will not calculate twice, and all time is summed "
            "after merged.")
    return _table("Overview Summary", ["Event Type", "Calls", "CPU Time", "Ratio (%)"], rows, [25, 25, 25, 25], note,
                  unit)


def _model_view(events, unit):
    steps = [e for e in events if e.type == "ProfileStep"]
    whole = sum(e.duration_ns for e in steps) or _span(events)
    rows = []
    total = _Stats()
    for e in steps:
        total.add(e.duration_ns)
    if total.calls:
        rows.append(["ProfileStep", total.calls, _stat_cell(total, unit, whole)])
    covered = 0
    for phase in _PHASES:
        st = _Stats()
        for e in events:
            if e.type == phase:
                st.add(e.duration_ns)
        if st.calls:
            covered += st.total
            rows.append(["  " + phase, st.calls, _stat_cell(st, unit, whole)])
    others = max(whole - covered, 0)
    u = _UNITS[unit]
    rows.append(["  Others", "-", f"{others / u:.2f} / - / - / - / {100.0 * others / whole if whole else 0.0:.2f}"])
    return _table("Model Summary", ["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)"], rows, [15, 6, 40],
                  unit=unit)


def _sort_key(sorted_by):
    kind = sorted_by.name[3:]  # Total, Avg, Max, Min (GPU keys use the host times)
    return {"Total": lambda s: -s.total, "Avg": lambda s: -s.total / s.calls, "Max": lambda s: -s.max,
            "Min": lambda s: s.min}[kind]


def _grouped_rows(events, unit, sorted_by, detail):
    stats, shapes = defaultdict(_Stats), defaultdict(lambda: defaultdict(_Stats))
    for e in events:
        stats[e.name].add(e.duration_ns)
        if detail and e.input_shapes:
            sig = ", ".join(f"{d}{list(s)}" for s, d in zip(e.input_shapes, e.input_dtypes))
            shapes[e.name][sig].add(e.duration_ns)
    whole = sum(s.total for s in stats.values())
    key = _sort_key(sorted_by)
    rows = []
    for name in sorted(stats, key=lambda n: (key(stats[n]), n)):
        rows.append([name, stats[name].calls, _stat_cell(stats[name], unit, whole)])
        for sig in sorted(shapes.get(name, {}), key=lambda s: key(shapes[name][s])):
            st = shapes[name][sig]
            rows.append([f"  {sig}", st.calls, _stat_cell(st, unit, stats[name].total)])
    return rows


def _grouped_view(title, events, unit, sorted_by, detail, thread_sep):
    head = ["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)"]
    widths = [max([52] + [len(e.name) + 2 for e in events]), 6, 40]
    if detail:
        widths[0] = max([widths[0]] + [len(", ".join(f"{d}{list(s)}" for s, d in zip(e.input_shapes, e.input_dtypes)))
                                       + 4 for e in events if e.input_shapes])
    width = sum(widths) + 2 * len(widths)
    rows = []
    groups = ([(f"Thread: {tid}", [e for e in events if e.thread_id == tid])
               for tid in sorted({e.thread_id for e in events})] if thread_sep
              else [("Thread: All threads merged", events)])
    for label, group in groups:
        rows.append(f" {label} ".center(width, "-"))
        rows.extend(_grouped_rows(group, unit, sorted_by, detail))
    return _table(title, head, rows, widths, unit=unit)


def _memory_view(result):
    peak = result.peak_memory
    if not peak:
        return ""
    mb = 1024.0 * 1024.0
    rows = [["CPU", f"{peak['allocated'] / mb:.2f}", f"{peak['reserved'] / mb:.2f}"]]
    return _table("Memory Summary", ["Device", "Peak Allocated (MB)", "Peak Reserved (MB)"], rows, [20, 25, 25])


def print_summary(result, sorted_by=SortedKeys.CPUTotal, op_detail=True, thread_sep=False, time_unit="ms",
                  views=None):
    """Prints the summary tables of a ProfilerResult (see Profiler.summary)."""
    if time_unit not in _UNITS:
        raise ValueError(f"summary: time_unit should be one of {list(_UNITS)}, got '{time_unit}'")
    if views is None:
        views = list(SummaryView)
    elif isinstance(views, SummaryView):
        views = [views]
    events = result.events
    ops = [e for e in events if e.type == "Operator"]
    user = [e for e in events if e.type in _USER_TYPES]
    parts = []
    if SummaryView.DeviceView in views:
        parts.append(_device_view(result))
    if SummaryView.OverView in views:
        parts.append(_overview(events, time_unit))
    if SummaryView.ModelView in views:
        parts.append(_model_view(events, time_unit))
    if SummaryView.OperatorView in views and ops:
        parts.append(_grouped_view("Operator Summary", ops, time_unit, sorted_by, op_detail, thread_sep))
    if SummaryView.UDFView in views and user:
        parts.append(_grouped_view("UserDefined Summary", user, time_unit, sorted_by, False, thread_sep))
    if SummaryView.MemoryView in views:
        parts.append(_memory_view(result))
    print("\n\n".join(p for p in parts if p))
