#include "oar/ir/operation.h"

#include "oar/core/error.h"
#include "oar/ir/block.h"
#include "oar/ir/op_registry.h"
#include "oar/ir/region.h"

namespace oar::ir {

std::unique_ptr<Operation> Operation::create(std::string name, std::vector<Value*> operands,
                                             std::vector<uint32_t> segments, AttributeMap attrs,
                                             const std::vector<TensorType>& result_types) {
  return create(std::move(name), std::move(operands), std::move(segments), std::move(attrs), result_types, {});
}

std::unique_ptr<Operation> Operation::create(std::string name, std::vector<Value*> operands,
                                             std::vector<uint32_t> segments, AttributeMap attrs,
                                             const std::vector<TensorType>& result_types,
                                             std::vector<std::unique_ptr<Region>> regions) {
  if (segments.empty()) segments.assign(operands.size(), 1);
  size_t total = 0;
  for (uint32_t s : segments) total += s;
  OAR_ENFORCE(total == operands.size(), InvalidArgument, "Operation::create(", name, "): segments add up to ",
              total, " operands, got ", operands.size());
  std::unique_ptr<Operation> op(new Operation());
  op->name_ = std::move(name);
  op->def_ = OpRegistry::global().find(op->name_);
  op->segments_ = std::move(segments);
  op->attrs_ = std::move(attrs);
  for (size_t i = 0; i < operands.size(); ++i) {
    OAR_ENFORCE(operands[i] != nullptr, InvalidArgument, "Operation::create(", op->name_, "): operand ", i,
                " is null");
    op->operands_.push_back(operands[i]);
    operands[i]->add_use({op.get(), static_cast<uint32_t>(i)});
  }
  for (size_t i = 0; i < result_types.size(); ++i)
    op->results_.push_back(std::make_unique<Value>(result_types[i], op.get(), nullptr, static_cast<uint32_t>(i)));
  for (auto& r : regions) {
    OAR_ENFORCE(r != nullptr, InvalidArgument, "Operation::create(", op->name_, "): a region is null");
    r->set_parent_op(op.get());
    op->regions_.push_back(std::move(r));
  }
  return op;
}

Operation::~Operation() { drop_all_references(); }

void Operation::set_operand(size_t i, Value* v) {
  OAR_ENFORCE(i < operands_.size(), OutOfRange, name_, ": operand index ", i, " out of range [0, ",
              operands_.size(), ")");
  OAR_ENFORCE(v != nullptr, InvalidArgument, name_, ": operand ", i, " set to null");
  operands_[i]->remove_use({this, static_cast<uint32_t>(i)});
  operands_[i] = v;
  v->add_use({this, static_cast<uint32_t>(i)});
}

std::vector<Value*> Operation::slot(size_t s) const {
  OAR_ENFORCE(s < segments_.size(), OutOfRange, name_, ": operand slot ", s, " out of range [0, ",
              segments_.size(), ")");
  size_t first = 0;
  for (size_t k = 0; k < s; ++k) first += segments_[k];
  return std::vector<Value*>(operands_.begin() + first, operands_.begin() + first + segments_[s]);
}

std::vector<Value*> Operation::results() const {
  std::vector<Value*> out;
  for (auto& r : results_) out.push_back(r.get());
  return out;
}

const Attribute* Operation::attr(const std::string& name) const {
  auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

Operation* Operation::parent_op() const { return parent_ ? parent_->parent_op() : nullptr; }

void Operation::drop_all_references() {
  for (size_t i = 0; i < operands_.size(); ++i) operands_[i]->remove_use({this, static_cast<uint32_t>(i)});
  operands_.clear();
  segments_.clear();
  for (auto& r : regions_)
    for (auto& b : r->blocks())
      for (auto& op : b->ops()) op->drop_all_references();
}

}  // namespace oar::ir
