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
    """Base class of the learning-rate schedulers.

    A scheduler holds ``last_epoch`` and ``last_lr``; ``scheduler()`` returns the current rate,
    ``step()`` advances one epoch (or step) and recomputes it. Pass it as an optimizer's
    ``learning_rate``; the optimizer reads it at each update, and you call ``scheduler.step()``
    (once per epoch or per batch, as the schedule is meant). Subclasses implement ``get_lr()``
    from ``self.base_lr`` and ``self.last_epoch``.

    Args:
        learning_rate (float, optional): The initial rate (``base_lr``). Default: 0.1.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> class Halving(oar.optimizer.lr.LRScheduler):
        ...     def get_lr(self):
        ...         return self.base_lr * 0.5 ** self.last_epoch
        >>> scheduler = Halving(learning_rate=1.0)
        >>> linear = oar.nn.Linear(2, 1)
        >>> sgd = oar.optimizer.SGD(learning_rate=scheduler, parameters=linear.parameters())
        >>> for epoch in range(3):
        ...     linear(oar.ones([4, 2])).mean().backward()
        ...     sgd.step()
        ...     sgd.clear_grad()
        ...     scheduler.step()
        >>> print(scheduler.last_epoch, sgd.get_lr())
        3 0.125
    """

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
        """Advances one epoch (or jumps to ``epoch``) and recomputes the rate.

        Args:
            epoch (int, optional): The epoch to jump to; None means the next one. Default: None.
        """
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
        """The rate of epoch ``self.last_epoch``; subclasses implement it."""
        raise NotImplementedError(f"{type(self).__name__}.get_lr: subclasses of LRScheduler must "
                                  "implement get_lr()")

    def state_keys(self):
        """Sets ``self.keys``, the attributes that ``state_dict`` saves."""
        self.keys = ['last_epoch', 'last_lr']

    def state_dict(self):
        """The scheduler's state (last_epoch, last_lr and the subclass's own keys), to save with the
        model.

        Returns:
            dict
        """
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
        """Restores a state saved by ``state_dict()``.

        Args:
            state_dict (dict): The state.
        """
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
    """The Transformer's schedule ("Attention Is All You Need"): a linear warmup, then decay with
    the inverse square root of the step.

    ``lr = learning_rate * d_model^-0.5 * min(epoch^-0.5, epoch * warmup_steps^-1.5)``.

    Args:
        d_model (int): The model dimension; > 0.
        warmup_steps (int): Number of warmup steps.
        learning_rate (float, optional): A scale of the whole schedule. Default: 1.0.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.NoamDecay(d_model=64, warmup_steps=3)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.0, 0.0241, 0.0481, 0.0722, 0.0625, 0.0559]
    """

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
    """A piecewise-constant rate: ``values[i]`` while ``epoch < boundaries[i]``, and the last value
    after the last boundary.

    Args:
        boundaries (list[int]): Increasing epochs where the rate changes.
        values (list[float]): The rates, one more than the boundaries.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.PiecewiseDecay(boundaries=[2, 4], values=[1.0, 0.5, 0.1])
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    """

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
    """Exponential decay: ``lr = learning_rate * exp(-gamma * epoch)``.

    Args:
        learning_rate (float): The initial rate.
        gamma (float): The decay rate.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.NaturalExpDecay(learning_rate=0.5, gamma=0.1)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.4524, 0.4094, 0.3704, 0.3352, 0.3033]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not gamma > 0.0:
            raise ValueError(f"NaturalExpDecay: expected 'gamma' > 0 so that the rate decays, but received {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """Inverse time decay: ``lr = learning_rate / (1 + gamma * epoch)``.

    Args:
        learning_rate (float): The initial rate.
        gamma (float): The decay rate.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.InverseTimeDecay(learning_rate=0.5, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.3333, 0.25, 0.2, 0.1667, 0.1429]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """Polynomial decay from learning_rate to end_lr over decay_steps:
    ``lr = (learning_rate - end_lr) * (1 - epoch / decay_steps)^power + end_lr``, then end_lr.

    With ``cycle``, decay_steps is stretched to the next multiple of itself past the epoch, so
    the rate jumps back up and decays again.

    Args:
        learning_rate (float): The initial rate.
        decay_steps (int): Length of the decay; > 0.
        end_lr (float, optional): The final rate. Default: 0.0001.
        power (float, optional): The exponent; > 0. Default: 1.0.
        cycle (bool, optional): Restart the decay after decay_steps. Default: False.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.PolynomialDecay(learning_rate=0.5, decay_steps=4, end_lr=0.1)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.4, 0.3, 0.2, 0.1, 0.1]
    """

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
    """Linear warmup from start_lr to end_lr over warmup_steps, then the rate ``learning_rate``.

    ``learning_rate`` may be a number or another scheduler, which is stepped from its start when
    the warmup ends.

    Args:
        learning_rate (float|LRScheduler): The rate (or schedule) after the warmup.
        warmup_steps (int): Length of the warmup; > 0.
        start_lr (float): The rate at step 0.
        end_lr (float): The rate the warmup reaches; > start_lr.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.LinearWarmup(learning_rate=0.5, warmup_steps=4, start_lr=0.0, end_lr=0.5)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.0, 0.125, 0.25, 0.375, 0.5, 0.5]
    """

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
        """The state, including that of a wrapped scheduler."""
        out = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            out['LinearWarmup_LR'] = self.learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        """Restores a state from ``state_dict()`` (a wrapped scheduler's too)."""
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
    """Exponential decay: ``lr = learning_rate * gamma^epoch``.

    Args:
        learning_rate (float): The initial rate.
        gamma (float): The decay factor per epoch, in (0, 1).
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.ExponentialDecay(learning_rate=0.5, gamma=0.5)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.25, 0.125, 0.0625, 0.0312, 0.0156]
    """

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not 0.0 < gamma < 1.0:
            raise ValueError(f"ExponentialDecay: expected 'gamma' in (0.0, 1.0) so that the rate "
                             f"decays, but received {gamma}")
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.gamma ** self.last_epoch


class MultiStepDecay(LRScheduler):
    """Step decay at given epochs: ``lr = learning_rate * gamma^k``, k the number of milestones
    already passed.

    Args:
        learning_rate (float): The initial rate.
        milestones (list[int]): Increasing epochs where the rate is multiplied by gamma.
        gamma (float, optional): The factor; < 1. Default: 0.1.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.MultiStepDecay(learning_rate=0.5, milestones=[2, 4], gamma=0.1)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.5, 0.05, 0.05, 0.005, 0.005]
    """

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
    """Step decay every step_size epochs: ``lr = learning_rate * gamma^(epoch // step_size)``.

    Args:
        learning_rate (float): The initial rate.
        step_size (int): Epochs between decays; > 0.
        gamma (float, optional): The factor; < 1. Default: 0.1.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.5, 0.05, 0.05, 0.005, 0.005]
    """

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
    """A rate given by a function of the epoch: ``lr = learning_rate * lr_lambda(epoch)``.

    Args:
        learning_rate (float): The initial rate.
        lr_lambda (callable): ``lr_lambda(epoch)`` returning the factor.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.LambdaDecay(learning_rate=0.5, lr_lambda=lambda epoch: 0.9 ** epoch)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.45, 0.405, 0.3645, 0.3281, 0.2952]
    """

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("LambdaDecay: expected 'lr_lambda' to be a function, but received "
                            f"{type(lr_lambda).__name__}")
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """A rate multiplied at every epoch by a factor a function gives:
    ``lr = learning_rate * lr_lambda(1) * ... * lr_lambda(epoch)``.

    Args:
        learning_rate (float): The initial rate.
        lr_lambda (callable): ``lr_lambda(epoch)`` returning that epoch's factor.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.MultiplicativeDecay(learning_rate=0.5, lr_lambda=lambda epoch: 0.5)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.25, 0.125, 0.0625, 0.0312, 0.0156]
    """

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
    """Reduces the rate when a metric stops improving.

    ``step(metrics)`` records one epoch's metric (a loss, an accuracy); when it has not improved
    for more than ``patience`` epochs, the rate is multiplied by ``factor`` (not below min_lr)
    and the scheduler waits ``cooldown`` epochs before counting again.

    Args:
        learning_rate (float): The initial rate.
        mode (str, optional): 'min' (lower is better) or 'max'. Default: 'min'.
        factor (float, optional): The multiplier; < 1. Default: 0.1.
        patience (int, optional): Epochs without improvement tolerated. Default: 10.
        threshold (float, optional): The least change counting as an improvement. Default: 1e-4.
        threshold_mode (str, optional): 'rel' (threshold relative to the best) or 'abs'.
            Default: 'rel'.
        cooldown (int, optional): Epochs to wait after a reduction. Default: 0.
        min_lr (float, optional): The lowest rate. Default: 0.
        epsilon (float, optional): Reductions smaller than this are skipped. Default: 1e-8.
        verbose (bool, optional): Print the rate when it changes. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.ReduceOnPlateau(learning_rate=0.5, patience=1, factor=0.5)
        >>> lrs = []
        >>> for loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.8]:
        ...     scheduler.step(loss)
        ...     lrs.append(scheduler())
        >>> print(lrs)
        [0.5, 0.5, 0.5, 0.25, 0.25, 0.25]
    """

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
        """Sets ``self.keys``: the counters, the best metric, last_epoch and last_lr."""
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
        """Records one epoch's metric and reduces the rate if it has stopped improving.

        Args:
            metrics (float|Tensor|numpy.ndarray): The metric, a number or a one-element tensor/array.
            epoch (int, optional): The epoch number; None means the next one. Default: None.
        """
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
    """Cosine annealing from learning_rate down to eta_min over T_max epochs:
    ``lr = eta_min + (learning_rate - eta_min) * (1 + cos(pi * epoch / T_max)) / 2``.

    Stepping computes it recursively from the last rate (as Paddle does), which continues the
    cosine past T_max; ``step(epoch)`` uses the closed form.

    Args:
        learning_rate (float): The initial (largest) rate.
        T_max (int): Half period of the cosine, in epochs; > 0.
        eta_min (float, optional): The smallest rate. Default: 0.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.CosineAnnealingDecay(learning_rate=0.5, T_max=4)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.4268, 0.25, 0.0732, 0.0, 0.0732]
    """

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
    """Cosine annealing with warm restarts (SGDR): the cosine from learning_rate to eta_min
    restarts every T_i epochs, ``T_i = T_0 * T_mult^i`` for the i-th run.

    Args:
        learning_rate (float): The rate at each restart.
        T_0 (int): Length of the first run; > 0.
        T_mult (int, optional): Growth factor of the run lengths; >= 1. Default: 1.
        eta_min (float, optional): The smallest rate. Default: 0.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=2, T_mult=2)
        >>> lrs = []
        >>> for epoch in range(8):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.5, 0.25, 0.5, 0.4268, 0.25, 0.0732, 0.5, 0.481]
    """

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
        """Advances one epoch (or jumps to ``epoch``, which may be fractional, to step within an
        epoch) and recomputes the rate.

        Args:
            epoch (float, optional): The epoch to jump to. Default: None.
        """
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
    """The one-cycle policy (super-convergence), stepped once per batch: the rate warms up from
    ``max_learning_rate / divide_factor`` to max_learning_rate over the first ``phase_pct`` of
    the steps, then anneals down to end_learning_rate.

    Args:
        max_learning_rate (float): The peak rate.
        total_steps (int): Number of steps of the whole cycle.
        divide_factor (float, optional): The initial rate is max_learning_rate / divide_factor.
            Default: 25.0.
        end_learning_rate (float, optional): The final rate. Default: 0.0001.
        phase_pct (float, optional): Share of the steps spent warming up. Default: 0.3.
        anneal_strategy (str, optional): 'cos' or 'linear'. Default: 'cos'.
        three_phase (bool, optional): Anneal back to the initial rate first, then to
            end_learning_rate (a third phase). Default: False.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.OneCycleLR(max_learning_rate=1.0, total_steps=6)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.04, 0.9944, 0.8118, 0.4627, 0.1336, 0.0001]
    """

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
        """The annealing of the chosen strategy from ``start_lr`` to ``end_lr`` at fraction ``pct``."""
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
    """Cyclical learning rate, stepped once per batch: the rate goes from base_learning_rate up to
    max_learning_rate in step_size_up steps and back in step_size_down steps, the amplitude
    scaled per cycle by the mode.

    Args:
        base_learning_rate (float): The lower bound of the cycle.
        max_learning_rate (float): The upper bound.
        step_size_up (int): Steps of the rising half.
        step_size_down (int, optional): Steps of the falling half; None means step_size_up.
            Default: None.
        mode (str, optional): 'triangular' (constant amplitude), 'triangular2' (halved every
            cycle) or 'exp_range' (scaled by exp_gamma^step). Default: 'triangular'.
        exp_gamma (float, optional): The factor of 'exp_range'. Default: 1.0.
        scale_fn (callable, optional): A custom amplitude scale, used instead of mode.
            Default: None.
        scale_mode (str, optional): Whether scale_fn takes the 'cycle' number or the step
            ('iterations'). Default: 'cycle'.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.CyclicLR(base_learning_rate=0.1, max_learning_rate=0.5, step_size_up=2)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.1, 0.3, 0.5, 0.3, 0.1, 0.3]
    """

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
    """Scales the rate linearly from ``learning_rate * start_factor`` to
    ``learning_rate * end_factor`` over total_steps, then keeps it (computed recursively from
    the last rate, as Paddle does).

    Args:
        learning_rate (float): The base rate.
        total_steps (int): Length of the ramp; > 0.
        start_factor (float, optional): The factor at step 0, in (0, 1]. Default: 1/3.
        end_factor (float, optional): The factor at total_steps, in [0, 1]. Default: 1.0.
        last_epoch (int, optional): The epoch to resume from; -1 starts fresh. Default: -1.
        verbose (bool, optional): Print the rate at every step. Default: False.

    Examples:
        >>> import oar
        >>> scheduler = oar.optimizer.lr.LinearLR(learning_rate=0.5, total_steps=3, start_factor=0.2)
        >>> lrs = []
        >>> for epoch in range(6):
        ...     lrs.append(round(scheduler(), 4))
        ...     scheduler.step()
        >>> print(lrs)
        [0.1, 0.2333, 0.3667, 0.5, 0.5, 0.5]
    """

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
