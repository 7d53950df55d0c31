"""save_for_auto_inference: each rank writes its parameters (keyed by their global names) and a
description of how they are distributed, for auto-parallel inference to merge."""
import copy
import os
import pickle

__all__ = ["save_for_auto_inference"]


def _abs_prefix(path_prefix):
    p = os.path.abspath(path_prefix)
    if p[-1] == os.path.sep:
        save_dir, base = p, "saved_parameters"
    else:
        save_dir, base = os.path.dirname(p), os.path.basename(p)
    os.makedirs(save_dir, exist_ok=True)
    return save_dir, base


def _wrapped_state_dict(state_dict):
    """{global parameter name: tensor}; parameters shared by several layers appear once."""
    out = {}
    for _, v in state_dict.items():
        if getattr(v, "is_firstly_shared", True):
            out[v.name] = v
    return out


def _degrees():
    from .....distributed import collective
    from .....distributed.fleet import fleet
    if collective.get_world_size() <= 1 or fleet._hcg is None:
        return None
    hcg = fleet._hcg
    dp = hcg.get_data_parallel_world_size() * hcg.get_sharding_parallel_world_size()
    return dp, hcg.get_model_parallel_world_size(), hcg.get_pipe_parallel_world_size()


def _param_attrs(state_dict):
    state = copy.copy(state_dict)
    state.pop("master_weights", None)
    state.pop("LR_Scheduler", None)
    degrees = _degrees()
    if degrees is None:
        shape, group = [1], [0]
    else:
        dp, mp, pp = degrees
        world = dp * mp * pp
        shape = [dp, mp]
        group = [i * world // dp + k for i in range(dp) for k in range(mp)]   # pipeline stage 0: oar has no pp
    return {k: {"process_shape": shape, "process_group": group,
                "dims_mapping": list(getattr(v, "dims_mapping", [-1] * len(v.shape)))}
            for k, v in state.items()}


def save_for_auto_inference(path_prefix, dist_model, cvt2cpu=False):
    """Saves this rank's parameters for auto-parallel inference: ``<prefix>_dist<rank>.pdparams``
    (the parameters keyed by their global names, oar.save's format) and
    ``<prefix>_dist<rank>.pdattr`` (a pickle of {name: {"process_shape", "process_group",
    "dims_mapping"}}). As Paddle, the prefix is made absolute first (a trailing path separator is
    dropped: ``"dir/"`` saves ``dir_dist0.*``). Both files are written crash-safely and together.
    Dynamic mode only.

    Args:
        path_prefix (str): Directory and file-name prefix.
        dist_model (Layer): The model (a ZeRO-3 model gathers its parameters first).
        cvt2cpu (bool, optional): Gather ZeRO-3 parameters on the host. Default: False.

    Examples:
        >>> import os, pickle, tempfile
        >>> import oar
        >>> from oar.incubate.distributed.utils.io import save_for_auto_inference
        >>> d = tempfile.mkdtemp()
        >>> net = oar.nn.Linear(2, 3)
        >>> save_for_auto_inference(os.path.join(d, "model"), net)
        >>> print(sorted(os.listdir(d)))
        ['model_dist0.pdattr', 'model_dist0.pdparams']
        >>> attrs = pickle.load(open(os.path.join(d, "model_dist0.pdattr"), "rb"))
        >>> print(attrs[net.weight.name])
        {'process_shape': [1], 'process_group': [0], 'dims_mapping': [-1, -1]}
    """
    from .....distributed import collective
    from .....framework import atomic_files, mode
    from .....framework.io import _pickle_writer
    if not mode.in_dynamic_mode():
        raise RuntimeError("save_for_auto_inference only supports dynamic graph mode (dygraph)")
    save_dir, base = _abs_prefix(path_prefix)
    if hasattr(dist_model, "get_all_parameters"):
        dist_model.get_all_parameters(cvt2cpu)
    wrapped = _wrapped_state_dict(dist_model.state_dict())
    rank = collective.get_rank() if collective.is_initialized() else 0
    attrs = pickle.dumps(_param_attrs(wrapped), protocol=4)
    write_params = _pickle_writer(wrapped, 4)
    atomic_files.write_files([
        (os.path.join(save_dir, f"{base}_dist{rank}.pdparams"), write_params),
        (os.path.join(save_dir, f"{base}_dist{rank}.pdattr"), lambda f: f.write(attrs)),
    ])
