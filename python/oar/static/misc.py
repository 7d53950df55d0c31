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


from ..framework.param_attr import ParamAttr as _ParamAttr  # noqa: E402


class WeightNormParamAttr(_ParamAttr):
    """A ParamAttr asking for weight normalization, w = g * v / ||v|| with the norm over every
    dim but `dim` (paddle.static.WeightNormParamAttr). As in Paddle 3's default (PIR) static
    mode, static layers refuse it (TypeError); it keeps its fields for code that reads them.

    Args:
        dim (int, optional): The dim kept by the norm; None: the norm over all dims. Default: None.
        name (str, optional): The parameter name. Default: None.
        initializer (Initializer, optional): Default: None.
        learning_rate (float, optional): Default: 1.0.
        regularizer (WeightDecayRegularizer, optional): Default: None.
        trainable (bool, optional): Default: True.
        do_model_average (bool, optional): Default: False.
        need_clip (bool, optional): Default: True.

    Examples:
        >>> import oar
        >>> attr = oar.static.WeightNormParamAttr(dim=0, name='w')
        >>> print(attr.dim, attr.name, isinstance(attr, oar.ParamAttr))
        0 w True
    """

    params_with_weight_norm = []

    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=False, need_clip=True):
        if dim is not None and (not isinstance(dim, int) or isinstance(dim, bool)):
            raise TypeError(f"WeightNormParamAttr: 'dim' must be an int or None, but got {type(dim).__name__}")
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable, do_model_average=do_model_average,
                         need_clip=need_clip)
        self.dim = dim


_device = [None]


@contextlib.contextmanager
def device_guard(device=None):
    """Names the device the ops recorded inside should run on (paddle.static.device_guard):
    'cpu', 'gpu', 'gpu:<id>', 'xpu', 'dcu', a custom device type, '' or None. The argument is
    checked as Paddle checks it (ValueError for 'cpu:<id>' or an unknown device) and is read by
    current_device() inside the block. oar's programs carry no place: every op of a program runs
    on the Executor's place, which on a machine with one device (as a CPU build of Paddle) is
    where Paddle runs them too.

    Args:
        device (str, optional): The device. Default: None.

    Examples:
        >>> import oar
        >>> with oar.static.device_guard('cpu'):
        ...     print(oar.static.misc.current_device())
        cpu
        >>> try:
        ...     with oar.static.device_guard('cpu:0'):
        ...         pass
        ... except ValueError as e:
        ...     print(e)
        Should not set device id for cpu.
    """
    from ..device import get_all_custom_device_type
    index = None
    if device and ":" in device:
        device, index = device.split(":", 1)
        if device == "cpu":
            raise ValueError("Should not set device id for cpu.")
    if device not in ("cpu", "gpu", "dcu", "xpu", "", None) and device not in get_all_custom_device_type():
        raise ValueError("The Attr(device) should be 'cpu', 'xpu', 'dcu', 'gpu' or custom device, and it can also "
                         f"be empty string or None when there is no need to specify device. But received {device}")
    if index:
        device = f"{device}:{index}"
    _device.append(device)
    try:
        yield
    finally:
        _device.pop()


def current_device():
    """The device of the innermost device_guard ('' or None outside one)."""
    return _device[-1]


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A tensor of `shape` filled with `value` that programs read as a named, persistable value
    (paddle.static.create_global_var): in static mode the program captures it (it is in every
    run and keeps its value between runs), eagerly it is a plain tensor. stop_gradient is True.

    Args:
        shape (list|tuple): Its shape (non-negative ints).
        value (float): The fill value.
        dtype (str|dtype): Its dtype.
        persistable (bool, optional): Marks it persistable (saved with the program). Default: False.
        force_cpu (bool, optional): Unused (oar's programs carry no place). Default: False.
        name (str, optional): Its name; None generates 'global_var_<n>'. Default: None.

    Returns:
        Tensor: the variable.

    Examples:
        >>> import oar
        >>> v = oar.static.create_global_var([2, 3], 1.5, 'float32', persistable=True, name='gv')
        >>> print(v.name, v.shape, v.persistable, v.stop_gradient)
        gv [2, 3] True True
    """
    from .. import full
    from ..framework import mode
    from ..framework.dtype import convert_dtype
    from ..utils import unique_name
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"create_global_var: shape must be a list or tuple, but received {type(shape).__name__}")
    for d in shape:
        if not isinstance(d, int) or d < 0:
            raise ValueError(f"create_global_var: each dim of shape must be a non-negative int, got {list(shape)}")
    if not isinstance(value, (int, float)):
        raise TypeError(f"create_global_var: value must be a float, but received {type(value).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"create_global_var: name must be a str, but received {type(name).__name__}")
    with mode.eager():
        t = full(list(shape), value, convert_dtype(dtype))
    t.name = name or unique_name.generate("global_var")
    t.persistable = bool(persistable)
    t.stop_gradient = True
    return t
