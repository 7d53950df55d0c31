"""ModelAverage (paddle.incubate.ModelAverage): a running average of the parameters over a
sliding window of steps, applied to the model for evaluation and restored afterwards."""
from __future__ import annotations

import contextlib

from ...autograd import no_grad

__all__ = ["ModelAverage"]

# Paddle's average_accumulates: sum_1 is folded into sum_2 every this many updates (precision).
_MAX_NUM_ACCUMULATES = 16384


class _Sums:
    """The accumulators of one parameter."""

    def __init__(self, param):
        zero = param.detach() * 0
        self.sum_1, self.sum_2, self.sum_3 = zero.clone(), zero.clone(), zero.clone()
        self.num_accumulates = 0
        self.old_num_accumulates = 0
        self.num_updates = 0
        self.restore = None


class ModelAverage:
    """Averages the parameters over the last steps, for evaluation with the averaged weights.

    After each optimizer step, step() adds the current parameters to running sums. The window
    restarts (its sum becoming the previous window's) once it holds at least min_average_window
    steps and at least min(max_average_window, num_updates * average_window_rate). apply() sets
    each parameter to the average over the current and previous window (a context manager that
    restores the parameters on exit when need_restore); restore() puts them back.

    Args:
        average_window_rate (float): The window's length relative to the steps taken.
        parameters (list, optional): The parameters to average. Default: None.
        min_average_window (int, optional): The window's minimum length. Default: 10000.
        max_average_window (int, optional): The window's maximum length. Default: 10000.
        name (str, optional): Unused; for Paddle compatibility. Default: None.

    Examples:
        >>> import oar
        >>> linear = oar.nn.Linear(2, 1)
        >>> sgd = oar.optimizer.SGD(learning_rate=0.1, parameters=linear.parameters())
        >>> avg = oar.incubate.ModelAverage(0.15, parameters=linear.parameters(),
        ...                                 min_average_window=2, max_average_window=10)
        >>> for _ in range(3):
        ...     linear(oar.ones([1, 2])).sum().backward()
        ...     sgd.step()
        ...     avg.step()
        ...     sgd.clear_grad()
        >>> with avg.apply():
        ...     evaluated = linear(oar.ones([1, 2]))
    """

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000,
                 max_average_window=10000, name=None):
        if parameters is None:
            raise ValueError("ModelAverage: parameters should be given in dygraph mode")
        if isinstance(min_average_window, bool) or not isinstance(min_average_window, int):
            raise TypeError(f"ModelAverage: min_average_window should be an int, got {min_average_window!r}")
        if isinstance(max_average_window, bool) or not isinstance(max_average_window, int):
            raise TypeError(f"ModelAverage: max_average_window should be an int, got {max_average_window!r}")
        if min_average_window > max_average_window:
            raise ValueError("ModelAverage: min_average_window should not be larger than max_average_window, "
                             f"got {min_average_window} and {max_average_window}")
        self.average_window = float(average_window_rate)
        self.min_average_window = min_average_window
        self.max_average_window = max_average_window
        self.type = "average_accumulates"
        self._parameter_list = list(parameters)
        self._sums = {}

    def _of(self, param):
        if id(param) not in self._sums:
            self._sums[id(param)] = _Sums(param)
        return self._sums[id(param)]

    @no_grad()
    def step(self):
        """Adds the current values of the parameters that have a gradient to the running sums.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> avg = oar.incubate.ModelAverage(0.15, parameters=linear.parameters())
            >>> linear(oar.ones([1, 2])).sum().backward()
            >>> avg.step()
        """
        for p in self._parameter_list:
            if p.stop_gradient or p.grad is None:
                continue
            self._accumulate(p, self._of(p))

    def _accumulate(self, p, s):
        s.num_updates += 1
        s.num_accumulates += 1
        s.sum_1 = s.sum_1 + p.detach()
        if s.num_updates % _MAX_NUM_ACCUMULATES == 0:
            s.sum_2 = s.sum_2 + s.sum_1
            s.sum_1 = s.sum_1 * 0
        window = min(self.max_average_window, s.num_updates * self.average_window)
        if s.num_accumulates >= self.min_average_window and s.num_accumulates >= window:
            s.sum_3 = s.sum_1 + s.sum_2
            s.sum_1 = s.sum_1 * 0
            s.sum_2 = s.sum_2 * 0
            s.old_num_accumulates = s.num_accumulates
            s.num_accumulates = 0

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Adds the parameters to the running sums (as step(); loss is only for the signature).

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> avg = oar.incubate.ModelAverage(0.15, parameters=linear.parameters())
            >>> loss = linear(oar.ones([1, 2])).sum()
            >>> loss.backward()
            >>> avg.minimize(loss)
        """
        self.step()

    def clear_grad(self, set_to_zero=True):
        """Clears the gradients of the averaged parameters.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> oar.incubate.ModelAverage(0.15, parameters=linear.parameters()).clear_grad()
        """
        for p in self._parameter_list:
            if p.grad is not None:
                p.clear_gradient(set_to_zero)

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        """Sets the parameters to their averages (a context manager: on exit they are restored
        when need_restore).

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> avg = oar.incubate.ModelAverage(0.15, parameters=linear.parameters(), min_average_window=1)
            >>> linear(oar.ones([1, 2])).sum().backward()
            >>> avg.step()
            >>> with avg.apply(need_restore=False):
            ...     pass
            >>> avg.restore()
        """
        with no_grad():
            for p in self._parameter_list:
                s = self._of(p)
                s.restore = p.detach().clone()
                total = s.num_accumulates + s.old_num_accumulates
                p.set_value((s.sum_1 + s.sum_2 + s.sum_3) / float(total) if total else
                            (s.sum_1 + s.sum_2 + s.sum_3) * float("nan"))
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    @no_grad()
    def restore(self, executor=None):
        """Puts back the parameter values that apply() replaced.

        Examples:
            >>> import oar
            >>> linear = oar.nn.Linear(2, 1)
            >>> avg = oar.incubate.ModelAverage(0.15, parameters=linear.parameters())
            >>> avg.restore()
        """
        for p in self._parameter_list:
            s = self._sums.get(id(p))
            if s is not None and s.restore is not None:
                p.set_value(s.restore)
