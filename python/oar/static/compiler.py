"""CompiledProgram and BuildStrategy (paddle.static): a program with build options, which
Executor.run takes in place of the program. oar's executor plans every program the same way
(docs/runtime.md), so the options are kept for scripts that set them, and do not change results."""
from .program import Program


class BuildStrategy:
    """Options for building a program into an executable graph (paddle.static.BuildStrategy).
    Every attribute of Paddle's is here with Paddle's default; oar's executor plans programs the
    same way whatever they say (its own in-place reuse and scheduling always run), so setting them
    does not change what a program computes.

    Examples:
        >>> import oar
        >>> bs = oar.static.BuildStrategy()
        >>> bs.enable_inplace = True
        >>> print(bs.fuse_elewise_add_act_ops)
        False
    """

    class ReduceStrategy:
        """How gradients are reduced across devices (paddle's BuildStrategy.ReduceStrategy)."""
        AllReduce = 0
        Reduce = 1
        _NoReduce = 2

    class GradientScaleStrategy:
        """How the loss gradient is scaled across devices."""
        CoeffNumDevice = 0
        One = 1
        Customized = 2

    _DEFAULTS = {
        "reduce_strategy": 0, "gradient_scale_strategy": 0, "debug_graphviz_path": "",
        "enable_backward_optimizer_op_deps": True, "cache_runtime_context": False,
        "fuse_bn_act_ops": False, "fuse_bn_add_act_ops": True, "fuse_elewise_add_act_ops": False,
        "enable_auto_fusion": False, "fuse_all_optimizer_ops": False, "fuse_all_reduce_ops": False,
        "fuse_relu_depthwise_conv": False, "fuse_broadcast_ops": False, "sync_batch_norm": False,
        "fuse_gemm_epilogue": False, "fused_attention": False, "fused_feedforward": False,
        "fuse_adamw": False, "fuse_dot_product_attention": False, "fuse_resunit": False,
        "sequential_run": False, "memory_optimize": False, "enable_inplace": True,
        "enable_addto": False, "allow_cuda_graph_capture": False, "build_cinn_pass": False,
        "async_mode": False, "num_trainers": 1, "trainer_id": 0, "trainers_endpoints": [],
        "nccl_comm_num": 1, "bkcl_comm_num": 1, "use_hierarchical_allreduce": False,
        "hierarchical_allreduce_inter_nranks": 0, "mkldnn_enabled_op_types": [],
        "onednn_enabled_op_types": [],
    }

    def __init__(self):
        for k, v in self._DEFAULTS.items():
            object.__setattr__(self, k, list(v) if isinstance(v, list) else v)

    def __setattr__(self, name, value):
        if name not in self._DEFAULTS:
            raise AttributeError(f"BuildStrategy has no option '{name}'")
        default = self._DEFAULTS[name]
        if isinstance(default, bool) and not isinstance(value, bool):
            raise TypeError(f"BuildStrategy.{name} must be a bool, but received {type(value).__name__}")
        object.__setattr__(self, name, value)

    def __repr__(self):
        return "BuildStrategy(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self._DEFAULTS) + ")"


class CompiledProgram:
    """A program with a BuildStrategy (paddle.static.CompiledProgram). Executor.run takes it as
    its program argument and runs the program it wraps.

    Args:
        program_or_graph (Program): The program.
        build_strategy (BuildStrategy, optional): Build options; None gives the defaults.
            Default: None.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = x * 2.0
        >>> compiled = oar.static.CompiledProgram(main, build_strategy=oar.static.BuildStrategy())
        >>> print(oar.static.Executor().run(compiled, feed={'x': np.array([[1.0, 2.0]], 'float32')}, fetch_list=[y])[0])
        [[2. 4.]]
        >>> oar.disable_static()
    """

    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError("CompiledProgram: the type of program_or_graph is wrong, expected Program, "
                            f"but received {type(program_or_graph).__name__}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError("CompiledProgram: build_strategy must be a BuildStrategy or None, but received "
                            f"{type(build_strategy).__name__}")
        self._program = program_or_graph
        self._build_strategy = BuildStrategy() if build_strategy is None else build_strategy
        self._graph = None
        self._place = None

    @property
    def program(self):
        return self._program

    def __str__(self):
        return str(self._program)
