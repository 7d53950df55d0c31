"""paddle.static.nn: control flow and layer functions for static programs."""
from .control_flow import cond, while_loop, case, switch_case  # noqa: F401
from .common import (  # noqa: F401
    fc, conv2d, batch_norm, layer_norm, embedding, conv2d_transpose, conv3d, conv3d_transpose, group_norm,
    instance_norm, prelu, bilinear_tensor_product, row_conv, spectral_norm, sparse_embedding, deform_conv2d)
from .loss import nce  # noqa: F401
from .sequence_lod import (  # noqa: F401
    sequence_conv, sequence_softmax, sequence_pool, sequence_first_step, sequence_last_step, sequence_expand)
from ..python_ops import py_func, static_pylayer  # noqa: F401,E402
