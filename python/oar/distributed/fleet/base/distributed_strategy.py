"""fleet.DistributedStrategy: the settings of a fleet job, with Paddle's names and defaults.

What oar acts on in dynamic-graph mode: ``hybrid_configs`` (dp_degree, sharding_degree; mp, pp,
sep and cp degrees must stay 1), ``gradient_merge`` with ``gradient_merge_configs``,
``fuse_grad_size_in_MB``, ``last_comm_group_size_MB`` and ``find_unused_parameters`` (given to
DataParallel). ``amp`` is an error when turned on (not implemented). The others are accepted and
stored; as in Paddle's dynamic graph they are static-graph (meta-optimizer) settings and are not
used here: sharding / sharding_configs (dynamic-graph sharding is hybrid_configs'
sharding_degree), recompute (use oar's recompute on the layers), pipeline, tensor_parallel, lamb,
lars, dgc, localsgd, adaptive_localsgd, a_sync, fp16_allreduce, fuse_all_reduce_ops."""
import copy
import warnings

__all__ = ["DistributedStrategy"]

_HYBRID = {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1, "sep_degree": 1,
           "cp_degree": 1, "ep_degree": 1, "moe_sharding_degree": 1, "cp_sharding_degree": 1,
           "enable_optimizer_timer": False, "split_norm_comm": False, "mp_configs": {}, "pp_configs": {},
           "sharding_configs": {}, "dp_configs": {}, "sep_configs": {}, "ep_configs": {},
           "default_comm_group_configs": {}}
_ORDER = ["dp", "pp", "sharding", "sep", "mp"]

_CONFIGS = {
    "hybrid_configs": _HYBRID,
    "gradient_merge_configs": {"k_steps": 1, "avg": True},
    "sharding_configs": {"sharding_segment_strategy": "segment_broadcast_MB", "segment_broadcast_MB": 32.0,
                         "segment_anchors": [], "sharding_degree": 8, "mp_degree": 1, "dp_degree": 1,
                         "hybrid_dp": False, "gradient_merge_acc_step": 1, "optimize_offload": False,
                         "pp_allreduce_in_optimize": False, "pp_degree": 1, "optimize_cast": False,
                         "_dp_as_optimizer_sharding": False, "stage": 1, "enable_tuning": False,
                         "use_calc_stream": False},
    "amp_configs": {"init_loss_scaling": 32768.0, "incr_every_n_steps": 1000, "decr_every_n_nan_or_inf": 2,
                    "incr_ratio": 2.0, "decr_ratio": 0.8, "use_dynamic_loss_scaling": True,
                    "custom_white_list": [], "custom_black_list": [], "custom_black_varnames": [],
                    "use_pure_fp16": False, "use_fp16_guard": True, "use_optimizer_fp16": False,
                    "use_pure_bf16": False},
    "recompute_configs": {"checkpoints": [], "enable_offload": False, "checkpoint_shape": [],
                          "enable_tuning": False, "refined_ops_patterns": []},
    "pipeline_configs": {"micro_batch_size": 1, "accumulate_steps": 1, "schedule_mode": "1F1B",
                         "p2p_cache_shape": True, "enable_partial_send_recv": True},
    "tensor_parallel_configs": {"tensor_parallel_degree": 1, "tensor_init_seed": -1},
    "localsgd_configs": {"k_steps": 1, "begin_step": 1},
    "adaptive_localsgd_configs": {"init_k_steps": 1, "begin_step": 1},
    "dgc_configs": {"rampup_begin_step": 0, "rampup_step": 1, "sparsity": [0.999]},
    "lars_configs": {"lars_coeff": 0.001, "lars_weight_decay": 0.0005, "epsilon": 0.0,
                     "exclude_from_weight_decay": []},
    "lamb_configs": {"lamb_weight_decay": 0.01, "exclude_from_weight_decay": []},
    "a_sync_configs": {"k_steps": -1},
    "gradient_scale_configs": {"scale_strategy": "avg", "scale_gradient": False},
}

_FLAGS = {"amp": False, "recompute": False, "localsgd": False, "adaptive_localsgd": False, "dgc": False,
          "gradient_merge": False, "lars": False, "lamb": False, "pipeline": False, "sharding": False,
          "tensor_parallel": False, "a_sync": True, "fp16_allreduce": False, "find_unused_parameters": False,
          "fuse_all_reduce_ops": True, "sync_batch_norm": False, "heter_ccl_mode": False,
          "without_graph_optimization": True, "sync_nccl_allreduce": True, "use_hierarchical_allreduce": False,
          "calc_comm_same_stream": False, "fuse_grad_merge": False, "asp": False, "qat": False,
          "semi_auto": False, "auto": False, "elastic": False, "split_data": True}

_NUMBERS = {"fuse_grad_size_in_MB": (32, int), "last_comm_group_size_MB": (1.0, (int, float)),
            "nccl_comm_num": (1, int), "fuse_grad_size_in_num": (8, int),
            "hierarchical_allreduce_inter_nranks": (1, int), "conv_workspace_size_limit": (512, int)}


def _type_ok(default, value):
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, str):
        return isinstance(value, str)
    if isinstance(default, list):
        return isinstance(value, (list, tuple))
    if isinstance(default, dict):
        return isinstance(value, dict)
    return True


class DistributedStrategy:
    """The settings of a fleet job (paddle.distributed.fleet.DistributedStrategy).

    Examples:
        >>> import oar.distributed.fleet as fleet
        >>> strategy = fleet.DistributedStrategy()
        >>> strategy.hybrid_configs = {"dp_degree": 2, "sharding_degree": 1}
        >>> strategy.hybrid_configs["dp_degree"]
        2
        >>> strategy.gradient_merge = True
        >>> strategy.gradient_merge_configs = {"k_steps": 4, "avg": True}
        >>> strategy.gradient_merge_configs["k_steps"]
        4
    """

    def __init__(self):
        d = self.__dict__
        d["_configs"] = copy.deepcopy(_CONFIGS)
        d["_flags"] = dict(_FLAGS)
        d["_numbers"] = {k: v for k, (v, _) in _NUMBERS.items()}
        d["hybrid_parallel_order"] = list(_ORDER)

    def __getattr__(self, name):
        d = self.__dict__
        if name in d.get("_configs", {}):
            return copy.deepcopy(d["_configs"][name])
        if name in d.get("_flags", {}):
            return d["_flags"][name]
        if name in d.get("_numbers", {}):
            return d["_numbers"][name]
        raise AttributeError(f"'DistributedStrategy' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        if name in d["_configs"]:
            self._set_configs(name, value)
        elif name in d["_flags"]:
            if not isinstance(value, bool):
                # Paddle warns and keeps the old value.
                warnings.warn(f"DistributedStrategy.{name} should have value of bool type; got {value!r}, ignored")
                return
            d["_flags"][name] = value
        elif name in d["_numbers"]:
            kind = _NUMBERS[name][1]
            if isinstance(value, bool) or not isinstance(value, kind) or value <= 0:
                raise ValueError(f"DistributedStrategy.{name} must be a positive number, got {value!r}")
            d["_numbers"][name] = value
        elif name == "hybrid_parallel_order":
            d[name] = list(value)
        else:
            raise AttributeError(f"DistributedStrategy has no setting '{name}'")

    def _set_configs(self, field, configs):
        if not isinstance(configs, dict):
            raise TypeError(f"DistributedStrategy.{field} must be a dict, got {type(configs).__name__}")
        configs = dict(configs)
        if field == "hybrid_configs" and "order" in configs:
            order = list(configs.pop("order"))
            if sorted(order) != sorted(_ORDER):
                raise ValueError(f"DistributedStrategy.hybrid_configs: order must be a permutation of {_ORDER}, "
                                 f"got {order}")
            self.__dict__["hybrid_parallel_order"] = order
        current = self.__dict__["_configs"][field]
        for key, value in configs.items():
            if key not in current:
                raise ValueError(f"DistributedStrategy.{field}: unknown key '{key}' (key:{key} not in {field}); "
                                 f"the keys are {sorted(current)}")
            if not _type_ok(current[key], value):
                raise TypeError(f"DistributedStrategy.{field}['{key}'] must be of type "
                                f"{type(current[key]).__name__}, got {value!r}")
        if field == "hybrid_configs":
            for key in ("dp_degree", "mp_degree", "pp_degree", "sharding_degree", "sep_degree", "cp_degree"):
                if key in configs:
                    v = configs[key]
                    if v == 0 or v < -1 or (v == -1 and key != "dp_degree"):
                        raise ValueError(f"DistributedStrategy.hybrid_configs['{key}'] must be >= 1"
                                         f"{' (or -1: inferred from the world size)' if key == 'dp_degree' else ''}, "
                                         f"got {v}")
        if field == "gradient_merge_configs" and "k_steps" in configs and configs["k_steps"] < 1:
            raise ValueError(f"DistributedStrategy.gradient_merge_configs['k_steps'] must be >= 1, got "
                             f"{configs['k_steps']}")
        for key, value in configs.items():
            if isinstance(current[key], dict):
                current[key].update(value)
            else:
                current[key] = value

    def __deepcopy__(self, memo):
        new = DistributedStrategy()
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __repr__(self):
        on = [k for k, v in self._flags.items() if v and k not in ("a_sync", "fuse_all_reduce_ops",
                                                                   "without_graph_optimization",
                                                                   "sync_nccl_allreduce", "split_data")]
        degrees = {k: v for k, v in self._configs["hybrid_configs"].items() if k.endswith("_degree")}
        return f"DistributedStrategy(hybrid_configs={degrees}, on={on})"
