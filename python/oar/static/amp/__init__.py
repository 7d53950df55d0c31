"""paddle.static.amp: mixed precision for static programs.

As in Paddle 3's programs, the forward computes in mixed precision when it is built under
``oar.amp.auto_cast`` (the casts are recorded into the program, oar/ops/amp.h); ``decorate``
wraps the optimizer so that ``minimize`` scales the loss, and each run unscales the gradients,
skips the update when they hold inf/nan and adapts the scale (Paddle's dynamic loss scaling, the
same C++ pass as GradScaler's). ``fp16_guard``/``bf16_guard`` are such auto_cast blocks.

Not yet done: rewriting a program built *without* auto_cast into mixed precision (Paddle's
legacy ``rewrite_program``); such a program runs in float32 under decorate, with loss scaling.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ... import _C
from ...amp import amp_lists
from ...amp.grad_scaler import AmpScaler

__all__ = ["decorate", "AutoMixedPrecisionLists", "CustomOpLists", "fp16_guard", "bf16_guard",
           "OptimizerWithMixedPrecision"]


class AutoMixedPrecisionLists:
    """The op lists of static AMP: white (low precision), black (float32) and gray (follows its
    inputs), Paddle's defaults changed by the custom lists."""

    def __init__(self, custom_white_list=None, custom_black_list=None, custom_black_varnames=None,
                 dtype="float16"):
        if dtype not in ("float16", "bfloat16"):
            raise ValueError("If enable AMP, dtype should be 'float16' or 'bfloat16'.")
        self.amp_dtype = dtype
        self.white_list = set(amp_lists.white_list()[dtype]["O1"])
        self.black_list = set(amp_lists.black_list()[dtype]["O1"])
        self.gray_list = set()
        self.unsupported_list = set()
        self.black_varnames = set(custom_black_varnames or ())
        white, black = set(custom_white_list or ()), set(custom_black_list or ())
        overlap = white & black
        if overlap:
            raise ValueError(f"The given custom_white_list overlaps custom_black_list with < {sorted(overlap)[0]} >!")
        self.white_list = (self.white_list - black) | white
        self.black_list = (self.black_list - white) | black
        self.all_list = self.white_list | self.black_list | self.gray_list
        self._custom_white, self._custom_black = white, black


CustomOpLists = AutoMixedPrecisionLists


def fp16_guard():
    """Ops built inside run in float16 (an auto_cast block at O2)."""
    from ...amp import auto_cast
    return auto_cast(True, level="O2", dtype="float16")


def bf16_guard():
    """Ops built inside run in bfloat16 (an auto_cast block at O2)."""
    from ...amp import auto_cast
    return auto_cast(True, level="O2", dtype="bfloat16")


class OptimizerWithMixedPrecision:
    """What decorate returns: ``minimize(loss)`` adds the backward of the scaled loss, and after
    each Executor.run the gradients are unscaled and applied unless they hold inf/nan."""

    def __init__(self, optimizer, amp_lists, level, dtype, init_loss_scaling, use_dynamic_loss_scaling,
                 incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio):
        self._optimizer = optimizer
        self._amp_lists = amp_lists
        self._amp_level = level
        self._amp_dtype = dtype
        self._use_scaling = dtype == "float16" or use_dynamic_loss_scaling or init_loss_scaling != 1.0
        self._scaler = AmpScaler(enable=self._use_scaling, init_loss_scaling=init_loss_scaling,
                                 incr_ratio=incr_ratio, decr_ratio=decr_ratio,
                                 incr_every_n_steps=incr_every_n_steps,
                                 decr_every_n_nan_or_inf=decr_every_n_nan_or_inf,
                                 use_dynamic_loss_scaling=use_dynamic_loss_scaling)
        # The scale the program reads: a captured tensor, updated in place between runs.
        from ...framework import mode
        from ...tensor.creation import to_tensor
        with mode.eager():
            first = init_loss_scaling if self._use_scaling else 1.0
            self._loss_scaling = to_tensor(np.array([first], np.float32))
        self._scaled_loss = None

    def __getattr__(self, name):  # the wrapped optimizer's other methods (set_lr, state_dict, ...)
        if name.startswith("__") or "_optimizer" not in self.__dict__:
            raise AttributeError(name)  # copy/pickle probe before __init__ ran: no recursion
        return getattr(self._optimizer, name)

    def get_loss_scaling(self):
        """The loss-scale tensor the program multiplies the loss by."""
        return self._loss_scaling

    def get_scaled_loss(self):
        """The scaled loss of the last minimize."""
        return self._scaled_loss

    def amp_init(self, place=None, scope=None, test_program=None, use_fp16_test=False):
        """Paddle casts O2 parameters here; oar keeps float32 parameters (the program casts them
        where auto_cast decided), so there is nothing to do."""
        return None

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        from ..backward import append_backward
        from ..program import default_main_program
        scaled = loss * self._loss_scaling if self._use_scaling else loss
        self._scaled_loss = scaled
        params_grads = append_backward(scaled, parameter_list=parameter_list, no_grad_set=no_grad_set)
        mine = {id(p) for p in self._optimizer._all_params()}
        if mine:
            params_grads = [(p, g) for p, g in params_grads if id(p) in mine]
        default_main_program()._optimize_hooks.append((self, params_grads))
        return [], params_grads

    def apply_gradients(self, params_grads):
        """After a run: unscale, apply unless inf/nan, update the scale (dynamic scaling)."""
        s = self._scaler
        if not self._use_scaling:
            return self._optimizer.apply_gradients(params_grads)
        grads = [g for _, g in params_grads if g is not None]
        finite = _C._amp_unscale(grads, 1.0 / s._scale_value())
        s._cache_found_inf = not finite
        if finite:
            self._optimizer.apply_gradients(params_grads)
        if s._use_dynamic_loss_scaling:
            s._update()
            self._loss_scaling.set_value(s._scale.numpy())
        return []


def decorate(optimizer, amp_lists=None, level="O1", dtype="float16", master_weight=None,
             master_grad=False, init_loss_scaling=2.0 ** 16, incr_every_n_steps=2000,
             decr_every_n_nan_or_inf=1, incr_ratio=2.0, decr_ratio=0.5,
             use_dynamic_loss_scaling=None, use_amp_guard=False, use_promote=False,
             use_pure_fp16=None, use_fp16_guard=None, use_bf16=None):
    """Wraps a static-mode optimizer for mixed precision (see the module docstring).

    Args:
        optimizer (Optimizer): The optimizer to wrap.
        amp_lists (AutoMixedPrecisionLists, optional): The op lists. Default: Paddle's.
        level (str, optional): 'O0', 'OD', 'O1' or 'O2'. Default: 'O1'.
        dtype (str, optional): 'float16' or 'bfloat16'. Default: 'float16'.
        master_weight (bool, optional): Float32 master weights (oar's static parameters stay float32).
        init_loss_scaling (float, optional): Default: 2**16.
        use_dynamic_loss_scaling (bool, optional): Default: True for float16, False for bfloat16.
        The others as Paddle's (incr/decr steps and ratios); use_pure_fp16/use_bf16 are the legacy
        spellings of level='O2' and dtype='bfloat16'.
    """
    if use_pure_fp16:
        level = "O2"
    if use_bf16:
        dtype = "bfloat16"
    level = level.upper() if isinstance(level, str) else level
    if level not in ("O0", "OD", "O1", "O2"):
        raise ValueError("level should be O0, OD, O1 or O2.")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError("If enable AMP, dtype should be 'float16' or 'bfloat16'.")
    if amp_lists is None:
        amp_lists = AutoMixedPrecisionLists(dtype=dtype)
    if use_dynamic_loss_scaling is None:
        use_dynamic_loss_scaling = dtype == "float16"
    optimizer._multi_precision = master_weight is not False
    return OptimizerWithMixedPrecision(optimizer, amp_lists, level, dtype, init_loss_scaling,
                                       use_dynamic_loss_scaling, incr_every_n_steps,
                                       decr_every_n_nan_or_inf, incr_ratio, decr_ratio)
