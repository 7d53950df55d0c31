// Where a tensor lives. CPU now; GPU is declared for the CUDA backend.
#pragma once
#include <string>

namespace oar {

enum class DeviceType : uint8_t { CPU, GPU };

struct Place {
  DeviceType type = DeviceType::CPU;
  int device_id = 0;
  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_gpu() const { return type == DeviceType::GPU; }
  bool operator==(const Place& o) const { return type == o.type && device_id == o.device_id; }
  std::string str() const {  // Paddle prints Place(cpu) / Place(gpu:0)
    return is_cpu() ? "Place(cpu)" : "Place(gpu:" + std::to_string(device_id) + ")";
  }
};

inline Place CPUPlace() { return Place{}; }
inline Place GPUPlace(int id = 0) { return Place{DeviceType::GPU, id}; }

}  // namespace oar
