"""Batch collation, as paddle.io's default_collate_fn and default_convert_fn, plus the two structure
walks the DataLoader needs: oar tensors to NumPy (for a worker's hand-over) and NumPy to oar tensors
(in the main process)."""
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from .. import _C


def _tensor_type():
    from .. import Tensor
    return Tensor


def default_collate_fn(batch):
    """Stacks a list of samples field by field: NumPy arrays and numbers into one NumPy array with a
    new leading axis, oar tensors with oar.stack, dicts key by key, lists/tuples position by position
    (as lists); strings and bytes stay a list."""
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return np.stack(batch, axis=0)
    if isinstance(sample, _tensor_type()):
        from .. import stack
        return stack(batch, axis=0)
    if isinstance(sample, (numbers.Number, np.number, np.bool_)):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return batch
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([s[key] for s in batch]) for key in sample}
    if isinstance(sample, Sequence):
        n = len(sample)
        if not all(len(s) == n for s in batch):
            raise RuntimeError("fields number not same among samples in a batch: got "
                               f"{[len(s) for s in batch]} fields")
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError("batch data con only contains: tensor, numpy.ndarray, dict, list, number, "
                    f"but got {type(sample)}")


def default_convert_fn(batch):
    """The collate_fn when batching is off (batch_size=None): keeps a sample's structure, lists for
    sequences."""
    if isinstance(batch, (np.ndarray, _tensor_type(), str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(x) for x in batch]
    return batch


def tensors_to_numpy(data):
    """The same structure with every oar tensor replaced by a NumPy array (workers hand NumPy over)."""
    if isinstance(data, _tensor_type()):
        return data.numpy()
    if isinstance(data, Mapping):
        return {k: tensors_to_numpy(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [tensors_to_numpy(x) for x in data]
    return data


def numpy_to_tensors(data, place=None):
    """The same structure with every NumPy array (and NumPy scalar) made an oar tensor on `place`
    (a place key; None: the expected place), and tensors elsewhere moved there; tuples become
    lists, as Paddle's DataLoader returns them."""
    if isinstance(data, (np.ndarray, np.number, np.bool_)):
        from .. import to_tensor
        return to_tensor(data, place=place)
    if isinstance(data, _C.Tensor):
        return data if place is None or _C._place_of(data) == place else _C._to_place(data, place)
    if isinstance(data, Mapping):
        return {k: numpy_to_tensors(v, place) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [numpy_to_tensors(x, place) for x in data]
    return data
