"""oar.incubate.distributed.utils.io.save: oar.save for distributed jobs, gathering the optimizer
states that ZeRO sharding splits over the sharding group onto chosen ranks."""
import copy
import logging
import re
import sys

from .save_for_auto import save_for_auto_inference

__all__ = ["save", "save_for_auto_inference"]

logger = logging.getLogger("oar.incubate.distributed.utils.io")


def _supported_by_save(configs):
    return {k: v for k, v in configs.items() if k in ("use_binary_format",)}


def _parse_mem_size(max_size):
    assert isinstance(max_size, (int, str))
    if isinstance(max_size, str):
        assert re.search("^[0-9]*[GMK]$", max_size), \
            f"Wrong max_size 's format, the format ust be like 10K, 9M, 200G , etc, or an integer. However this is " \
            f"{max_size}"
        num = int(max_size[:-1])
        max_size = num * {"G": 1024 ** 3, "M": 1024 ** 2, "K": 1024}[max_size[-1]]
    return max_size


def _same_keys(state_dict, group):
    from .....distributed import collective
    keys = list(state_dict.keys())
    key_list = []
    collective.all_gather_object(key_list, keys, group=group)
    return all(k == keys for k in key_list)


def _groups(numpy_dict, max_size):
    """The dict cut into groups of at most max_size bytes (by sys.getsizeof, as Paddle)."""
    biggest = max((sys.getsizeof(v) + sys.getsizeof(k) for k, v in numpy_dict.items()), default=0)
    max_size = max(max_size, biggest)
    group, bits = {}, 0
    for k, v in numpy_dict.items():
        size = sys.getsizeof(v) + sys.getsizeof(k)
        if bits + size >= max_size:
            yield group
            group, bits = {}, 0
        group[k] = v
        bits += size
    yield group


def _gather_data_dict(data, dst, group, max_size):
    from ..... import to_tensor
    from .....distributed import collective
    numpy_dict = {}
    for k, v in data.items():
        try:
            numpy_dict[k] = v.numpy()
        except Exception:
            raise TypeError(f"the object (type of {type(v)}) of '{k}' is neither tensor nor parameter") from None
    me = collective.get_rank()
    out = {}
    for part in _groups(numpy_dict, max_size):
        got = []
        collective.all_gather_object(got, part, group)
        if me in dst:
            for s in got:
                out.update(s)
    # Ranks may have cut their dicts into different numbers of groups: go on until all are empty.
    while True:
        got = []
        collective.all_gather_object(got, {}, group)
        if all(not s for s in got):
            break
        if me in dst:
            for s in got:
                out.update(s)
    if me not in dst:
        return {}
    result = {}
    for k, v in out.items():
        result[k] = to_tensor(v, place="cpu")
        result[k].name = k
    return result


def _gather_state_dict(state_dict, dst, group, max_size="3G"):
    from .....distributed import collective
    assert isinstance(dst, (list, tuple, int)), "dst' type must be one of int, list and tuple"
    if isinstance(dst, int):
        dst = [dst]
    max_size = _parse_mem_size(max_size) // collective.get_world_size(group)
    state = copy.copy(state_dict)
    has_mw, has_lr = "master_weights" in state, "LR_Scheduler" in state
    mw = state.pop("master_weights", None)
    lr = state.pop("LR_Scheduler", None)
    out = _gather_data_dict(state, dst, group, max_size)
    if isinstance(mw, dict):
        masters = _gather_data_dict(mw, dst, group, max_size)
    else:
        assert mw is None, f"Wrong type of master weights . type: {type(mw)}"
    if has_mw:
        out["master_weights"] = masters
    if has_lr:
        out["LR_Scheduler"] = lr
    return out


def save(state_dict, path, **configs):
    """oar.save in a single-process or distributed job. Without ``gather_to`` (or in one process)
    every rank saves its own state_dict with oar.save. With ``gather_to`` (a rank or ranks) and
    ``state_type``: 'params' are saved as they are (data parallel and ZeRO 1/2 keep whole
    parameters); 'opt' state dicts split over the sharding group are gathered (in groups of at most
    ``max_grouped_size``: an int or '<n>G'/'<n>M'/'<n>K', default '3G') and saved by the
    gather_to ranks only. Configs other than ``use_binary_format`` are not passed to oar.save.
    Dynamic mode only.

    Args:
        state_dict (dict|Tensor|object): What to save.
        path (str|BytesIO): Where.
        **configs: ``gather_to``, ``state_type`` ('params' or 'opt'), ``max_grouped_size``,
            ``use_binary_format``.

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> from oar.incubate.distributed.utils.io import save
        >>> net = oar.nn.Linear(2, 3)
        >>> path = os.path.join(tempfile.mkdtemp(), "net.pdparams")
        >>> save(net.state_dict(), path, gather_to=0, state_type="params")
        >>> print(sorted(oar.load(path)))
        ['bias', 'weight']
    """
    from ..... import save as _save
    from .....distributed import collective
    from .....distributed.fleet import fleet
    from .....framework import mode
    if not mode.in_dynamic_mode():
        raise RuntimeError("oar.incubate.distributed.utils.io.save only supports dynamic graph mode (dygraph)")
    gather_to = configs.get("gather_to", None)
    world = collective.get_world_size() if collective.is_initialized() else 1
    if world == 1 or gather_to is None:
        return _save(state_dict, path, **_supported_by_save(configs))
    state_type = configs.get("state_type", None)
    assert isinstance(state_type, str), "must pass an arg state_type='params' or state_type='opt' to specify " \
                                        "whether to save model state_dict or optimizer state_dict"
    assert state_type in ["params", "opt"], "must pass an arg state_type='params' or state_type='opt'"
    if re.search(f"{state_type}$", path) is None:
        logger.warning(f"You are saving {state_type}, while the path({path} does not end with {state_type})")
    hcg = fleet.get_hybrid_communicate_group()
    assert hcg.get_model_parallel_world_size() == 1 and hcg.get_pipe_parallel_world_size() == 1, \
        f"Only DP and Sharding is supported now. However, current MP={hcg.get_model_parallel_world_size()} , " \
        f"PP={hcg.get_pipe_parallel_world_size()}"
    sharding_group = hcg.get_sharding_parallel_group()
    dp_group = hcg.get_data_parallel_group()
    if state_type == "params":
        if dp_group.nranks > 1:
            assert _same_keys(state_dict, dp_group), "only sharding stage 1/2 and DP are supported now"
        if sharding_group.nranks > 1:
            assert _same_keys(state_dict, sharding_group), "only sharding stage 1/2 and DP are supported now"
        return _save(state_dict, path, **_supported_by_save(configs))
    if sharding_group.nranks == 1 or _same_keys(state_dict, sharding_group):
        return _save(state_dict, path, **_supported_by_save(configs))
    assert isinstance(gather_to, (list, tuple, int))
    if isinstance(gather_to, int):
        gather_to = [gather_to]
    max_size = configs.get("max_grouped_size", "3G")
    try:
        gathered = _gather_state_dict(state_dict, gather_to, sharding_group, max_size=max_size)
        if collective.get_rank() in gather_to:
            _save(gathered, path, **_supported_by_save(configs))
    except Exception:
        raise RuntimeError(f"""Saving failed. Following are some suggestions:
    1) pass the param max_grouped_size to turn the grouped size smaller (current value of max_grouped_size is {max_size})
    2) if sharding stage is 1, use paddle.save rather than paddle.distributed.save
    3) Concat the developers
""") from None
    return None
