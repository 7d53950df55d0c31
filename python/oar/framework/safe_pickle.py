"""Unpickling that never runs a file's code: only what checkpoints hold is admitted.

A pickle names globals (os.system, eval, any class) that unpickling imports and calls. Paddle's
formats (paddle.save, oar.save: .pdparams, .pdopt, any object saved with them) name only builtin
containers and scalars, OrderedDict, NumPy arrays, dtypes and scalars, and `eval` in the one form
Paddle writes a DenseTensor with. This loader resolves those and refuses everything else (globals,
persistent ids, extension codes) with UnsafePickleError before anything is called.

It is built on pickle's pure-Python unpickler, whose opcodes can be overridden: the C one takes
extension codes (EXT1/2/4) from copyreg's cache without asking find_class. Checkpoints are mostly
a few big arrays, which both read at the same speed.
"""
import builtins
import codecs
import collections
import copyreg
import importlib
import pickle

import numpy as np


class UnsafePickleError(pickle.UnpicklingError, ValueError):
    """The data name something a checkpoint never holds. `what` says which ("the global
    'os.system'"). Also a ValueError: oar.load reports every unloadable file as one."""

    def __init__(self, what, message=None):
        super().__init__(message or f"refused {what}: loading it could run code")
        self.what = what


def _paddle_dense_tensor(expression, namespace=None, *rest):
    """Paddle pickles a DenseTensor as eval('data', {'data': array}): give the array back,
    evaluate nothing."""
    if expression == "data" and not rest and type(namespace) is dict and list(namespace) == ["data"] \
            and isinstance(namespace["data"], np.ndarray):
        return namespace["data"]
    raise UnsafePickleError("the global 'builtins.eval' (called on anything but Paddle's 'data')")


def _allowed_globals():
    """(module, name) as a file spells it -> the object it stands for."""
    allowed = {("collections", "OrderedDict"): collections.OrderedDict,
               ("_codecs", "encode"): codecs.encode}  # bytes in protocol 2 (codecs re-exports it)
    # Protocol 2 spells the builtins module as Python 2 did ('__builtin__', 'xrange').
    for module in ("builtins", "__builtin__"):
        for name in ("tuple", "list", "dict", "set", "frozenset", "bytes", "bytearray", "complex",
                     "slice", "range"):
            allowed[module, name] = getattr(builtins, name)
        allowed[module, "eval"] = _paddle_dense_tensor
    allowed["__builtin__", "xrange"] = range
    # NumPy 2 moved numpy.core to numpy._core: files name either, both mean the running NumPy's.
    core = "numpy._core" if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else "numpy.core"
    multiarray = importlib.import_module(core + ".multiarray")
    numeric = importlib.import_module(core + ".numeric")
    for module in ("numpy.core", "numpy._core"):
        allowed[module + ".multiarray", "_reconstruct"] = multiarray._reconstruct  # arrays
        allowed[module + ".multiarray", "scalar"] = multiarray.scalar  # np.float32(1) etc.
        allowed[module + ".numeric", "_frombuffer"] = numeric._frombuffer  # arrays, protocol 5
    allowed["numpy", "ndarray"] = np.ndarray
    allowed["numpy", "dtype"] = np.dtype
    return allowed


_ALLOWED = _allowed_globals()


def _check_dtype_state(dtype, state):
    """The state NumPy pickles a numeric dtype with: (3, byte order, None, None, None, -1, -1,
    flags), the flags being those of the dtype's own type (set by the state, others would make
    NumPy take the numbers for object pointers). Structured dtypes (fields) are refused: no
    checkpoint holds them."""
    ok = (type(state) is tuple and len(state) == 8 and state[0] == 3 and state[1] in ("<", ">", "|", "=")
          and state[2] is None and state[3] is None and state[4] is None and state[5] == -1
          and state[6] == -1 and type(state[7]) is int)
    if not ok:
        raise UnsafePickleError(f"a NumPy dtype record of an unexpected form ({repr(state)[:80]}; the file "
                                "is crafted or corrupted)")
    if state[7] != dtype.flags:
        raise UnsafePickleError(f"a NumPy dtype record with flags its type never has ({dtype}, "
                                f"flags {state[7]}; the file is crafted or corrupted)")


def _check_array_state(state):
    """(1, shape, dtype, is_fortran, data): the state NumPy pickles an array with."""
    ok = (type(state) is tuple and len(state) == 5 and state[0] == 1 and type(state[1]) is tuple
          and all(type(d) is int and d >= 0 for d in state[1]) and isinstance(state[2], np.dtype)
          and type(state[3]) is bool and isinstance(state[4], (bytes, bytearray, list)))
    if not ok:
        raise UnsafePickleError(f"a NumPy array record of an unexpected form ({repr(state)[:80]}; the file "
                                "is crafted or corrupted)")


class SafeUnpickler(pickle._Unpickler):
    """pickle.Unpickler admitting only _ALLOWED's globals."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def find_class(self, module, name):
        try:
            return _ALLOWED[module, name]
        except KeyError:
            raise UnsafePickleError(f"the global '{module}.{name}'") from None

    def persistent_load(self, pid):
        raise UnsafePickleError(f"a persistent id ({repr(pid)[:80]})")

    def _load_extension(self, nbytes):
        # Resolve through find_class, never through copyreg's cache of earlier loads.
        code = int.from_bytes(self.read(nbytes), "little")
        key = copyreg._inverted_registry.get(code)
        if key is None:
            raise pickle.UnpicklingError(f"unregistered extension code {code}")
        self.append(self.find_class(*key))

    def __init__(self, file, **kwargs):
        super().__init__(file, **kwargs)
        self._source = file  # what BYTEARRAY8 lengths are checked against outside frames

    def _load_build(self):
        # NumPy's __setstate__ trusts its input: a malformed dtype state (a 6-tuple, an int where
        # the subarray goes, odd flags) crashes or misleads it, so the state is checked first.
        obj, state = self.stack[-2], self.stack[-1]
        if isinstance(obj, np.dtype):
            _check_dtype_state(obj, state)
        elif isinstance(obj, np.ndarray):
            _check_array_state(state)
        pickle._Unpickler.load_build(self)

    def _load_bytearray8(self):
        # pickle allocates the claimed length before reading: a damaged length (terabytes) must
        # be checked against what the frame or the file still holds first.
        size = int.from_bytes(self.read(8), "little")
        frame = self._unframer.current_frame
        if frame is not None:
            left = frame.getbuffer().nbytes - frame.tell()
        elif isinstance(self._source, _BoundedReader):
            left = self._source.left()
        else:
            left = size
        if size > left:
            raise pickle.UnpicklingError(f"pickle data was truncated: a bytearray of {size} bytes, but "
                                         f"only {left} bytes are left")
        b = bytearray(size)
        self.readinto(b)
        self.append(b)

    dispatch[pickle.BYTEARRAY8[0]] = _load_bytearray8
    dispatch[pickle.EXT1[0]] = lambda self: self._load_extension(1)
    dispatch[pickle.EXT2[0]] = lambda self: self._load_extension(2)
    dispatch[pickle.EXT4[0]] = lambda self: self._load_extension(4)
    dispatch[pickle.BUILD[0]] = _load_build


class _BoundedReader:
    """The file as the unpickler reads it, with reads cut to what is left: a damaged length (of a
    frame, of bytes or a string) would otherwise make Python allocate that much (terabytes) before
    finding the data short. The short read makes pickle report the truncation as it always does."""

    def __init__(self, file):
        self._file = file
        start = file.tell()
        self._end = file.seek(0, 2)
        file.seek(start)

    def left(self):
        return max(self._end - self._file.tell(), 0)

    def read(self, n=-1):
        if n is not None and n >= 0:
            n = min(n, self.left())
        return self._file.read(n)

    def readinto(self, buf):
        return self._file.readinto(buf)

    def readline(self):
        return self._file.readline()


def load(file, encoding="latin1"):
    """pickle.load(file) admitting only what checkpoints hold (UnsafePickleError otherwise)."""
    if getattr(file, "seekable", lambda: False)():
        file = _BoundedReader(file)
    return SafeUnpickler(file, encoding=encoding).load()
