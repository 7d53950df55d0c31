"""A VisualDL-style scalar log: one JSON object per line ({"tag", "step", "value", "wall_time"}) in
<log_dir>/scalars.jsonl. Lines are appended and flushed one by one, so a crash loses at most the
line being written, and a reader skips a torn last line."""
import json
import os
import time

LOG_NAME = "scalars.jsonl"


class ScalarWriter:
    def __init__(self, log_dir):
        os.makedirs(log_dir, exist_ok=True)
        self.path = os.path.join(log_dir, LOG_NAME)
        self._file = open(self.path, "a", encoding="utf-8")

    def add_scalar(self, tag, value, step, walltime=None):
        record = {"tag": str(tag), "step": int(step), "value": float(value),
                  "wall_time": float(walltime if walltime is not None else time.time())}
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def close(self):
        if not self._file.closed:
            os.fsync(self._file.fileno())
            self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def read_scalars(log_dir):
    """{tag: [(step, value), ...]} from a log directory (or the .jsonl file itself)."""
    path = log_dir if os.path.isfile(log_dir) else os.path.join(log_dir, LOG_NAME)
    if not os.path.exists(path):
        raise FileNotFoundError(f"read_scalars: no scalar log at {path} (write one with "
                                "oar.callbacks.VisualDL(log_dir) or ScalarWriter)")
    series = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn line from an interrupted write
            series.setdefault(record["tag"], []).append((record["step"], record["value"]))
    return series
