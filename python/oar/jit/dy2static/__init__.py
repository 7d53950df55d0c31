"""dy2static: rewrite Python control flow that depends on tensors into IR control flow.

`convert_function(fn)` is what `oar.jit.to_static` calls; see docs/architecture.md ("dy2static").
"""
from .errors import Dy2StaticError  # noqa: F401
from .function_converter import (convert_function, convert_layer_call,  # noqa: F401
                                 converted_source)
from .runtime_call import ignore_module, not_to_static  # noqa: F401
from .undefined import UndefinedVar  # noqa: F401
