"""oar.geometric: graph learning ops (paddle.geometric).

Message passing over edge lists (send_u_recv, send_ue_recv, send_uv), segment reductions
(segment_sum/mean/max/min), neighbour sampling on CSC graphs (sample_neighbors,
weighted_sample_neighbors) and reindexing of sampled subgraphs (reindex_graph,
reindex_heter_graph). The numeric work is in C++ (oar/kernels/cpu/graph.cc and
graph_sampling.cc); these functions keep Paddle's names, arguments and checks."""
from .math import segment_max, segment_mean, segment_min, segment_sum
from .message_passing import send_u_recv, send_ue_recv, send_uv
from .reindex import reindex_graph, reindex_heter_graph
from .sampling import sample_neighbors, weighted_sample_neighbors

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean", "segment_min",
           "segment_max", "reindex_graph", "reindex_heter_graph", "sample_neighbors",
           "weighted_sample_neighbors"]
