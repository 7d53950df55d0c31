"""paddle.static's IPU (Graphcore) names. oar has no IPU backend, so each answers as Paddle's
builds without IPU do: IpuStrategy raises RuntimeError, IpuCompiledProgram and ipu_shard_guard
raise ValueError, and set_ipu_shard wraps its function (the guard raises when it runs)."""
import contextlib

_NOT_COMPILED = "Can not use this function since PaddlePaddle is not compiled with IPU"


@contextlib.contextmanager
def ipu_shard_guard(index=-1, stage=-1):
    """Places the ops built inside on IPU `index`, pipeline stage `stage`. Without IPU support
    (oar) it raises ValueError when entered, as Paddle's builds without IPU.

    Args:
        index (int, optional): The IPU. Default: -1.
        stage (int, optional): The pipeline stage. Default: -1.

    Examples:
        >>> import oar
        >>> try:
        ...     with oar.static.ipu_shard_guard(index=0):
        ...         pass
        ... except ValueError as e:
        ...     print(e)
        Can not use this function since PaddlePaddle is not compiled with IPU
    """
    from ..device import is_compiled_with_ipu
    if not is_compiled_with_ipu():
        raise ValueError(_NOT_COMPILED)
    yield  # pragma: no cover (no IPU build)


def set_ipu_shard(call_func, index=-1, stage=-1):
    """Runs a function or Layer under ipu_shard_guard(index, stage): returns a wrapper function,
    or the Layer with its call wrapped. Without IPU support calling the result raises the
    guard's ValueError; a call_func that is neither raises TypeError.

    Args:
        call_func (callable|Layer): What to wrap.
        index (int, optional): The IPU. Default: -1.
        stage (int, optional): The pipeline stage. Default: -1.

    Returns:
        The wrapped function, or the Layer.

    Examples:
        >>> import oar
        >>> f = oar.static.set_ipu_shard(lambda x: x + 1, index=0)
        >>> try:
        ...     f(1)
        ... except ValueError as e:
        ...     print(e)
        Can not use this function since PaddlePaddle is not compiled with IPU
    """
    import functools
    from ..nn import Layer
    if not isinstance(call_func, Layer):
        if not callable(call_func):
            raise TypeError("Unsupported type. Only accept paddle.nn.Layer or function.")

        @functools.wraps(call_func)
        def wrapper(*args, **kwargs):
            with ipu_shard_guard(index=index, stage=stage):
                return call_func(*args, **kwargs)
        return wrapper
    base = type(call_func)

    def __call__(self, *args, **kwargs):
        with ipu_shard_guard(index=index, stage=stage):
            return base.__call__(self, *args, **kwargs)
    call_func.__class__ = type(base.__name__, (base,), {"__call__": __call__})
    return call_func


class IpuStrategy:
    """Options of IpuCompiledProgram (paddle.static.IpuStrategy). Without IPU support (oar) it
    raises RuntimeError, as Paddle's builds without IPU.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.IpuStrategy()
        ... except RuntimeError as e:
        ...     print(e)
        Can not use IpuStrategy in non IPU compiled environment, please re-compile with WITH_IPU=ON.
    """

    def __init__(self):
        from ..device import is_compiled_with_ipu
        if not is_compiled_with_ipu():
            raise RuntimeError("Can not use IpuStrategy in non IPU compiled environment, please re-compile "
                               "with WITH_IPU=ON.")


class IpuCompiledProgram:
    """A program compiled for IPUs (paddle.static.IpuCompiledProgram). Without IPU support (oar)
    it raises ValueError, as Paddle's builds without IPU.

    Args:
        program (Program, optional): Default: None (the default main program).
        scope (Scope, optional): Default: None.
        ipu_strategy (IpuStrategy, optional): Default: None.

    Examples:
        >>> import oar
        >>> try:
        ...     oar.static.IpuCompiledProgram()
        ... except ValueError as e:
        ...     print(e)
        Can not use this function since PaddlePaddle is not compiled with IPU
    """

    def __init__(self, program=None, scope=None, ipu_strategy=None):
        from ..device import is_compiled_with_ipu
        if not is_compiled_with_ipu():
            raise ValueError(_NOT_COMPILED)
