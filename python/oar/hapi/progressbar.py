"""The progress line Paddle's ProgBarLogger prints: "step 5/13 [===>....] - loss: 0.64 - ETA: 3s - 8ms/step".

verbose=1 redraws one line with a bar and an ETA (carriage return); verbose=2 prints one plain line
per call; verbose=0 prints nothing."""
import sys
import time

import numpy as np


def format_step_time(seconds, name="step"):
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s/{name}"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/{name}"
    return f"{seconds * 1e6:.0f}us/{name}"


def format_eta(seconds):
    seconds = int(seconds)
    if seconds > 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    if seconds > 60:
        return f"{seconds // 60}:{seconds % 60:02d}"
    return f"{seconds}s"


def format_number(value, unwrap_arrays):
    """One logged value as Paddle prints it: floats with 4 decimals (scientific at or below 1e-3,
    zero included); with unwrap_arrays (Paddle's plain-line mode) a one-element float array as its
    float; anything else (ints, strings, arrays) as str()."""
    if isinstance(value, (float, np.floating)):
        return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"
    if unwrap_arrays and isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind == "f":
        return format_number(value.item(), unwrap_arrays)
    return str(value)


def format_value(value, unwrap_arrays=False):
    """A logged value; a list gives its items, space-separated."""
    items = value if isinstance(value, list) else [value]
    return " ".join(format_number(v, unwrap_arrays) for v in items)


class ProgressBar:
    """The progress line of paddle.hapi.progressbar.ProgressBar.

    Args:
        num (int, optional): The number of steps; None when unknown. Default: None.
        width (int, optional): The bar's width in characters. Default: 30.
        verbose (int, optional): 0 prints nothing, 1 redraws a bar with an ETA, 2 (or 3) prints a
            line per update. Default: 1.
        start (bool, optional): Start the clock now. Default: True.
        file (file, optional): Where to write; None is sys.stdout at write time. Default: None.
        name (str, optional): What a step is called in the line. Default: 'step'.
    """

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        # file=None: sys.stdout at the time of writing (so redirected stdout is honoured)
        self._num, self._width, self._verbose, self._file = num, width, verbose, file
        self.name = name
        self._last_width = 0
        if start:
            self.start()

    @property
    def file(self):
        return self._file if self._file is not None else sys.stdout

    def start(self):
        self._start = time.perf_counter()

    def _count(self, current):
        """'step  3/10' (the step right-aligned to the total's digits), or 'step   3' when the
        total is unknown. Steps and totals may be floats; like Paddle's '%d', they print truncated."""
        if self._num:
            digits = len(str(int(self._num)))
            return f"{self.name} {int(current):{digits}d}/{int(self._num)}"
        return f"{self.name} {current:3}"

    def update(self, current_num, values=()):
        """Shows step `current_num` (1-based) with the (name, value) pairs in `values`."""
        if self._verbose == 0:
            return
        elapsed = time.perf_counter() - self._start
        per_step = elapsed / current_num if current_num else 0.0
        # Paddle shows a one-element float array as a number only in its plain-line mode.
        metrics = "".join(f" - {name}: {format_value(v, self._verbose != 1)}" for name, v in values)
        count, step_time = self._count(current_num), format_step_time(per_step, self.name)
        if self._verbose == 1:
            bar = ""
            if self._num is not None:
                filled = int(self._width * min(current_num, self._num) / self._num)
                if current_num < self._num and filled > 0:
                    bar = " [" + "=" * (filled - 1) + ">" + "." * (self._width - filled) + "]"
                else:
                    bar = " [" + "=" * filled + "." * (self._width - filled) + "]"
            eta = ""
            if self._num is not None and current_num < self._num:
                eta = f" - ETA: {format_eta(per_step * (self._num - current_num))}"
            line = f"{count}{bar}{metrics}{eta} - {step_time}"
            pad = max(self._last_width - len(line), 0)
            self.file.write("\r" + line + " " * pad)
            self._last_width = len(line)
            if self._num is None or current_num >= self._num:  # with no total, Paddle ends every line
                self.file.write("\n")
        else:
            self.file.write(f"{count}{metrics} - {step_time}\n")
        self.file.flush()
