"""oar.optimizer.lr, as paddle.optimizer.lr: learning-rate schedules.

A scheduler is a Python object holding `last_epoch` and `last_lr`; `step()` advances the epoch
and recomputes the rate, `scheduler()` returns it. Optimizers read it once per update. The
formulas (and their float rounding) follow Paddle 3.3 so that sequences match step for step.
"""
import math
import warnings

import numpy as np

__all__ = ['LRScheduler', 'NoamDecay', 'PiecewiseDecay', 'NaturalExpDecay', 'InverseTimeDecay',
           'PolynomialDecay', 'LinearWarmup', 'ExponentialDecay', 'MultiStepDecay', 'StepDecay',
           'LambdaDecay', 'ReduceOnPlateau', 'CosineAnnealingDecay', 'MultiplicativeDecay',
           'OneCycleLR', 'CyclicLR', 'LinearLR', 'CosineAnnealingWarmRestarts']


def _check_type(name, value, types, what):
    if isinstance(value, bool) or not isinstance(value, types):
        raise TypeError(f"{name}: expected '{what}' to be {' or '.join(t.__name__ for t in types)}, "
                        f"but received {type(value).__name__}")


def _check_positive_int(name, value, what):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name}: expected '{what}' to be a positive integer, but received {value!r}")


class LRScheduler:
    """Base class: subclasses define get_lr() from self.base_lr and self.last_epoch."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        _check_type(type(self).__name__, learning_rate, (float, int), 'learning_rate')
        if learning_rate < 0:
            raise ValueError(f"{type(self).__name__}: invalid learning rate {learning_rate}, "
                             "expected a value >= 0")
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self):
        return self.last_lr

    def step(self, epoch=None):
        """Advance one epoch (or jump to `epoch`) and recompute last_lr."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, '_get_closed_form_lr', None)
            self.last_lr = closed_form() if closed_form is not None else self.get_lr()
        self._announce()

    def _announce(self):
        if self.verbose:
            print(f'Epoch {self.last_epoch}: {type(self).__name__} set learning rate to {self.last_lr}.')

    def get_lr(self):
        raise NotImplementedError(f"{type(self).__name__}.get_lr: subclasses of LRScheduler must "
                                  "implement get_lr()")

    def state_keys(self):
        self.keys = ['last_epoch', 'last_lr']

    def state_dict(self):
        self.state_keys()
        out = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                if hasattr(value, 'numpy') and not isinstance(value, (int, float)):
                    value = float(value)
                out[key] = value
        return out

    def set_state_dict(self, state_dict):
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(f"{type(self).__name__}.set_state_dict: can't find [ {key} ] in "
                                   "state_dict; check that it comes from the same kind of scheduler")
            self.__dict__[key] = state_dict[key]
        if len(state_dict) > len(self.keys):
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer have "
                          "different 'LearningRateDecay' when invoking state_dict and set_dict")

    set_dict = set_state_dict
    _load_state_dict = set_state_dict


class NoamDecay(LRScheduler):
    """lr * d_model^-0.5 * min(epoch^-0.5, warmup^-1.5 * epoch) (the Transformer schedule)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        if d_model <= 0:
            raise ValueError(f"NoamDecay: expected 'd_model' > 0, but received {d_model}")
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; the last value after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(boundaries) == 0:
            raise ValueError("PiecewiseDecay: 'boundaries' cannot be empty")
        if len(values) <= len(boundaries):
            raise ValueError(f"PiecewiseDecay: 'values' must have one more element than 'boundaries', "
                             f"but received len(values) [{len(values)}] < len(boundaries) + 1 "
                             f"[{len(boundaries) + 1}]")
        self.boundaries = boundaries
        self.values = values
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """lr * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not gamma > 0.0:
            raise ValueError(f"NaturalExpDecay: expected 'gamma' > 0 so that the rate decays, but received {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """(lr - end_lr) * (1 - epoch / decay_steps)^power + end_lr; with cycle, decay_steps grows
    to the next multiple of itself past the epoch."""

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        _check_positive_int('PolynomialDecay', decay_steps, 'decay_steps')
        if not power > 0.0:
            raise ValueError(f"PolynomialDecay: expected 'power' > 0, but received {power}")
        self.decay_steps = decay_steps
        self.end_lr = end_lr
        self.power = power
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            cycles = 1 if epoch == 0 else math.ceil(float(epoch) / float(steps))
            steps = steps * cycles
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (1 - float(epoch) / float(steps)) ** self.power + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear ramp start_lr -> end_lr over warmup_steps, then `learning_rate` (a number or a
    scheduler stepped from 0 when the warmup ends)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if isinstance(learning_rate, bool) or not isinstance(learning_rate, (float, int, LRScheduler)):
            raise TypeError("LinearWarmup: expected 'learning_rate' to be int, float or LRScheduler, "
                            f"but received {type(learning_rate).__name__}")
        _check_positive_int('LinearWarmup', warmup_steps, 'warmup_steps')
        if not end_lr > start_lr:
            raise ValueError(f"LinearWarmup: end_lr {end_lr} must be greater than start_lr {start_lr}")
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.start_lr = start_lr
        self.end_lr = end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out['LinearWarmup_LR'] = self.learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict['LinearWarmup_LR'])

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return ((self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps)
                    + self.start_lr)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """lr * gamma^epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"ExponentialDecay: expected 'gamma' in (0.0, 1.0) so that the rate "
                             f"decays, but received {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """lr * gamma^(number of milestones passed)."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("MultiStepDecay: expected 'milestones' to be a tuple or list, but "
                            f"received {type(milestones).__name__}")
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise ValueError(f"MultiStepDecay: the elements of 'milestones' must increase, got {list(milestones)}")
        if gamma >= 1.0:
            raise ValueError(f"MultiStepDecay: expected 'gamma' < 1.0, but received {gamma}")
        self.milestones = milestones
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        passed = len(self.milestones)
        for i, milestone in enumerate(self.milestones):
            if self.last_epoch < milestone:
                passed = i
                break
        return self.base_lr * self.gamma ** passed


class StepDecay(LRScheduler):
    """lr * gamma^(epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        _check_type('StepDecay', step_size, (int,), 'step_size')
        if gamma >= 1.0:
            raise ValueError(f"StepDecay: expected 'gamma' < 1.0, but received {gamma}")
        _check_positive_int('StepDecay', step_size, 'step_size')
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** (self.last_epoch // self.step_size)


class LambdaDecay(LRScheduler):
    """lr * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("LambdaDecay: expected 'lr_lambda' to be a function, but received "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr * prod(lr_lambda(e) for e in 1..epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("MultiplicativeDecay: expected 'lr_lambda' to be a function, but "
                            f"received {type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr


class ReduceOnPlateau(LRScheduler):
    """Multiplies the rate by `factor` when `metrics` (passed to step) stops improving for more
    than `patience` epochs, then waits `cooldown` epochs."""

    def __init__(self, learning_rate, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = mode.lower()
        if mode not in ('min', 'max'):
            raise ValueError(f"ReduceOnPlateau: expected 'mode' to be 'min' or 'max', but received '{mode}'")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: new_lr = origin_lr * factor, so 'factor' must be < 1.0, "
                             f"but received {factor}")
        threshold_mode = threshold_mode.lower()
        if threshold_mode not in ('rel', 'abs'):
            raise ValueError("ReduceOnPlateau: expected 'threshold_mode' to be 'rel' or 'abs', but "
                             f"received '{threshold_mode}'")
        _check_type('ReduceOnPlateau', learning_rate, (float, int), 'learning_rate')
        self.mode = mode
        self.factor = factor
        self.threshold_mode = threshold_mode
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epsilon = epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = 0
        self.verbose = verbose
        self._var_name = None

    def state_keys(self):
        self.keys = ['cooldown_counter', 'best', 'num_bad_epochs', 'last_epoch', 'last_lr']

    def _is_better(self, current, best):
        if self.threshold_mode == 'rel':
            margin = best * self.threshold
        else:
            margin = self.threshold
        if self.mode == 'min':
            return current < best - margin
        return current > best + margin

    def step(self, metrics, epoch=None):
        """Record one epoch's metric (a number or a one-element tensor/array)."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if hasattr(metrics, 'numpy') or isinstance(metrics, np.ndarray):
            size = int(np.prod(metrics.shape)) if metrics.shape is not None else 1
            if size != 1:
                raise ValueError(f"ReduceOnPlateau.step: the size of 'metrics' must be 1, but received "
                                 f"{size} elements; reduce it (e.g. with mean) first")
            metrics = float(np.asarray(metrics.numpy() if hasattr(metrics, 'numpy') else metrics).reshape(-1)[0])
        elif isinstance(metrics, bool) or not isinstance(metrics, (int, float, np.floating, np.integer)):
            raise TypeError("ReduceOnPlateau.step: 'metrics' must be int, float, numpy.ndarray or "
                            f"Tensor, but received {type(metrics).__name__}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best = metrics
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._announce()


class CosineAnnealingDecay(LRScheduler):
    """Cosine from lr down to eta_min over T_max epochs (computed recursively from last_lr when
    stepping, in closed form when jumping to an epoch)."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        _check_type('CosineAnnealingDecay', T_max, (int,), 'T_max')
        _check_type('CosineAnnealingDecay', eta_min, (float, int), 'eta_min')
        _check_positive_int('CosineAnnealingDecay', T_max, 'T_max')
        self.T_max = T_max
        self.eta_min = float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, T = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - T) % (2 * T) == 0:  # the bottom of a cycle: step back up
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
        ratio = (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T))
        return ratio * (self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs, T_i = T_0 * T_mult^restarts."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected positive integer T_0, but got {T_0}")
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected integer T_mult >= 1, but got {T_mult}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts.step: expected a non-negative epoch, but got {epoch}")
        elif epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            restarts = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult ** restarts - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult ** restarts
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._announce()


class OneCycleLR(LRScheduler):
    """Warm up from max_lr/divide_factor to max_lr over phase_pct of the steps, then anneal to
    end_learning_rate (three_phase: back to the initial rate first)."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001,
                 phase_pct=0.3, anneal_strategy='cos', three_phase=False, last_epoch=-1, verbose=False):
        _check_type('OneCycleLR', max_learning_rate, (float, int), 'max_learning_rate')
        if max_learning_rate < 0:
            raise ValueError(f"OneCycleLR: 'max_learning_rate' must be >= 0, but received {max_learning_rate}")
        _check_type('OneCycleLR', end_learning_rate, (float, int), 'end_learning_rate')
        if end_learning_rate < 0:
            raise ValueError(f"OneCycleLR: 'end_learning_rate' must be >= 0, but received {end_learning_rate}")
        _check_type('OneCycleLR', total_steps, (int,), 'total_steps')
        if total_steps <= 0:
            raise ValueError(f"OneCycleLR: 'total_steps' must be a positive integer, but received {total_steps}")
        _check_type('OneCycleLR', phase_pct, (float,), 'phase_pct')
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"OneCycleLR: 'phase_pct' must be between 0 and 1, but received {phase_pct}")
        _check_type('OneCycleLR', divide_factor, (float, int), 'divide_factor')
        if anneal_strategy not in ('cos', 'linear'):
            raise ValueError("OneCycleLR: 'anneal_strategy' must be one of 'cos' or 'linear', but "
                             f"received {anneal_strategy}")
        self.total_steps = total_steps
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)
        up_end = phase_pct * total_steps - 1
        last = total_steps - 1
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("OneCycleLR: when three_phase is True, 'phase_pct' must be less than 0.5")
            down_end = 2 * phase_pct * total_steps - 2
            self._step_config = [0, up_end, down_end, last, last]
            self._lr_config = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            self._step_config = [0, up_end, last, last]
            self._lr_config = [initial_lr, max_learning_rate, min_lr]
        # Phase lengths; the final entry repeats the last phase's length.
        sizes = [b - a for a, b in zip(self._step_config[:-2], self._step_config[1:-1])]
        self._steps_size = sizes + [sizes[-1]]
        self.anneal_strategy = anneal_strategy
        super().__init__(initial_lr, last_epoch, verbose)

    def anneal_func(self, start_lr, end_lr, pct):
        if self.anneal_strategy == 'cos':
            return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {step} times, but the number of total steps "
                             f"is {self.total_steps}")
        last_phase = len(self._lr_config) - 2
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end_step or i == last_phase:
                pct = (step - self._step_config[i]) / size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)


class CyclicLR(LRScheduler):
    """Cycles between base and max rate (triangular, triangular2 or exp_range, or scale_fn)."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode='triangular', exp_gamma=1.0, scale_fn=None, scale_mode='cycle', last_epoch=-1,
                 verbose=False):
        _check_type('CyclicLR', max_learning_rate, (float, int), 'max_learning_rate')
        if max_learning_rate < 0:
            raise ValueError(f"CyclicLR: 'max_learning_rate' must be >= 0, but received {max_learning_rate}")
        _check_type('CyclicLR', step_size_up, (int,), 'step_size_up')
        if step_size_up <= 0:
            raise ValueError(f"CyclicLR: 'step_size_up' must be a positive integer, but received {step_size_up}")
        if step_size_down is not None:
            _check_type('CyclicLR', step_size_down, (int,), 'step_size_down')
            if step_size_down <= 0:
                raise ValueError(f"CyclicLR: 'step_size_down' must be a positive integer, but received {step_size_down}")
        _check_type('CyclicLR', exp_gamma, (float,), 'exp_gamma')
        if mode not in ('triangular', 'triangular2', 'exp_range') and scale_fn is None:
            raise ValueError("CyclicLR: 'mode' is invalid and 'scale_fn' is not specified, make sure "
                             "one of 'mode' or 'scale_fn' is valid")
        if scale_mode not in ('cycle', 'iterations'):
            raise ValueError(f"CyclicLR: 'scale_mode' must be one of 'cycle' or 'iterations', but received {scale_mode}")
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == 'triangular':
            self.scale_fn, self.scale_mode = (lambda x: 1.0), 'cycle'
        elif mode == 'triangular2':
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), 'cycle'
        else:
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), 'iterations'
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == 'cycle' else iterations
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class LinearLR(LRScheduler):
    """Scales lr linearly from start_factor to end_factor over total_steps (recursively, from
    last_lr, as Paddle does)."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(f"LinearLR: `start_factor` must be greater than 0 and less or equal to 1, "
                             f"but got {start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"LinearLR: `end_factor` must be greater than 0 and less than 1, but got {end_factor}")
        if total_steps <= 0:
            raise ValueError(f"LinearLR: `total_steps` must be greater than 0, but got {total_steps}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        span = self.end_factor - self.start_factor
        factor = 1.0 + span / (self.total_steps * self.start_factor + (self.last_epoch - 1) * span)
        return self.last_lr * factor
