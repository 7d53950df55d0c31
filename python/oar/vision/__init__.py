"""oar.vision, as paddle.vision."""
from . import models  # noqa: F401
from .models import *  # noqa: F401,F403  (Paddle exports every model at paddle.vision level too)
