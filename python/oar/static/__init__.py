"""oar.static (paddle.static): build programs in static mode and run them with an Executor."""
from .mode import enable_static  # noqa: F401
from ..framework.mode import disable_static, in_dynamic_mode, is_symbolic  # noqa: F401
from . import mode  # noqa: F401  (oar.static.mode: enable_static and framework/mode.py's functions)
from .program import (  # noqa: F401
    Program, Variable, default_main_program, default_startup_program, program_guard, data)
from .executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from .backward import append_backward, gradients  # noqa: F401
from .input_spec import InputSpec  # noqa: F401
from . import nn, amp  # noqa: F401
from .io import (  # noqa: F401
    save_inference_model, load_inference_model, normalize_program, serialize_program, deserialize_program,
    serialize_persistables, deserialize_persistables, save_to_file, load_from_file)
from .save_load import save, load, load_program_state, set_program_state  # noqa: F401
from .compiler import BuildStrategy, CompiledProgram  # noqa: F401
from ..framework.parameter import create_parameter  # noqa: F401
from . import misc  # noqa: F401
from .misc import accuracy, cuda_places, name_scope, xpu_places  # noqa: F401


def cpu_places(device_count=None):
    """A list of CPU places, for Paddle's data-parallel static APIs.

    Args:
        device_count (int, optional): How many; None means 1. Default: None.

    Returns:
        list[Place]: device_count CPUPlace objects.

    Examples:
        >>> import oar
        >>> print(oar.static.cpu_places(2))
        [Place(cpu), Place(cpu)]
    """
    from .. import CPUPlace
    return [CPUPlace()] * (device_count or 1)


from .misc import WeightNormParamAttr, device_guard, create_global_var  # noqa: F401,E402
from .ipu import ipu_shard_guard, set_ipu_shard, IpuStrategy, IpuCompiledProgram  # noqa: F401,E402
from .metric import auc, ctr_metric_bundle  # noqa: F401,E402
from .ema import ExponentialMovingAverage  # noqa: F401,E402
from .python_ops import Print, py_func  # noqa: F401,E402
