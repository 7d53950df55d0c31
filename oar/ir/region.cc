#include "oar/ir/region.h"

namespace oar::ir {

Block* Region::add_block() {
  blocks_.push_back(std::make_unique<Block>(this));
  return blocks_.back().get();
}

}  // namespace oar::ir
