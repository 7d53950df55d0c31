"""read_file and decode_jpeg (as paddle.vision.ops)."""
import io
import os

import numpy as np

from ._common import _oar, check_tensor


def read_file(filename, name=None):
    """Reads a file's bytes into a 1-D uint8 tensor.

    Args:
        filename (str): Path of the file.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: uint8 [file size].

    Examples:
        >>> import os, tempfile
        >>> import oar
        >>> from oar.vision.ops import read_file
        >>> path = os.path.join(tempfile.mkdtemp(), "a.bin")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(bytes([1, 2, 255]))
        >>> print(read_file(path))
        Tensor(shape=[3], dtype=uint8, place=Place(cpu), stop_gradient=True,
               [1  , 2  , 255])
    """
    oar = _oar()
    if not isinstance(filename, (str, os.PathLike)):
        raise TypeError(f"read_file: filename should be a str, but got {type(filename).__name__}")
    if not os.path.isfile(filename):
        raise RuntimeError(f"read_file: cannot open file {filename!r}: no such file")
    with open(filename, "rb") as f:
        data = f.read()
    return oar.to_tensor(np.frombuffer(data, dtype=np.uint8).copy())


_MODES = {"unchanged": None, "gray": "L", "rgb": "RGB"}


def decode_jpeg(x, mode="unchanged", name=None):
    """Decodes JPEG bytes into a CHW uint8 image tensor (decoded with Pillow).

    Paddle decodes with nvJPEG on GPU only (its CPU build raises); oar decodes on the CPU, with the
    results of Paddle's GPU path: [C, H, W] uint8, C = 1 for grayscale and 3 for colour images.

    Args:
        x (Tensor): 1-D uint8 tensor of the file's bytes (see :func:`read_file`).
        mode (str, optional): 'unchanged' (the file's channels), 'gray' (1 channel) or 'rgb'
            (3 channels). Default: 'unchanged'.
        name (str, optional): Unused. Default: None.

    Returns:
        Tensor: uint8 [C, H, W].

    Examples:
        >>> import io
        >>> import numpy as np
        >>> import oar
        >>> from PIL import Image
        >>> from oar.vision.ops import decode_jpeg
        >>> buf = io.BytesIO()
        >>> Image.fromarray(np.zeros((4, 6, 3), dtype="uint8")).save(buf, format="JPEG")
        >>> data = oar.to_tensor(np.frombuffer(buf.getvalue(), dtype="uint8"))
        >>> print(decode_jpeg(data).shape, decode_jpeg(data, mode="gray").shape)
        [3, 4, 6] [1, 4, 6]
    """
    oar = _oar()
    check_tensor("decode_jpeg", "x", x, ndim=1, dtypes=("uint8",))
    if mode not in _MODES:
        raise ValueError(f"decode_jpeg: mode should be one of {list(_MODES)}, but got {mode!r}")
    from PIL import Image
    try:
        img = Image.open(io.BytesIO(x.numpy().tobytes()))
        img.load()
    except Exception as e:  # Pillow raises several kinds
        raise RuntimeError(f"decode_jpeg: x does not hold a decodable JPEG image ({e})") from None
    target = _MODES[mode]
    if target is None:
        target = "L" if img.mode in ("L", "1", "I", "I;16", "F") else "RGB"
    arr = np.asarray(img.convert(target), dtype=np.uint8)
    if arr.ndim == 2:
        arr = arr[None]
    else:
        arr = arr.transpose(2, 0, 1)
    return oar.to_tensor(np.ascontiguousarray(arr))
