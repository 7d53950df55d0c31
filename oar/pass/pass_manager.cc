#include "oar/pass/pass_manager.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>

#include "oar/core/error.h"
#include "oar/ir/printer.h"
#include "oar/ir/verifier.h"
#include "oar/pass/program_outputs.h"

namespace oar::pass {

namespace {

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s + ",") {
    if (c == ',' || c == ' ') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

bool env_is_on(const char* v) { return v && (std::string(v) == "1" || std::string(v) == "true"); }

}  // namespace

PassManager::PassManager() {
#ifdef NDEBUG
  verify_ = env_is_on(std::getenv("OAR_IR_VERIFY"));
#else
  verify_ = true;
#endif
  if (const char* d = std::getenv("OAR_IR_DUMP")) {
    if (env_is_on(d))
      dump_all_ = true;
    else if (std::string(d) != "0")
      dump_passes_ = split_names(d);
  }
}

PassManager& PassManager::add(std::unique_ptr<Pass> pass) {
  OAR_ENFORCE(pass != nullptr, InvalidArgument, "PassManager::add: the pass is null");
  passes_.push_back(std::move(pass));
  return *this;
}

void PassManager::set_dump(bool all, std::vector<std::string> passes) {
  dump_all_ = all;
  dump_passes_ = std::move(passes);
}

bool PassManager::dumps(const std::string& pass) const {
  return dump_all_ || std::find(dump_passes_.begin(), dump_passes_.end(), pass) != dump_passes_.end();
}

void PassManager::dump(const ir::Program& program, const std::string& when, const std::string& pass) const {
  std::ostream& os = dump_stream_ ? *dump_stream_ : std::cerr;
  os << "// IR " << when << " pass '" << pass << "'\n" << ir::print(program) << std::flush;
}

bool PassManager::run(ir::Program& program, std::vector<ir::Value*>* outputs) {
  if (outputs == nullptr) return run_passes(program);
  OutputPin pin(program, *outputs);
  const bool changed = run_passes(program);
  *outputs = pin.outputs();
  return changed;
}

bool PassManager::run_passes(ir::Program& program) {
  bool any = false;
  for (auto& p : passes_) {
    const std::string name = p->name();
    if (dumps(name)) dump(program, "before", name);
    const auto t0 = std::chrono::steady_clock::now();
    const bool changed = p->run(program);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    timings_.push_back({name, secs, changed});
    any |= changed;
    if (dumps(name)) dump(program, changed ? "after" : "after (unchanged)", name);
    if (verify_ && changed) {
      try {
        ir::verify(program);
      } catch (const Error& e) {
        throw Error(e.kind(), "pass '" + name + "' produced an invalid program: " + e.what());
      }
    }
  }
  return any;
}

bool PassManager::run_to_fixpoint(ir::Program& program, std::vector<ir::Value*>* outputs, int max_rounds) {
  std::unique_ptr<OutputPin> pin;
  if (outputs) pin = std::make_unique<OutputPin>(program, *outputs);
  bool any = false;
  for (int round = 0; round < max_rounds; ++round) {
    if (!run_passes(program)) break;
    any = true;
  }
  if (outputs) *outputs = pin->outputs();
  return any;
}

std::string PassManager::timing_report() const {
  std::vector<std::string> order;
  std::map<std::string, std::pair<double, int>> total;  // seconds, runs that changed
  double sum = 0;
  for (const auto& t : timings_) {
    if (!total.count(t.pass)) order.push_back(t.pass);
    total[t.pass].first += t.seconds;
    total[t.pass].second += t.changed;
    sum += t.seconds;
  }
  std::ostringstream os;
  char line[160];
  std::snprintf(line, sizeof line, "%-28s %12s %8s\n", "pass", "time (ms)", "changed");
  os << line;
  for (const auto& n : order) {
    std::snprintf(line, sizeof line, "%-28s %12.3f %8d\n", n.c_str(), total[n].first * 1e3, total[n].second);
    os << line;
  }
  std::snprintf(line, sizeof line, "%-28s %12.3f\n", "total", sum * 1e3);
  os << line;
  return os.str();
}

}  // namespace oar::pass
