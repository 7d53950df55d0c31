"""The image backend switch, as paddle.vision.set_image_backend / get_image_backend / image_load."""
import numpy as np

_BACKENDS = ("pil", "cv2")
_image_backend = "pil"


def _check_backend(fn, backend):
    if backend not in _BACKENDS:
        raise ValueError(f"{fn}: expected backend are one of ['pil', 'cv2'], but got {backend!r}")


def set_image_backend(backend):
    """Chooses how datasets return images: 'pil' (PIL.Image) or 'cv2' (NumPy HWC arrays)."""
    global _image_backend
    _check_backend("set_image_backend", backend)
    _image_backend = backend


def get_image_backend():
    """The image backend datasets use: 'pil' (PIL images) or 'cv2' (NumPy HWC arrays), set
    with set_image_backend.

    Returns:
        str: 'pil' or 'cv2'.

    Examples:
        >>> import oar
        >>> print(oar.vision.get_image_backend())
        pil
    """
    return _image_backend


def image_load(path, backend=None):
    """Reads an image file: a PIL image for 'pil'; for 'cv2' a NumPy array in BGR order, as cv2.imread."""
    if backend is None:
        backend = _image_backend
    _check_backend("image_load", backend)
    from PIL import Image
    img = Image.open(path)
    if backend == "pil":
        return img
    # cv2.imread gives 3-channel BGR uint8; we produce the same without OpenCV.
    return np.ascontiguousarray(np.asarray(img.convert("RGB"))[:, :, ::-1])
