// PassManager: runs passes in order, with instrumentation:
//   - timing: the wall time of every pass run is collected; timing_report() prints a table.
//   - IR dump: with env OAR_IR_DUMP=1 the program is printed (oar/ir/printer.h) to stderr
//     before and after every pass; OAR_IR_DUMP=dce,cse dumps around the named passes only.
//     set_dump() does the same from code (and set_dump_stream() redirects it, for tests).
//   - verification: after every pass the verifier runs when asked (set_verify(true)), when env
//     OAR_IR_VERIFY=1, or always in builds without NDEBUG; a broken program raises the
//     verifier's error prefixed with the pass that broke it.
#pragma once
#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "oar/pass/pass.h"

namespace oar::pass {

struct PassTiming {
  std::string pass;
  double seconds;
  bool changed;
};

class PassManager {
 public:
  PassManager();

  PassManager& add(std::unique_ptr<Pass> pass);
  template <typename P, typename... Args>
  PassManager& add(Args&&... args) {
    return add(std::make_unique<P>(std::forward<Args>(args)...));
  }
  size_t size() const { return passes_.size(); }

  // Runs every pass once, in order. Returns true when any pass changed the program.
  // `outputs` (optional): the values the caller will fetch; they are kept alive and updated
  // when a pass replaces them (program_outputs.h).
  bool run(ir::Program& program, std::vector<ir::Value*>* outputs = nullptr);
  // Runs the whole list again until no pass changes anything (at most `max_rounds` rounds).
  bool run_to_fixpoint(ir::Program& program, std::vector<ir::Value*>* outputs = nullptr, int max_rounds = 8);

  void set_verify(bool on) { verify_ = on; }
  bool verify_enabled() const { return verify_; }
  // Dump around every pass (`all`) or around the named ones; overrides OAR_IR_DUMP.
  void set_dump(bool all, std::vector<std::string> passes = {});
  void set_dump_stream(std::ostream* os) { dump_stream_ = os; }

  // One entry per pass run, in run order.
  const std::vector<PassTiming>& timings() const { return timings_; }
  // "pass  time  changed" per pass (summed over runs) and the total.
  std::string timing_report() const;

 private:
  bool run_passes(ir::Program& program);
  bool dumps(const std::string& pass) const;
  void dump(const ir::Program& program, const std::string& when, const std::string& pass) const;

  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassTiming> timings_;
  bool verify_;
  bool dump_all_ = false;
  std::vector<std::string> dump_passes_;
  std::ostream* dump_stream_ = nullptr;  // null: std::cerr
};

}  // namespace oar::pass
