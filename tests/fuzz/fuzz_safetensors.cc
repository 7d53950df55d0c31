// libFuzzer target: the safetensors reader (model parameter files, .pdiparams) on arbitrary bytes.
// Contract: it returns tensors or throws oar::Error; anything else (a crash, a sanitizer report,
// another exception) is a bug. Built and run by tools/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "oar/core/error.h"
#include "oar/io/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    oar::io::Metadata metadata;
    oar::io::parse_safetensors(bytes, "fuzz input", &metadata);
  } catch (const oar::Error&) {
  }
  return 0;
}
