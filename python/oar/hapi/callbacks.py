"""Training callbacks, as paddle.callbacks: the hooks Model.fit/evaluate/predict call, and the standard
ones (progress logging, checkpoints, early stopping, LR scheduling, a scalar logger)."""
import numbers
import os
import warnings

import numpy as np

from ..framework.errors import AssertValueError
from .progressbar import ProgressBar


class Callback:
    """Base class: override any on_* hook. `self.model` and `self.params` are set before training."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


class CallbackList:
    """Calls one hook on every callback, in order (Paddle's CallbackList: on_begin('train'), ...)."""

    _MODES = ("train", "eval", "predict")

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)
        self.params = {}
        self.model = None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_model(self, model):
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def call(self, hook, *args):
        for c in self.callbacks:
            getattr(c, hook)(*args)

    def _mode(self, mode):
        if mode not in self._MODES:
            raise AssertValueError(f"mode should be train, eval or predict, but got {mode!r}")
        return mode

    def on_begin(self, mode, logs=None):
        self.call(f"on_{self._mode(mode)}_begin", logs)

    def on_end(self, mode, logs=None):
        self.call(f"on_{self._mode(mode)}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self.call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self.call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self.call(f"on_{self._mode(mode)}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self.call(f"on_{self._mode(mode)}_batch_end", step, logs)


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None, log_freq=2,
                     verbose=2, save_freq=1, save_dir=None, metrics=None, mode="train"):
    """The callbacks of one fit/evaluate/predict run: the user's (a list, or one callback), plus a
    ProgBarLogger (when verbose), a ModelCheckpoint and an LRScheduler unless the user gave one of
    each (Paddle's rule). `metrics` are the names the loggers show (Model._metrics_name(): 'loss'
    and the metrics' names), as in Paddle; mode 'test' shows none."""
    if callbacks is None:
        callbacks = []
    callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else [callbacks]
    if not any(isinstance(c, ProgBarLogger) for c in callbacks) and verbose:
        callbacks = [ProgBarLogger(log_freq, verbose=verbose)] + callbacks
    if not any(isinstance(c, ModelCheckpoint) for c in callbacks):
        callbacks.append(ModelCheckpoint(save_freq, save_dir))
    for c in callbacks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in callbacks):
        callbacks.append(LRScheduler())
    cbks = CallbackList(callbacks)
    cbks.set_model(model)
    names = [n for m in (metrics or []) for n in _metric_names(m)] if mode != "test" else []
    cbks.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps, "verbose": verbose,
                     "metrics": names})
    return cbks


def _metric_names(metric):
    """A name as it is; a Metric object (as oar's config_callbacks once took) by its names."""
    if isinstance(metric, str):
        return [metric]
    name = metric.name()
    return list(name) if isinstance(name, (list, tuple)) else [name]


class ProgBarLogger(Callback):
    """Prints step, loss, metrics, time per step (and with verbose=1 a bar and the ETA) every log_freq
    steps, and the samples seen at the end of evaluation and prediction."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.log_freq, self.verbose = log_freq, verbose
        self.epochs = None

    def _is_print(self):
        return self.verbose and (not hasattr(self.model, "_local_rank") or self.model._local_rank == 0)

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is the average value "
                  "of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)

    def _values(self, logs, names):
        return [(k, logs[k]) for k in names if k in logs]

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if self._is_print() and (self.train_step % self.log_freq == 0 or self.train_step == self.steps):
            self.train_progbar.update(self.train_step, self._values(logs or {}, self.train_metrics))

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is None:
            self.train_progbar.update(self.train_step, self._values(logs or {}, self.train_metrics))

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps")
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0
        self.eval_progbar = ProgressBar(num=self.eval_steps, verbose=self.verbose)
        if self._is_print():
            print("Eval begin...")

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.eval_step += 1
        self.evaled_samples += logs.get("batch_size", 0)
        if self._is_print() and (self.eval_step % self.log_freq == 0 or self.eval_step == self.eval_steps):
            self.eval_progbar.update(self.eval_step, self._values(logs, self.eval_metrics))

    def on_eval_end(self, logs=None):
        if self._is_print():
            if self.eval_steps is None:
                self.eval_progbar.update(self.eval_step, self._values(logs or {}, self.eval_metrics))
            print(f"Eval samples: {self.evaled_samples}")

    def on_predict_begin(self, logs=None):
        logs = logs or {}
        self.test_steps = logs.get("steps")
        self.test_step = 0
        self.tested_samples = 0
        self.test_progbar = ProgressBar(num=self.test_steps, verbose=self.verbose)
        if self._is_print():
            print("Predict begin...")

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.test_step += 1
        self.tested_samples += logs.get("batch_size", 0)
        if self._is_print() and (self.test_step % self.log_freq == 0 or self.test_step == self.test_steps):
            self.test_progbar.update(self.test_step, [])

    def on_predict_end(self, logs=None):
        if self._is_print():
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves the model to save_dir/<epoch> every save_freq epochs and to save_dir/final at the end."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq, self.save_dir = save_freq, save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        # In a job of several ranks, rank 0 saves (the replicas are equal).
        from .. import distributed as dist
        first = not dist.is_initialized() or dist.get_rank() == 0
        return self.model is not None and self.save_dir is not None and first

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and (self.epoch + 1) % self.save_freq == 0:
            path = os.path.join(self.save_dir, str(epoch))
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = os.path.join(self.save_dir, "final")
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after every batch (by_step) or epoch (by_epoch)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step, self.by_epoch = by_step, by_epoch

    def _scheduler(self):
        optimizer = getattr(self.model, "_optimizer", None)
        lr = getattr(optimizer, "_learning_rate", None)
        return lr if lr is not None and hasattr(lr, "step") and callable(lr.step) else None

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch and self._scheduler() is not None:
            self._scheduler().step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step and self._scheduler() is not None:
            self._scheduler().step()


class EarlyStopping(Callback):
    """Stops training when `monitor` (an evaluation value) has not improved by min_delta for
    `patience` evaluations; keeps the best model in save_dir/best_model when save_best_model."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0, baseline=None,
                 save_best_model=True):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.baseline, self.min_delta = baseline, abs(min_delta)
        self.save_best_model = save_best_model
        self.save_dir = None  # set by config_callbacks (Model.fit's save_dir), as in Paddle
        self.wait_epoch, self.stopped_epoch, self.best_weights = 0, 0, None
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = np.less
        else:
            self.monitor_op = np.greater
        if self.monitor_op == np.less:
            self.min_delta = -self.min_delta  # improvement means current < best - |min_delta|

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn(f"Monitor of EarlyStopping should be loss or metric name, but got {self.monitor!r} "
                          f"(available: {sorted(logs or {})})")
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        current = float(current)
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, "best_model"))
        else:
            self.wait_epoch += 1
        if self.wait_epoch > self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    print(f"Best checkpoint has been saved at "
                          f"{os.path.abspath(os.path.join(self.save_dir, 'best_model'))}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` when `monitor` stops improving for `patience` evaluations."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self.mode = "max" if (mode == "max" or (mode == "auto" and "acc" in monitor)) else "min"
        self.best = np.inf if self.mode == "min" else -np.inf
        self.wait = self.cooldown_counter = 0
        self.epoch = 0

    def _better(self, current):
        if self.mode == "min":
            return current < self.best - self.min_delta
        return current > self.best + self.min_delta

    def on_epoch_end(self, epoch, logs=None):
        self.epoch = epoch

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn(f"Monitor of ReduceLROnPlateau should be loss or metric name, got {self.monitor!r}")
            return
        current = logs[self.monitor]
        current = float(current[0] if isinstance(current, (list, tuple)) else current)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._better(current):
            self.best, self.wait = current, 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait >= self.patience:
            optimizer = self.model._optimizer
            if not isinstance(optimizer._learning_rate, numbers.Number):
                warnings.warn("ReduceLROnPlateau expects the optimizer's learning rate to be a number, "
                              "not a scheduler; skipping")
                return
            old = float(optimizer.get_lr())
            if old > self.min_lr:
                new = max(old * self.factor, self.min_lr)
                optimizer.set_lr(new)
                if self.verbose:
                    print(f"Epoch {self.epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
                self.cooldown_counter, self.wait = self.cooldown, 0


class VisualDL(Callback):
    """Writes train/eval scalars (loss, metrics, learning rate) to `log_dir` as a scalar log that
    `python -m oar.utils.plot_scalars log_dir` turns into a plot (see oar.utils.scalar_log)."""

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir
        self.writer = None
        self.train_step = 0
        self.epoch = 0

    def _writer(self):
        if self.writer is None:
            from ..utils.scalar_log import ScalarWriter
            self.writer = ScalarWriter(self.log_dir)
        return self.writer

    def _log(self, mode, logs, step):
        names = self.params.get("metrics", []) + ["lr"] if mode == "train" else list(logs)
        for name in names:
            if name not in logs or name in ("steps", "metrics", "batch_size"):
                continue
            value = logs[name]
            if isinstance(value, (list, tuple)):
                value = value[0]
            try:
                self._writer().add_scalar(f"{mode}/{name}", float(value), step)
            except (TypeError, ValueError):
                continue

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        logs = dict(logs or {})
        optimizer = getattr(self.model, "_optimizer", None)
        if optimizer is not None:
            logs["lr"] = optimizer.get_lr()
        self._log("train", logs, self.train_step)

    def on_epoch_end(self, epoch, logs=None):
        self.epoch = epoch + 1

    def on_eval_end(self, logs=None):
        self._log("eval", logs or {}, self.epoch)

    def on_train_end(self, logs=None):
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class WandbCallback(Callback):
    """Logs training and evaluation metrics to Weights & Biases (paddle.callbacks.WandbCallback):
    train metrics every batch against 'train/step', eval metrics at each evaluation against
    'epoch'. Only local rank 0 writes. It needs the `wandb` package: without it, construction
    raises ImportError naming `pip install wandb`, as in Paddle.

    Args:
        project (str, optional): The W&B project. Default: None.
        entity (str, optional): The W&B user or team. Default: None.
        name (str, optional): The run's name. Default: None.
        dir (str, optional): Where W&B keeps its files. Default: None.
        mode (str, optional): 'online', 'offline' or 'disabled'. Default: None.
        job_type (str, optional): The run's job type. Default: None.
        **kwargs: Further arguments of wandb.init.

    Examples:
        >>> import oar
        >>> try:
        ...     cb = oar.callbacks.WandbCallback(project='demo', mode='disabled')
        ... except ImportError as e:
        ...     print('pip install wandb' in str(e))
        True
    """

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None, job_type=None, **kwargs):
        super().__init__()
        from ..utils import try_import
        self.wandb = try_import("wandb", "You want to use `wandb` which is not installed yet install it with "
                                         "`pip install wandb`")
        self.wandb_args = dict(project=project, name=name, entity=entity, dir=dir, mode=mode, job_type=job_type)
        self._run = None
        self.wandb_args.update(**kwargs)
        _ = self.run

    def _is_write(self):
        from ..distributed.parallel_env import ParallelEnv
        return ParallelEnv().local_rank == 0

    @property
    def run(self):
        if self._is_write() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created instances of "
                              "`WandbCallback` will reuse this run. If this is not desired, call `wandb.finish()` "
                              "before instantiating `WandbCallback`.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.steps = self.params["steps"]
        self.train_metrics = self.params["metrics"]
        self._is_fit = True
        self.train_step = 0
        if self._is_write():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch

    def _updates(self, logs, mode):
        if not self._is_write():
            return
        metrics = getattr(self, f"{mode}_metrics")
        record = {"train/step": self.train_step} if mode == "train" else {"epoch": getattr(self, "epoch", 0)}
        for k in metrics:
            if k in logs:
                value = logs[k]
                if isinstance(value, (list, tuple)):
                    record[f"{mode}/{k}"] = value[0]
                elif isinstance(value, numbers.Number):
                    record[f"{mode}/{k}"] = value
        self.run.log(record)

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        if self._is_write():
            self._updates(logs, "train")

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_train_end(self, logs=None):
        if self._is_write():
            self.run.finish()

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._updates(logs or {}, "eval")
            if not hasattr(self, "_is_fit") and self._run is not None:
                self.run.finish()
                self._run = None
