"""paddle.static.nn: control flow and layer functions for static programs."""
from .control_flow import cond, while_loop  # noqa: F401
from .common import fc, conv2d, batch_norm, layer_norm, embedding  # noqa: F401
