// Neighbour sampling and reindexing for mini-batch training on large graphs
// (paddle.geometric.sample_neighbors, weighted_sample_neighbors, reindex_graph,
// reindex_heter_graph). The graph is in compressed sparse column form: the neighbours of node v
// are row[colptr[v] .. colptr[v + 1]), their edge ids eids[...] at the same positions.
#pragma once
#include <cstdint>
#include <tuple>
#include <vector>

#include "oar/core/random.h"
#include "oar/core/tensor.h"

namespace oar::kernels {

// For each input node, up to sample_size of its neighbours drawn without replacement (all of them,
// in order, when it has no more or sample_size is -1): uniformly, or with probability
// proportional to edge_weight when that is defined (weighted reservoir sampling). Returns the
// neighbours (row's dtype), the count per input node (int32) and, with return_eids, their edge
// ids (an empty tensor otherwise). Node i draws from its own Philox stream (the generator's
// counter + i), so results do not depend on the thread count.
std::tuple<Tensor, Tensor, Tensor> sample_neighbors(const Tensor& row, const Tensor& colptr,
                                                    const Tensor& edge_weight, const Tensor& input_nodes,
                                                    const Tensor& eids, int64_t sample_size, bool return_eids,
                                                    Generator& gen);

// Relabels sampled edges with compact ids: x's nodes first (in order), then each new node of
// the neighbour lists in order of first appearance. For each edge type t, neighbors[t] lists
// the sampled neighbours of x[0] (counts[t][0] of them), then of x[1], ... Returns
// (reindex_src: the neighbours' new ids, every type in turn; reindex_dst: the new id of the
// node each edge leads to; out_nodes: the original id of every new id), all x's dtype.
std::tuple<Tensor, Tensor, Tensor> reindex_graph(const Tensor& x, const std::vector<Tensor>& neighbors,
                                                 const std::vector<Tensor>& counts);

}  // namespace oar::kernels
