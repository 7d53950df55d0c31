#include "oar/core/storage.h"

#include "oar/core/allocator.h"

namespace oar {

Storage::Storage(size_t nbytes, Place place) : nbytes_(nbytes), place_(place) {
  data_ = CPUAllocator::instance().allocate(nbytes);
}

Storage::Storage(void* data, size_t nbytes, Place place, std::function<void(void*)> deleter)
    : data_(data), nbytes_(nbytes), place_(place), deleter_(std::move(deleter)) {}

Storage::~Storage() {
  if (deleter_) {
    deleter_(data_);
  } else {
    CPUAllocator::instance().deallocate(data_, nbytes_);
  }
}

}  // namespace oar
