// Random draws on any place. oar's generator is counter-based (Philox: a seed and an offset name
// every number), so a backend that registers the draw kernels (random_uniform, random_normal,
// random_randint, random_bernoulli, random_dropout_mask: see device_ext.h) makes the host's numbers
// on its device, and a seed gives the same numbers on every place. For a backend without the
// kernel (or a dtype it lacks) the host draws and the result is copied over.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/operation.h"

namespace oar::ops {

// Fills `out` (on any place) with the draw: on the host, host_draw(out, inputs); on a device, the
// backend's `kernel` (inputs, attrs plus "seed" and "offset") when registered for out's dtype, else
// host_draw on host copies, then a copy into out. kernel may be null (no device form).
using HostDraw = std::function<void(const Tensor& out, const std::vector<Tensor>& inputs)>;
void draw_into(const char* kernel, const Tensor& out, const std::vector<Tensor>& inputs,
               ir::AttributeMap attrs, uint64_t seed, uint64_t offset, const HostDraw& host_draw);

}  // namespace oar::ops
