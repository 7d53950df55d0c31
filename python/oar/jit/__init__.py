"""oar.jit: to_static and its source transformer (dy2static)."""
from . import dy2static  # noqa: F401
from .dy2static import Dy2StaticError  # noqa: F401
