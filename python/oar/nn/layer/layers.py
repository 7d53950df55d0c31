"""nn.Layer, as paddle.nn.Layer: the base of every model.

A layer keeps its parameters, sublayers and buffers in three ordered dicts (attribute assignment
routes values there, as Paddle does), names itself from unique_name ("linear_0") so its parameters
get Paddle's global names ("linear_0.w_0"), and produces state dicts keyed by structured names
("fc.weight").
"""
import collections
import functools
import re
import warnings

import numpy as np

from ... import _C
from ...framework import dtype as D
from ...framework.errors import AssertTypeError
from ...framework.mode import eager
from ...framework.param_attr import ParamAttr
from ...framework.parameter import Parameter
from ...profiler import events as _profiler_events
from ...utils import unique_name


# Callables run with each layer that is called (fleet.utils.recompute's non-reentrant mode learns
# from them which layers, hence which parameters, a function reaches). Empty almost always.
_call_observers = []


def _snake_case(name):
    """MyNet -> my_net, BatchNorm2D -> batch_norm2d, as Paddle names layers."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


class HookRemoveHelper:
    """Returned by register_forward_*_hook: `remove()` unregisters the hook."""

    next_hook_id = 0

    def __init__(self, hooks):
        self._hooks_ref = hooks
        self._hook_id = HookRemoveHelper.next_hook_id
        HookRemoveHelper.next_hook_id += 1

    def remove(self):
        self._hooks_ref.pop(self._hook_id, None)


def _add_hook(table, hook):
    """Registers hook in one of a layer's hook tables; the helper returned removes it again."""
    helper = HookRemoveHelper(table)
    table[helper._hook_id] = hook
    return helper


def _join(prefix, name):
    """A structured name: 'fc' + 'weight' -> 'fc.weight'; no dot after an empty prefix."""
    return prefix + ("." if prefix else "") + name


class Layer:
    """Base class of all layers and models (paddle.nn.Layer).

    Subclasses create their parameters and sublayers in ``__init__`` (after calling
    ``super().__init__()``) and compute in ``forward``; calling the layer runs the forward pre-hooks,
    ``forward`` and the forward post-hooks. Parameters, sublayers and buffers assigned as
    attributes are registered automatically, so ``parameters()``, ``state_dict()``, ``train()`` /
    ``eval()`` and ``to()`` reach them. ``oar.nn.Module`` is the same class.

    Args:
        name_scope (str, optional): Prefix of the layer's full name and of its parameters'
            names; None uses the class name in snake case. Default: None.
        dtype (str, optional): Default data type of the parameters it creates.
            Default: 'float32'.

    Examples:
        >>> import oar
        >>> class MLP(oar.nn.Layer):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc1 = oar.nn.Linear(4, 8)
        ...         self.fc2 = oar.nn.Linear(8, 2)
        ...     def forward(self, x):
        ...         return self.fc2(oar.nn.functional.relu(self.fc1(x)))
        >>> model = MLP()
        >>> print(model(oar.ones([3, 4])).shape)
        [3, 2]
        >>> print(list(model.state_dict().keys()))
        ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
        >>> print(model.eval().fc1.training)
        False
    """

    def __init_subclass__(cls, **kwargs):
        # Layers build their weights with values, also in static mode (the weights are then
        # captured by the programs that use them): run every __init__ eagerly.
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_oar_eager", False):
            @functools.wraps(init)
            def eager_init(self, *args, **kw):
                with eager():
                    init(self, *args, **kw)
            eager_init._oar_eager = True
            cls.__init__ = eager_init

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        self._full_name = unique_name.generate(name_scope or _snake_case(type(self).__name__))
        self._dtype = D.convert_dtype(dtype)
        self._parameters = collections.OrderedDict()
        self._sub_layers = collections.OrderedDict()
        self._buffers = collections.OrderedDict()
        self._non_persistable_buffer_names_set = set()
        self._forward_pre_hooks = collections.OrderedDict()
        self._forward_post_hooks = collections.OrderedDict()
        self._state_dict_hooks = collections.OrderedDict()
        self._casted_by_pure_fp16 = False

    # ---- identity and mode -------------------------------------------------------------------
    def full_name(self):
        """The unique name of this layer (name_scope plus a counter, e.g. 'linear_0').

        Returns:
            str: the full name.
        """
        return self._full_name

    def train(self):
        """Puts this layer and all its sublayers in training mode (``training = True``).

        Returns:
            Layer: this layer.
        """
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        """Puts this layer and all its sublayers in evaluation mode (``training = False``), which
        changes layers such as Dropout and BatchNorm.

        Returns:
            Layer: this layer.
        """
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    # ---- running -----------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        """The computation of the layer; subclasses override it. Call the layer itself (``layer(x)``)
        rather than ``forward``, so that hooks run.
        """
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def __call__(self, *inputs, **kwargs):
        if _call_observers:
            for observe in list(_call_observers):
                observe(self)
        if _profiler_events.recording:  # the profiler's Forward phase (outermost layer only)
            with _profiler_events.phase("Forward"):
                return self._run_forward(self.forward, inputs, kwargs)
        return self._run_forward(self.forward, inputs, kwargs)

    def _run_forward(self, forward, inputs, kwargs):
        """Hooks around `forward` (this layer's, or its converted twin under dy2static)."""
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        outputs = forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    def register_forward_pre_hook(self, hook):
        """hook(layer, inputs) -> None or new inputs; runs before forward."""
        return _add_hook(self._forward_pre_hooks, hook)

    def register_forward_post_hook(self, hook):
        """hook(layer, inputs, outputs) -> None or new outputs; runs after forward."""
        return _add_hook(self._forward_post_hooks, hook)

    def register_state_dict_hook(self, hook):
        """hook(state_dict) runs on the state dict this layer returns (when use_hook=True)."""
        return _add_hook(self._state_dict_hooks, hook)

    def apply(self, fn):
        """Calls fn on every sublayer (children first) and then on self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # ---- creating members --------------------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None,
                         device=None):
        """A parameter named "<full_name>.w_<n>" (or ".b_<n>" for a bias); attr=False gives None."""
        from ..initializer import make_parameter
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        if isinstance(attr, list):
            raise TypeError(f"{type(self).__name__}.create_parameter: 'attr' must be one ParamAttr, not a list")
        dtype = dtype if dtype is not None else self._dtype
        suffix = ".b" if is_bias else ".w"
        return make_parameter(shape, dtype, attr, is_bias, default_initializer, self._full_name + suffix)

    def create_variable(self, name=None, persistable=None, dtype=None):
        """An empty tensor (Paddle's create_variable): a placeholder to assign to later."""
        t = _C.zeros([0], D.convert_dtype(dtype) if dtype is not None else self._dtype)
        t.name = name or unique_name.generate(self._full_name + "._generated_var")
        t.persistable = bool(persistable)
        return t

    create_tensor = create_variable

    def add_parameter(self, name, parameter):
        """Registers ``parameter`` under ``name`` (as assigning it as an attribute does).

        Args:
            name (str): The name; no '.' and not an existing attribute.
            parameter (Parameter): The parameter (or None).

        Returns:
            Parameter: the parameter.
        """
        if "_parameters" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"The name of parameter should be a string, but got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'The name of parameter can not contain ".", but got {name!r}')
        if name == "":
            raise KeyError("The name of parameter can not be empty.")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"The parameter '{name}' already exists.")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"The parameter to be added should be a Parameter, but got "
                            f"{type(parameter).__name__}")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        """Registers ``sublayer`` under ``name`` (as assigning it as an attribute does).

        Args:
            name (str): The name.
            sublayer (Layer): The layer (or None).

        Returns:
            Layer: the sublayer.
        """
        if not (isinstance(sublayer, Layer) or sublayer is None):
            # Also an AssertionError: Paddle asserts here.
            raise AssertTypeError(f"add_sublayer: 'sublayer' must be a Layer, but got "
                                  f"{type(sublayer).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"add_sublayer: 'name' must be a str, but got {type(name).__name__}")
        self._sub_layers[name] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        """A tensor that is part of the layer's state but not trained (persistable ones are saved)."""
        if "_buffers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(f"The name of buffer should be a string, but received {type(name).__name__}.")
        if "." in name:
            raise KeyError(f"The name of buffer can not contain `.`, but received {name}.")
        if name == "":
            raise KeyError("The name of buffer can not be empty.")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists.")
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError(f"The registered buffer should be a Paddle.Tensor, but received "
                            f"{type(tensor).__name__}.")
        if tensor is not None and not tensor.name:
            tensor.name = unique_name.generate("_buffers_" + name)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)
        return tensor

    # ---- attribute routing (as Paddle: parameters, sublayers and tensors go to their dicts) ---
    def __setattr__(self, name, value):
        d = self.__dict__
        params, layers, buffers = d.get("_parameters"), d.get("_sub_layers"), d.get("_buffers")
        for kind, members, what in ((Parameter, params, "parameter"), (Layer, layers, "sublayer")):
            if isinstance(value, kind):
                if members is None:
                    raise ValueError("super().__init__() should be called first")
                for other in (params, layers, buffers, d):
                    if other is not members:
                        other.pop(name, None)
                members[name] = value
                return
            if members is not None and name in members:
                if value is not None:
                    raise TypeError(f"assignment to {what} '{name}' should be of type {kind.__name__} "
                                    f"or None, but got '{type(value).__name__}'")
                members[name] = None
                return
        if isinstance(value, _C.Tensor) and buffers is not None:
            # A plain tensor attribute becomes a buffer; a new one is not persistable (Paddle's rule).
            if name not in buffers:
                d.pop(name, None)
                self._non_persistable_buffer_names_set.add(name)
            buffers[name] = value
        elif buffers is not None and name in buffers and value is None:
            buffers[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for key in ("_parameters", "_sub_layers", "_buffers"):
            members = d.get(key)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for key in ("_parameters", "_sub_layers", "_buffers"):
            members = self.__dict__.get(key)
            if members is not None and name in members:
                del members[name]
                self._non_persistable_buffer_names_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._sub_layers)
                      | set(self._buffers))

    # ---- traversal ---------------------------------------------------------------------------
    def named_sublayers(self, prefix="", include_self=False, layers_set=None):
        """Yields (structured name, layer) for every sublayer, depth first, each once.

        Args:
            prefix (str, optional): Prefix of the names. Default: ''.
            include_self (bool, optional): Yield this layer first (with name ``prefix``).
                Default: False.
            layers_set (set, optional): ids of layers to skip; filled as the walk goes.
                Default: None.
        """
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            yield from layer.named_sublayers(_join(prefix, key), include_self=True,
                                             layers_set=layers_set)

    def sublayers(self, include_self=False):
        """All sublayers, depth first, each once.

        Args:
            include_self (bool, optional): Put this layer first. Default: False.

        Returns:
            list[Layer]
        """
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        """Yields (name, layer) for the direct sublayers, each once."""
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        """Yields the direct sublayers, each once."""
        for _, layer in self.named_children():
            yield layer

    def _named_members(self, get_members, prefix, include_sublayers):
        seen = set()
        layers = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for layer_prefix, layer in layers:
            for name, member in get_members(layer):
                if member is None or id(member) in seen:
                    continue
                seen.add(id(member))
                yield _join(layer_prefix, name), member

    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        """Yields (structured name, parameter) for the parameters of this layer and, by default,
        of its sublayers, each once.

        Args:
            prefix (str, optional): Prefix of the names. Default: ''.
            include_sublayers (bool, optional): Include the sublayers' parameters. Default: True.
            remove_duplicate (bool, optional): Accepted for compatibility; shared parameters are
                always yielded once. Default: True.
        """
        return self._named_members(lambda layer: layer._parameters.items(), prefix, include_sublayers)

    def parameters(self, include_sublayers=True):
        """The parameters of this layer and, by default, of its sublayers, each once.

        Args:
            include_sublayers (bool, optional): Include the sublayers' parameters. Default: True.

        Returns:
            list[Parameter]
        """
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        """Yields (structured name, tensor) for the buffers of this layer and, by default, of its
        sublayers.

        Args:
            prefix (str, optional): Prefix of the names. Default: ''.
            include_sublayers (bool, optional): Include the sublayers' buffers. Default: True.
        """
        return self._named_members(lambda layer: layer._buffers.items(), prefix, include_sublayers)

    def buffers(self, include_sublayers=True):
        """The buffers of this layer and, by default, of its sublayers.

        Args:
            include_sublayers (bool, optional): Include the sublayers' buffers. Default: True.

        Returns:
            list[Tensor]
        """
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def clear_gradients(self, set_to_zero=True):
        """Clears the gradients of all trainable parameters.

        Args:
            set_to_zero (bool, optional): Fill the gradients with zeros (True) or drop them (False).
                Default: True.
        """
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    # ---- state -------------------------------------------------------------------------------
    def _state_items(self, prefix, include_sublayers):
        """(structured name, tensor) for parameters and persistable buffers, Paddle's order:
        each layer's parameters then its buffers, then its sublayers."""
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistable_buffer_names_set:
                yield prefix + name, b
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    yield from layer._state_items(prefix + name + ".", True)

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True,
                   keep_vars=True):
        """The parameters and persistable buffers of this layer and its sublayers, by structured
        name (``'fc1.weight'``), in Paddle's order.

        Args:
            destination (dict, optional): A dict to add the entries to. Default: None.
            include_sublayers (bool, optional): Include the sublayers' entries. Default: True.
            structured_name_prefix (str, optional): Prefix of every key. Default: ''.
            use_hook (bool, optional): Run the state dict hooks. Default: True.
            keep_vars (bool, optional): Return the tensors themselves (True) or detached views.
                Default: True.

        Returns:
            OrderedDict: name -> Tensor.
        """
        out = collections.OrderedDict() if destination is None else destination
        for name, t in self._state_items(structured_name_prefix, include_sublayers):
            out.setdefault(name, t if keep_vars else t.detach())
        if use_hook:
            for hook in self._state_dict_hooks.values():
                result = hook(out)
                if result is not None:
                    out = result
        return out

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Copies matching entries into this layer's tensors; returns (missing_keys, unexpected_keys).

        Unlike Paddle (which warns and skips), a shape or dtype-class mismatch raises one ValueError
        naming every mismatched key: a checkpoint that does not fit must not half-load silently."""
        own = self.state_dict(use_hook=False)
        if not use_structured_name:
            own = collections.OrderedDict((t.name, t) for t in own.values())
        missing, unexpected, mismatched, pairs = [], [], [], []
        for key, target in own.items():
            if key not in state_dict:
                missing.append(key)
                continue
            value = state_dict[key]
            array = value.numpy() if isinstance(value, _C.Tensor) else np.asarray(value)
            if list(array.shape) != list(target.shape):
                mismatched.append(f"{key}: expected shape {list(target.shape)}, got {list(array.shape)}")
                continue
            pairs.append((target, value))
        for key in state_dict:
            if key not in own:
                unexpected.append(key)
        if mismatched:
            raise ValueError(f"{type(self).__name__}.set_state_dict: {len(mismatched)} key(s) do not match the "
                             "model's shapes:\n  " + "\n  ".join(mismatched))
        for target, value in pairs:
            _assign_into(target, value)
        if missing:
            warnings.warn(f"{type(self).__name__}.set_state_dict: no value for {missing}", stacklevel=2)
        if unexpected:
            warnings.warn(f"{type(self).__name__}.set_state_dict: {unexpected} are not used by the model",
                          stacklevel=2)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # ---- dtype -------------------------------------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None, non_blocking=None):
        """Moves parameters and buffers to `device` and casts the floating ones to `dtype`, in
        place (the Parameter objects stay the same, so optimizers holding them keep working)."""
        if device is not None:
            self._move_to(device)
        if dtype is not None:
            self._cast_floating(D.convert_dtype(dtype))
        return self

    def astype(self, dtype=None):
        """Casts the floating-point parameters and buffers to ``dtype`` in place; returns the layer."""
        return self.to(dtype=dtype)

    def float(self, excluded_layers=None):
        """Casts the floating-point parameters and buffers to float32 (except in ``excluded_layers``, a
        tuple of layer classes); returns the layer.
        """
        return self._cast_floating(D.float32, excluded_layers)

    def double(self, excluded_layers=None):
        """Casts the floating-point parameters and buffers to float64 (except in ``excluded_layers``);
        returns the layer.
        """
        return self._cast_floating(D.float64, excluded_layers)

    def half(self, excluded_layers=None):
        """Casts the floating-point parameters and buffers to float16 (except in ``excluded_layers``);
        returns the layer.
        """
        return self._cast_floating(D.float16, excluded_layers)

    def float16(self, excluded_layers=None):
        """Same as ``half``."""
        return self.half(excluded_layers)

    def bfloat16(self, excluded_layers=None):
        """Casts the floating-point parameters and buffers to bfloat16 (except in ``excluded_layers``);
        returns the layer.
        """
        return self._cast_floating(D.bfloat16, excluded_layers)

    def _move_to(self, device):
        from ...framework.place import move_in_place, placement_key
        key = placement_key(f"{type(self).__name__}.to", device)
        for layer in self.sublayers(include_self=True):
            for t in list(layer._parameters.values()) + list(layer._buffers.values()):
                move_in_place(t, key)

    def _cast_floating(self, dtype, excluded_layers=None):
        if dtype not in (D.float16, D.bfloat16, D.float32, D.float64):
            raise TypeError(f"{type(self).__name__}: can only cast to a floating dtype, but got {dtype}")
        excluded = tuple(excluded_layers or ())
        for layer in self.sublayers(include_self=True):
            if not (excluded and isinstance(layer, excluded)):
                layer._cast_own_floating(dtype)
        return self

    def _cast_own_floating(self, dtype):
        """Casts this layer's own floating parameters and buffers (not its sublayers') in place."""
        from ...autograd import no_grad
        with no_grad():
            for t in list(self._parameters.values()) + list(self._buffers.values()):
                if t is not None and t.dtype in (D.float16, D.bfloat16, D.float32, D.float64) \
                        and t.dtype != dtype:
                    stop_gradient = t.stop_gradient  # an in-place cast under no_grad resets it
                    t.cast_(dtype)
                    t.stop_gradient = stop_gradient
        self._dtype = dtype

    # ---- printing ----------------------------------------------------------------------------
    def extra_repr(self):
        """The layer's own part of its printed form (its arguments); subclasses override it."""
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        for name, layer in self._sub_layers.items():
            if layer is None:
                continue
            body = repr(layer).replace("\n", "\n  ")
            lines.append(f"({name}): {body}")
        head = type(self).__name__ + "("
        if not self._sub_layers or all(v is None for v in self._sub_layers.values()):
            return head + "\n  ".join(lines) + ")" if len(lines) <= 1 else \
                head + "\n  " + "\n  ".join(lines) + "\n)"
        if extra and "\n" not in extra:  # Paddle keeps a one-line extra_repr beside the "("
            return head + extra + "\n  " + "\n  ".join(lines[1:]) + "\n)"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _assign_into(target, value):
    """Copies a checkpoint value into a parameter or buffer in place, cast to its dtype."""
    from ...autograd import no_grad
    from ...tensor.creation import to_tensor
    src = value if isinstance(value, _C.Tensor) else to_tensor(np.asarray(value))
    if src.dtype != target.dtype:
        src = _C.cast(src, target.dtype)
    with no_grad():
        target.copy_(src)
