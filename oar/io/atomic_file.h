// Crash-safe file writes shared by every file oar saves from C++ (models, safetensors): the bytes
// go to a temporary beside the target, are fsynced, and are renamed over it; the directory is
// fsynced. Temporaries are named as Python's writer names them (python/oar/framework/atomic_files.py):
//   .<target name>.<host tag>.<pid>.<8 random hex>.tmp
// so either language sweeps the ones a killed writer of this host left behind.
#pragma once
#include <string>

namespace oar::io {

// Writes `bytes` to `path` atomically; External naming the file when it cannot be written.
void write_file_atomic(const std::string& path, const std::string& bytes);

// Removes `path`'s temporaries left by writers of this host that no longer run. Best effort.
void remove_stale_temps(const std::string& path);

// The 8 hex digits naming this host in temporaries' names (the CRC-32 of its name, as Python's).
std::string host_tag();

}  // namespace oar::io
