// oar/distributed from C++: a job of three ranks, one thread each, meeting through a TCPStore
// served by rank 0 and communicating through Gloo process groups. The multi-process behaviour
// (the launcher, faults, every collective and dtype) is tests/python/test_distributed_*.py.
#include <gtest/gtest.h>

#ifdef OAR_WITH_GLOO
#include <thread>

#include "oar/distributed/process_group_gloo.h"
#include "oar/distributed/tcp_store.h"
#include "oar/oar.h"

namespace oar::distributed {
namespace {

using std::chrono::milliseconds;

TEST(Distributed, StoreAndProcessGroupAcrossThreads) {
  constexpr int kRanks = 3;
  TCPStore master("127.0.0.1", 0, /*is_master=*/true, milliseconds(20000));
  const int port = master.port();
  std::vector<std::vector<float>> sums(kRanks), gathered(kRanks);
  std::vector<std::string> errors(kRanks);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kRanks; ++r)
    ranks.emplace_back([&, r] {
      try {
        TCPStore store("127.0.0.1", port, false, milliseconds(20000));
        EXPECT_EQ(store.add("arrived", 1) <= kRanks, true);
        ProcessGroupGloo pg(store, r, kRanks, "test/", "127.0.0.1", milliseconds(20000));
        Tensor x = Tensor::from_vector<float>({float(r), 1.0f}, {2});
        pg.all_reduce(x, ReduceOp::Sum, true);
        sums[r] = x.to_vector<float>();
        std::vector<Tensor> out;
        for (int i = 0; i < kRanks; ++i) out.push_back(Tensor::make({1}, DType::Float32));
        auto task = pg.all_gather(out, Tensor::from_vector<float>({float(10 * r)}, {1}), /*sync=*/false);
        task->wait();
        for (const Tensor& t : out) gathered[r].push_back(t.item<float>());
        pg.barrier(true);
      } catch (const std::exception& e) {
        errors[r] = e.what();
      }
    });
  for (auto& t : ranks) t.join();
  for (int r = 0; r < kRanks; ++r) {
    EXPECT_EQ(errors[r], "");
    EXPECT_EQ(sums[r], (std::vector<float>{0 + 1 + 2, 3}));
    EXPECT_EQ(gathered[r], (std::vector<float>{0, 10, 20}));
  }
}

TEST(Distributed, StoreWaitTimesOutNamingTheKey) {
  TCPStore store("127.0.0.1", 0, true, milliseconds(300));
  store.set("here", {'x'});
  EXPECT_EQ(store.get("here"), std::vector<char>{'x'});
  try {
    store.get("never");
    FAIL() << "get of a key nobody sets must time out";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'never'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace oar::distributed
#endif
