// libFuzzer target: the readers of Paddle's model files on arbitrary bytes: a PIR program (.json,
// parsed and mapped onto oar's ops) when the input starts with '{', a legacy ProgramDesc
// (.pdmodel) when it starts like one, else Paddle's tensor stream (.pdiparams). Contract: they return or throw oar::Error; anything else (a crash, a sanitizer
// report, another exception) is a bug. Built and run by tools/run_fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include "oar/core/error.h"
#include "oar/io/paddle_tensor_file.h"
#include "oar/jit/paddle_import.h"
#include "oar/jit/paddle_program_desc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    namespace pd = oar::jit::paddle;
    if (!bytes.empty() && bytes[0] == '{')
      pd::import_program(pd::parse_pir_json(bytes, "fuzz input"), "fuzz input");
    else if (pd::looks_like_program_desc(bytes))
      pd::import_program(pd::parse_program_desc(bytes, "fuzz input"), "fuzz input");
    else
      oar::io::parse_paddle_tensors(bytes, "fuzz input");
  } catch (const oar::Error&) {
  }
  return 0;
}
