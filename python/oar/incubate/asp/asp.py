"""Automatic SParsity (paddle.incubate.asp): prune a model's weights to an n:m pattern (2:4 by default:
2 zeros in every 4 consecutive input weights) and keep them pruned while training.

Dynamic mode, as Paddle's: decorate(optimizer) makes a mask (ones) for each prunable parameter the
optimizer updates; prune_model(layer) computes each prunable weight's mask with the chosen algorithm,
zeroes the pruned weights and stores the mask; the decorated optimizer's step() multiplies each such
weight by its mask after the update. Prunable: parameters named <layer>_<k>.w_<j> of the supported
layer types (fc, linear, conv2d and those added by add_supported_layer), minus the excluded ones;
biases are never pruned. A weight whose input size is below m is left dense (with a warning)."""
import copy
import logging
import threading

import numpy as np

from .utils import CheckMethod, MaskAlgo, check_sparsity, create_mask

__all__ = []

_logger = logging.getLogger("oar.incubate.asp")

_MASK_SUFFIX = "asp_mask"
_WEIGHT_SUFFIX = "w_"


def _default_pruning(weight, m, n, func_name, param_name):
    """(pruned weight, mask) of a NumPy weight: the mask groups the weight's input axis (Linear's
    first, Conv2D's second)."""
    shape = weight.shape
    if len(shape) == 2 and shape[0] < m:
        _logger.warning(f"{param_name} is not pruned because the first dimension of {shape} is smaller than {m}")
        return copy.deepcopy(weight), np.ones_like(weight)
    if len(shape) == 4 and shape[1] < m:
        _logger.warning(f"{param_name} is not pruned because the second dimension of {shape} is smaller than {m}")
        return copy.deepcopy(weight), np.ones_like(weight)
    mask = create_mask(weight.T, func_name=func_name, n=n, m=m).T
    pruned = np.multiply(weight, mask)
    if not check_sparsity(pruned.T, n=n, m=m, func_name=CheckMethod.get_checking_method(func_name)):
        raise AssertionError(f"Pruning {param_name} weight matrix failure!!!")
    return pruned, mask


_supported_lock = threading.Lock()
_supported = {}


def _snake(name):
    """Conv2D -> conv2d, BatchNorm2D -> batch_norm2d: the prefix of a layer's parameter names."""
    import re
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def add_supported_layer(layer, pruning_func=None):
    """Makes a layer type prunable (paddle.incubate.asp.add_supported_layer): its weights (parameters
    named <name>_<k>.w_<j>) get pruned by prune_model with pruning_func, or with the default n:m
    pruning.

    Args:
        layer (str|Layer|type): The layer's name as its parameters start ('linear'), a layer, or a
            Layer class (its snake_case name).
        pruning_func (Callable, optional): (weight: ndarray, m, n, mask_algo, param_name) ->
            (pruned weight, mask). Default: None.

    Examples:
        >>> import oar
        >>> from oar.incubate import asp
        >>> asp.add_supported_layer(oar.nn.Conv1D)
        >>> print(asp.asp._is_supported("conv1d_0.w_0"))
        True
    """
    from ...nn.layer.layers import Layer
    if isinstance(layer, str):
        name = layer
    elif isinstance(layer, Layer):
        name = _snake(type(layer).__name__)
    elif isinstance(layer, type) and issubclass(layer, Layer):
        name = _snake(layer.__name__)
    else:
        raise TypeError(f"add_supported_layer: argument 'layer' must be a str, a Layer or a Layer class, but got "
                        f"{type(layer).__name__}")
    with _supported_lock:
        _supported[name] = pruning_func or _default_pruning


for _name in ("fc", "linear", "conv2d"):
    add_supported_layer(_name)
del _name


class _ProgramInfo:
    def __init__(self):
        self.mask_vars = {}
        self.masks = {}
        self.excluded = []


_infos = {}


def _program_key(program=None):
    if program is None:
        from ...static import default_main_program
        program = default_main_program()
    return id(program)


def _info(program=None):
    return _infos.setdefault(_program_key(program), _ProgramInfo())


def _is_supported(param_name, program=None):
    parts = param_name.split(".")
    if _MASK_SUFFIX in parts:
        return False
    for excluded in _info(program).excluded:
        if excluded in param_name:
            return False
    if param_name in _supported:
        return True
    if len(parts) == 1:
        return False
    base, kind = parts[0], parts[1]
    layer_name = base[:base.rfind("_")]
    if _WEIGHT_SUFFIX not in kind:
        return False
    return base in _supported or layer_name in _supported


def _prune_func(param_name):
    func = _supported.get(param_name)
    base = param_name.split(".")[0]
    if func is None:
        func = _supported.get(base)
    if func is None:
        func = _supported.get(base[:base.rfind("_")], _default_pruning)
    return func


def set_excluded_layers(param_names, main_program=None):
    """Leaves the parameters whose names contain any of param_names dense
    (paddle.incubate.asp.set_excluded_layers).

    Args:
        param_names (list[str]): Names or name fragments ('linear_0' excludes linear_0.w_0).
        main_program (Program, optional): The program whose list it is; None is the default main
            program (dynamic mode's too). Default: None.

    Examples:
        >>> import oar
        >>> from oar.incubate import asp
        >>> asp.set_excluded_layers(['linear_0'])
        >>> print(asp.asp._is_supported('linear_0.w_0'), asp.asp._is_supported('linear_1.w_0'))
        False True
        >>> asp.reset_excluded_layers()
    """
    _info(main_program).excluded.extend(copy.deepcopy(list(param_names)))


def reset_excluded_layers(main_program=None):
    """Empties the excluded list of main_program, or of every program when None
    (paddle.incubate.asp.reset_excluded_layers).

    Args:
        main_program (Program, optional): The program. Default: None.

    Examples:
        >>> import oar
        >>> from oar.incubate import asp
        >>> asp.set_excluded_layers(['linear_0'])
        >>> asp.reset_excluded_layers()
        >>> print(asp.asp._is_supported('linear_0.w_0'))
        True
    """
    if main_program is None:
        for info in _infos.values():
            info.excluded = []
    else:
        _info(main_program).excluded = []


def _mask_name(param_name):
    return param_name + "." + _MASK_SUFFIX


def _create_masks(params):
    import oar
    info = _info()
    for param in params:
        if _is_supported(param.name) and param.name not in info.mask_vars:
            mask = oar.ones(param.shape, dtype=param.dtype)
            mask.stop_gradient = True
            info.mask_vars[param.name] = mask


def _apply_masks(params):
    import oar
    info = _info()
    with oar.no_grad():
        for param in params:
            mask = info.mask_vars.get(param.name)
            if mask is not None:
                param.set_value(param * mask)


class OptimizerWithSparsityGuarantee:
    """An optimizer whose step() keeps the pruned weights at zero (what decorate returns): after the
    wrapped optimizer's update, each prunable parameter is multiplied by its mask. Other attributes
    are the wrapped optimizer's; state_dict adds the masks ('<param>.asp_mask')."""

    def __init__(self, optimizer):
        self._optimizer = optimizer

    def __getattr__(self, item):
        return getattr(self._optimizer, item)

    def step(self):
        """The wrapped optimizer's step, then the masks."""
        self._optimizer.step()
        _apply_masks(self._optimizer._parameter_list)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """backward + step (dynamic mode)."""
        result = self._optimizer.minimize(loss, startup_program, parameters, no_grad_set)
        _apply_masks(self._optimizer._parameter_list)
        return result

    def state_dict(self):
        """The wrapped optimizer's state with each mask under '<param>.asp_mask'."""
        state = self._optimizer.state_dict()
        for name, mask in _info().mask_vars.items():
            state[_mask_name(name)] = mask
        return state

    def set_state_dict(self, state_dict):
        """Restores the masks (each '<param>.asp_mask' must be present), then the optimizer's state."""
        info = _info()
        for name, mask in info.mask_vars.items():
            key = _mask_name(name)
            if key not in state_dict:
                raise AssertionError(f"The {key} is not found.")
            value = state_dict[key]
            mask.set_value(value.numpy() if hasattr(value, "numpy") else np.asarray(value))
            info.masks[name] = mask.numpy()
        return self._optimizer.set_state_dict(state_dict)


def decorate(optimizer):
    """Wraps an optimizer so that pruned weights stay pruned (paddle.incubate.asp.decorate): makes a
    mask for each prunable parameter it updates (all ones until prune_model) and returns an
    OptimizerWithSparsityGuarantee whose step() applies them. Call it before prune_model.

    Args:
        optimizer (Optimizer): The optimizer of the model to prune.

    Returns:
        OptimizerWithSparsityGuarantee: The wrapped optimizer.

    Examples:
        >>> import oar
        >>> from oar.incubate import asp
        >>> layer = oar.nn.Linear(8, 4)
        >>> opt = asp.decorate(oar.optimizer.SGD(0.1, parameters=layer.parameters()))
        >>> _ = asp.prune_model(layer)
        >>> layer(oar.rand([2, 8])).sum().backward()
        >>> opt.step()
        >>> print(asp.calculate_density(layer.weight.numpy()))
        0.5
    """
    from ...framework import mode
    if mode.in_dynamic_mode():
        _create_masks(optimizer._parameter_list)
    return OptimizerWithSparsityGuarantee(optimizer)


def prune_model(model, n=2, m=4, mask_algo="mask_1d", with_mask=True):
    """Prunes a model's supported weights to the n:m pattern (paddle.incubate.asp.prune_model) and
    returns {parameter name: mask (NumPy array)} of every weight pruned so far.

    Algorithms (each on the weight as a matrix whose rows are the output units and whose groups run
    along the input units):
    - 'mask_1d': in each group of m consecutive weights, the n of smallest magnitude are zeroed.
    - 'mask_2d_greedy': in each m x m block, the largest magnitudes are kept greedily while their row
      and column hold fewer than n kept weights.
    - 'mask_2d_best': in each m x m block, of the patterns with n kept per row and at most n per
      column, the one whose kept values have the largest (signed) sum.

    Args:
        model (Layer): The model.
        n (int, optional): n of the n:m pattern. Default: 2.
        m (int, optional): m of the n:m pattern. Default: 4.
        mask_algo (str, optional): 'mask_1d', 'mask_2d_greedy' or 'mask_2d_best'. Default: 'mask_1d'.
        with_mask (bool, optional): Also store the masks the decorated optimizer applies (decorate
            must have been called). Default: True.

    Returns:
        dict[str, numpy.ndarray]: The masks.

    Examples:
        >>> import oar
        >>> from oar.incubate import asp
        >>> layer = oar.nn.Linear(8, 8)
        >>> masks = asp.prune_model(layer, with_mask=False)
        >>> print(asp.calculate_density(layer.weight.numpy()), layer.weight.name in masks)
        0.5 True
    """
    from ...framework import mode
    from ...nn.layer.layers import Layer
    algos = {"mask_1d": MaskAlgo.MASK_1D, "mask_2d_greedy": MaskAlgo.MASK_2D_GREEDY,
             "mask_2d_best": MaskAlgo.MASK_2D_BEST}
    if mask_algo not in algos:
        raise AssertionError('The "mask_algo" should be one of ["mask_1d", "mask_2d_greedy", "mask_2d_best"]')
    if not isinstance(model, Layer):
        raise TypeError(f"model should be paddle.nn.Layer or paddle.static.Program, but got {type(model)}")
    if not mode.in_dynamic_mode():
        raise NotImplementedError("oar.incubate.asp.prune_model prunes layers in dynamic mode only")
    info = _info()
    for param in model.parameters():
        if not _is_supported(param.name):
            continue
        weight = param.numpy()
        pruned, mask = _prune_func(param.name)(weight, m, n, algos[mask_algo], param.name)
        param.set_value(pruned.astype(weight.dtype))
        if with_mask:
            mask_var = info.mask_vars.get(param.name)
            if mask_var is None:
                raise AssertionError(f"Cannot find {_mask_name(param.name)} variable, please call asp.decorate() "
                                     "to decorate your optimizer first!")
            mask_var.set_value(mask.astype(weight.dtype))
        info.masks[param.name] = mask
    return dict(info.masks)
