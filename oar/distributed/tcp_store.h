// TCPStore: the key-value store through which the ranks of a job meet (rendezvous). Rank 0
// serves it at master_addr:port; every rank (rank 0 too) is a client. Gloo ships no TCP store
// (only file, hash and redis ones), and a job across machines needs one: this is it, behind
// gloo's Store interface so that gloo's full-mesh connection uses it directly.
//
// Every call that waits has a deadline (the store's timeout): a rank that never arrives is an
// error naming the key it would have written, never a hang.
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

namespace oar::distributed {

class StoreServer;  // tcp_store.cc: rank 0's listening thread and the key table

class TCPStore : public gloo::rendezvous::Store {
 public:
  // is_master: serve the store here (binds host:port; port 0 picks a free one, see port()).
  TCPStore(const std::string& host, int port, bool is_master, std::chrono::milliseconds timeout);
  ~TCPStore() override;
  TCPStore(const TCPStore&) = delete;
  TCPStore& operator=(const TCPStore&) = delete;

  void set(const std::string& key, const std::vector<char>& value) override;
  // Waits until the key is set (up to the timeout), then returns its value.
  std::vector<char> get(const std::string& key) override;
  // Adds `delta` to the integer at `key` (0 when unset) and returns the new value.
  int64_t add(const std::string& key, int64_t delta);
  bool check(const std::string& key);
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

  int port() const { return port_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::vector<char> request(uint8_t cmd, const std::string& key, const std::vector<char>& value,
                            std::chrono::milliseconds timeout);

  std::unique_ptr<StoreServer> server_;
  std::string host_;
  int port_;
  int fd_ = -1;
  std::chrono::milliseconds timeout_;
};

}  // namespace oar::distributed
