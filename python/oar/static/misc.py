"""paddle.static's place lists (cuda_places, xpu_places), name_scope and the static accuracy op."""
import contextlib
import os

from .. import _C

__all__ = ["cuda_places", "xpu_places", "name_scope", "accuracy"]

_scopes = []


def cuda_places(device_ids=None):
    """A CUDAPlace for each GPU id in device_ids (default: FLAGS_selected_gpus when it is set,
    else every GPU), for Paddle's data-parallel static APIs. AssertionError('Not compiled with
    CUDA') where oar has no CUDA backend, as in Paddle's CPU build.

    Args:
        device_ids (list[int], optional): The GPU ids. Default: None.

    Returns:
        list[CUDAPlace]

    Examples:
        >>> import oar
        >>> if oar.device.device_count('gpu') > 0:
        ...     places = oar.static.cuda_places([0])
    """
    from ..device import is_compiled_with_cuda
    from ..framework.place import CUDAPlace
    assert is_compiled_with_cuda(), "Not compiled with CUDA"
    if device_ids is None:
        selected = os.environ.get("FLAGS_selected_gpus")
        device_ids = ([int(s) for s in selected.split(",") if s.strip()] if selected
                      else range(_C._device_count("gpu")))
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    return [CUDAPlace(int(i)) for i in device_ids]


def xpu_places(device_ids=None):
    """XPU places; oar has no XPU backend, so this raises AssertionError('Not compiled with XPU')
    as Paddle's builds without XPU do.

    Args:
        device_ids (list[int], optional): The XPU ids. Default: None.

    Returns:
        list[Place]

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.xpu_places()
        ... except AssertionError as e:
        ...     print(e)
        Not compiled with XPU
    """
    raise AssertionError("Not compiled with XPU")


@contextlib.contextmanager
def name_scope(prefix=None):
    """A context manager that groups the ops recorded inside it under a name prefix (nested
    scopes join with '/'), for reading programs. In oar the scope is kept (name_scope's current
    path is oar.static.misc.current_name_scope()) but does not rename values, which keep their
    own names; in dynamic mode it does nothing, as in Paddle.

    Args:
        prefix (str, optional): The scope's name. Default: None.

    Examples:
        >>> import oar
        >>> with oar.static.name_scope("block"):
        ...     with oar.static.name_scope("fc"):
        ...         print(oar.static.misc.current_name_scope())
        /block/fc/
    """
    _scopes.append("" if prefix is None else str(prefix))
    try:
        yield
    finally:
        _scopes.pop()


def current_name_scope():
    """The current name_scope path, '/a/b/' inside name_scope('a') and name_scope('b')."""
    return "/" + "".join(f"{s}/" for s in _scopes)


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-k accuracy of a batch as ops, so it works in a static program (where the batch size
    may be unknown) and eagerly: the share of rows whose label is among their k highest scores.
    Eagerly, `correct` and `total` (int tensors, optional) receive the number of correct rows and
    of rows.

    Args:
        input (Tensor): Scores [N, C].
        label (Tensor): Classes [N, 1], int64 or int32.
        k (int, optional): How many of the highest scores count. Default: 1.
        correct (Tensor, optional): Receives the number of correct rows. Default: None.
        total (Tensor, optional): Receives the number of rows. Default: None.

    Returns:
        Tensor: A 0-D float32 tensor.

    Examples:
        >>> import oar
        >>> x = oar.to_tensor([[1., 2., 3.], [3., 2., 1.], [0., 5., 1.]])
        >>> label = oar.to_tensor([[2], [2], [1]])
        >>> print(float(oar.static.accuracy(x, label, k=1)))
        0.6666666865348816
    """
    from .. import any as any_, cast, ones_like, sum as sum_, topk
    from ..framework import mode
    _, indices = topk(input, int(k))
    hit = cast(any_(indices == cast(label, "int64"), axis=1), "int32")
    num_correct = sum_(hit)
    num_total = sum_(ones_like(hit))
    acc = cast(num_correct, "float32") / cast(num_total, "float32")
    if not mode.is_symbolic(acc):
        for out, value in ((correct, num_correct), (total, num_total)):
            if out is not None:
                _C._assign_view_inplace(out, cast(value, out.dtype))
    return acc
