#include "oar/pass/parameter_store.h"

namespace oar::pass {

std::string unique_parameter_name(const ParameterStore& store, const std::string& base) {
  if (!store.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (!store.count(name)) return name;
  }
}

}  // namespace oar::pass
