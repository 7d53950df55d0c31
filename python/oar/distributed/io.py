"""paddle.distributed.io: a static program's persistable variables (its parameters) saved to and
loaded from a directory, one file per variable named after it (or all in one file), in Paddle's
tensor stream (what Paddle's save_persistables writes: real Paddle reads these files and oar reads
Paddle's), and load_inference_model_distributed.

Static mode only, as Paddle. Loaded values go to the global scope, where oar's Executor finds
them for the program (as load_inference_model puts them)."""
import io as _io
import os
import struct

import numpy as np

from ..framework import mode

# Paddle's VarType codes of the tensor dtypes (framework.proto).
_CODES = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5, "float64": 6, "uint8": 20,
          "int8": 21, "complex64": 23, "complex128": 24}
_DTYPES = {v: k for k, v in _CODES.items()}


def _varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _read_varint(buf, pos):
    shift = n = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    if n >= 1 << 63:
        n -= 1 << 64
    return n, pos


def _tensor_bytes(t):
    """One tensor in Paddle's LoDTensor stream (no LoD)."""
    name = str(t.dtype).rsplit(".", 1)[-1]
    if name not in _CODES:
        raise TypeError(f"save_persistables: variables of dtype {name} are not supported (bool, int8/16/32/64, "
                        "uint8, float16/32/64, complex64/128)")
    desc = b"\x08" + _varint(_CODES[name]) + b"".join(b"\x10" + _varint(d) for d in t.shape)
    data = np.ascontiguousarray(t.numpy()).tobytes()
    return struct.pack("<IQI", 0, 0, 0) + struct.pack("<i", len(desc)) + desc + data


def _read_tensor(f, where):
    """(numpy array, dtype name) of the next tensor in a stream."""
    head = f.read(12)
    if len(head) < 12:
        raise ValueError(f"load_persistables: {where} ends before its tensor")
    version, lod_levels = struct.unpack("<IQ", head)
    if version != 0:
        raise ValueError(f"load_persistables: {where}: unsupported tensor version {version}")
    for _ in range(lod_levels):
        (size,) = struct.unpack("<Q", f.read(8))
        f.read(size)
    (version,) = struct.unpack("<I", f.read(4))
    (size,) = struct.unpack("<i", f.read(4))
    desc = f.read(size)
    pos, code, dims = 0, None, []
    while pos < len(desc):
        key, pos = _read_varint(desc, pos)
        value, pos = _read_varint(desc, pos)
        if key >> 3 == 1:
            code = value
        elif key >> 3 == 2:
            dims.append(value)
    if code not in _DTYPES:
        raise ValueError(f"load_persistables: {where}: data type code {code} is not supported")
    name = _DTYPES[code]
    np_dtype = np.dtype(name)
    count = int(np.prod(dims)) if dims else 1
    raw = f.read(count * np.dtype(np_dtype).itemsize)
    if len(raw) < count * np.dtype(np_dtype).itemsize:
        raise ValueError(f"load_persistables: {where} holds fewer bytes than its shape {dims} needs")
    return np.frombuffer(raw, dtype=np_dtype).reshape(dims).copy(), name


def is_persistable(var):
    """Whether a variable lives beyond one run of its program (parameters and the states that
    optimizers keep), hence is saved by save_persistables.

    Args:
        var (Tensor): A variable of a program (or a parameter).

    Returns:
        bool

    Examples:
        >>> import oar
        >>> import oar.distributed.io as dio
        >>> print(dio.is_persistable(oar.nn.Linear(2, 2).weight), dio.is_persistable(oar.ones([1])))
        True False
    """
    return bool(getattr(var, "persistable", False))


def _program(program):
    from ..static.program import Program, default_main_program
    program = default_main_program() if program is None else program
    if not isinstance(program, Program):
        raise TypeError(f"The type of input main_program is invalid, expected type is oar.static.Program, but "
                        f"received {type(program)}")
    return program


def _persistable_names(program):
    """The names of the program's persistable variables, sorted (the order of a combined file)."""
    names = set(program._program.parameter_names())
    names.update(n for n, t in program._parameters().items() if is_persistable(t))
    return sorted(names)


def _persistables(program):
    """{name: current value} of the program's persistable variables (the global scope's values
    first, as the executor reads them), sorted by name."""
    from ..static.io import _weights_of
    values = _weights_of(program)
    return {n: values[n] for n in _persistable_names(program)}


def save_persistables(executor, dirname, main_program=None, filename=None):
    """Saves the persistable variables of a program (default: the default main program) into
    directory `dirname`: each in a file named after it, or all (sorted by name) in one file
    `filename`. The files are Paddle's tensor stream, written crash-safely and together.
    Static mode only (AssertionError in dynamic mode, as Paddle).

    Args:
        executor (Executor): The executor.
        dirname (str): The directory (created if missing).
        main_program (Program, optional): Default: None (the default main program).
        filename (str, optional): One file for all variables. Default: None.

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> import oar.distributed.io as dio
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data("x", [None, 2], "float32")
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> exe = oar.static.Executor()
        >>> d = tempfile.mkdtemp()
        >>> dio.save_persistables(exe, d, main)
        >>> print(len(os.listdir(d)))
        2
        >>> oar.disable_static()
    """
    assert not mode.in_dynamic_mode(), "We don't support save_persistables in dynamic graph mode"
    from ..framework import atomic_files
    params = _persistables(_program(main_program))
    os.makedirs(dirname, exist_ok=True)
    with mode.eager():
        blobs = {n: _tensor_bytes(t) for n, t in params.items()}
    if filename is not None:
        data = b"".join(blobs.values())
        items = [(os.path.join(dirname, os.path.basename(filename)), lambda f: f.write(data))]
    else:
        items = [(os.path.join(dirname, n), (lambda b: lambda f: f.write(b))(b)) for n, b in blobs.items()]
    atomic_files.write_files(items)


def load_persistables(executor, dirname, main_program=None, filename=None):
    """Loads the persistable variables of a program (default: the default main program) saved by
    save_persistables (oar's or Paddle's): each from the file named after it, or in name order
    from one file `filename`; a value whose shape differs from the variable's is a ValueError.
    The values go to the global scope, where the executor finds them. Static mode only.

    Args:
        executor (Executor): The executor.
        dirname (str): The directory.
        main_program (Program, optional): Default: None (the default main program).
        filename (str, optional): One file holding all variables. Default: None.

    Examples:
        >>> import tempfile
        >>> import numpy as np
        >>> import oar
        >>> import oar.distributed.io as dio
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data("x", [None, 2], "float32")
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> exe = oar.static.Executor()
        >>> d = tempfile.mkdtemp()
        >>> dio.save_persistables(exe, d, main, filename="params")
        >>> dio.load_persistables(exe, d, main, filename="params")
        >>> print(exe.run(main, feed={"x": np.ones([1, 2], "float32")}, fetch_list=[y])[0].shape)
        (1, 3)
        >>> oar.disable_static()
    """
    assert not mode.in_dynamic_mode(), "We don't support load_persistables in dynamic graph mode"
    from .. import to_tensor
    from ..static.executor import global_scope
    program = _program(main_program)
    names = _persistable_names(program)
    known = dict(program._parameters())
    known.update({k: v for k, v in global_scope()._vars.items() if v is not None})
    loaded = {}
    if filename is not None:
        path = os.path.join(dirname, os.path.basename(filename)) if dirname is not None else filename
        with open(path, "rb") as f:
            for n in names:
                loaded[n] = _read_tensor(f, f"{path} (variable {n})")
    else:
        for n in names:
            path = os.path.join(dirname, n)
            if not os.path.isfile(path):
                raise ValueError(f"load_persistables: there is no file for variable '{n}' in {dirname}")
            with open(path, "rb") as f:
                loaded[n] = _read_tensor(f, path)
    scope = global_scope()
    with mode.eager():
        for n, (arr, dtype) in loaded.items():
            want = list(known[n].shape) if n in known else list(arr.shape)
            if list(arr.shape) != want:
                raise ValueError(f"load_persistables: variable '{n}' has shape {want}, the file holds "
                                 f"{list(arr.shape)}")
            scope._vars[n] = to_tensor(arr)


def load_inference_model_distributed(dirname, executor, model_filename=None, params_filename=None,
                                     pserver_endpoints=None):
    """Loads an inference program and its parameters: the program from `model_filename` in
    dirname (default ``__model__``; oar's program file, from oar.static.serialize_program +
    save_to_file), its persistable variables as load_persistables reads them (one file each, or
    `params_filename`). With dirname None, model_filename holds the program's bytes and
    params_filename the parameters' file. Static mode only.

    Args:
        dirname (str|None): The directory.
        executor (Executor): The executor.
        model_filename (str|bytes, optional): Default: None ('__model__').
        params_filename (str, optional): Default: None (one file per variable).
        pserver_endpoints (list, optional): Parameter servers (oar has none). Default: None.

    Returns:
        list: [program, feed target names, fetch targets].

    Examples:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import oar
        >>> import oar.distributed.io as dio
        >>> oar.enable_static()
        >>> main = oar.static.Program()
        >>> with oar.static.program_guard(main):
        ...     x = oar.static.data("x", [None, 2], "float32")
        ...     y = oar.nn.Linear(2, 3)(x)
        >>> exe = oar.static.Executor()
        >>> d = tempfile.mkdtemp()
        >>> oar.static.save_to_file(os.path.join(d, "__model__"), oar.static.serialize_program([x], [y], program=main))
        >>> dio.save_persistables(exe, d, main)
        >>> prog, feeds, fetches = dio.load_inference_model_distributed(d, exe)
        >>> print(feeds, exe.run(prog, feed={"x": np.ones([1, 2], "float32")}, fetch_list=fetches)[0].shape)
        ['x'] (1, 3)
        >>> oar.disable_static()
    """
    assert not mode.in_dynamic_mode(), (
        "In PaddlePaddle 2.x, we turn on dynamic graph mode by default, and 'load_inference_model_distributed()' is "
        "only supported in static graph mode. So if you want to use this api, please call 'paddle.enable_static()' "
        "before this api to enter static graph mode.")
    from ..static import deserialize_program
    from ..static.program import _ir
    if dirname is not None:
        load_dirname = os.path.normpath(dirname)
        if not os.path.isdir(load_dirname):
            raise ValueError(f"There is no directory named '{dirname}'")
        model_path = os.path.join(load_dirname, os.path.basename(model_filename or "__model__"))
        if params_filename is not None:
            params_filename = os.path.basename(params_filename)
        with open(model_path, "rb") as f:
            program_bytes = f.read()
    else:
        if params_filename is None:
            raise ValueError("The path of params cannot be None when the directory path is None.")
        load_dirname = None
        program_bytes = model_filename
    program = deserialize_program(program_bytes)
    load_persistables(executor, load_dirname, program, params_filename)
    ir_program = program._program
    fetch = [_ir.symbolic_at(program._tracer, i) for i in _ir.output_indices(ir_program)]
    return [program, ir_program.input_names(), fetch]
