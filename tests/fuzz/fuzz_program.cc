// libFuzzer target: the program text reader (model files, .pdmodel) and the verifier on arbitrary
// text. Contract: a parsed program verifies or either step throws oar::Error; anything else is a
// bug. Built and run by tools/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "oar/core/error.h"
#include "oar/ir/parser.h"
#include "oar/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto program = oar::ir::parse(text);
    oar::ir::verify(*program);
  } catch (const oar::Error&) {
  }
  return 0;
}
