"""The log of the dy2static transformer (paddle.jit.set_code_level / set_verbosity): the code each
converted function becomes, and messages about what is converted. Both go to the Python logger
'Dynamic-to-Static' (at INFO), and to stdout as well when asked. The environment variables
TRANSLATOR_CODE_LEVEL and TRANSLATOR_VERBOSITY set them too, and win over the calls, as in Paddle.
"""
import logging
import os

_LOGGER = logging.getLogger("Dynamic-to-Static")
_state = {"code_level": None, "verbosity": None, "code_stdout": False, "verbosity_stdout": False}
# oar's transformer runs all its passes at once: the code is shown after them, which Paddle's
# levels call "all transformers" (100).
ALL_TRANSFORMERS = 100


def _level(level):
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"Level is not an integer: {level}")
    return level


def _env(name):
    value = os.environ.get(name)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def code_level():
    env = _env("TRANSLATOR_CODE_LEVEL")
    return env if env is not None else (_state["code_level"] if _state["code_level"] is not None else -1)


def verbosity():
    env = _env("TRANSLATOR_VERBOSITY")
    return env if env is not None else (_state["verbosity"] or 0)


def set_code_level(level, also_to_stdout):
    _state["code_level"] = _level(level)
    _state["code_stdout"] = bool(also_to_stdout)


def set_verbosity(level, also_to_stdout):
    _state["verbosity"] = _level(level)
    _state["verbosity_stdout"] = bool(also_to_stdout)


def _emit(text, to_stdout):
    _LOGGER.info(text)
    if to_stdout:
        print(text)


def log_code(qualname, source):
    """Logs a converted function's code when the code level asks for it."""
    level = code_level()
    if level > 0:
        _emit(f"After the level {min(level, ALL_TRANSFORMERS)} ast transformer: 'All Transformers', the "
              f"transformed code of {qualname}:\n{source}", _state["code_stdout"])


def log(level, message):
    """Logs `message` when the verbosity is `level` or more."""
    if verbosity() >= level:
        _emit(message, _state["verbosity_stdout"])
