#include "oar/io/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

#include "oar/core/error.h"

namespace oar::io {

namespace {

// zlib's CRC-32 (IEEE, reflected), as Python's zlib.crc32 computes the host tag.
uint32_t crc32(const std::string& s) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char ch : s) c = table[(c ^ ch) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::pair<std::string, std::string> split(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

std::string directory_of(const std::string& path) {
  const std::string dir = split(path).first;
  return dir.empty() ? "." : dir.size() == 1 ? "/" : dir.substr(0, dir.size() - 1);
}

// A new temporary beside path: (name, fd), drawn again in the unlikely case that the name exists.
std::pair<std::string, int> create_temp(const std::string& path) {
  const auto [dir, base] = split(path);
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  for (;;) {
    char rand_hex[9];
    std::snprintf(rand_hex, sizeof(rand_hex), "%08x", static_cast<uint32_t>(rng()));
    const std::string tmp = dir + "." + base + "." + host_tag() + "." + std::to_string(::getpid()) + "." +
                            rand_hex + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // the umask's mode
    if (fd >= 0) return {tmp, fd};
    OAR_ENFORCE(errno == EEXIST, External, "cannot write '", path, "': ", std::strerror(errno));
  }
}

bool is_hex(const std::string& s, size_t begin, size_t n) {
  if (s.size() < begin + n) return false;
  for (size_t i = begin; i < begin + n; ++i)
    if (!std::isxdigit(static_cast<unsigned char>(s[i])) || std::isupper(static_cast<unsigned char>(s[i])))
      return false;
  return true;
}

// The pid in `name` when it is one of base's temporaries written on this host, else -1.
long temp_writer(const std::string& name, const std::string& base, const std::string& host) {
  const std::string head = "." + base + "." + host + ".";
  if (name.compare(0, head.size(), head) != 0 || name.size() < head.size() + 1 + 1 + 8 + 4) return -1;
  if (name.compare(name.size() - 4, 4, ".tmp") != 0) return -1;
  const size_t rand_at = name.size() - 4 - 8;
  if (!is_hex(name, rand_at, 8) || name[rand_at - 1] != '.') return -1;
  const std::string pid = name.substr(head.size(), rand_at - 1 - head.size());
  if (pid.empty() || pid.size() > 10 || pid.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(pid);
}

}  // namespace

// Pids are only comparable between writers on one host.
std::string host_tag() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  char tag[9];
  std::snprintf(tag, sizeof(tag), "%08x", crc32(name));
  return tag;
}

void remove_stale_temps(const std::string& path) {
  const auto [dir, base] = split(path);
  const std::string host = host_tag();
  DIR* d = ::opendir(directory_of(path).c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const long pid = temp_writer(e->d_name, base, host);
    // kill(pid, 0) only asks whether the process exists; EPERM: it does, as another user's.
    if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
      ::unlink((dir + e->d_name).c_str());
  }
  ::closedir(d);
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  auto [tmp, fd] = create_temp(path);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      OAR_THROW(External, "cannot write '", path, "': ", std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (!synced || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    OAR_THROW(External, "cannot write '", path, "': ", std::strerror(err));
  }
  // The rename itself lasts a power loss only once the directory is on disk too.
  const int dfd = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  remove_stale_temps(path);
}

}  // namespace oar::io
