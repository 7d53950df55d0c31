// Where a tensor's memory lives: the host (cpu, or page-locked gpu_pinned memory that host code
// reads directly), a GPU, or a plug-in device type ("custom_cpu", ...). A Place is a small value;
// device types are named once in a process-wide table (place.cc), so a Place compares by number.
#pragma once
#include <cstdint>
#include <string>

namespace oar {

enum class DeviceType : uint8_t { CPU, GPU, GPUPinned, Custom };

struct Place {
  DeviceType type = DeviceType::CPU;
  int16_t device_id = 0;
  uint16_t custom_type = 0;  // Custom only: index of the device-type name (intern_device_type)

  bool is_cpu() const { return type == DeviceType::CPU; }
  bool is_gpu() const { return type == DeviceType::GPU; }
  bool is_gpu_pinned() const { return type == DeviceType::GPUPinned; }
  bool is_custom() const { return type == DeviceType::Custom; }
  // Host memory: CPU kernels read and write it directly.
  bool is_host() const { return type == DeviceType::CPU || type == DeviceType::GPUPinned; }
  bool operator==(const Place& o) const {
    return type == o.type && device_id == o.device_id && custom_type == o.custom_type;
  }
  bool operator!=(const Place& o) const { return !(*this == o); }
  // The backend's name: "cpu", "gpu", "gpu_pinned" or the custom type ("custom_cpu").
  std::string device_type() const;
  // Paddle's spelling: Place(cpu), Place(gpu:0), Place(gpu_pinned), Place(custom_cpu:0).
  std::string str() const;
};

inline Place CPUPlace() { return Place{}; }
inline Place GPUPlace(int id = 0) { return Place{DeviceType::GPU, static_cast<int16_t>(id), 0}; }
inline Place GPUPinnedPlace() { return Place{DeviceType::GPUPinned, 0, 0}; }
Place CustomPlace(const std::string& device_type, int id = 0);
// The index of a custom device-type name, added on first use.
uint16_t intern_device_type(const std::string& name);

// Parses "cpu", "gpu", "gpu:1", "gpu_pinned", "custom_cpu:0" (Paddle's set_device strings);
// throws InvalidArgument naming `what` on anything else.
Place parse_place(const std::string& text, const char* what = "place");

// The expected place: where ops without tensor inputs (full, arange, to_tensor, ...) put their
// result. Set by oar.set_device; per thread, starting at the process default (CPU).
Place expected_place();
void set_expected_place(const Place& p);  // this thread only
void set_default_place(const Place& p);   // every thread without its own (oar.set_device)
// Sets the expected place for a scope (composite ops run their body on their inputs' place).
class ExpectedPlaceGuard {
 public:
  explicit ExpectedPlaceGuard(const Place& p) : saved_(expected_place()) { set_expected_place(p); }
  ~ExpectedPlaceGuard() { set_expected_place(saved_); }
  ExpectedPlaceGuard(const ExpectedPlaceGuard&) = delete;
  ExpectedPlaceGuard& operator=(const ExpectedPlaceGuard&) = delete;

 private:
  Place saved_;
};

}  // namespace oar
