"""paddle.amp.debugging: find where mixed precision goes wrong.

- check_numerics: nan/inf/zero counts and max/min/mean of one tensor, printed as Paddle does.
- enable_tensor_checker / disable_tensor_checker (and FLAGS_check_nan_inf): check every op's
  floating outputs as they are made; the first nan or inf raises RuntimeError naming the op
  (or is only printed, by DebugMode).
- enable_operator_stats_collection / collect_operator_stats: count the ops that ran, by the dtype
  their kernels ran in, and print Paddle's table.
The checks and counts are C++ op observers (oar/ops/op_observer.h, numerics_check.h, op_stats.h).
Op names are oar's (``matmul``, ``add``), where Paddle prints its kernel names (``matmul_v2``,
``elementwise_add``).
"""
from __future__ import annotations

import contextlib
import functools
import random
from enum import Enum

import numpy as np

from .. import _C
from ..framework.config import _FLAGS  # FLAGS_check_nan_inf reports the checker's state

__all__ = [
    "DebugMode", "TensorCheckerConfig", "check_numerics", "enable_operator_stats_collection",
    "disable_operator_stats_collection", "collect_operator_stats", "enable_tensor_checker",
    "disable_tensor_checker", "compare_accuracy", "check_layer_numerics",
]


class DebugMode(Enum):
    """What the nan/inf checks do: CHECK_NAN_INF_AND_ABORT prints the offending tensor and raises;
    CHECK_NAN_INF prints it and goes on; CHECK_ALL_FOR_OVERFLOW and CHECK_ALL print every tensor."""
    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


def check_numerics(tensor, op_type, var_name, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT):
    """Checks one floating tensor for nan and inf.

    Returns:
        (stats, values): int64 [num_nan, num_inf, num_zero] and float32 [max, min, mean] (max and
        min skip nan; mean is nan when any value is).
    """
    from ..tensor.creation import to_tensor
    if not isinstance(debug_mode, DebugMode):
        raise TypeError(f"check_numerics: debug_mode should be a DebugMode, but got {type(debug_mode).__name__}")
    counts, values = _C._amp_check_numerics(tensor, str(op_type), str(var_name), debug_mode.value)
    return to_tensor(np.array(counts, np.int64)), to_tensor(np.array(values, np.float32))


class TensorCheckerConfig:
    """Settings of enable_tensor_checker.

    Args:
        enable (bool): Check at all.
        debug_mode (DebugMode, optional): Default: CHECK_NAN_INF_AND_ABORT.
        output_dir (str, optional): Accepted for Paddle's signature (oar prints to stdout).
        checked_op_list (list|tuple, optional): Check only these ops.
        skipped_op_list (list|tuple, optional): Never check these ops.
        debug_step (list|tuple, optional): [start, end): check only in these calls of
            enable_tensor_checker (counted across configs, as Paddle).
        stack_height_limit (int, optional): Accepted for Paddle's signature. Default: 1.
    """
    current_step_id = 0

    def __init__(self, enable, debug_mode=DebugMode.CHECK_NAN_INF_AND_ABORT, output_dir=None,
                 checked_op_list=None, skipped_op_list=None, debug_step=None, stack_height_limit=1):
        self.enable = enable
        self.debug_mode = debug_mode
        self.output_dir = output_dir
        self.checked_op_list = checked_op_list
        self.skipped_op_list = skipped_op_list
        self.debug_step = debug_step
        self.stack_height_limit = stack_height_limit
        self.start_step = self.end_step = None
        if debug_step is not None:
            if not isinstance(debug_step, (tuple, list)):
                raise ValueError("debug_step must be list or tuple")
            assert len(debug_step) == 2 and debug_step[1] > debug_step[0]
            self.start_step, self.end_step = max(debug_step[0], 0), debug_step[1]
        if not isinstance(debug_mode, DebugMode):
            raise ValueError("debug_mode in DebugMode", debug_mode, DebugMode.__members__)
        for name, ops in (("checked_op_list", checked_op_list), ("skipped_op_list", skipped_op_list)):
            if ops is not None and not isinstance(ops, (list, tuple)):
                raise ValueError(f"{name} must be list or tuple")
        if enable:
            self._seed_everything()

    def _seed_everything(self):
        """As Paddle: the checked run is made reproducible by seeding oar, NumPy and random."""
        from ..framework.generator import Generator
        seed = Generator().initial_seed()
        if not 0 <= seed <= np.iinfo(np.uint32).max:
            print("[Warning: Seed must be between 0 and 2**32 - 1")
            seed = 123
        self.seed = seed
        Generator().manual_seed(seed)
        np.random.seed(seed)
        random.seed(seed)
        print("AMP Debugging TensorCheckerConfig: seed ", seed)

    def update_and_check_step_id(self):
        """Whether this call of enable_tensor_checker falls in debug_step (and counts it)."""
        if not self.enable:
            return False
        if self.start_step is not None and self.end_step is not None:
            if not self.start_step <= TensorCheckerConfig.current_step_id < self.end_step:
                return False
            TensorCheckerConfig.current_step_id += 1
        return True


def enable_tensor_checker(checker_config):
    """Checks every op's floating outputs for nan/inf from now on, as checker_config says."""
    if not isinstance(checker_config, TensorCheckerConfig):
        raise TypeError("enable_tensor_checker: checker_config should be a TensorCheckerConfig, but got "
                        f"{type(checker_config).__name__}")
    if not isinstance(checker_config.stack_height_limit, int):
        raise ValueError("stack_height_limit must be int")
    on = checker_config.update_and_check_step_id()
    if on:
        _C._amp_enable_tensor_checker(checker_config.debug_mode.value,
                                      list(checker_config.checked_op_list or ()),
                                      list(checker_config.skipped_op_list or ()))
    else:
        _C._amp_disable_tensor_checker()
    _FLAGS.update(FLAGS_check_nan_inf=on, FLAGS_check_nan_inf_level=checker_config.debug_mode.value)


def disable_tensor_checker():
    """Stops the checks enable_tensor_checker started."""
    _C._amp_disable_tensor_checker()
    _FLAGS["FLAGS_check_nan_inf"] = False


def enable_operator_stats_collection():
    """Starts counting the ops that run, by the dtype of their kernels (see collect_operator_stats)."""
    _C._amp_enable_op_stats()


def _print_operator_stats(stats):
    print("<{:-^120}>".format(" op list "))
    print("<{:-^40}".format(" Op Name "), "|", "{:-^17}".format(" FP16 Calls "), "|",
          "{:-^17}".format(" BF16 Calls "), "|", "{:-^17}".format(" FP32 Calls"), "|",
          "{:-^17}>".format(" Other Calls "))
    for op in sorted(stats):
        fp16, bf16, fp32, other = stats[op]
        print(f"  {op:<40}|  {fp16:<17}|  {bf16:<17}|  {fp32:<17}|  {other:<17}")
    print("<{:-^120}>\n".format(f" op count: {len(stats)} "))


def disable_operator_stats_collection():
    """Stops counting and prints the table (nothing when not counting)."""
    if not _C._amp_op_stats_enabled():
        return
    _print_operator_stats(_C._amp_disable_op_stats())


@contextlib.contextmanager
def collect_operator_stats():
    """Counts the ops run inside the block and prints the table at its end.

    Examples:
        >>> with oar.amp.debugging.collect_operator_stats():
        ...     with oar.amp.auto_cast(dtype='bfloat16'):
        ...         y = oar.matmul(x, w)
    """
    enable_operator_stats_collection()
    try:
        yield
    finally:
        disable_operator_stats_collection()


def check_layer_numerics(func):
    """Decorator of a Layer's forward(self, x, ...): raises RuntimeError at the first op inside it
    whose output holds nan or inf."""
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        if not args:
            raise RuntimeError("No elements found in args.")
        if not isinstance(args[0], _C.Tensor):
            raise RuntimeError("First input of this layer must be tensor.")
        already = _C._amp_tensor_checker_enabled()
        if not already:
            _C._amp_enable_tensor_checker(DebugMode.CHECK_NAN_INF_AND_ABORT.value, [], [])
        try:
            return func(self, *args, **kwargs)
        finally:
            if not already:
                _C._amp_disable_tensor_checker()
    return wrapper


def compare_accuracy(dump_path, another_dump_path, output_filename, loss_scale=1, dump_all_tensors=False):
    """Paddle compares two runs' tensor dumps written by its C++ checker into an Excel sheet; oar's
    checker prints instead of dumping, so there is nothing to compare."""
    raise NotImplementedError("compare_accuracy: oar's tensor checker prints to stdout and writes no "
                              "dumps to compare; use check_numerics or enable_tensor_checker")
