"""oar.jit (paddle.jit): to_static, save and load."""
from .to_static import to_static, not_to_static, ignore_module, enable_to_static, StaticFunction  # noqa: F401
from .save_load import save, load  # noqa: F401
from .translated_layer import TranslatedLayer  # noqa: F401
