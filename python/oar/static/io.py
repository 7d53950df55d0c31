"""save_inference_model / load_inference_model (paddle.static): the inference part of a static
program (cloned for test, cut down to what the fetch values need) in the same files as jit.save."""
from .. import _C
from ..framework import mode
from .executor import global_scope
from .program import Program, default_main_program

_ir = _C._ir


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, **kwargs):
    """Saves the part of a static program that computes fetch_vars from feed_vars, in inference
    mode, with its parameters, in Paddle 3's format: path_prefix + '.json' (the PIR program) and
    path_prefix + '.pdiparams' (Paddle's tensor stream), which real Paddle loads too. A program
    with an op that has no Paddle form yet is written in oar's own format (path_prefix +
    '.pdmodel'), with a warning. load_inference_model reads either back.

    Args:
        path_prefix (str): Directory and file-name prefix of the files.
        feed_vars (Tensor|list of Tensor): The program's inputs (from oar.static.data).
        fetch_vars (Tensor|list of Tensor): The program's outputs.
        executor (Executor): The executor (for Paddle compatibility).
        **kwargs: program (Program), the program to save; default_main_program() when not given.

    Returns:
        None

    Examples:
        >>> import oar
        >>> import os, tempfile
        >>> oar.enable_static()
        >>> main, startup = oar.static.Program(), oar.static.Program()
        >>> with oar.static.program_guard(main, startup):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = x * 2.0 + 1.0
        >>> exe = oar.static.Executor(oar.CPUPlace())
        >>> with tempfile.TemporaryDirectory() as d:
        ...     oar.static.save_inference_model(os.path.join(d, 'm'), [x], [y], exe, program=main)
        ...     print(sorted(os.listdir(d)))
        ['m.json', 'm.pdiparams']
        >>> oar.disable_static()
    """
    from ..jit.save_load import _prefix, _save_program
    path_prefix = _prefix(path_prefix, "save_inference_model")
    program = kwargs.get("program") or default_main_program()
    feed_vars, fetch_vars = _as_list(feed_vars), _as_list(fetch_vars)
    for v in feed_vars + fetch_vars:
        if not mode.is_symbolic(v):
            raise TypeError("save_inference_model: feed_vars and fetch_vars must be tensors of the program "
                            f"(from static.data and the ops on it), got {type(v).__name__}")
    clone = program.clone(for_test=True)
    roots = []
    for k, v in enumerate(fetch_vars):
        t = _ir.symbolic_at(clone._tracer, _ir.value_index(v))
        clone._tracer.record("fetch", [[t]], {"name": f"output_{k}"})
        roots.append(_ir.value_index(v))
    roots += [_ir.value_index(v) for v in feed_vars]
    _ir.prune(clone._program, roots)
    params = clone._parameters()
    params.update({k: v for k, v in global_scope()._vars.items() if v is not None})
    _save_program(path_prefix, clone, params)


def load_inference_model(path_prefix, executor, **kwargs):
    """Returns [program, feed_target_names, fetch_targets]; the weights go into global_scope().
    Reads oar's files and real Paddle's (`<prefix>.json` + Paddle's `.pdiparams`)."""
    from ..jit.save_load import model_file_of
    with mode.eager():
        ir_program, params, _ = _ir.load_model(model_file_of(path_prefix), path_prefix + ".pdiparams")
    program = Program(ir_program)
    scope = global_scope()
    for name, t in params.items():
        scope._vars[name] = t
    fetch = [_ir.symbolic_at(program._tracer, i) for i in _ir.output_indices(ir_program)]
    return [program, ir_program.input_names(), fetch]
