"""paddle.amp.GradScaler (and AmpScaler): loss scaling for float16 training.

The loss is multiplied by a scale before backward so small float16 gradients do not flush to
zero; before the optimizer step the gradients are divided by it again (one fused C++ pass per
gradient, oar/ops/grad_scale.h, which also reports inf/nan). A step whose gradients hold inf or
nan is skipped; with dynamic scaling the scale then shrinks, and grows after a run of good steps.

As with auto_cast, oar runs this on every place (Paddle's CPU build disables the scaler with a
warning). The rest follows Paddle 3.x, including its rule that dynamic scaling turns itself off
(with a warning) unless the last auto_cast block used float16: bfloat16 has float32's range.
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

from .. import _C
from ..tensor.creation import to_tensor
from .auto_cast import amp_global_state

__all__ = ["AmpScaler", "GradScaler", "OptimizerState"]


class OptimizerState(Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"state": OptimizerState.INIT}


def _parameters(optimizer):
    params = getattr(optimizer, "_parameter_list", None) or []
    if params and isinstance(params[0], dict):
        return [p for group in params for p in group["params"]]
    return list(params)


class AmpScaler:
    """Loss scaler with Paddle's AmpScaler defaults (see GradScaler)."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=1000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        self._enable = bool(enable)
        self._use_dynamic_loss_scaling = False
        self._init_loss_scaling = 1.0
        self._scale = None
        self._scaled = False  # scale() ran since the last update
        if not self._enable:
            return
        assert incr_ratio > 1.0, "The incr_ratio must be > 1.0."
        assert decr_ratio < 1.0, "The decr_ratio must be < 1.0."
        self._init_loss_scaling = init_loss_scaling
        self._incr_ratio = incr_ratio
        self._decr_ratio = decr_ratio
        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._incr_count = 0
        self._decr_count = 0
        self._use_dynamic_loss_scaling = bool(use_dynamic_loss_scaling)
        self._scale = self._scale_tensor(init_loss_scaling)
        self._found_inf = False
        self._cache_found_inf = None
        self._optimizer_states = defaultdict(_fresh_state)

    @staticmethod
    def _scale_tensor(value):
        return to_tensor(np.array([value], dtype=np.float32))  # shape [1], as Paddle's

    def _scale_value(self):
        return float(self._scale.numpy()[0])

    # ---- the training-loop calls ------------------------------------------------------------
    def scale(self, var):
        """The loss multiplied by the current scale (the loss itself when disabled)."""
        if self._enable and amp_global_state().amp_dtype != "float16" and self._use_dynamic_loss_scaling:
            self._enable = False
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            warnings.warn(f"It is not recommended to use dynamic loss scaling for "
                          f"{amp_global_state().amp_dtype}, so GradScaler is disable by default.")
        if not self._enable:
            return var
        self._scaled = True
        return var * self._scale

    def _unscale(self, optimizer):
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        if not self._scaled:
            raise RuntimeError(f"{type(self).__name__}: the gradients were not scaled: call "
                               "scale(loss) and backward() on its result before unscale_(), step() or minimize()")
        grads = [p.grad for p in _parameters(optimizer) if p.grad is not None]
        self._found_inf = not _C._amp_unscale(grads, 1.0 / self._scale_value())
        state["state"] = OptimizerState.UNSCALED

    def minimize(self, optimizer, *args, **kwargs):
        """Unscales the gradients (unless unscale_ already did), runs ``optimizer.minimize`` unless
        they hold inf/nan, then updates the scale. Returns what ``optimizer.minimize`` returns."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        if self._optimizer_states[id(optimizer)]["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
            result = [], [(p, p.grad) for p in _parameters(optimizer) if p.grad is not None]
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._reset_states()
        return result

    def _step(self, optimizer):
        if not self._enable:
            return optimizer.step()
        state = self._optimizer_states[id(optimizer)]
        if state["state"] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["state"] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_found_inf = True  # the step is skipped: parameters and states stay
        else:
            optimizer.step()
            self._cache_found_inf = False
        state["state"] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._reset_states()

    def _update_scale(self):
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._reset_states()

    def _reset_states(self):
        self._optimizer_states = defaultdict(_fresh_state)
        self._scaled = False

    def _update(self):
        """Paddle's dynamic loss scaling: shrink after decr_every_n_nan_or_inf bad steps in a row,
        grow after incr_every_n_steps good ones."""
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                scale = self._scale_value()
                print(f"Found inf or nan, current scale is: {scale}, decrease to: {scale}*{float(self._decr_ratio)}")
                self._scale = self._scale_tensor(scale * self._decr_ratio)
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = self._scale_tensor(self._scale_value() * self._incr_ratio)
                self._incr_count = 0

    # ---- settings -----------------------------------------------------------------------------
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = new_init_loss_scaling
        self._scale = self._scale_tensor(new_init_loss_scaling)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        assert new_incr_ratio > 1.0, "The new_incr_ratio must be > 1.0."
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        assert new_decr_ratio < 1.0, "The new_decr_ratio must be < 1.0."
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    # ---- checkpoints --------------------------------------------------------------------------
    def state_dict(self):
        """The scaler's state ({} when disabled): scale (a float32 array of shape [1]), the ratios,
        the step counts and whether scaling is dynamic."""
        if not self._enable:
            return {}
        return {
            "scale": self._scale.numpy(),
            "incr_ratio": self._incr_ratio,
            "decr_ratio": self._decr_ratio,
            "incr_every_n_steps": self._incr_every_n_steps,
            "decr_every_n_nan_or_inf": self._decr_every_n_nan_or_inf,
            "incr_count": self._incr_count,
            "decr_count": self._decr_count,
            "use_dynamic_loss_scaling": self._use_dynamic_loss_scaling,
        }

    def load_state_dict(self, state_dict):
        """Restores what state_dict returned (nothing when this scaler is disabled)."""
        if not self._enable:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The input state dict is empty, possibly because it was saved from a "
                               "disabled instance of GradScaler.")
        self._init_loss_scaling = state_dict["scale"][0]
        self._scale = self._scale_tensor(state_dict["scale"][0])
        self._incr_ratio = state_dict["incr_ratio"]
        self._decr_ratio = state_dict["decr_ratio"]
        self._incr_every_n_steps = state_dict["incr_every_n_steps"]
        self._decr_every_n_nan_or_inf = state_dict["decr_every_n_nan_or_inf"]
        self._incr_count = state_dict["incr_count"]
        self._decr_count = state_dict["decr_count"]
        self._use_dynamic_loss_scaling = state_dict["use_dynamic_loss_scaling"]


class GradScaler(AmpScaler):
    """Scales the loss for float16 training (paddle.amp.GradScaler).

    Args:
        enable (bool, optional): Scale at all. Default: True.
        init_loss_scaling (float, optional): The first scale. Default: 2**16.
        incr_ratio (float, optional): Growth factor (> 1). Default: 2.0.
        decr_ratio (float, optional): Shrink factor (< 1). Default: 0.5.
        incr_every_n_steps (int, optional): Good steps in a row before growing. Default: 2000.
        decr_every_n_nan_or_inf (int, optional): Bad steps in a row before shrinking. Default: 1.
        use_dynamic_loss_scaling (bool, optional): Adapt the scale. Default: True.

    Examples:
        >>> scaler = oar.amp.GradScaler(init_loss_scaling=1024)
        >>> with oar.amp.auto_cast():
        ...     loss = model(x).mean()
        >>> scaler.scale(loss).backward()
        >>> scaler.step(opt); scaler.update(); opt.clear_grad()
    """

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1, use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer):
        """Unscales (unless unscale_ already did) and steps the optimizer, unless the gradients
        hold inf or nan. Call update() after it."""
        return self._step(optimizer)

    def update(self):
        """Updates the scale after step() (dynamic scaling only)."""
        return self._update_scale()

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale now (to clip them, say) and records
        whether they hold inf or nan."""
        return self._unscale(optimizer)
