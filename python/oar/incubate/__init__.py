"""oar.incubate (paddle.incubate): APIs that Paddle marks as incubating. Each subpackage is
imported below, one line each."""
from . import autograd  # noqa: F401
from .operators import (  # noqa: F401
    segment_sum, segment_mean, segment_max, segment_min, graph_send_recv, graph_reindex,
    graph_sample_neighbors, softmax_mask_fuse, softmax_mask_fuse_upper_triangle, identity_loss,
)
