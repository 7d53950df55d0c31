"""The progress line Paddle's ProgBarLogger prints: "step 5/13 [===>....] - loss: 0.64 - ETA: 3s - 8ms/step".

verbose=1 redraws one line with a bar and an ETA (carriage return); verbose=2 prints one plain line
per call; verbose=0 prints nothing."""
import sys
import time


def format_step_time(seconds):
    if seconds >= 1:
        return f"{seconds:.0f}s/step"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/step"
    return f"{seconds * 1e6:.0f}us/step"


def format_eta(seconds):
    seconds = int(seconds)
    if seconds > 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    if seconds > 60:
        return f"{seconds // 60}:{seconds % 60:02d}"
    return f"{seconds}s"


def format_value(value):
    if isinstance(value, (list, tuple)):
        value = value[0] if len(value) == 1 else value
    if isinstance(value, (list, tuple)):
        return " ".join(format_value(v) for v in value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{number:.4f}" if abs(number) > 1e-3 or number == 0 else f"{number:.4e}"


class ProgressBar:
    def __init__(self, num=None, width=30, verbose=1, start=True, file=None):
        # file=None: sys.stdout at the time of writing (so redirected stdout is honoured)
        self._num, self._width, self._verbose, self._file = num, width, verbose, file
        self._last_width = 0
        if start:
            self.start()

    @property
    def file(self):
        return self._file if self._file is not None else sys.stdout

    def start(self):
        self._start = time.perf_counter()
        self._steps_done = 0

    def update(self, current_num, values=()):
        """Shows step `current_num` (1-based) with the (name, value) pairs in `values`."""
        if self._verbose == 0:
            return
        elapsed = time.perf_counter() - self._start
        per_step = elapsed / current_num if current_num else 0.0
        if self._num is not None:
            digits = len(str(self._num))
            step = f"step {current_num:{digits}d}/{self._num}"
        else:
            step = f"step {current_num:3d}"
        metrics = "".join(f" - {name}: {format_value(v)}" for name, v in values)
        if self._verbose == 1:
            bar = ""
            if self._num:
                filled = int(self._width * min(current_num, self._num) / self._num)
                if current_num < self._num and filled > 0:
                    bar = " [" + "=" * (filled - 1) + ">" + "." * (self._width - filled) + "]"
                else:
                    bar = " [" + "=" * filled + "." * (self._width - filled) + "]"
            eta = ""
            if self._num is not None and current_num < self._num:
                eta = f" - ETA: {format_eta(per_step * (self._num - current_num))}"
            line = f"{step}{bar}{metrics}{eta} - {format_step_time(per_step)}"
            pad = max(self._last_width - len(line), 0)
            self.file.write("\r" + line + " " * pad)
            self._last_width = len(line)
            if self._num is not None and current_num >= self._num:
                self.file.write("\n")
        else:
            self.file.write(f"{step}{metrics} - {format_step_time(per_step)}\n")
        self.file.flush()
