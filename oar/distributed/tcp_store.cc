#include "oar/distributed/tcp_store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "oar/core/error.h"

namespace oar::distributed {

namespace {

// The wire: a request is [cmd u8][key length u32][key][value length u64][value][wait ms u32];
// a reply is [status u8][value length u64][value]. Status 1: the wait timed out.
enum Command : uint8_t { kSet = 1, kGet = 2, kAdd = 3, kCheck = 4 };
enum Status : uint8_t { kOk = 0, kTimedOut = 1 };

// Whole reads and writes; false when the peer closed the connection or the socket failed.
bool send_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool recv_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t k = ::recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

template <typename T>
bool send_value(int fd, T v) { return send_all(fd, &v, sizeof v); }
template <typename T>
bool recv_value(int fd, T& v) { return recv_all(fd, &v, sizeof v); }

bool send_bytes(int fd, const std::vector<char>& v) {
  return send_value<uint64_t>(fd, v.size()) && send_all(fd, v.data(), v.size());
}

bool recv_bytes(int fd, std::vector<char>& v, uint64_t limit) {
  uint64_t n = 0;
  if (!recv_value(fd, n) || n > limit) return false;
  v.resize(n);
  return recv_all(fd, v.data(), n);
}

constexpr uint64_t kMaxValue = uint64_t{1} << 32;  // a rendezvous value is an address, not data

}  // namespace

// Rank 0's side: the key table and a thread per client connection.
class StoreServer {
 public:
  StoreServer(const std::string& host, int port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    OAR_ENFORCE(listen_fd_ >= 0, External, "TCPStore: cannot create a socket: ", std::strerror(errno));
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    // Rank 0 listens on every interface: the master address names this machine to the others.
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      const int err = errno;
      ::close(listen_fd_);
      OAR_THROW(InvalidArgument, "TCPStore: cannot serve the store at ", host, ":", port, " (", std::strerror(err),
                err == EADDRINUSE ? "; another job or process holds the port: choose another master port)" : ")");
    }
    OAR_ENFORCE(::listen(listen_fd_, 128) == 0, External, "TCPStore: listen failed: ", std::strerror(errno));
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    accept_thread_ = std::thread([this] { accept_loop(); });
  }

  ~StoreServer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      for (int fd : clients_) ::shutdown(fd, SHUT_RDWR);
    }
    cv_.notify_all();
    ::shutdown(listen_fd_, SHUT_RDWR);
    ::close(listen_fd_);
    accept_thread_.join();
    for (auto& t : client_threads_) t.join();
  }

  int port() const { return port_; }

 private:
  void accept_loop() {
    for (;;) {
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        if (fd >= 0) ::close(fd);
        return;
      }
      if (fd < 0) continue;
      clients_.push_back(fd);
      client_threads_.emplace_back([this, fd] { serve(fd); });
    }
  }

  void serve(int fd) {
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (;;) {
      uint8_t cmd = 0;
      uint32_t key_len = 0, wait_ms = 0;
      std::string key;
      std::vector<char> value;
      if (!recv_value(fd, cmd) || !recv_value(fd, key_len) || key_len > (1u << 20)) break;
      key.resize(key_len);
      if (!recv_all(fd, key.data(), key_len) || !recv_bytes(fd, value, kMaxValue) || !recv_value(fd, wait_ms)) break;
      std::vector<char> reply;
      Status status = kOk;
      {
        std::unique_lock<std::mutex> lock(mu_);
        switch (cmd) {
          case kSet:
            table_[key] = std::move(value);
            cv_.notify_all();
            break;
          case kGet: {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
            const bool found = cv_.wait_until(lock, deadline, [&] { return stopping_ || table_.count(key); });
            if (found && table_.count(key)) reply = table_[key];
            else status = kTimedOut;
            break;
          }
          case kAdd: {
            int64_t delta = 0, now = 0;
            if (value.size() == sizeof delta) std::memcpy(&delta, value.data(), sizeof delta);
            auto it = table_.find(key);
            if (it != table_.end() && it->second.size() == sizeof now) std::memcpy(&now, it->second.data(), sizeof now);
            now += delta;
            reply.assign(reinterpret_cast<char*>(&now), reinterpret_cast<char*>(&now) + sizeof now);
            table_[key] = reply;
            cv_.notify_all();
            break;
          }
          case kCheck:
            reply.assign(1, table_.count(key) ? 1 : 0);
            break;
          default:
            status = kTimedOut;
        }
      }
      if (!send_value(fd, static_cast<uint8_t>(status)) || !send_bytes(fd, reply)) break;
    }
    ::close(fd);
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::map<std::string, std::vector<char>> table_;
  std::vector<int> clients_;
  std::vector<std::thread> client_threads_;
  std::thread accept_thread_;
};

namespace {

// Connects to host:port, retrying until the deadline (rank 0 may start after the others).
int connect_until(const std::string& host, int port, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  OAR_ENFORCE(rc == 0 && found, InvalidArgument, "TCPStore: cannot resolve the master address '", host, "': ",
              ::gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> keep(found, &::freeaddrinfo);
  for (;;) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    OAR_ENFORCE(fd >= 0, External, "TCPStore: cannot create a socket: ", std::strerror(errno));
    if (::connect(fd, found->ai_addr, found->ai_addrlen) == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    const int err = errno;
    ::close(fd);
    OAR_ENFORCE(std::chrono::steady_clock::now() < deadline, External, "TCPStore: no store answers at ", host,
                ":", port, " after ", timeout.count() / 1000.0, " s (", std::strerror(err),
                "); is rank 0 running, and is the master address reachable from here?");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

TCPStore::TCPStore(const std::string& host, int port, bool is_master, std::chrono::milliseconds timeout)
    : host_(host), port_(port), timeout_(timeout) {
  OAR_ENFORCE(port >= 0 && port < 65536, InvalidArgument, "TCPStore: port must be in [0, 65535], got ", port);
  OAR_ENFORCE(timeout.count() > 0, InvalidArgument, "TCPStore: the timeout must be positive");
  if (is_master) {
    server_ = std::make_unique<StoreServer>(host, port);
    port_ = server_->port();
  }
  fd_ = connect_until(is_master ? std::string("127.0.0.1") : host, port_, timeout);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
  server_.reset();
}

std::vector<char> TCPStore::request(uint8_t cmd, const std::string& key, const std::vector<char>& value,
                                    std::chrono::milliseconds timeout) {
  const auto wait_ms = static_cast<uint32_t>(std::min<int64_t>(timeout.count(), UINT32_MAX));
  uint8_t status = 0;
  std::vector<char> reply;
  const bool ok = send_value(fd_, cmd) && send_value<uint32_t>(fd_, static_cast<uint32_t>(key.size())) &&
                  send_all(fd_, key.data(), key.size()) && send_bytes(fd_, value) && send_value(fd_, wait_ms) &&
                  recv_value(fd_, status) && recv_bytes(fd_, reply, kMaxValue);
  OAR_ENFORCE(ok, External, "TCPStore: lost the connection to the store at ", host_, ":", port_,
              " (rank 0, which serves it, has exited or failed)");
  OAR_ENFORCE(status == kOk, External, "TCPStore: waited ", timeout.count() / 1000.0, " s for key '", key,
              "', which no rank has set: a rank has not arrived (or has failed); see the other ranks' logs");
  return reply;
}

void TCPStore::set(const std::string& key, const std::vector<char>& value) { request(kSet, key, value, timeout_); }

std::vector<char> TCPStore::get(const std::string& key) { return request(kGet, key, {}, timeout_); }

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  std::vector<char> v(reinterpret_cast<char*>(&delta), reinterpret_cast<char*>(&delta) + sizeof delta);
  const std::vector<char> r = request(kAdd, key, v, timeout_);
  int64_t now = 0;
  std::memcpy(&now, r.data(), sizeof now);
  return now;
}

bool TCPStore::check(const std::string& key) { return request(kCheck, key, {}, timeout_).at(0) != 0; }

void TCPStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& k : keys) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    request(kGet, k, {}, std::max(left, std::chrono::milliseconds(1)));
  }
}

}  // namespace oar::distributed
