"""save_inference_model / load_inference_model (paddle.static): the inference part of a static
program (cloned for test, cut down to what the fetch values need) in the same files as jit.save."""
import os

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
    feed_vars, fetch_vars = _check_vars("save_inference_model", feed_vars, fetch_vars)
    clone = _inference_clone(program, feed_vars, fetch_vars)
    _save_program(path_prefix, clone, _weights_of(clone))


def _check_vars(api, feed_vars, fetch_vars):
    feed_vars, fetch_vars = _as_list(feed_vars), _as_list(fetch_vars)
    for v in feed_vars + fetch_vars:
        if not mode.is_symbolic(v):
            raise TypeError(f"{api}: feed_vars and fetch_vars must be tensors of the program (from "
                            f"static.data and the ops on it), got {type(v).__name__}")
    if not fetch_vars:
        raise ValueError(f"{api}: fetch_vars is empty; give the program outputs to keep")
    return feed_vars, fetch_vars


def _inference_clone(program, feed_vars, fetch_vars):
    """program cloned for test, with one fetch op per fetch var and cut down to what they need
    (and the feed vars): the program save_inference_model writes."""
    clone = program.clone(for_test=True)
    roots = []
    for k, v in enumerate(fetch_vars):
        t = _ir.symbolic_at(clone._tracer, _ir.value_index(v))
        clone._tracer.record("fetch", [[t]], {"name": f"output_{k}"})
        roots.append(_ir.value_index(v))
    roots += [_ir.value_index(v) for v in feed_vars]
    _ir.prune(clone._program, roots)
    return clone


def _weights_of(program):
    """{name: tensor} of the weights program reads: its captured tensors, overridden by the
    global scope's (where load_inference_model and deserialize_persistables put them)."""
    params = program._parameters()
    params.update({k: v for k, v in global_scope()._vars.items() if v is not None})
    missing = [n for n in program._program.parameter_names() if n not in params]
    if missing:
        raise ValueError(f"the program reads parameters that neither it nor the global scope holds: {missing}")
    return params


def _check_program(api, program, arg="program"):
    if not isinstance(program, Program):
        raise TypeError(f"{api}: {arg} must be an oar.static.Program, but received {type(program).__name__}")


def _program_text(program):
    """The program in oar's own model-file form (docs/model_format.md): `oar-program 1`, then
    the IR's text."""
    return _PROGRAM_HEADER + str(program._program)


_PROGRAM_HEADER = "oar-program 1\n"


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """The inference program of `program` (paddle.static.normalize_program): a copy cloned for
    test (dropout, batch_norm in inference mode), with a fetch op for each of fetch_vars and
    pruned to the ops that compute them from feed_vars. `program` itself is not changed.

    Args:
        program (Program): The program to normalize.
        feed_vars (Tensor|list of Tensor): The program's inputs (from oar.static.data).
        fetch_vars (Tensor|list of Tensor): The outputs to keep.
        **kwargs: Accepted for Paddle compatibility (skip_prune_program is not supported).

    Returns:
        Program: the normalized copy; running it with no fetch_list returns fetch_vars' values.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = x * 2.0
        ...     unused = x + 5.0
        >>> p = oar.static.normalize_program(main, [x], [y])
        >>> print(p.num_ops() < main.num_ops() + 1)
        True
        >>> oar.disable_static()
    """
    _check_program("normalize_program", program)
    feed_vars, fetch_vars = _check_vars("normalize_program", feed_vars, fetch_vars)
    if kwargs.get("skip_prune_program"):
        raise NotImplementedError("normalize_program: skip_prune_program=True is not supported; "
                                  "the program is always pruned to the fetch vars")
    return _inference_clone(program, feed_vars, fetch_vars)


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The inference program that computes fetch_vars from feed_vars, as bytes
    (paddle.static.serialize_program): normalize_program's copy in oar's own program format (the
    text of a `.pdmodel` file oar writes, docs/model_format.md). deserialize_program reads it
    back; its parameters are serialized separately by serialize_persistables.

    Args:
        feed_vars (Tensor|list of Tensor): The program's inputs (from oar.static.data).
        fetch_vars (Tensor|list of Tensor): The program's outputs.
        **kwargs: program (Program), the program to serialize: default_main_program() when not
            given. legacy_format is accepted and ignored.

    Returns:
        bytes: the serialized program.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = x * 2.0 + 1.0
        >>> data = oar.static.serialize_program([x], [y], program=main)
        >>> print(type(data).__name__, data.startswith(b'oar-program'))
        bytes True
        >>> oar.disable_static()
    """
    program = kwargs.get("program")
    program = default_main_program() if program is None else program
    _check_program("serialize_program", program)
    feed_vars, fetch_vars = _check_vars("serialize_program", feed_vars, fetch_vars)
    return _program_text(_inference_clone(program, feed_vars, fetch_vars)).encode("utf-8")


def deserialize_program(data):
    """The Program serialized by serialize_program (paddle.static.deserialize_program). Its
    parameters are read by deserialize_persistables; running it with no fetch_list returns the
    outputs it was serialized with.

    Args:
        data (bytes): What serialize_program returned (or a saved oar `.pdmodel` file's bytes).

    Returns:
        Program: the program.

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = x * 2.0 + 1.0
        >>> p = oar.static.deserialize_program(oar.static.serialize_program([x], [y], program=main))
        >>> print(oar.static.Executor().run(p, feed={'x': np.array([[1.0, 2.0]], 'float32')})[0])
        [[3. 5.]]
        >>> oar.disable_static()
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"deserialize_program: data must be bytes, but received {type(data).__name__}")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or not text.startswith(_PROGRAM_HEADER):
        raise ValueError("deserialize_program: data is not a program written by serialize_program "
                         "(it must start with 'oar-program 1'); Paddle's ProgramDesc protobuf is not read here")
    return Program(_ir.Program.parse(text[len(_PROGRAM_HEADER):]))


def _with_model_files(program, params_bytes, fn):
    """fn(model_file, params_file) on temporary files holding program (oar's text form) and, when
    given, params_bytes."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix="oar-serialize-") as d:
        prefix = os.path.join(d, "model")
        if params_bytes is not None:
            with open(prefix + ".pdmodel", "w", encoding="utf-8") as f:
                f.write(_program_text(program))
            with open(prefix + ".pdiparams", "wb") as f:
                f.write(params_bytes)
        return fn(prefix)


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The parameters of the inference program that computes fetch_vars from feed_vars, as bytes
    (paddle.static.serialize_persistables): the `.pdiparams` file save_inference_model writes for
    it (Paddle's tensor stream, the tensors sorted by name, when every op has a Paddle form; else
    safetensors). deserialize_persistables reads it back into a program.

    Args:
        feed_vars (Tensor|list of Tensor): The program's inputs (from oar.static.data).
        fetch_vars (Tensor|list of Tensor): The program's outputs.
        executor (Executor): The executor (for Paddle compatibility).
        **kwargs: program (Program), the program: default_main_program() when not given.

    Returns:
        bytes: the serialized parameters.

    Examples:
        >>> import oar
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> exe = oar.static.Executor()
        >>> data = oar.static.serialize_persistables([x], [y], exe, program=main)
        >>> print(type(data).__name__, len(data) > 0)
        bytes True
        >>> oar.disable_static()
    """
    from .executor import Executor
    program = kwargs.get("program")
    program = default_main_program() if program is None else program
    _check_program("serialize_persistables", program)
    if not isinstance(executor, Executor):
        raise TypeError(f"serialize_persistables: executor must be an oar.static.Executor, but received "
                        f"{type(executor).__name__}")
    feed_vars, fetch_vars = _check_vars("serialize_persistables", feed_vars, fetch_vars)
    clone = _inference_clone(program, feed_vars, fetch_vars)
    params = _weights_of(clone)
    needed = clone._program.parameter_names()

    def write(prefix):
        with mode.eager():
            _ir.save_model(prefix, clone._program, {n: params[n] for n in needed})
        with open(prefix + ".pdiparams", "rb") as f:
            return f.read()
    return _with_model_files(clone, None, write)


def deserialize_persistables(program, data, executor):
    """Reads the parameters serialized by serialize_persistables into the global scope, where
    Executor.run finds them for `program` (paddle.static.deserialize_persistables).

    Args:
        program (Program): The program the parameters belong to (from deserialize_program).
        data (bytes): What serialize_persistables returned.
        executor (Executor): The executor (for Paddle compatibility).

    Returns:
        None

    Examples:
        >>> import oar
        >>> import numpy as np
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data('x', [None, 2], 'float32')
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> exe = oar.static.Executor()
        >>> prog = oar.static.deserialize_program(oar.static.serialize_program([x], [y], program=main))
        >>> params = oar.static.serialize_persistables([x], [y], exe, program=main)
        >>> oar.static.deserialize_persistables(prog, params, exe)
        >>> print(exe.run(prog, feed={'x': np.ones([1, 2], 'float32')})[0].shape)
        (1, 3)
        >>> oar.disable_static()
    """
    from .executor import Executor
    _check_program("deserialize_persistables", program)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"deserialize_persistables: data must be bytes, but received {type(data).__name__}")
    if not isinstance(executor, Executor):
        raise TypeError(f"deserialize_persistables: executor must be an oar.static.Executor, but received "
                        f"{type(executor).__name__}")

    def read(prefix):
        with mode.eager():
            try:
                return _ir.load_model(prefix + ".pdmodel", prefix + ".pdiparams")[1]
            except (RuntimeError, ValueError) as e:
                raise ValueError(f"deserialize_persistables: the data does not hold the parameters of "
                                 f"the program: {e}") from None
    params = _with_model_files(program, bytes(data), read)
    scope = global_scope()
    for name, t in params.items():
        scope._vars[name] = t


def save_to_file(path, content):
    """Writes bytes (from serialize_program or serialize_persistables) to the file path
    (paddle.static.save_to_file), crash-safely: a kill leaves the old file or the new one.

    Args:
        path (str): The file.
        content (bytes): What to write.

    Returns:
        None

    Examples:
        >>> import oar, os, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     oar.static.save_to_file(os.path.join(d, 'f.bin'), b'abc')
        ...     print(oar.static.load_from_file(os.path.join(d, 'f.bin')))
        b'abc'
    """
    from ..framework.atomic_files import write_file
    if not isinstance(content, (bytes, bytearray)):
        raise ValueError(f"save_to_file: 'content' type should be bytes, but received {type(content).__name__}")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"save_to_file: path must be a str, but received {type(path).__name__}")
    write_file(os.fspath(path), lambda f: f.write(content))


def load_from_file(path):
    """The bytes of the file path (paddle.static.load_from_file), as written by save_to_file.

    Args:
        path (str): The file.

    Returns:
        bytes: its content.

    Examples:
        >>> import oar, os, tempfile
        >>> with tempfile.TemporaryDirectory() as d:
        ...     oar.static.save_to_file(os.path.join(d, 'f.bin'), b'abc')
        ...     print(oar.static.load_from_file(os.path.join(d, 'f.bin')))
        b'abc'
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"load_from_file: path must be a str, but received {type(path).__name__}")
    with open(path, "rb") as f:
        return f.read()


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
