"""oar.vision: image transforms, datasets and models, as paddle.vision."""
from . import transforms, datasets, ops  # noqa: F401
from .image import set_image_backend, get_image_backend, image_load  # noqa: F401
from . import models  # noqa: F401
from .models import *  # noqa: F401,F403  (Paddle exports every model at paddle.vision level too)
