#include "oar/core/place.h"

#include <cctype>
#include <mutex>
#include <vector>

#include "oar/core/error.h"

namespace oar {

namespace {
std::mutex g_names_mutex;
std::vector<std::string>& custom_names() {
  static std::vector<std::string> names{""};  // index 0: not a custom type
  return names;
}
// The process-wide expected place, and a per-thread override set by guards and set_device.
Place g_default_place;
thread_local bool t_has_place = false;
thread_local Place t_place;
}  // namespace

uint16_t intern_device_type(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  auto& names = custom_names();
  for (size_t i = 1; i < names.size(); ++i)
    if (names[i] == name) return static_cast<uint16_t>(i);
  OAR_ENFORCE(names.size() < 65535, ResourceExhausted, "too many device types");
  names.push_back(name);
  return static_cast<uint16_t>(names.size() - 1);
}

Place CustomPlace(const std::string& device_type, int id) {
  OAR_ENFORCE_ARG(!device_type.empty() && device_type != "cpu" && device_type != "gpu" &&
                      device_type != "gpu_pinned",
                  "CustomPlace: the device type must name a plug-in device, got '", device_type, "'");
  OAR_ENFORCE_ARG(id >= 0 && id < 32768, "CustomPlace: device id must be in [0, 32767], got ", id);
  return Place{DeviceType::Custom, static_cast<int16_t>(id), intern_device_type(device_type)};
}

std::string Place::device_type() const {
  switch (type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::GPU: return "gpu";
    case DeviceType::GPUPinned: return "gpu_pinned";
    case DeviceType::Custom: break;
  }
  std::lock_guard<std::mutex> lock(g_names_mutex);
  return custom_names()[custom_type];
}

std::string Place::str() const {
  if (is_cpu() || is_gpu_pinned()) return "Place(" + device_type() + ")";
  return "Place(" + device_type() + ":" + std::to_string(device_id) + ")";
}

Place parse_place(const std::string& text, const char* what) {
  std::string name = text;
  int id = 0;
  const size_t colon = text.find(':');
  if (colon != std::string::npos) {
    name = text.substr(0, colon);
    const std::string num = text.substr(colon + 1);
    bool digits = !num.empty() && num.size() <= 5;
    for (char c : num) digits = digits && c >= '0' && c <= '9';
    OAR_ENFORCE_ARG(digits, what, ": the device id in '", text, "' must be a non-negative integer");
    id = std::stoi(num);
  }
  if (name == "cpu") {
    OAR_ENFORCE_ARG(colon == std::string::npos, what, ": 'cpu' takes no device id, got '", text, "'");
    return CPUPlace();
  }
  if (name == "gpu_pinned") return GPUPinnedPlace();
  if (name == "gpu") return GPUPlace(id);
  bool ident = !name.empty();
  for (char c : name) ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  OAR_ENFORCE_ARG(ident, what, ": expected 'cpu', 'gpu', 'gpu:N' or '<custom device>:N', got '",
                  text, "'");
  return CustomPlace(name, id);
}

Place expected_place() { return t_has_place ? t_place : g_default_place; }

void set_default_place(const Place& p) {
  g_default_place = p;
  t_has_place = false;
}

void set_expected_place(const Place& p) {
  t_has_place = true;
  t_place = p;
}

}  // namespace oar
