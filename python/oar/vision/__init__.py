"""oar.vision: image transforms and datasets, as paddle.vision."""
from . import transforms, datasets  # noqa: F401
from .image import set_image_backend, get_image_backend, image_load  # noqa: F401
