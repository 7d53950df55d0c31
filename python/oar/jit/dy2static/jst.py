"""The namespace converted code reaches as `_oar_jst`: the runtime converters."""
from .runtime_call import convert_call  # noqa: F401
from .runtime_ifelse import convert_ifelse, convert_ifexp, python_condition  # noqa: F401
from .runtime_logical import (convert_logical_and, convert_logical_not,  # noqa: F401
                              convert_logical_or)
from .runtime_loops import convert_for, convert_range, convert_while_loop  # noqa: F401
from .symbolic import convert_shape  # noqa: F401
from .undefined import UndefinedVar, user_locals  # noqa: F401
