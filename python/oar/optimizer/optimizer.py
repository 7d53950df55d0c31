"""Optimizer: the base of oar.optimizer (paddle.optimizer.Optimizer).

step() gathers, per parameter group, the parameters that have gradients, clips the gradients
(grad_clip), resolves each parameter's learning rate and weight decay, creates the optimizer's
states on first use, and hands everything to one fused C++ kernel call (oar._C._optim_*) that
updates all of them in place. Python does per-parameter bookkeeping only, never per element.

States are named as Paddle names them ("<param>_<state>_<n>", "master_weights",
"LR_Scheduler"), so state_dict()/set_state_dict() exchange optimizer states with Paddle by
parameter name.
"""
import numpy as np

from .. import _C
from ..autograd import no_grad
from ..framework.mode import in_static_mode
from ..profiler import events as _profiler_events
from ..profiler.events import in_phase
from ..nn.clip import ClipGradBase
from ..tensor.creation import to_tensor
from ..utils import unique_name  # names as Paddle's: one counter per key, '<key>_<n>'
from ..regularizer import L2Decay, WeightDecayRegularizer
from .lr import LRScheduler

__all__ = ['Optimizer']


_HALF = ('float16', 'bfloat16')


def _dtype_name(t):
    return t.dtype.name if hasattr(t.dtype, 'name') else str(t.dtype).replace('paddle.', '')


def _compute_dtype(t):
    """States and master weights of a parameter: float64 for float64, float32 otherwise."""
    return 'float64' if _dtype_name(t) == 'float64' else 'float32'


def _as_numpy(value):
    if hasattr(value, 'numpy'):
        return np.asarray(value.numpy())
    return np.asarray(value)


class Optimizer:
    """Base class of the optimizers.

    An optimizer holds the parameters it updates, their per-parameter states (moments, ...)
    and the learning rate (a float or an LRScheduler). ``step()`` updates every parameter that
    has a gradient, after gradient clipping and weight decay; all parameters of a group are
    updated by one fused kernel call. States are named as in Paddle, so ``state_dict()`` and
    ``set_state_dict()`` exchange them with Paddle checkpoints. Use a subclass (SGD, Adam, ...).

    Args:
        learning_rate (float|LRScheduler): The learning rate, or a scheduler giving it.
        parameters (list, optional): The Tensors to optimize, or a list of dicts (parameter
            groups), each with 'params' and its own options ('learning_rate' multiplier,
            'weight_decay', hyperparameters). Default: None.
        weight_decay (float|WeightDecayRegularizer, optional): A float is an L2Decay
            coefficient; or oar.regularizer.L1Decay / L2Decay. Default: None.
        grad_clip (GradientClipBase, optional): Gradient clipping. Default: None.
        name (str, optional): Usually left unset. Default: None.

    Examples:
        >>> import oar
        >>> oar.seed(2024)
        >>> linear = oar.nn.Linear(10, 1)
        >>> scheduler = oar.optimizer.lr.StepDecay(learning_rate=0.1, step_size=1, gamma=0.5)
        >>> opt = oar.optimizer.Adam(learning_rate=scheduler, parameters=[
        ...     {"params": [linear.weight]},
        ...     {"params": [linear.bias], "learning_rate": 0.1, "weight_decay": 0.001}])
        >>> for _ in range(2):
        ...     loss = linear(oar.rand([4, 10])).mean()
        ...     loss.backward()
        ...     opt.step()
        ...     opt.clear_grad()
        ...     scheduler.step()
        >>> print(opt.get_lr())
        0.025
    """

    # Subclasses set _state_specs (state name, initial value) in kernel order and _pow_specs
    # (bias-correction accumulators: name, hyperparameter), and implement _update.
    _state_specs = ()
    _pow_specs = ()

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        cls = type(self).__name__
        if parameters is not None:
            if isinstance(parameters, _C.Tensor):
                raise TypeError(f"{cls}: `parameters` argument given to the optimizer should be an "
                                f"iterable of Tensors, but got argument type is `{type(parameters).__name__}`.")
            if isinstance(parameters, dict):
                raise TypeError(f"{cls}: `parameters` argument should not get dict type, if parameter "
                                "groups is needed, please set `parameters` as list of dict")
            parameters = list(parameters)
        elif in_static_mode():
            parameters = []  # static mode: minimize(loss) updates every parameter the loss reads
        else:
            raise AttributeError(f"{cls}: parameters argument given to the Optimizer should not be "
                                 "None in dygraph mode.")
        if not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError(f"{cls}: learning rate should be float or LRScheduler, got "
                            f"{type(learning_rate).__name__} here")
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError(f"{cls}: 'grad_clip' should be an instance of GradientClipBase's "
                            f"derived class, got {type(grad_clip).__name__}")
        self.regularization = self._as_regularizer(weight_decay, 'weight_decay')
        self._learning_rate = learning_rate
        self._grad_clip = grad_clip
        self._name = name
        self._parameter_list = parameters
        self._multi_precision = getattr(self, '_multi_precision', False)
        # {state name: {parameter name: tensor}}, {parameter name: float32 master}
        self._accumulators = {}
        self._master_weights = {}
        self._accumulators_holder = {}   # states given to set_state_dict before they exist
        self._held_by_stem = {}          # their names by name without the trailing counter
        self._master_holder = {}
        self.clear_gradients = self.clear_grad
        self._default_dict = {'weight_decay': self.regularization, 'grad_clip': grad_clip}
        self._param_groups = []
        self._grouped = bool(parameters) and isinstance(parameters[0], dict)
        if self._grouped:
            for group in parameters:
                if not isinstance(group, dict) or 'params' not in group:
                    raise ValueError(f"{cls}: params should be set in parameters if parameter groups "
                                     "are optimized in different options")
        else:
            for i, p in enumerate(parameters):
                if not isinstance(p, _C.Tensor):
                    raise TypeError(f"{cls}: `parameters` should hold Tensors (or be a list of dicts), "
                                    f"but item {i} is {type(p).__name__}")
        # Paddle's learning-rate tensor has the first parameter's dtype (float32 for half).
        first = (parameters[0]['params'] if self._grouped else parameters) if parameters else []
        first = list(first) if not isinstance(first, _C.Tensor) else [first]
        self._lr_dtype = np.float64 if first and _dtype_name(first[0]) == 'float64' else np.float32

    def _finish_groups(self):
        """Called by subclasses once their _default_dict is complete."""
        if self._grouped:
            for group in self._parameter_list:
                self._add_param_group(dict(group))
        else:
            self._param_groups = self._parameter_list

    # ---- argument helpers ----
    def _keep_hypers(self, **values):
        """Keeps each hyperparameter as self._<name> and as a default every parameter group
        takes when it does not set its own (_default_dict), in the order given."""
        for name, value in values.items():
            setattr(self, '_' + name, value)
        self._default_dict.update(values)

    def _hypers(self, opts, *names):
        """{name: float} for the kernel: the group's own value of each hyperparameter, else the
        optimizer's (self._<name>); a tensor is read now."""
        return {name: self._scalar(opts.get(name, getattr(self, '_' + name))) for name in names}

    def _as_regularizer(self, weight_decay, what):
        if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
            return weight_decay
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
            raise TypeError(f"{type(self).__name__}: '{what}' should be a float, L1Decay or L2Decay, "
                            f"but received {type(weight_decay).__name__}")
        return L2Decay(float(weight_decay))

    def _add_param_group(self, param_group):
        """Adds a group (dict with 'params' and per-group options) to the optimizer."""
        params = param_group['params']
        if isinstance(params, _C.Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(f"{type(self).__name__}: optimizer parameters should be in ordered "
                            "collections, but received set, please use list instead.")
        param_group['params'] = list(params)
        for k, v in self._default_dict.items():
            param_group.setdefault(k, v)
        if 'weight_decay' in param_group:
            param_group['weight_decay'] = self._group_decay(param_group['weight_decay'])
        seen = {id(p) for g in self._param_groups for p in g['params']}
        if any(id(p) in seen for p in param_group['params']):
            raise ValueError(f"{type(self).__name__}: some parameters appear in more than one "
                             "parameter group")
        self._param_groups.append(param_group)

    def _group_decay(self, value):
        return self._as_regularizer(value, 'weight_decay')

    # ---- learning rate ----
    def get_lr(self):
        """The current learning rate: the float given, or the scheduler's current value.

        Returns:
            float
        """
        if isinstance(self._learning_rate, LRScheduler):
            return self._learning_rate()
        return self._learning_rate

    def set_lr(self, value):
        """Sets a new constant learning rate (not allowed when the learning rate is a scheduler).

        Args:
            value (float): The new learning rate.

        Examples:
            >>> import oar
            >>> opt = oar.optimizer.SGD(0.1, parameters=oar.nn.Linear(2, 2).parameters())
            >>> opt.set_lr(0.01)
            >>> print(opt.get_lr())
            0.01
        """
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"The type of 'value' in optimizer.set_lr must be float, but received "
                            f"{type(value).__name__}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("optimizer's learning rate can't be LRScheduler when invoke this API, "
                               "because this will lead to conflict.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        """Replaces the learning rate by ``scheduler``.

        Args:
            scheduler (LRScheduler): The new scheduler.
        """
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("The type of 'scheduler' in optimizer.set_lr_scheduler must be "
                            f"LRScheduler, but received {type(scheduler).__name__}.")
        self._learning_rate = scheduler

    def _param_lr(self, lr, multiplier):
        """Global lr times the parameter's multiplier, rounded like Paddle's lr tensor."""
        t = self._lr_dtype
        base = t(lr)
        return float(base if multiplier == 1.0 else base * t(multiplier))

    # ---- parameters and states ----
    @staticmethod
    def _param_name(p):
        if not p.name:
            p.name = unique_name.generate('generated_tensor')
        return p.name

    def _uses_master(self, p):
        return self._multi_precision and _dtype_name(p) in _HALF

    def _master(self, p):
        name = self._param_name(p)
        m = self._master_weights.get(name)
        if m is None:
            m = p.detach().astype('float32')
            m.name = unique_name.generate(name + '_fp32_master')
            if name in self._master_holder:
                self._set_value(m, self._master_holder.pop(name), m.name)
            self._master_weights[name] = m
        return m

    def _state_owner(self, p):
        """Whose name the states carry: the master weight's for multi-precision parameters."""
        return self._master(p).name if self._uses_master(p) else self._param_name(p)

    def _accumulator(self, key, p, fill, shape=None, dtype=None):
        if self._name is not None:
            key = self._name + '_' + key
        table = self._accumulators.setdefault(key, {})
        pname = self._param_name(p)
        acc = table.get(pname)
        if acc is None:
            shape = list(p.shape) if shape is None else shape
            acc = _C.full(shape, fill, dtype or _compute_dtype(p))
            if _C._place_of(acc) != _C._place_of(p):  # states live beside their parameter
                acc = _C._to_place(acc, _C._place_of(p))
            acc.name = unique_name.generate(self._state_owner(p) + '_' + key)
            if self._accumulators_holder:
                # A loaded state dict must cover every state it is asked for (as Paddle asserts):
                # starting this one from scratch instead would silently change the training.
                held = self._take_held(acc.name, self._state_owner(p) + '_' + key)
                if held is None:
                    raise ValueError(f"{type(self).__name__}: optimizer state '{acc.name}' (parameter "
                                     f"'{pname}') is not in the state dict given to set_state_dict; "
                                     "were the parameters named differently when it was saved?")
                self._set_value(acc, held, acc.name)
            table[pname] = acc
        return acc

    def _take_held(self, exact, stem):
        """A state given to set_state_dict: by exact name, else by name up to the counter."""
        if exact in self._accumulators_holder:
            return self._accumulators_holder.pop(exact)
        for key in self._held_by_stem.get(stem, ()):
            if key in self._accumulators_holder:
                return self._accumulators_holder.pop(key)
        return None

    @staticmethod
    def _held_state(value, name=None):
        """A loaded state kept until a step claims it, as an oar Tensor (named ``name``), so
        that state_dict() reports it as it reports live states; oar Tensors are kept as given
        (no copy)."""
        if isinstance(value, _C.Tensor):
            return value
        arr = _as_numpy(value)
        if arr.dtype == object:  # not a tensor's value: kept as given, as Paddle keeps it
            return value
        held = to_tensor(np.ascontiguousarray(arr))
        if name is not None:
            held.name = name
        return held

    @staticmethod
    def _set_value(dst, value, name):
        arr = _as_numpy(value)
        if list(arr.shape) != list(dst.shape) and arr.size == dst.size:
            arr = arr.reshape(dst.shape)
        if list(arr.shape) != list(dst.shape):
            raise ValueError(f"set_state_dict: '{name}' has shape {list(arr.shape)} in the state dict, "
                             f"expected {list(dst.shape)}")
        with no_grad():
            dst.copy_(to_tensor(np.ascontiguousarray(arr), dtype=_dtype_name(dst)))

    # ---- the update ----
    def _group_options(self, group):
        """The options of one group (or the optimizer's own, ungrouped)."""
        return group if isinstance(group, dict) else self._default_dict

    def _decay_of(self, p, group):
        """The coupled regularizer for p: the group's when grouped (Paddle sets it on every
        parameter of the group), else the parameter's own, else the optimizer's."""
        if isinstance(group, dict):
            return group.get('weight_decay')
        own = getattr(p, 'regularizer', None)
        return own if own is not None else self.regularization

    def _lr_multiplier(self, p, group):
        if isinstance(group, dict):
            return float(group.get('learning_rate', 1.0))
        attr = getattr(p, 'optimize_attr', None) or {}
        return float(attr.get('learning_rate', 1.0))

    @in_phase("Optimization")
    @no_grad()
    def step(self):
        """Updates every parameter that has a gradient (call after ``loss.backward()``)."""
        if self._grouped:
            for group in self._param_groups:
                self._step_group(group['params'], group)
        else:
            self._step_group(self._param_groups, None)

    def _step_group(self, params, group):
        pairs = [(p, p.grad) for p in params
                 if not p.stop_gradient and p.grad is not None]
        self._apply_pairs(pairs, group)

    def _apply_pairs(self, pairs, group):
        if not pairs:
            return
        opts = self._group_options(group)
        clip = opts.get('grad_clip', self._grad_clip) if isinstance(group, dict) else self._grad_clip
        pairs = [(p, g) for p, g in pairs if g is not None]
        scales = []
        if clip is not None and hasattr(clip, '_grad_scales'):
            # Clipping by norm becomes a per-parameter factor inside the fused update.
            scales = [1.0 if s is None else float(s) for s in clip._grad_scales(pairs)]
        elif clip is not None:
            pairs = [(p, g) for p, g in clip(pairs) if g is not None]
        if not pairs:
            return
        lr = self.get_lr()
        batch = {'params': [], 'grads': [], 'masters': [], 'lrs': [], 'l1': [], 'l2': [],
                 'grad_scale': scales, 'states': [[] for _ in self._state_keys(opts)]}
        for p, g in pairs:
            if _dtype_name(g) != _dtype_name(p):
                g = g.astype(_dtype_name(p))
            batch['params'].append(p)
            batch['grads'].append(g.contiguous() if hasattr(g, 'contiguous') else g)
            batch['masters'].append(self._master(p) if self._uses_master(p) else None)
            batch['lrs'].append(self._param_lr(lr, self._lr_multiplier(p, group)))
            l1, l2 = self._decay_coefficients(p, group)
            batch['l1'].append(l1)
            batch['l2'].append(l2)
            for k, state in enumerate(self._param_states(p, opts)):
                batch['states'][k].append(state)
        # The host's fused kernel runs no op: a profiler records the update as one (Paddle's adam_, ...).
        start = _C._profiler_now_ns() if _profiler_events.recording else None
        if any(_C._place_of(p) != "cpu" for p in batch['params']):
            self._update_on_device(batch, opts, group)
        else:
            self._update(batch, opts, group)
        if start is not None:
            _profiler_events.record_range(type(self).__name__.lower() + "_", "Operator", start)

    def _decay_coefficients(self, p, group):
        reg = self._decay_of(p, group)
        if reg is None:
            return 0.0, 0.0
        if not isinstance(reg, WeightDecayRegularizer):
            reg = self._as_regularizer(reg, 'weight_decay')
        if reg._kind == 'l1':
            return reg._coeff, 0.0
        return 0.0, reg._coeff

    def _state_keys(self, opts):
        return self._state_specs

    def _param_states(self, p, opts):
        """The state tensors of p that the kernel updates, in kernel order."""
        return [self._accumulator(key, p, fill) for key, fill in self._state_keys(opts)]

    def _pows(self, batch, opts):
        """The beta-power accumulators of the batch's parameters, one list per _pow_specs."""
        out = []
        for key, hyper in self._pow_specs:
            value = opts.get(hyper, self._default_dict.get(hyper))
            fill = 0.9 if isinstance(value, _C.Tensor) and hyper == 'beta1' else (
                0.999 if isinstance(value, _C.Tensor) else value)
            out.append([self._accumulator(key, p, fill, shape=[1]) for p in batch['params']])
        return out

    @staticmethod
    def _scalar(value):
        return float(value.item()) if isinstance(value, _C.Tensor) else float(value)

    def _update(self, batch, opts, group):
        raise NotImplementedError(f"{type(self).__name__} must implement _update")

    @staticmethod
    def _device_grads(batch, rescale=1.0):
        """(weight, effective gradient, index) of a batch on a device, as the fused kernels form
        the gradient: (g * clip_scale + l1 * sign(w)) * rescale + l2 * w, written with ops.

        The weight is what the rule reads and writes (``w.copy_(new, False)``), in the kernels'
        compute type: the parameter itself (float32, float64), or for a half parameter its
        float32 master weight (multi_precision) or else a float32 copy. The gradient then comes
        in float32 too and, once the caller's loop body has updated that weight, the parameter
        receives its rounding, as the fused kernels store it."""
        scales = batch['grad_scale'] or [1.0] * len(batch['params'])
        for i, (p, g) in enumerate(zip(batch['params'], batch['grads'])):
            master = batch['masters'][i] if batch['masters'] else None
            if master is not None:
                w = master
            elif _dtype_name(p) in _HALF:
                w = _C.cast(p, 'float32')
            else:
                w = p
            if w is not p:
                g = _C.cast(g, 'float32')
            s, l1, l2 = scales[i], batch['l1'][i], batch['l2'][i]
            if s != 1.0:
                g = _C.scale(g, s, 0.0, True)
            if l1:
                g = g + _C.scale(_C.sign(w), l1, 0.0, True)
            if rescale != 1.0:
                g = _C.scale(g, rescale, 0.0, True)
            if l2:
                g = g + _C.scale(w, l2, 0.0, True)
            yield w, g, i
            if w is not p:
                p.copy_(_C.cast(w, _dtype_name(p)), False)

    @staticmethod
    def _compute_type(w):
        """The numpy type the fused kernels compute w's rule in (float64 or float32): scalar
        hyperparameters are combined in it (1 - beta, ...) as the kernels combine them."""
        return np.float64 if _dtype_name(w) == 'float64' else np.float32

    @staticmethod
    def _one_element(t, like):
        """A one-element state (a beta power) shaped to broadcast against ``like`` without
        changing its shape (a [1] tensor would turn a 0-d weight into [1])."""
        rank = len(like.shape)
        return t if rank == 1 else _C.reshape(t, [1] * rank)

    # The backend kernel that updates one parameter on a device in place (optimizer_sgd,
    # optimizer_momentum, optimizer_adam; oar/device/device_ext.h and
    # plugins/custom_cpu/optimizer.cc give its contract), or None: set by the optimizers whose
    # _update_on_device launches it (_fused_on_device) before falling back to ops.
    _device_kernel = None

    def _fused_on_device(self, batch):
        """Whether the batch's parameters can each be updated by one launch of the backend's
        fused kernel (self._device_kernel): all on one device whose backend registered it for
        their dtypes, contiguous and not empty. Otherwise the update runs as ops."""
        op = self._device_kernel
        params = batch['params']
        if op is None or not params:
            return False
        place = _C._place_of(params[0])
        checked = set()
        for p in params:
            if _C._place_of(p) != place or p.size == 0 or not p.is_contiguous():
                return False
            dtype = _dtype_name(p)
            if dtype not in checked:
                if not _C._has_kernel(op, place, dtype):
                    return False
                checked.add(dtype)
        return True

    @staticmethod
    def _device_attrs(batch, i, **extra):
        """The attributes every fused device kernel takes for parameter i (its learning rate,
        coupled decay and clip factor), plus the optimizer's own."""
        scales = batch['grad_scale']
        attrs = {'lr': float(batch['lrs'][i]), 'l1': float(batch['l1'][i]),
                 'l2': float(batch['l2'][i]), 'grad_scale': float(scales[i]) if scales else 1.0}
        attrs.update(extra)
        return attrs

    def _update_on_device(self, batch, opts, group):
        """The update for parameters on a device, which the fused host kernels cannot read:
        every optimizer of oar.optimizer overrides it with the same rule written with ops. A
        subclass that only implements ``_update`` (a fused host kernel) lands here."""
        place = _C._place_of(batch['params'][0])
        cls = type(self).__name__
        raise NotImplementedError(f"{cls}.step: parameters on Place({place}) need {cls}."
                                  "_update_on_device(batch, opts, group), the update written with "
                                  "oar ops; it only implements _update, the fused host kernel, which "
                                  "cannot read device memory (every optimizer of oar.optimizer has "
                                  "both)")

    # ---- gradients ----
    def clear_grad(self, set_to_zero=True):
        """Clears the gradients of all the optimizer's parameters.

        Args:
            set_to_zero (bool, optional): Fill them with zeros (True) or drop them (False).
                Default: True.
        """
        groups = self._param_groups if self._grouped else [{'params': self._param_groups}]
        for group in groups:
            for p in group['params']:
                if not p.stop_gradient:
                    p.clear_grad(set_to_zero)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Applies the gradients computed by ``loss.backward()``; in dynamic mode it does not run
        backward itself (as Paddle's). In static mode it adds the backward pass to the program and
        updates after each run.

        Args:
            loss (Tensor): The loss.
            startup_program (Program, optional): Unused. Default: None.
            parameters (list, optional): Update only these. Default: None (all).
            no_grad_set (set, optional): Parameters to leave alone. Default: None.

        Returns:
            tuple: (optimize_ops, params_grads), the list of (parameter, gradient) pairs applied.
        """
        if not isinstance(loss, _C.Tensor):
            raise TypeError(f"{type(self).__name__}.minimize: the loss should be a Tensor, but "
                            f"received {type(loss).__name__}")
        if _C._ir.is_symbolic(loss):
            return self._minimize_static(loss, parameters, no_grad_set)
        skip = {id(p) for p in (no_grad_set or [])}
        chosen = None if not parameters else {id(p) for p in parameters}

        def wanted(p):
            return (id(p) not in skip and (chosen is None or id(p) in chosen)
                    and not p.stop_gradient and p.grad is not None)

        all_pairs = []
        with no_grad():
            groups = self._param_groups if self._grouped else [None]
            for group in groups:
                params = group['params'] if group is not None else self._param_groups
                pairs = [(p, p.grad) for p in params if wanted(p)]
                all_pairs += pairs
                self._apply_pairs(pairs, group)
        return [], all_pairs

    def _minimize_static(self, loss, parameters, no_grad_set):
        """Static mode: the program gets the gradients (append_backward) and, after each run,
        this optimizer applies them (the same fused update as in dynamic mode)."""
        from ..static.backward import append_backward
        from ..static.program import default_main_program
        params_grads = append_backward(loss, parameter_list=parameters, no_grad_set=no_grad_set)
        mine = {id(p) for p in self._all_params()}
        if mine:  # an optimizer built without parameters (static style) updates all of them
            params_grads = [(p, g) for p, g in params_grads if id(p) in mine]
        default_main_program()._optimize_hooks.append((self, params_grads))
        return [], params_grads

    def _all_params(self):
        if self._grouped:
            return [p for g in self._param_groups for p in g['params']]
        return list(self._param_groups or [])

    def apply_gradients(self, params_grads):
        """Clips, regularizes and applies the given (parameter, gradient) pairs, with the
        optimizer's own settings (not a parameter group's), as Paddle's apply_gradients.

        Args:
            params_grads (list): (parameter, gradient) pairs.
        """
        with no_grad():
            self._apply_pairs([(p, g) for p, g in params_grads if g is not None], None)
        return []

    # ---- state ----
    def state_dict(self):
        """The optimizer's states by name (live tensors), plus 'master_weights' and 'LR_Scheduler'
        when present. States loaded by ``set_state_dict`` that no step has used yet are included
        as loaded, so a checkpoint loaded and saved again keeps them.

        Returns:
            dict
        """
        out = {}
        for table in self._accumulators.values():
            for acc in table.values():
                out[acc.name] = acc
        # States loaded by set_state_dict that no step has claimed yet are part of the
        # checkpoint too: without them, loading and saving again before a step would silently
        # drop them (Adam's moments, ...).
        for name, value in self._accumulators_holder.items():
            out.setdefault(name, value)
        masters = dict(self._master_holder)
        masters.update(self._master_weights)
        if masters:
            out['master_weights'] = masters
        if isinstance(self._learning_rate, LRScheduler):
            out['LR_Scheduler'] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        """Loads states saved by ``state_dict()`` here or by Paddle, matched by name (ignoring the
        trailing counter when the exact name is absent).

        Args:
            state_dict (dict): The states.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: expected a dict, but received "
                            f"{type(state_dict).__name__}")
        state_dict = dict(state_dict)
        sched = state_dict.pop('LR_Scheduler', None)
        if sched is not None and isinstance(self._learning_rate, LRScheduler):
            self._learning_rate.set_state_dict(sched)
        masters = state_dict.pop('master_weights', None) or {}
        self._master_holder = {}
        for pname, value in masters.items():
            if pname in self._master_weights:
                m = self._master_weights[pname]
                self._set_value(m, value, m.name)
            else:
                self._master_holder[pname] = self._held_state(value)
        self._accumulators_holder = {k: self._held_state(v, k) for k, v in state_dict.items()}
        self._held_by_stem = {}
        for key in self._accumulators_holder:
            stem, _, counter = key.rpartition('_')
            if counter.isdigit():
                self._held_by_stem.setdefault(stem, []).append(key)
        for key, table in self._accumulators.items():
            for pname, acc in table.items():
                stem = acc.name.rsplit('_', 1)[0]
                held = self._take_held(acc.name, stem)
                if held is None:
                    raise ValueError(f"{type(self).__name__}.set_state_dict: optimizer state "
                                     f"'{acc.name}' not found in state_dict")
                self._set_value(acc, held, acc.name)

    load_state_dict = set_state_dict
    set_dict = set_state_dict

    def _parameters_flat(self):
        if self._grouped:
            return [p for g in self._param_groups for p in g['params']]
        return list(self._param_groups)
