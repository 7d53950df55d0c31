"""paddle.static.ExponentialMovingAverage: moving averages of a training program's parameters,
kept after each run (Program._add_after_run), applied to the parameters for evaluation and
restored afterwards."""
import contextlib

from .. import _C
from ..framework import mode
from .program import Program, default_main_program


def _follow(t, ref):
    """Moves t to ref's place (in place): the executor moved the parameters to its place."""
    from ..framework.place import move_in_place
    move_in_place(t, _C._place_of(ref))



_EXAMPLE_PROGRAM = """\
            >>> import oar, numpy as np
            >>> oar.enable_static()
            >>> main = oar.static.Program()
            >>> with oar.static.program_guard(main):
            ...     x = oar.static.data('x', [None, 3], 'float32')
            ...     y = oar.static.nn.fc(x, 1)
            ...     ema = oar.static.ExponentialMovingAverage(0.99)
            ...     ema.update()
            >>> exe = oar.static.Executor()
"""


def _with_example_program(method):
    """Puts the examples' shared program (an fc layer with an EMA, and an executor) in place of
    the line `<ema program>` of the method's docstring."""
    method.__doc__ = method.__doc__.replace("            <ema program>\n", _EXAMPLE_PROGRAM)
    return method

class ExponentialMovingAverage:
    r"""Exponential moving averages of the parameters of the current main program
    (paddle.static.ExponentialMovingAverage, as in Paddle's static mode). Call ``update()``
    after ``optimizer.minimize``: from then on every ``Executor.run`` of the program, once the
    optimizer has updated the parameters, does for each parameter

    ``ema = decay * ema + (1 - decay) * param``

    starting from ema = 0. ``apply(exe)`` (a context manager) saves the parameters and replaces
    them with the bias-corrected averages ``ema / (1 - decay ** t)`` (t: the number of runs
    since update(); t = 0: ema itself); ``restore(exe)`` puts the saved values back.
    With ``thres_steps`` (a program value, usually the global step) the decay of each run is
    ``min(decay, (1 + thres_steps) / (10 + thres_steps))``, and the bias correction uses the
    decay of the latest run. Parameters whose ParamAttr has do_model_average=False are left out.
    In dynamic mode construction raises ``Exception``, as in Paddle.

    Args:
        decay (float, optional): The decay rate, close to 1. Default: 0.999.
        thres_steps (Tensor, optional): A one-element program value scheduling the decay.
            Default: None.
        name (str, optional): A prefix of the average tensors' names. Default: None.

    Attributes:
        apply_program (Program): The program apply() runs.
        restore_program (Program): The program restore() runs.

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 3], 'float32')
        ...     hidden = oar.static.nn.fc(x, 2)
        ...     cost = oar.mean(hidden)
        ...     test_program = main.clone(for_test=True)
        ...     _ = oar.optimizer.SGD(0.1).minimize(cost)
        ...     ema = oar.static.ExponentialMovingAverage(0.9)
        ...     ema.update()
        >>> exe = oar.static.Executor()
        >>> for _ in range(3):
        ...     _ = exe.run(main, feed={'x': np.ones([4, 3], 'float32')}, fetch_list=[cost])
        >>> with ema.apply(exe):
        ...     out = exe.run(test_program, feed={'x': np.ones([1, 3], 'float32')}, fetch_list=[hidden])
        >>> print(out[0].shape)
        (1, 2)
        >>> oar.disable_static()
    """

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if mode.in_dynamic_mode():
            raise Exception("In dygraph, don't support ExponentialMovingAverage.")
        from .misc import create_global_var
        from ..utils import unique_name
        self._decay = decay
        self._thres_steps = thres_steps
        self._name = name if name is not None else ""
        self._main = default_main_program()
        self._decay_var = create_global_var([1], decay, "float32", persistable=True,
                                            name="scheduled_ema_decay_rate")
        if thres_steps is not None:
            self._schedule_decay(thres_steps)
        # One step counter per main program, as Paddle's '@EMA_STEP_COUNTER@' variable.
        counter = getattr(self._main, "_ema_step_counter", None)
        if counter is None:
            counter = create_global_var([1], 0, "int64", persistable=True, name="@EMA_STEP_COUNTER@")
            self._main._ema_step_counter = counter
        self._step_counter = counter
        self._params_tmps, self._ema_vars = [], {}
        with mode.eager():
            for param in self._main.all_parameters():
                if not getattr(param, "do_model_average", True):
                    continue
                tmp = _C.zeros(list(param.shape), param.dtype)
                tmp.name = unique_name.generate(".".join([self._name + param.name, "ema_tmp"]))
                tmp.stop_gradient = True
                self._params_tmps.append((param, tmp))
                ema = create_global_var(list(param.shape), 0.0, param.dtype, persistable=True,
                                        name=unique_name.generate(self._name + param.name + "_ema"))
                self._ema_vars[param.name] = ema
        self.apply_program = Program()
        self.apply_program._add_after_run([], self._apply)
        self.restore_program = Program()
        self.restore_program._add_after_run([], self._restore)

    def _schedule_decay(self, thres_steps):
        """Records decay_t = min(decay, (1 + t) / (10 + t)) and writes it into the decay variable
        after each run."""
        import oar
        from .. import Tensor
        if not isinstance(thres_steps, Tensor):
            raise TypeError(f"ExponentialMovingAverage: thres_steps must be a Tensor (a program value), "
                            f"but received {type(thres_steps).__name__}")
        if not mode.is_symbolic(thres_steps):
            raise TypeError("ExponentialMovingAverage: thres_steps must be a value of the program being "
                            "built (computed from static.data), not an eager tensor")
        t = oar.cast(thres_steps, "float32")
        decay_t = (t + 1.0) / (t + 10.0)
        value = oar.where(decay_t < self._decay, decay_t, oar.full_like(decay_t, self._decay))
        self._main._write_back(self._decay_var, oar.reshape(value, [1]), optimize=True)

    def update(self):
        """Makes every later run of the current main program update the averages (after the
        optimizer updates attached so far) and count the step. Call it in the training program,
        after minimize.

        Examples:
            >>> import oar
            >>> oar.enable_static()
            >>> main = oar.static.Program()
            >>> with oar.static.program_guard(main):
            ...     x = oar.static.data('x', [None, 3], 'float32')
            ...     y = oar.static.nn.fc(x, 1)
            ...     ema = oar.static.ExponentialMovingAverage(0.99)
            ...     ema.update()
            >>> oar.disable_static()
        """
        main = default_main_program()
        if not getattr(main, "_ema_counts_steps", False):
            counter = self._step_counter

            def count():
                counter.copy_(counter + 1, False)
            main._add_after_run([], count, optimize=True)
            main._ema_counts_steps = True
        main._add_after_run([], self._update, optimize=True)

    def _update(self):
        for param, _ in self._params_tmps:
            ema = self._ema_vars[param.name]
            _follow(ema, param)
            _follow(self._decay_var, param)
            d = _C.cast(self._decay_var, param.dtype)
            ema.copy_(ema * d + param * (1.0 - d), False)

    def _apply(self):
        step = int(self._step_counter.item())
        for param, tmp in self._params_tmps:
            ema = self._ema_vars[param.name]
            for t in (tmp, ema, self._decay_var):
                _follow(t, param)
            tmp.copy_(param, False)
            if step > 0:
                decay_pow = _C.pow(_C.cast(self._decay_var, param.dtype), float(step))
                param.copy_(ema / (1.0 - decay_pow), False)
            else:
                param.copy_(ema, False)

    def _restore(self):
        for param, tmp in self._params_tmps:
            _follow(tmp, param)
            param.copy_(tmp, False)

    @contextlib.contextmanager
    @_with_example_program
    def apply(self, executor, need_restore=True):
        """Replaces the parameters with their bias-corrected averages (runs apply_program) for
        the with block; on leaving it restores them unless need_restore is False.

        Args:
            executor (Executor): The executor that runs apply_program (and restore_program).
            need_restore (bool, optional): Restore the parameters on leaving. Default: True.

        Examples:
            <ema program>
            >>> _ = exe.run(main, feed={'x': np.ones([2, 3], 'float32')}, fetch_list=[y])
            >>> with ema.apply(exe):
            ...     pass
            >>> oar.disable_static()
        """
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    @_with_example_program
    def restore(self, executor):
        """Puts back the parameters saved by the last apply (runs restore_program).

        Args:
            executor (Executor): The executor that runs restore_program.

        Examples:
            <ema program>
            >>> with ema.apply(exe, need_restore=False):
            ...     pass
            >>> ema.restore(exe)
            >>> oar.disable_static()
        """
        executor.run(self.restore_program)
