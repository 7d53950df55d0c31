"""oar.jit (paddle.jit): to_static, save and load; dy2static is to_static's source transformer."""
from .to_static import to_static, not_to_static, ignore_module, enable_to_static, StaticFunction  # noqa: F401
from .save_load import save, load  # noqa: F401
from .translated_layer import TranslatedLayer  # noqa: F401
from . import dy2static  # noqa: F401
from .dy2static import Dy2StaticError  # noqa: F401
