// Running an op on a device: which place an op runs on, and the call of a backend's kernel.
//
// Paddle's rule decides the place: an op with tensor inputs runs where they are (a tensor on a
// device wins over host tensors, which are copied there as Paddle's data transform does; two
// different devices are an error); an op without tensor inputs (full, arange, ...) runs on the
// expected place (oar.set_device). Host places run oar's CPU kernels, called directly by the
// generated op (the fast path, untouched); any other place runs the kernel its backend
// registered for (op, dtype), and an op without one raises NotImplementedError naming the op,
// dtype and device: there is no silent fallback to the CPU.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "oar/core/tensor.h"
#include "oar/ir/operation.h"

namespace oar::ops {

// The place of an op's inputs when one is on a device (checks they agree); CPUPlace otherwise.
Place device_place_of(const char* op, std::initializer_list<const Tensor*> inputs,
                      std::initializer_list<const std::vector<Tensor>*> lists);

// Where an op with these inputs runs (inline: the host case costs one load per input).
inline Place op_place(const char* op, std::initializer_list<const Tensor*> inputs,
                      std::initializer_list<const std::vector<Tensor>*> lists = {}) {
  for (const Tensor* t : inputs)
    if (t->defined() && t->storage() && !t->storage()->place().is_host()) [[unlikely]]
      return device_place_of(op, inputs, lists);
  for (const std::vector<Tensor>* l : lists)
    for (const Tensor& t : *l)
      if (t.defined() && t.storage() && !t.storage()->place().is_host()) [[unlikely]]
        return device_place_of(op, inputs, lists);
  return CPUPlace();
}

// Runs the backend kernel of `op` on `place`: inputs are the op's tensor arguments in spec
// order (host ones are copied to the device first), attrs its other arguments, outputs
// allocated on `place` by the caller.
void launch(const char* op, const Place& place, const std::vector<Tensor>& inputs,
            const ir::AttributeMap& attrs, const std::vector<Tensor>& outputs);

// For ops whose work has no backend kernel interface yet (their kernel makes its own outputs).
[[noreturn]] void unsupported_on_device(const char* op, const Place& place);

// A copy of x on `place` (no autograd; `to_place` in device_ops.h is the differentiable one).
Tensor copy_to_place(const Tensor& x, const Place& place);

}  // namespace oar::ops
