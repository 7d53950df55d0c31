"""oar.incubate (paddle.incubate): APIs that Paddle marks as incubating. Each subpackage is
imported below, one line each; the top-level functions come from one module per concept."""
from . import autograd  # noqa: F401
from . import nn  # noqa: F401
from . import optimizer  # noqa: F401
from . import asp  # noqa: F401  (n:m structured sparsity)
from . import distributed  # noqa: F401
from ..geometric import segment_max, segment_mean, segment_min, segment_sum
from .graph import graph_khop_sampler, graph_reindex, graph_sample_neighbors, graph_send_recv
from .identity_loss import identity_loss
from .optimizer import LookAhead, ModelAverage
from .softmax_mask_fuse import softmax_mask_fuse, softmax_mask_fuse_upper_triangle

__all__ = ["LookAhead", "ModelAverage", "softmax_mask_fuse_upper_triangle", "softmax_mask_fuse",
           "graph_send_recv", "graph_khop_sampler", "graph_sample_neighbors", "graph_reindex",
           "segment_sum", "segment_mean", "segment_max", "segment_min", "identity_loss"]
