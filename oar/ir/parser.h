// Reads the text form (printer.h) back into a program. Syntax errors raise InvalidArgument with
// "line L:C" and what was expected; unknown ops, undefined or twice-defined values and operand
// slots that do not fit the op are reported the same way. The parsed program is not verified:
// call verify() for types and dominance.
#pragma once
#include <memory>
#include <string>

#include "oar/ir/program.h"

namespace oar::ir {

std::unique_ptr<Program> parse(const std::string& text);
// One attribute value in its text form (Attribute::str()).
Attribute parse_attribute(const std::string& text);

}  // namespace oar::ir
