"""paddle.utils.run_check and paddle.utils.require_version.

Version semantics (oar's choice): require_version checks the Paddle API version oar implements,
PADDLE_API_VERSION ("3.3.1"), not oar's own package version (oar.__version__, "0.1.x"). Scripts
call require_version to ask for Paddle features ("2.0" or newer); oar provides the 3.3.1 API, so
that is what such a request is about."""
import re

__all__ = ["run_check", "require_version", "PADDLE_API_VERSION"]

PADDLE_API_VERSION = "3.3.1"
_FORMAT = re.compile(r"\d+(\.\d+){0,3}")


def _parse(version):
    return ([int(p) for p in version.split(".")] + [0] * 4)[:4]


def require_version(min_version, max_version=None):
    """Checks that the Paddle API version oar implements (3.3.1; oar's own package version is
    separate) is in [min_version, max_version]; raises Exception("VersionError: ...") when it is
    not, as Paddle does. Versions are 1 to 4 dot-separated numbers; missing parts count as 0.

    Args:
        min_version (str): The lowest version allowed, e.g. '1.4.0'.
        max_version (str, optional): The highest version allowed. Default: None, no upper bound.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.utils.require_version('2.0', '3.3.1')
        >>> try:
        ...     oar.utils.require_version('99.0')
        ... except Exception as e:
        ...     print(str(e).split(':')[0])
        VersionError
    """
    if not isinstance(min_version, str):
        raise TypeError(f"The type of 'min_version' in require_version must be str, but received "
                        f"{type(min_version)}.")
    if not isinstance(max_version, (str, type(None))):
        raise TypeError(f"The type of 'max_version' in require_version must be str or type(None), but received "
                        f"{type(max_version)}.")
    if _FORMAT.fullmatch(min_version) is None:
        raise ValueError("The value of 'min_version' in require_version must be in format '\\d+(\\.\\d+){0,3}', "
                         f"like '1.5.2.0', but received {min_version}")
    if max_version is not None and _FORMAT.fullmatch(max_version) is None:
        raise ValueError("The value of 'max_version' in require_version must be in format '\\d+(\\.\\d+){0,3}', "
                         f"like '1.5.2.0', but received {max_version}")
    current = _parse(PADDLE_API_VERSION)
    if max_version is not None and not _parse(min_version) <= current <= _parse(max_version):
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, {max_version}] required, but "
                        f"{PADDLE_API_VERSION} installed.")
    if current < _parse(min_version):
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is required, but "
                        f"{PADDLE_API_VERSION} installed, please upgrade your PaddlePaddle to {min_version} or "
                        "other higher version.")


def run_check():
    """Checks that oar works: trains a small linear layer for one step eagerly and through
    oar.jit.to_static on the expected device type (the CPU, or GPU 0 when the expected place is a
    GPU), and prints what it found. An error says which part failed.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.utils.run_check()  # doctest: +ELLIPSIS
        Running verify oar program ...
        oar works well on 1 CPU.
        oar is installed successfully! Let's start deep learning with oar now.
    """
    import numpy as np

    from .. import device as _device
    from .. import jit, nn, optimizer, to_tensor

    print("Running verify oar program ...")
    current = _device.get_device()
    kind = "GPU" if current.startswith("gpu") else "CPU" if current == "cpu" else current.split(":")[0]
    try:
        layer = nn.Linear(2, 1)
        opt = optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
        x = to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], "float32"))
        loss = layer(x).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        static_layer = jit.to_static(layer)
        loss = static_layer(x).mean()
        loss.backward()
        opt.step()
        if not np.isfinite(float(loss)):
            raise RuntimeError("the loss is not finite")
    except Exception as e:
        raise RuntimeError(f"run_check: oar does not work on {current}: {type(e).__name__}: {e}") from e
    print(f"oar works well on 1 {kind}.")
    print("oar is installed successfully! Let's start deep learning with oar now.")
