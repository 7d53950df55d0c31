"""oar.save / oar.load: checkpoints in paddle.save's own file format.

The format (as paddle.save 3.3.1 writes it) is one pickle, protocol 4 by default:
- a state dict (a dict whose values are tensors, or dicts holding no tensor, e.g. an optimizer's
  'LR_Scheduler') is pickled as a plain dict of name -> numpy array, plus the key
  'StructuredToParameterName@@' mapping each tensor's key to its tensor name ('linear_0.w_0');
- anything else is pickled as is, each tensor becoming the tuple (tensor name, numpy array).
bfloat16 is stored as a uint16 array (its bit pattern), which both frameworks read back as bfloat16.
Nothing oar-specific goes into the file, so Paddle and oar read each other's checkpoints.
"""
import collections
import collections.abc
import io as _pyio
import os
import pickle
import threading
import warnings

import numpy as np

from .. import _C
from . import safe_pickle
from .atomic_files import write_file, write_files

Tensor = _C.Tensor

NAME_TABLE_KEY = "StructuredToParameterName@@"
# Paddle splits arrays bigger than 1 GiB into parts under this key when pickling with protocol 2/3
# (whose opcodes cannot hold 4 GiB); the key's spelling is Paddle's.
BIG_PARAM_KEY = "UnpackBigParamInfor@@"
_MAX_PART_BYTES = 2**30 - 1

_SAVE_CONFIGS = ("use_binary_format", "pickle_protocol", "safetensors")
_LOAD_CONFIGS = ("model_filename", "params_filename", "keep_name_table", "return_numpy", "safetensors",
                 "weights_only")


class CheckpointNotFoundError(FileNotFoundError, ValueError):
    """oar.load on a path that does not exist. Paddle raises ValueError there; this is also a
    FileNotFoundError so that both `except ValueError` and `except FileNotFoundError` catch it."""


# ----------------------------------------------------------------------------- what is a tensor


def _layer_class():
    """oar.nn.Layer once it exists (saving a Layer object is refused, as in Paddle)."""
    from .. import nn
    return getattr(nn, "Layer", None)


def _is_layer(obj):
    layer = _layer_class()
    return layer is not None and isinstance(obj, layer)


def _tensor_array(t):
    """A C-ordered copy of t's data (bfloat16 as its uint16 bits, as Paddle stores it)."""
    return np.array(t.numpy(), copy=True, order="C")


def _tensor_name(t):
    return getattr(t, "name", "") or ""


def _contains(obj, cond):
    """Whether cond holds for obj or anything inside obj's plain containers (Paddle's _contain_x)."""
    if cond(obj):
        return True
    if type(obj) in (dict, collections.OrderedDict):
        return any(_contains(v, cond) for v in obj.values())
    if type(obj) in (list, tuple):
        return any(_contains(v, cond) for v in obj)
    return False


def _is_paddle_object(obj):
    return isinstance(obj, Tensor) or _is_layer(obj)


def _is_state_dict(obj):
    """A dict whose values are tensors or dicts holding no tensor/Layer (Paddle's rule)."""
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_contains(v, _is_paddle_object) for v in value.values()):
                return False
        elif not isinstance(value, Tensor):
            return False
    return True


def _check_savable(obj):
    """Refuse what paddle.save refuses before pickling: Layer objects (ValueError) and iterables
    other than str/list/tuple/dict/OrderedDict/set/ndarray/Tensor (NotImplementedError)."""
    if _is_layer(obj):
        raise ValueError("oar.save: saving an `oar.nn.Layer` object is not supported "
                         "(as in paddle); save its state_dict() instead")
    kind = type(obj)
    if kind in (dict, collections.OrderedDict):
        for v in obj.values():
            _check_savable(v)
    elif kind in (list, tuple, set):
        for v in obj:
            _check_savable(v)
    elif isinstance(obj, collections.abc.Iterable) and not isinstance(obj, (str, np.ndarray, Tensor)):
        raise NotImplementedError(
            "oar.save: the iterable objects supported are tuple, list, dict, OrderedDict, set and "
            f"string, but received {kind}")


# ----------------------------------------------------------------------------------- save


class _Pickler(pickle.Pickler):
    """Pickles every oar.Tensor (Parameter included) as Paddle does: tuple((name, array))."""

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return (tuple, ((_tensor_name(obj), _tensor_array(obj)),))
        return NotImplemented


def _state_dict_payload(state_dict, protocol):
    """The dict paddle.save pickles for a state dict: arrays plus the name table."""
    payload, names = {}, {}
    for key, value in state_dict.items():
        if isinstance(value, Tensor):
            payload[key] = _tensor_array(value)
            names[key] = _tensor_name(value)
        else:
            payload[key] = value
    payload[NAME_TABLE_KEY] = names
    if protocol < 4:
        _split_big_arrays(payload)
    return payload


def _split_big_arrays(payload):
    """Protocol 2/3: flatten and cut each array over 1 GiB into parts 'key@@.i' (Paddle's scheme)."""
    info = {}
    for key, value in list(payload.items()):
        if not isinstance(value, np.ndarray):
            continue
        per_part = _MAX_PART_BYTES // value.dtype.itemsize
        if value.size <= per_part:
            continue
        flat = value.reshape(-1)
        parts = [f"{key}@@.{i}" for i in range(-(-value.size // per_part))]
        info[key] = {"OriginShape": value.shape, "slices": parts}
        del payload[key]
        for i, part in enumerate(parts):
            payload[part] = flat[i * per_part:(i + 1) * per_part]
    if info:
        payload[BIG_PARAM_KEY] = info


def _check_protocol(protocol):
    if isinstance(protocol, bool) or not isinstance(protocol, int):
        raise ValueError(f"oar.save: 'protocol' must be an int, but received {type(protocol)}")
    if protocol < 2 or protocol > 4:
        raise ValueError(f"oar.save: expected 1 < 'protocol' < 5, but received protocol={protocol}")


def _target_path(path, fn):
    """str/os.PathLike -> str, or the BytesIO itself. Paddle 3.3.1 takes only str and BytesIO."""
    if isinstance(path, _pyio.BytesIO):
        return path
    if isinstance(path, (str, os.PathLike)):
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        return path
    raise ValueError(f"{fn}: only supports a file path (str or os.PathLike) or a BytesIO, "
                     f"but got {type(path)}")


def _check_configs(configs, allowed, fn):
    for key in configs:
        if key not in allowed:
            raise ValueError(f"{fn}: the additional config ({key}) is not supported; "
                             f"expected one of {', '.join(allowed)}")


def save(obj, path, protocol=4, **configs):
    """Save obj to path (a file path or BytesIO) in paddle.save's format (paddle.save)."""
    _check_configs(configs, _SAVE_CONFIGS, "oar.save")
    target = _target_path(path, "oar.save")
    protocol = _save_protocol(protocol, configs)
    dump = _pickle_writer(obj, protocol)
    if isinstance(target, _pyio.BytesIO):
        dump(target)
        target.flush()
        return
    write_file(_file_path(target), dump)


def save_together(items, protocol=4):
    """oar.save of several (obj, path) that belong together, such as Model.save's .pdparams
    and .pdopt: every file is written before the first replaces its old file (write_files), so
    a kill never leaves a new file beside an old one, except in the instant between the renames."""
    writers = [(_file_path(_target_path(path, "oar.save")), _pickle_writer(obj, protocol))
               for obj, path in items]
    write_files(writers)


def _save_protocol(protocol, configs):
    """The pickle protocol, after refusing the configs oar does not support."""
    use_binary_format = configs.get("use_binary_format", False)
    if not isinstance(use_binary_format, bool):
        raise TypeError("oar.save: 'use_binary_format' must be a bool, but received "
                        f"{type(use_binary_format)}")
    if use_binary_format:
        raise NotImplementedError("oar.save: use_binary_format=True (Paddle's C++ DenseTensor "
                                  "stream) is not supported; save without it")
    if configs.get("safetensors", False):
        raise NotImplementedError("oar.save: safetensors=True is not supported yet")
    if configs.get("pickle_protocol") is not None:
        protocol = configs["pickle_protocol"]
        warnings.warn("'pickle_protocol' is a deprecated argument. Please use 'protocol' instead.")
    _check_protocol(protocol)
    return protocol


def _pickle_writer(obj, protocol):
    """write(f) pickling obj as paddle.save does, after checking now that it can be saved. The
    payload is built while writing, so files saved together are not all held in memory at once."""
    state_dict = _is_state_dict(obj)
    if state_dict:
        if not obj:
            warnings.warn("The input state dict is empty, no need to save.")
    else:
        _check_savable(obj)

    def dump(f):
        payload = _state_dict_payload(obj, protocol) if state_dict else obj
        _Pickler(f, protocol).dump(payload)
    return dump


def _file_path(target):
    """A file path to save to, its directory created (as paddle.save does)."""
    if os.path.basename(target) == "":
        raise ValueError("oar.save: the path must be dirname/filename, but the filename is empty "
                         f"(path={target!r})")
    directory = os.path.dirname(target)
    if directory and not os.path.exists(directory):
        os.makedirs(directory, exist_ok=True)
    return target


# ----------------------------------------------------------------------------------- load


# The array dtypes a tensor can be rebuilt from (uint16 holds bfloat16 bits).
_TENSOR_ARRAY_DTYPES = frozenset(np.dtype(d) for d in (
    "bool", "int8", "uint8", "int16", "int32", "int64", "uint16", "float16", "float32", "float64",
    "complex64", "complex128"))


def _array_to_tensor(arr, name=None):
    """A new tensor copying arr; a uint16 array is bfloat16 bits (Paddle's convention)."""
    if arr.dtype.newbyteorder("=") not in _TENSOR_ARRAY_DTYPES:
        # paddle.to_tensor raises ValueError for these too (uint32, strings, objects, ...)
        raise ValueError(f"oar.load: an array of dtype {arr.dtype} can't become a tensor; "
                         "pass return_numpy=True to get the arrays as they are")
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    t = _C._from_array(np.ascontiguousarray(arr) if arr.ndim else arr, True)
    if name:
        t.name = name
    return t


def _is_named_array(obj):
    """Paddle's pickled tensor: the tuple (name, ndarray)."""
    return type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str) \
        and isinstance(obj[1], np.ndarray)


def _convert(obj, cond, convert):
    """Rebuild obj's plain containers with convert applied where cond holds (Paddle's walk)."""
    if cond(obj):
        return convert(obj)
    kind = type(obj)
    if kind in (dict, collections.OrderedDict):
        for key in list(obj.keys()):
            obj[key] = _convert(obj[key], cond, convert)
        return obj
    if kind is list:
        return [_convert(v, cond, convert) for v in obj]
    if kind is tuple:
        return tuple(_convert(v, cond, convert) for v in obj)
    if kind is set:
        return {_convert(v, cond, convert) for v in obj}
    if isinstance(obj, collections.abc.Iterable) and not isinstance(obj, (str, np.ndarray, Tensor)):
        raise NotImplementedError(
            "oar.load: the iterable objects supported are tuple, list, dict, OrderedDict, set and "
            f"string, but the file holds {kind}")
    return obj


def _to_result(obj, return_numpy):
    """Tensors back from a non-state-dict pickle: (name, array) tuples if there are any (paddle
    >= 2.1), else every bare array (files of paddle 2.0)."""
    if _contains(obj, _is_named_array):
        if return_numpy:
            return _convert(obj, _is_named_array, lambda p: p[1])
        return _convert(obj, _is_named_array, lambda p: _array_to_tensor(p[1], p[0]))
    if return_numpy:
        return obj
    return _convert(obj, lambda a: isinstance(a, np.ndarray), _array_to_tensor)


def _join_big_arrays(obj):
    info = obj.pop(BIG_PARAM_KEY, None)
    if not isinstance(info, dict):
        return
    for key, entry in info.items():
        parts = [obj.pop(p) for p in entry["slices"]]
        obj[key] = np.concatenate(parts).reshape(entry["OriginShape"])


def _unpickle(f, where, weights_only):
    """Unpickle f, admitting only what checkpoints hold unless weights_only is False; every
    failure of a damaged file becomes one ValueError naming it.

    Paddle raises EOFError for some truncations and ValueError("can not parse the file") for
    others; oar always raises ValueError and says which."""
    try:
        if weights_only:
            return safe_pickle.load(f)
        return pickle.Unpickler(f, encoding="latin1").load()
    except safe_pickle.UnsafePickleError as e:  # before `Exception`: not a damaged file
        raise safe_pickle.UnsafePickleError(e.what, (
            f"oar.load: refused {e.what} in {where}: loading it could run code. If you trust the "
            "file, load it with oar.load(path, weights_only=False)")) from None
    except (MemoryError, RecursionError) as e:
        raise ValueError(f"oar.load: can't parse {where}: it is corrupted ({type(e).__name__})") from e
    except EOFError as e:
        raise ValueError(f"oar.load: can't parse {where}: the data ends early "
                         "(the file is empty or truncated)") from e
    except Exception as e:  # noqa: BLE001 - a damaged pickle raises almost any type
        msg = str(e)
        what = "the data ends early (the file is truncated)" if "truncated" in msg \
            else "it is not a checkpoint written by paddle.save/oar.save, or it is corrupted"
        raise ValueError(f"oar.load: can't parse {where}: {what} ({type(e).__name__}: {msg})") from e


def _damaged_array(obj):
    """A numeric array whose unpickled dtype carries flags its type never has (a flipped byte in
    the dtype's pickled state); NumPy would treat its numbers as object references."""
    if not isinstance(obj, np.ndarray) or obj.dtype.kind not in "biufc" or obj.dtype.fields:
        return False
    return obj.dtype.flags != np.dtype(obj.dtype.str).flags


_MAX_NESTING = 200  # checkpoints nest a few levels; the checks below recurse once per level


def _check_structure(obj, where, depth=0, path=None):
    """Refuses a container that contains itself or nests deeper than _MAX_NESTING: the pickle
    format builds both in a few bytes (atheris found a list holding itself), and every later walk
    over the result would recurse until Python's limit."""
    if type(obj) not in (dict, collections.OrderedDict, list, tuple, set):
        return
    if depth > _MAX_NESTING:
        raise ValueError(f"oar.load: can't parse {where}: containers nest more than {_MAX_NESTING} "
                         "levels deep (it is not a checkpoint, or it is corrupted)")
    path = set() if path is None else path
    if id(obj) in path:
        raise ValueError(f"oar.load: can't parse {where}: a {type(obj).__name__} contains itself "
                         "(it is not a checkpoint, or it is corrupted)")
    path.add(id(obj))
    for v in (obj.values() if isinstance(obj, dict) else obj):
        _check_structure(v, where, depth + 1, path)
    path.discard(id(obj))


def _check_arrays(obj, where):
    _check_structure(obj, where)
    if _contains(obj, _damaged_array) or (type(obj) is set and any(map(_damaged_array, obj))):
        raise ValueError(f"oar.load: can't parse {where}: it is corrupted (an array's dtype "
                         "record is damaged)")


def load(path, **configs):
    """Load an object saved by oar.save or paddle.save (paddle.load); tensors come back as
    oar.Tensor, or as numpy arrays with return_numpy=True.

    The file may hold only what checkpoints do (containers, scalars, arrays): anything else (a
    class, a function) could run code and raises pickle.UnpicklingError. weights_only=False
    unpickles everything, as paddle.load does: only for files you trust."""
    _check_configs(configs, _LOAD_CONFIGS, "oar.load")
    weights_only = configs.get("weights_only", True)
    return_numpy = bool(configs.get("return_numpy", False))
    if configs.get("safetensors", False):
        raise NotImplementedError("oar.load: safetensors=True is not supported yet")
    source = _target_path(path, "oar.load")
    if isinstance(source, _pyio.BytesIO):
        start = source.tell()
        try:
            obj = _unpickle(source, "the BytesIO buffer", weights_only)
            _check_arrays(obj, "the BytesIO buffer")
        except ValueError:
            source.seek(start)  # as Paddle's reader, leave the buffer where it was
            raise
    else:
        if not os.path.exists(source):
            # paddle.load: ValueError("The ``path`` (...) to load model not exists.")
            raise CheckpointNotFoundError(2, "oar.load: no file at the path to load", source)
        if os.path.isdir(source):
            # paddle.load reads Paddle 1.x directory formats (save_params, save_inference_model)
            # there; oar reads single files only.
            raise ValueError(f"oar.load: {source!r} is a directory; expected a file written by "
                             "paddle.save/oar.save (Paddle 1.x directory checkpoints are not supported)")
        with open(source, "rb") as f:
            obj = _unpickle(f, f"the file {source!r}", weights_only)
        _check_arrays(obj, f"the file {source!r}")

    if isinstance(obj, dict):
        _join_big_arrays(obj)
        names = obj.get(NAME_TABLE_KEY)
        if isinstance(names, dict):
            for key, name in names.items():
                if not isinstance(name, str):  # a damaged or hand-made file (atheris found one)
                    raise ValueError(f"oar.load: the name table maps {key!r} to {name!r}; expected a "
                                     "str (the structured name of a tensor)")
                if isinstance(obj.get(key), np.ndarray) and not return_numpy:
                    obj[key] = _array_to_tensor(obj[key], name)
            if not configs.get("keep_name_table", False):
                del obj[NAME_TABLE_KEY]
            return obj
    return _to_result(obj, return_numpy)


# ------------------------------------------------------------------------------ async save

_async_tasks = []
_async_lock = threading.Lock()


def _snapshot(obj):
    """obj with every tensor replaced by a detached copy, so that the caller may keep training
    while a background thread writes the file."""
    if isinstance(obj, Tensor):
        copy = _array_to_tensor(_tensor_array(obj), _tensor_name(obj))
        return copy
    if isinstance(obj, dict):
        return {k: _snapshot(v) for k, v in obj.items()}
    if type(obj) in (list, tuple):
        return type(obj)(_snapshot(v) for v in obj)
    return obj


class _AsyncSave(threading.Thread):
    def __init__(self, obj, path, protocol):
        super().__init__(daemon=False)
        self.args_ = (obj, path, protocol)
        self.error = None

    def run(self):
        try:
            save(*self.args_)
        except BaseException as e:  # noqa: BLE001 - reported by clear_async_save_task_queue
            self.error = e


def async_save(obj, path, protocol=4, sync_other_task=False, **configs):
    """paddle.async_save: save a state dict or tensor on a background thread. The data are copied
    first; clear_async_save_task_queue() waits for the writes and raises the first failure."""
    if configs:
        warnings.warn("configs are not supported in async mode, will be overridden by default settings.")
    if not isinstance(obj, (dict, Tensor)):
        raise TypeError(f"oar.async_save: currently does not support this type: {type(obj)}")
    if sync_other_task:
        clear_async_save_task_queue()
    task = _AsyncSave(_snapshot(obj), path, protocol)
    with _async_lock:
        _async_tasks.append(task)
    task.start()


def clear_async_save_task_queue():
    """Wait until every async_save has finished; raise the first error one of them met."""
    error = None
    while True:
        with _async_lock:
            if not _async_tasks:
                break
            task = _async_tasks.pop()
        task.join()
        if task.error is not None and error is None:
            error = task.error
    if error is not None:
        raise error
