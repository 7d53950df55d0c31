#include "oar/ir/value.h"

#include <algorithm>

#include "oar/core/error.h"
#include "oar/ir/operation.h"

namespace oar::ir {

void Value::remove_use(Use u) {
  auto it = std::find(uses_.begin(), uses_.end(), u);
  if (it != uses_.end()) uses_.erase(it);
}

void Value::replace_all_uses_with(Value* other) {
  OAR_ENFORCE(other != nullptr, InvalidArgument, "replace_all_uses_with: the new value is null");
  OAR_ENFORCE(other->type() == type_, TypeMismatch, "replace_all_uses_with: type ", other->type().str(),
              " differs from ", type_.str());
  if (other == this) return;
  const std::vector<Use> uses = uses_;  // set_operand edits uses_
  for (const Use& u : uses) u.user->set_operand(u.index, other);
}

}  // namespace oar::ir
