#include "oar/core/storage.h"

#include "oar/core/allocator.h"
#include "oar/device/device_registry.h"

namespace oar {

namespace {
// The host allocator without a registry lookup (the common case); a device place's otherwise.
CachingAllocator& allocator_for(const Place& place) {
  return place.is_cpu() ? CPUAllocator::instance() : device::allocator(place);
}
}  // namespace

Storage::Storage(size_t nbytes, Place place) : nbytes_(nbytes), place_(place) {
  allocator_ = &allocator_for(place);
  data_ = allocator_->allocate(nbytes);
}

Storage::Storage(void* data, size_t nbytes, Place place, std::function<void(void*)> deleter)
    : data_(data), nbytes_(nbytes), place_(place), deleter_(std::move(deleter)) {}

Storage::~Storage() {
  if (deleter_) {
    deleter_(data_);
  } else {
    allocator_->deallocate(data_, nbytes_);  // on the place it came from
  }
}

}  // namespace oar
