"""save / load / load_program_state / set_program_state (paddle.static): a static program's
parameters and optimizer states as Paddle writes them: `<path>.pdparams` and `<path>.pdopt`
(pickled dicts of name -> NumPy array, the files paddle.load reads) beside the program
(`<path>.pdmodel`, oar's own program text, docs/model_format.md)."""
import os
import re
import warnings

import numpy as np

from ..framework.errors import AssertValueError
from .program import Program

_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel", ".json")


def _check_program(api, program):
    if not isinstance(program, Program):
        raise TypeError(f"{api}: program must be an oar.static.Program, but received {type(program).__name__}")


def _check_path(api, model_path):
    if not isinstance(model_path, (str, os.PathLike)):
        raise TypeError(f"{api}: model_path must be a str, but received {type(model_path).__name__}")
    model_path = os.fspath(model_path)
    if os.path.basename(model_path) == "":
        raise AssertValueError(f"{api}: model_path must be dirname/filename, but the filename is empty "
                               f"(model_path={model_path!r})")
    return model_path


def _strip_suffix(path):
    for s in _SUFFIXES:
        if path.endswith(s):
            return path[:-len(s)]
    return path


def _optimizers(program):
    seen = []
    for opt, _ in program._optimize_hooks:
        if all(opt is not o for o in seen):
            seen.append(opt)
    return seen


def _parameters(program):
    """{name: tensor} of the program's weights: those it captured, overridden by the global
    scope's (where load_inference_model and deserialize_persistables put weights)."""
    from .executor import global_scope
    params = dict(program._parameters())
    scope = global_scope()._vars
    for name in program._program.parameter_names():
        if scope.get(name) is not None:
            params[name] = scope[name]
    return params


def _array(t):
    from ..framework import mode
    with mode.eager():
        return np.array(t.numpy(), copy=True)


def _optimizer_state(program):
    state = {}
    for opt in _optimizers(program):
        for k, v in opt.state_dict().items():
            if hasattr(v, "numpy"):
                state[k] = _array(v)
    return state


def save(program, model_path, protocol=4, **configs):
    """Saves program's parameters and optimizer states (paddle.static.save): `<model_path>.pdparams`
    (parameters) and `<model_path>.pdopt` (the optimizer's accumulators, such as Adam's moments),
    each a pickled dict of name -> NumPy array that paddle.load and real Paddle's static.load
    read, and `<model_path>.pdmodel` (the program in oar's own text form). The three are written
    together, crash-safely.

    Args:
        program (Program): The program whose parameters to save.
        model_path (str): dirname/file prefix of the files; a suffix such as '.pdparams' is dropped.
        protocol (int, optional): Pickle protocol, 2 to 4. Default: 4.
        **configs: Accepted for Paddle compatibility.

    Returns:
        None

    Examples:
        >>> import oar, os, tempfile
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     oar.static.save(main, os.path.join(d, 'm'))
        ...     print(sorted(os.listdir(d)))
        ['m.pdmodel', 'm.pdopt', 'm.pdparams']
        >>> oar.disable_static()
    """
    from ..framework.atomic_files import write_files
    from ..framework.io import _check_protocol, _pickle_writer
    from .io import _program_text
    _check_program("static.save", program)
    model_path = _strip_suffix(_check_path("static.save", model_path))
    if not isinstance(protocol, int) or isinstance(protocol, bool):
        raise TypeError(f"static.save: protocol must be an int, but received {type(protocol).__name__}")
    _check_protocol(protocol)
    directory = os.path.dirname(model_path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    params = {n: _array(t) for n, t in _parameters(program).items()}
    opt_state = _optimizer_state(program)
    text = _program_text(program).encode("utf-8")
    with warnings.catch_warnings():  # an empty .pdopt (no optimizer) is expected here
        warnings.simplefilter("ignore")
        write_files([(model_path + ".pdparams", _pickle_writer(params, protocol)),
                     (model_path + ".pdopt", _pickle_writer(opt_state, protocol)),
                     (model_path + ".pdmodel", lambda f: f.write(text))])
    if os.path.exists(model_path + ".json"):  # another format's program file, from an older save
        os.remove(model_path + ".json")


def _read_state(api, path):
    from ..framework.io import load as oar_load
    return oar_load(path, return_numpy=True)


def load_program_state(model_path, var_list=None):
    """The parameters and optimizer states saved by static.save (oar's or real Paddle's), as a
    dict of name -> NumPy array (paddle.static.load_program_state).

    Args:
        model_path (str): The prefix given to static.save (a '.pdparams' suffix is dropped).
        var_list (list, optional): Only for Paddle 1.x directory checkpoints, which oar does not
            read; must be None. Default: None.

    Returns:
        dict: name -> numpy.ndarray, from `<model_path>.pdparams` and, when it exists, `.pdopt`.

    Examples:
        >>> import oar, os, tempfile
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = oar.nn.Linear(2, 3, name='fc')(x)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     oar.static.save(main, os.path.join(d, 'm'))
        ...     state = oar.static.load_program_state(os.path.join(d, 'm'))
        >>> print(len(state))
        2
        >>> oar.disable_static()
    """
    model_path = _strip_suffix(_check_path("load_program_state", model_path))
    if var_list is not None:
        raise NotImplementedError("load_program_state: var_list is only for Paddle 1.x directory "
                                  "checkpoints, which oar does not read; leave it None")
    if not os.path.isfile(model_path + ".pdparams"):
        raise FileNotFoundError(2, f"load_program_state: no parameter file "
                                   f"'{model_path}.pdparams' (written by static.save)", model_path + ".pdparams")
    state = dict(_read_state("load_program_state", model_path + ".pdparams"))
    if os.path.isfile(model_path + ".pdopt"):
        state.update(_read_state("load_program_state", model_path + ".pdopt"))
    return state


def set_program_state(program, state_dict):
    """Sets program's parameters and optimizer states from state_dict (name -> NumPy array, as
    load_program_state returns) (paddle.static.set_program_state). Names the program does not
    have are skipped with a warning.

    Args:
        program (Program): The program.
        state_dict (dict): name -> numpy.ndarray (or Tensor).

    Returns:
        None

    Raises:
        ValueError (also an AssertionError, as Paddle asserts): a shape differs from the program's.

    Examples:
        >>> import oar, numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = oar.nn.Linear(2, 3, bias_attr=oar.ParamAttr(name='fc.b'))(x)
        >>> oar.static.set_program_state(main, {'fc.b': np.zeros([3], 'float32')})
        >>> oar.disable_static()
    """
    from ..framework import mode
    from ..autograd import no_grad
    _check_program("set_program_state", program)
    if not isinstance(state_dict, dict):
        raise TypeError(f"set_program_state: state_dict must be a dict, but received {type(state_dict).__name__}")
    params = _parameters(program)
    used = set()
    with mode.eager(), no_grad():
        for name, t in params.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            arr = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
            if tuple(arr.shape) != tuple(t.shape):
                raise AssertValueError(
                    f"set_program_state: parameter '{name}' has shape {tuple(t.shape)} in the program, "
                    f"but the state dict gives shape {tuple(arr.shape)}")
            t.set_value(arr.astype(t.numpy().dtype, copy=False))
            used.add(name)
        for opt in _optimizers(program):
            # The optimizer's states: the accumulators it has, or names built from a
            # parameter's ("<param>_moment1_0", before the first step made them).
            own = set(opt.state_dict())
            given = {k: v for k, v in state_dict.items()
                     if k not in params and (k in own or k == "LR_Scheduler"
                                             or any(k.startswith(n + "_") for n in params))}
            if given:
                opt.set_state_dict(given)
                used.update(given)
    # Paddle's .pdopt holds the learning rate as a variable; oar's optimizer keeps it itself.
    used.update(k for k in state_dict if re.fullmatch(r"learning_rate_\d+", k))
    unused = sorted(k for k in state_dict if k not in used)
    if unused:
        warnings.warn(f"set_program_state: these names are not parameters or optimizer states of the "
                      f"program and were not set: {unused}")


def load(program, model_path, executor=None, var_list=None):
    """Loads the parameters and optimizer states saved by static.save (oar's or real Paddle's
    `.pdparams`/`.pdopt`) into program's parameters and optimizer (paddle.static.load).

    Args:
        program (Program): The program to load into.
        model_path (str): The prefix given to static.save (a '.pdparams' suffix is dropped).
        executor (Executor, optional): Accepted for Paddle compatibility. Default: None.
        var_list (list, optional): Only for Paddle 1.x checkpoints; must be None. Default: None.

    Returns:
        None

    Examples:
        >>> import oar, os, tempfile
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> with tempfile.TemporaryDirectory() as d:
        ...     oar.static.save(main, os.path.join(d, 'm'))
        ...     oar.static.load(main, os.path.join(d, 'm'))
        >>> oar.disable_static()
    """
    from .executor import Executor
    _check_program("static.load", program)
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(f"static.load: executor must be an oar.static.Executor or None, but received "
                        f"{type(executor).__name__}")
    state = load_program_state(model_path, var_list)
    set_program_state(program, state)
