// Shared by the GoogleTest files: the message of the oar::Error that fn() throws, or
// "(no error)" when it throws none (so that a find() on it fails visibly).
#pragma once
#include <string>

#include "oar/core/error.h"

template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const oar::Error& e) {
    return e.what();
  }
  return "(no error)";
}
