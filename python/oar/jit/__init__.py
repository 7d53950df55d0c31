"""oar.jit (paddle.jit): to_static, save and load; dy2static is to_static's source transformer."""
from .to_static import to_static, not_to_static, ignore_module, enable_to_static, StaticFunction  # noqa: F401
from .save_load import save, load  # noqa: F401
from .translated_layer import TranslatedLayer  # noqa: F401
from . import dy2static  # noqa: F401
from .dy2static import Dy2StaticError  # noqa: F401
from .dy2static import logging_utils as _logging_utils


def set_code_level(level=100, also_to_stdout=False):
    """Shows the code that to_static turns each converted function into: with a level above 0,
    the converted code goes to the 'Dynamic-to-Static' logger (and to stdout with
    also_to_stdout). oar runs all its transformer passes at once, so any positive level shows the
    code after all of them (Paddle's level 100); 0 or less shows nothing. The environment variable
    TRANSLATOR_CODE_LEVEL wins over this call.

    Args:
        level (int, optional): The level. Default: 100.
        also_to_stdout (bool, optional): Print the code too. Default: False.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.jit.set_code_level(100, also_to_stdout=True)
        >>> @oar.jit.to_static
        ... def f(x):
        ...     return x + 1
        >>> y = f(oar.ones([1]))  # doctest: +ELLIPSIS
        After the level 100 ast transformer: 'All Transformers', the transformed code of f:
        ...
        >>> oar.jit.set_code_level(0)
    """
    _logging_utils.set_code_level(level, also_to_stdout)


def set_verbosity(level=0, also_to_stdout=False):
    """Sets how much to_static logs about what it converts (0: nothing; 1 or more: each function
    it converts), to the 'Dynamic-to-Static' logger and to stdout with also_to_stdout. The
    environment variable TRANSLATOR_VERBOSITY wins over this call.

    Args:
        level (int, optional): The verbosity. Default: 0.
        also_to_stdout (bool, optional): Print the messages too. Default: False.

    Returns:
        None

    Examples:
        >>> import oar
        >>> oar.jit.set_verbosity(1, also_to_stdout=True)
        >>> @oar.jit.to_static
        ... def g(x):
        ...     return x * 2
        >>> y = g(oar.ones([1]))
        Convert callable object: convert g.
        >>> oar.jit.set_verbosity(0)
    """
    _logging_utils.set_verbosity(level, also_to_stdout)
