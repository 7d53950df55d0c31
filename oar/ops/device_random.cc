#include "oar/ops/device_random.h"

#include "oar/device/device_registry.h"
#include "oar/ops/device_dispatch.h"

namespace oar::ops {

void draw_into(const char* kernel, const Tensor& out, const std::vector<Tensor>& inputs,
               ir::AttributeMap attrs, uint64_t seed, uint64_t offset, const HostDraw& host_draw) {
  const Place place = out.place();
  if (place.is_host()) [[likely]] {
    host_draw(out, inputs);
    return;
  }
  if (kernel != nullptr &&
      device::find_kernel(device::backend_of(place, kernel), kernel, out.dtype()) != nullptr) {
    // The ABI's INT attributes are int64: the uint64 seed and offset travel as their bits.
    attrs["seed"] = ir::to_attribute(static_cast<int64_t>(seed));
    attrs["offset"] = ir::to_attribute(static_cast<int64_t>(offset));
    launch(kernel, place, inputs, attrs, {out});
    return;
  }
  std::vector<Tensor> host_inputs;
  host_inputs.reserve(inputs.size());
  for (const Tensor& t : inputs) host_inputs.push_back(copy_to_place(t, CPUPlace()));
  const Tensor host_out = Tensor::make(out.shape(), out.dtype());
  host_draw(host_out, host_inputs);
  Tensor o = out;  // a handle to out's storage
  o.copy_(host_out);  // the launch moves host_out to the device first
}

}  // namespace oar::ops
