"""paddle.amp.auto_cast and paddle.amp.decorate.

auto_cast only sets a per-thread state; the decision of each op (which dtype it computes in) is
C++ (oar/ops/amp.h), so eager ops, traced programs and C++ callers share it.

One deliberate departure from Paddle: Paddle's CPU build ignores auto_cast and decorate (it warns
"amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace" and computes in float32).
oar honours them on every place, so bfloat16 training runs on CPUs with AVX512_BF16 (see
docs/amp.md). Everything else (arguments, validation order and messages, the op lists, nesting)
follows Paddle 3.x.
"""
from __future__ import annotations

import contextlib
import threading

from .. import _C
from . import amp_lists

__all__ = ["auto_cast", "amp_guard", "autocast", "decorate", "amp_decorate", "is_autocast_enabled",
           "get_autocast_dtype", "amp_state"]

_LEVELS = ("O0", "OD", "O1", "O2")
_LOW = ("float16", "bfloat16")


class AMPGlobalState:
    """Process-wide AMP settings that outlive an auto_cast block, as Paddle's: the AMP dtype last
    entered (GradScaler reads it; 'float32' until the first auto_cast), and decorate's master-grad
    request."""

    def __init__(self):
        self.amp_dtype = "float32"
        self.use_master_grad = False
        self.model_parameters = []


_global_state = AMPGlobalState()
_local = threading.local()  # amp_state(): the arguments of the innermost auto_cast


def amp_global_state() -> AMPGlobalState:
    return _global_state


def amp_state():
    """The arguments of the auto_cast block being run (a dict), or None outside any."""
    return getattr(_local, "args", None)


def _dtype_name(dtype):
    name = getattr(dtype, "name", dtype)
    if not isinstance(name, str):
        raise TypeError(f"auto_cast: dtype should be a str or an oar dtype, but got {type(dtype).__name__}")
    return name.lower()


def _known_op_names():
    names = set(_C._generated_ops) | {op for op, _ in _C._amp_default_categories()}
    for lists in (amp_lists.white_list(), amp_lists.black_list()):
        for per_level in lists.values():
            for ops in per_level.values():
                names |= ops
    return names | set(amp_lists.PADDLE_TO_OAR)


def _to_oar_ops(names, arg):
    """A user's op names (Paddle's kernel names or oar's op names) as oar op names."""
    known = None
    out = set()
    for name in names or ():
        if not isinstance(name, str):
            raise TypeError(f"auto_cast: {arg} should hold op names (str), but got {type(name).__name__}")
        if name not in amp_lists.PADDLE_TO_OAR:
            known = known if known is not None else _known_op_names()
            if name not in known:
                raise ValueError(f"auto_cast: {arg} names '{name}', which is not an op oar knows (use "
                                 "Paddle's op names, as in paddle.amp.white_list(), or oar's, as in "
                                 "oar._C._generated_ops)")
        out.update(amp_lists.PADDLE_TO_OAR.get(name, (name,)))
    return out


def _check_lists(custom_white_list, custom_black_list):
    if custom_white_list and custom_black_list:
        for name in custom_white_list:
            if name in custom_black_list:
                raise ValueError("Custom white list overlap custom black list")


@contextlib.contextmanager
def amp_guard(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    """The context manager behind auto_cast (same arguments)."""
    args = dict(enable=enable, custom_white_list=custom_white_list,
                custom_black_list=custom_black_list, level=level, dtype=dtype, use_promote=use_promote)
    if not isinstance(level, str):
        raise TypeError(f"auto_cast: level should be a str, but got {type(level).__name__}")
    level = level.upper()
    if level not in _LEVELS:
        raise ValueError("level should be O0, OD, O1 or O2.")
    dtype = _dtype_name(dtype)
    if enable and dtype not in _LOW:
        raise ValueError("If enable amp, dtype should be 'float16' or 'bfloat16'.")
    _check_lists(custom_white_list, custom_black_list)
    white = _to_oar_ops(custom_white_list, "custom_white_list")
    black = _to_oar_ops(custom_black_list, "custom_black_list")
    _global_state.amp_dtype = dtype  # sticky, as Paddle's (GradScaler.scale reads it)

    saved_args, saved_state = amp_state(), _C._amp_state()
    on = enable and level != "O0"
    # use_promote only matters at O2 (Paddle promotes at O1 and OD whatever it says).
    _C._amp_set_state(level if on else "O0", dtype if dtype in _LOW else "float16",
                      bool(use_promote) if level == "O2" else True, sorted(white), sorted(black - white))
    _local.args = args
    try:
        yield
    finally:
        _local.args = saved_args
        _C._amp_set_state(*saved_state)


def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    """Runs the ops inside the ``with`` block in mixed precision.

    Args:
        enable (bool, optional): Turn AMP on. Default: True.
        custom_white_list (set|list|tuple, optional): Op names to run in float16/bfloat16 as well.
        custom_black_list (set|list|tuple, optional): Op names to keep in float32 as well.
        level (str, optional): 'O1' (white-list ops in low precision, black-list ops in float32, the
            rest follow their inputs), 'O2' (everything in low precision but a few float32 ops),
            'OD' (only white-list ops in low precision) or 'O0' (off). Default: 'O1'.
        dtype (str, optional): 'float16' or 'bfloat16'. Default: 'float16'.
        use_promote (bool, optional): At O2, run an op in float32 when any input is float32.
            Default: True.

    Examples:
        >>> with oar.amp.auto_cast(dtype='bfloat16'):
        ...     y = model(x)          # matmul/conv in bfloat16, softmax/losses in float32
    """
    return amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote)


def autocast(device_type=None, dtype="float16", enabled=True, cache_enabled=True):
    """PyTorch-style spelling of auto_cast (device_type and cache_enabled are ignored, as Paddle)."""
    return auto_cast(enable=enabled, dtype=dtype)


def is_autocast_enabled(device_type=None) -> bool:
    """Whether an auto_cast block is on in this thread."""
    return _C._amp_state()[0] != "O0"


def get_autocast_dtype(device_type=None) -> str:
    """The dtype of the auto_cast block being run ('float16' when none is)."""
    level, dtype = _C._amp_state()[:2]
    return dtype if level != "O0" else "float16"


# ---- decorate -----------------------------------------------------------------------------------
def _norm_layer_types():
    from ..nn import (BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, InstanceNorm1D,
                      InstanceNorm2D, InstanceNorm3D, LayerNorm, SyncBatchNorm)
    always = (BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, SyncBatchNorm)
    float16_only = (LayerNorm, InstanceNorm1D, InstanceNorm2D, InstanceNorm3D)
    return always, float16_only


def _keeps_float32(layer, dtype):
    """Paddle's rule for O2: batch norms always stay float32; layer and instance norms too for
    float16 (bfloat16 has float32's range); excluded layers as the user said."""
    always, float16_only = _norm_layer_types()
    if not getattr(layer, "_cast_to_low_precision", True) or isinstance(layer, always):
        return True
    return dtype == "float16" and isinstance(layer, float16_only)


def _mark_excluded(models, excluded_layers):
    from ..nn import Layer
    if excluded_layers is None:
        return
    if isinstance(excluded_layers, (Layer, type)):
        excluded_layers = [excluded_layers]
    elif not isinstance(excluded_layers, list):
        raise TypeError("excluded_layers must be either a nn.Layer instance/type or a list of "
                        "nn.Layer instances/types.")
    for item in excluded_layers:
        if isinstance(item, Layer):
            for sub in item.sublayers(include_self=True):
                sub._cast_to_low_precision = False
        elif isinstance(item, type) and issubclass(item, Layer):
            for model in models:
                for sub in model.sublayers(include_self=True):
                    if isinstance(sub, item):
                        sub._cast_to_low_precision = False
        else:
            raise TypeError("excluded_layers must be either a nn.Layer instance/type or a list of "
                            "nn.Layer instances/types.")


def _cast_model(model, dtype):
    from .. import framework
    low = framework.dtype.convert_dtype(dtype)
    for layer in model.sublayers(include_self=True):
        if _keeps_float32(layer, dtype):
            continue
        # Only this layer's own tensors: its sublayers decide for themselves.
        layer._cast_own_floating(low)


class _SaveDtypeHook:
    """state_dict hook of decorate(save_dtype=...): floating entries are saved in save_dtype."""

    def __init__(self, save_dtype):
        self.save_dtype = save_dtype

    def __call__(self, state_dict):
        for key, value in state_dict.items():
            if value is not None and value.dtype.name in ("float16", "bfloat16", "float32", "float64"):
                cast = value.astype(self.save_dtype)
                cast.name = value.name
                state_dict[key] = cast


def _as_list(objs, kind, ok, what):
    if isinstance(objs, ok):
        return [objs]
    if isinstance(objs, list):
        for o in objs:
            if not isinstance(o, ok):
                raise RuntimeError(f"Current train mode is pure fp16, {kind} should be {what}, but "
                                   f"receive {type(o)}.")
        return list(objs)
    raise TypeError(f"{kind} must be either a single {kind[:-1]} or a list of {kind}.")


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """Prepares models (and optimizers) for pure low-precision training (level 'O2'): casts the
    parameters of every layer but norm layers and excluded ones to ``dtype``, and makes the
    optimizers keep float32 master weights (``master_weight``, default True at O2). 'O1' returns
    its arguments untouched.

    Returns:
        The models, or (models, optimizers), in the form they were given.
    """
    from ..nn import Layer
    from ..optimizer import Optimizer
    if level not in ("O1", "O2"):
        raise ValueError("level should be O1 or O2, O1 represent AMP train mode, O2 represent Pure "
                         "fp16 train mode.")
    if dtype not in _LOW:
        raise ValueError("dtype only support float16 or bfloat16.")
    if level == "O1":
        return models if optimizers is None else (models, optimizers)

    model_list = _as_list(models, "models", Layer, "paddle.nn.Layer")
    from ..distributed.parallel import DataParallel
    if any(isinstance(m, DataParallel) for m in model_list):
        raise RuntimeError("For distributed AMP training, you should first use paddle.amp.decorate() "
                           "to decorate origin model, and then call paddle.DataParallel get "
                           "distributed model.")
    _mark_excluded(model_list, excluded_layers)
    for model in model_list:
        _cast_model(model, dtype)
    if optimizers is not None:
        opt_list = _as_list(optimizers, "optimizers", Optimizer, "paddle.optimizer.Optimizer")
        for opt in opt_list:
            opt._multi_precision = master_weight is not False
    if master_grad:
        _global_state.use_master_grad = True
        for model in model_list:
            _global_state.model_parameters.extend(model.parameters())
    if save_dtype is not None:
        if save_dtype not in ("float16", "bfloat16", "float32", "float64"):
            raise ValueError("save_dtype can only be float16 float32 or float64, but your input "
                             f"save_dtype is {save_dtype}.")
        for model in model_list:
            for layer in model.sublayers(include_self=True):
                layer.register_state_dict_hook(_SaveDtypeHook(save_dtype))
    return models if optimizers is None else (models, optimizers)


amp_decorate = decorate
