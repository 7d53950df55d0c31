"""oar.Model, as paddle.Model: fit / evaluate / predict loops, per-batch steps, save / load and summary
around a Layer, an optimizer, a loss and metrics (eager mode)."""
import inspect
import os
import time
import warnings

import numpy as np

from .. import _C
from .callbacks import EarlyStopping, config_callbacks


def _to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _to_numpy(value):
    if not isinstance(value, _C.Tensor):
        return np.asarray(value)
    if value.dtype.name == "bfloat16":  # NumPy has no bfloat16 (numpy() gives its raw uint16 bits)
        value = value.astype("float32")
    return value.numpy()


def _to_tensor(value):
    if isinstance(value, _C.Tensor):
        return value
    from ..tensor.creation import to_tensor
    return to_tensor(np.asarray(value))


def _forward_arity(network):
    """How many inputs the network's forward takes (Paddle derives its input specs from it)."""
    try:
        params = list(inspect.signature(network.forward).parameters.values())
    except (TypeError, ValueError):
        return 1
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
               and p.default is p.empty) or 1


class Model:
    """High-level training wrapper around a Layer (paddle.Model): prepare() sets the optimizer, the
    loss and the metrics; fit, evaluate and predict loop over a Dataset or DataLoader;
    train_batch, eval_batch and predict_batch work on one batch of NumPy arrays or tensors;
    save/load store parameters (and optimizer state); summary prints the layers.

    Args:
        network (Layer): The network; anything else raises TypeError.
        inputs (InputSpec|list of InputSpec, optional): The input description. Default: None.
        labels (InputSpec|list of InputSpec, optional): The label description. Default: None.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> model = oar.Model(oar.nn.Linear(2, 1))
        >>> opt = oar.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        >>> model.prepare(opt, oar.nn.MSELoss())
        >>> x, y = np.ones([4, 2], 'float32'), np.zeros([4, 1], 'float32')
        >>> loss = model.train_batch([x], [y])
        >>> print(model.predict_batch([x])[0].shape)
        (4, 1)
    """

    def __init__(self, network, inputs=None, labels=None):
        from ..nn import Layer
        if not isinstance(network, Layer):
            raise TypeError(f"Model: 'network' must be an oar.nn.Layer, but got {type(network).__name__}")
        self.network = network
        self._inputs = _to_list(inputs) if inputs is not None else None
        self._labels = _to_list(labels) if labels is not None else None
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self.stop_training = False
        self._accumulate = 1
        self._step_in_accumulation = 0
        self._ddp = None  # the DataParallel wrapper, in a job of several ranks
        self._amp = _parse_amp_configs(None)  # prepare(amp_configs=...)
        self._scaler = None  # the GradScaler of AMP training, made at the first train_batch

    # ---- data parallelism (a job started by oar.distributed.launch, after init_parallel_env) --
    @staticmethod
    def _world():
        from .. import distributed as dist
        return dist.get_world_size() if dist.is_initialized() else 1

    @staticmethod
    def _verbose(verbose):
        """Progress is printed by rank 0 only."""
        from .. import distributed as dist
        return verbose if not dist.is_initialized() or dist.get_rank() == 0 else 0

    def _trained_network(self):
        """The network forward and backward go through: a DataParallel over it in a job of
        several ranks (made once, so that every rank starts from rank 0's weights)."""
        if self._world() == 1:
            return self.network
        if self._ddp is None:
            from ..distributed import DataParallel
            self._ddp = DataParallel(self.network)
        return self._ddp

    # ---- setup -------------------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        from ..metric import Metric
        if loss is not None and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable function.")
        self._optimizer, self._loss = optimizer, loss
        self._metrics = _to_list(metrics)
        for m in self._metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"{type(m).__name__} is not sub class of Metric")
        self._amp = _parse_amp_configs(amp_configs)
        self._scaler = None
        if self._amp["level"] == "O2" and optimizer is not None:
            from .. import amp
            amp.decorate(self.network, optimizer, level="O2", dtype=self._amp["dtype"])

    def parameters(self, *args, **kwargs):
        return self.network.parameters(*args, **kwargs)

    def _num_inputs(self, batch_len):
        if self._inputs is not None:
            return len(self._inputs)
        arity = _forward_arity(self.network)
        if arity is None:
            n_labels = len(self._labels) if self._labels is not None else 1
            return max(batch_len - n_labels, 1)
        return arity

    # ---- one batch ---------------------------------------------------------------------------
    def _metric_results(self, outputs, labels):
        results = []
        for metric in self._metrics:
            computed = _to_list(metric.compute(*(outputs + labels)))
            results.append(metric.update(*[_to_numpy(c) for c in computed]))
        return results

    def _losses(self, outputs, labels):
        if self._loss is None:
            raise RuntimeError("Model: call prepare(loss=...) before training or evaluating with labels")
        return _to_list(self._loss(*(outputs + labels)))

    def train_batch(self, inputs, labels=None, update=True):
        """One optimisation step on a batch; returns [loss arrays] or ([loss arrays], metrics)."""
        if self._optimizer is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer=..., loss=...) first")
        self.network.train()
        inputs = [_to_tensor(x) for x in _to_list(inputs)]
        labels = [_to_tensor(y) for y in _to_list(labels)]
        amp_on = self._amp["level"] != "O0"
        with _amp_block(self._amp):
            outputs = _to_list(self._trained_network()(*inputs))
            losses = self._losses(outputs, labels)
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        if self._accumulate > 1:
            total = total / self._accumulate
        scaled = self._make_scaler().scale(total) if amp_on else total
        scaled.backward()
        self._step_in_accumulation += 1
        if update and self._step_in_accumulation >= self._accumulate:
            if amp_on:
                self._scaler.minimize(self._optimizer, scaled)
            else:
                self._optimizer.step()
            self._optimizer.clear_grad()
            self._step_in_accumulation = 0
        from ..autograd import no_grad
        with no_grad():
            metrics = self._metric_results([o.detach() for o in outputs], labels)
        loss_arrays = [_to_numpy(l) for l in losses]
        return (loss_arrays, metrics) if self._metrics else loss_arrays

    def eval_batch(self, inputs, labels=None):
        from ..autograd import no_grad
        self.network.eval()
        with no_grad():
            inputs = [_to_tensor(x) for x in _to_list(inputs)]
            labels = [_to_tensor(y) for y in _to_list(labels)]
            with _amp_block(self._amp):
                outputs = _to_list(self.network(*inputs))
                losses = self._losses(outputs, labels) if self._loss is not None else []
            # In a job of several ranks, evaluation metrics cover every rank's batch (as Paddle).
            metrics = self._metric_results(*self._gathered(outputs, labels))
        loss_arrays = [_to_numpy(l) for l in losses]
        if self._metrics and losses:
            return loss_arrays, metrics
        return metrics if self._metrics else loss_arrays

    def _gathered(self, outputs, labels):
        if self._world() == 1 or not self._metrics:
            return outputs, labels
        from .. import concat
        from .. import distributed as dist

        def gather(t):
            parts = []
            dist.all_gather(parts, t.contiguous())
            return concat(parts, axis=0)
        return [gather(o) for o in outputs], [gather(y) for y in labels]

    def predict_batch(self, inputs):
        from ..autograd import no_grad
        self.network.eval()
        with no_grad(), _amp_block(self._amp):
            outputs = _to_list(self.network(*[_to_tensor(x) for x in _to_list(inputs)]))
        return [_to_numpy(o) for o in outputs]

    # ---- loops -------------------------------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        from ..io import DataLoader, Dataset
        if data is None or isinstance(data, DataLoader):
            return data
        if isinstance(data, Dataset):
            if self._world() > 1:  # each rank reads its share of every epoch
                from ..io import DistributedBatchSampler
                sampler = DistributedBatchSampler(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
                return DataLoader(data, batch_sampler=sampler, num_workers=num_workers)
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        if hasattr(data, "__iter__"):
            return data
        raise TypeError(f"Model: data must be an oar.io.Dataset, a DataLoader or an iterable of batches, "
                        f"but got {type(data).__name__}")

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except TypeError:
            return None

    def _metrics_name(self):
        """The names the callbacks log and show: 'loss' (when there is a loss) and each metric's."""
        names = ["loss"] if self._loss is not None else []
        return names + [n for m in self._metrics for n in _to_list(m.name())]

    def _metric_logs(self, logs):
        for metric in self._metrics:
            names = _to_list(metric.name())
            values = _to_list(metric.accumulate())
            for name, value in zip(names, values):
                logs[name] = value

    def _run_one_epoch(self, loader, callbacks, mode, num_iters=None):
        logs = {}
        outputs = []
        for step, batch in enumerate(loader):
            if num_iters is not None and step >= num_iters:
                break
            batch = _to_list(batch)
            n_in = self._num_inputs(len(batch))
            inputs, labels = batch[:n_in], batch[n_in:]
            callbacks.call(f"on_{mode}_batch_begin", step, logs)
            if mode == "train":
                result = self.train_batch(inputs, labels)
            elif mode == "eval":
                result = self.eval_batch(inputs, labels)
            else:
                result = self.predict_batch(inputs)
                outputs.append(result)
            if mode != "predict":
                losses = result[0] if self._metrics and self._loss is not None else \
                    (result if self._loss is not None else [])
                if losses:
                    logs["loss"] = [float(np.asarray(l).reshape(-1)[0]) for l in losses]
                self._metric_logs(logs)
            logs["step"] = step
            logs["batch_size"] = int(_to_list(inputs)[0].shape[0]) if inputs else 0
            callbacks.call(f"on_{mode}_batch_end", step, logs)
            if mode == "train" and self.stop_training:
                break
        return (logs, outputs) if mode == "predict" else logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1, log_freq=10,
            save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True, num_workers=0, callbacks=None,
            accumulate_grad_batches=1, num_iters=None):
        if train_data is None:
            raise ValueError("Model.fit: 'train_data' must be given")
        if batch_size <= 0 or epochs <= 0:
            raise ValueError(f"Model.fit: batch_size and epochs must be positive, got {batch_size} and {epochs}")
        train_loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        self._accumulate = max(int(accumulate_grad_batches), 1)
        steps = self._len(train_loader)
        if num_iters is not None:
            steps = min(steps, num_iters) if steps is not None else num_iters
            epochs = max(epochs, 1)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs, steps=steps, log_freq=log_freq,
                                verbose=self._verbose(verbose), save_freq=save_freq, save_dir=save_dir,
                                metrics=self._metrics_name(), batch_size=batch_size)
        if eval_loader is None and any(isinstance(c, EarlyStopping) for c in cbks):
            warnings.warn("EarlyStopping needs validation data.")
        self.stop_training = False
        cbks.call("on_train_begin")
        iters_left = num_iters
        for epoch in range(epochs):
            for metric in self._metrics:
                metric.reset()
            cbks.call("on_epoch_begin", epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train", iters_left)
            if iters_left is not None:
                iters_left -= logs.get("step", -1) + 1
            cbks.call("on_epoch_end", epoch, logs)
            if eval_loader is not None and (epoch + 1) % eval_freq == 0:
                self._evaluate(eval_loader, cbks)
            if self.stop_training or (iters_left is not None and iters_left <= 0):
                break
        cbks.call("on_train_end", logs)

    def _evaluate(self, loader, cbks):
        for metric in self._metrics:
            metric.reset()
        names = self._metrics_name()
        cbks.call("on_eval_begin", {"steps": self._len(loader), "metrics": names})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.call("on_eval_end", logs)
        return logs

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0, callbacks=None,
                 num_iters=None):
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=self._verbose(verbose),
                                metrics=self._metrics_name())
        for metric in self._metrics:
            metric.reset()
        names = self._metrics_name()
        steps = self._len(loader)
        if num_iters is not None:
            steps = min(steps, num_iters) if steps is not None else num_iters
        cbks.call("on_eval_begin", {"steps": steps, "metrics": names})
        logs = self._run_one_epoch(loader, cbks, "eval", num_iters)
        cbks.call("on_eval_end", logs)
        return {k: v for k, v in logs.items() if k in names}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1, callbacks=None):
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        cbks = config_callbacks(callbacks, model=self, verbose=self._verbose(verbose), log_freq=1)
        cbks.call("on_predict_begin", {"steps": self._len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        cbks.call("on_predict_end", logs)
        per_output = list(zip(*outputs)) if outputs else []
        if stack_outputs:
            return [np.concatenate(o, axis=0) for o in per_output]
        return [list(o) for o in per_output]

    # ---- persistence -------------------------------------------------------------------------
    def save(self, path, training=True):
        """training=True: <path>.pdparams (+ <path>.pdopt); training=False: an inference model.
        In a job of several ranks only rank 0 writes (the replicas are equal)."""
        from ..framework.io import save_together
        from .. import distributed as dist
        if dist.is_initialized() and dist.get_rank() != 0:
            return
        if not training:
            # The network's forward as a program plus its weights (<path>.json, <path>.pdiparams).
            from ..jit import save as jit_save
            if not self._inputs:
                raise ValueError("Model.save(training=False): the saved program needs its input shapes; create "
                                 "the Model with inputs=[oar.static.InputSpec(shape, dtype, name)]")
            was_training = self.network.training
            self.network.eval()
            try:
                jit_save(self.network, path, input_spec=self._inputs)
            finally:
                if was_training:
                    self.network.train()
            return
        dirname = os.path.dirname(path)
        if dirname:
            os.makedirs(dirname, exist_ok=True)
        # Written together: a kill mid-save leaves the previous pair, not new weights beside the
        # optimizer states they did not train with (save_together: bar the instant between
        # the two renames).
        files = [(self.network.state_dict(), path + ".pdparams")]
        if self._optimizer is not None:
            files.append((self._optimizer.state_dict(), path + ".pdopt"))
        if self._scaler is not None and self._scaler.state_dict():  # AMP's loss scale, as Paddle
            files.append((self._scaler.state_dict(), path + ".pdscaler"))
        save_together(files)

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        from ..framework.io import load
        for suffix in (".pdparams", ".pdopt"):
            if path.endswith(suffix):
                path = path[: -len(suffix)]
        params_path = path + ".pdparams"
        if not os.path.exists(params_path):
            raise FileNotFoundError(f"Model.load: parameter file {params_path} does not exist")
        state = load(params_path)
        if skip_mismatch:
            own = self.network.state_dict()
            kept = {}
            for key, value in state.items():
                if key in own and list(np.shape(_to_numpy(value))) != list(own[key].shape):
                    warnings.warn(f"Model.load: skip {key}: shape {list(np.shape(_to_numpy(value)))} in the "
                                  f"file, {list(own[key].shape)} in the model")
                    continue
                kept[key] = value
            state = kept
        self.network.set_state_dict(state)
        opt_path = path + ".pdopt"
        if self._optimizer is not None and not reset_optimizer and os.path.exists(opt_path):
            self._optimizer.set_state_dict(load(opt_path))
        scaler_path = path + ".pdscaler"
        if self._amp["level"] != "O0" and os.path.exists(scaler_path):
            self._make_scaler().load_state_dict(load(scaler_path))

    def _make_scaler(self):
        """The GradScaler of AMP training (made once). bfloat16 has float32's range: no loss
        scaling (Paddle's GradScaler would turn itself off with a warning)."""
        if self._scaler is None:
            from ..amp import GradScaler
            self._scaler = GradScaler(enable=self._amp["dtype"] == "float16", **self._amp["scaler"])
        return self._scaler

    def summary(self, input_size=None, dtype=None):
        from .summary import summary
        if input_size is None:
            if not self._inputs:
                raise ValueError("Model.summary: give input_size, or inputs when building the Model")
            input_size = [tuple(spec.shape) for spec in self._inputs]
            if len(input_size) == 1:
                input_size = input_size[0]
        return summary(self.network, input_size, dtypes=dtype)


# ---- mixed precision (prepare(amp_configs=...)) -------------------------------------------------
_SCALER_KEYS = ("init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling")
_LIST_KEYS = ("custom_white_list", "custom_black_list", "custom_black_varnames")


def _parse_amp_configs(amp_configs):
    """Paddle's amp_configs: None, 'O0'/'O1'/'O2', or a dict with 'level', the custom op lists and
    GradScaler's arguments. oar also takes 'dtype' ('float16', the default, or 'bfloat16')."""
    config = {"level": "O0", "dtype": "float16", "lists": {}, "scaler": {}}
    if not amp_configs:
        return config
    if isinstance(amp_configs, str):
        if amp_configs not in ("O0", "O1", "O2"):
            raise ValueError("The level of amp_configs should be 'O0', 'O1' or 'O2'.")
        config["level"] = amp_configs
        return config
    if not isinstance(amp_configs, dict):
        raise TypeError(f"Model.prepare: amp_configs should be a str or a dict, but got "
                        f"{type(amp_configs).__name__}")
    level = amp_configs.get("level", "O1")
    if level not in ("O0", "O1", "O2"):
        raise ValueError("amp_configs['level'] should be 'O0', 'O1' or 'O2'.")
    config["level"] = level
    if level == "O0":
        return config
    if "use_pure_fp16" in amp_configs:
        raise ValueError("'use_pure_fp16' is an invalid parameter, the level of mixed precision "
                         "training only depends on 'O1' or 'O2'.")
    if "use_fp16_guard" in amp_configs:
        raise ValueError("'use_fp16_guard' is supported in static graph mode only.")
    unknown = tuple(k for k in amp_configs
                    if k not in ("level", "dtype") + _SCALER_KEYS + _LIST_KEYS)
    if unknown:
        raise ValueError("Except for 'level', the keys of 'amp_configs' must be accepted by mixed "
                         f"precision APIs, but {unknown} could not be recognized.")
    config["dtype"] = amp_configs.get("dtype", "float16")
    config["lists"] = {k: amp_configs[k] for k in ("custom_white_list", "custom_black_list") if k in amp_configs}
    config["scaler"] = {k: amp_configs[k] for k in _SCALER_KEYS if k in amp_configs}
    return config


def _amp_block(config):
    import contextlib
    if config["level"] == "O0":
        return contextlib.nullcontext()
    from ..amp import auto_cast
    return auto_cast(True, level=config["level"], dtype=config["dtype"], **config["lists"])
