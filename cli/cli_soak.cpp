// `arlab soak`: the long-run check of harness/soak.h on the emulated node, run by the measuring
// session (session/session.h run_soak) -- consecutive fused calls with changing token counts,
// configurations and input sets, each call's outputs compared on the GPU with a simple
// implementation of the op. Prints one SOAK line, appends one CSV row, and exits non-zero on any
// mismatch or timeout.
#include <CLI/CLI.hpp>

#include <climits>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/cli_checks.h"
#include "cli/cli_problem.h"
#include "cli/commands.h"
#include "common/build_info.h"
#include "harness/input_sets.h"

#include "session/session.h"

namespace arlab::cli {
namespace {

struct SoakCliOptions {
  ProblemOptions problem;
  long long calls = 1000000;
  int max_tokens = 128;
  int sets = 4;
  unsigned long long seed = 1;
  int sync_every = 512;
  double timeout_ms = 2000;
  int device = 0;
  std::string csv;
};

void soak_main(const SoakCliOptions& o) {
  session::SoakRequest r;
  r.problem = to_problem(o.problem);
  r.calls = o.calls;
  r.max_tokens = o.max_tokens;
  r.sets = o.sets;
  r.seed = o.seed;
  r.sync_every = o.sync_every;
  r.timeout_ms = o.timeout_ms;
  r.device = o.device;
  r.csv = o.csv;
  session::run_soak(r);
}

}  // namespace

void add_soak_command(CLI::App& app) {
  auto o = std::make_shared<SoakCliOptions>();
  CLI::App* sub = app.add_subcommand(
      "soak", "long run of consecutive fused calls (changing tokens, configurations, input sets) on the emulated node, "
              "every call compared on the GPU with a simple implementation; non-zero exit on any mismatch or timeout");
  add_problem_options(sub, o->problem);
  // Every option's range is checked when parsed, before any device is touched.
  sub->add_option("--calls", o->calls, "consecutive calls")->capture_default_str()->check(integer_in(1, LLONG_MAX));
  sub->add_option("--max-tokens", o->max_tokens, "token counts are drawn from [1, this]")
      ->capture_default_str()
      ->check(int_at_least(1));
  sub->add_option("--sets", o->sets, "input sets rotated call by call")
      ->capture_default_str()
      ->check(integer_in(1, harness::kMaxInputSets));
  sub->add_option("--seed", o->seed, "inputs and token-count sequence")->capture_default_str()->check(unsigned_64());
  sub->add_option("--sync-every", o->sync_every, "calls between host synchronizations")
      ->capture_default_str()
      ->check(int_at_least(1));
  sub->add_option("--timeout-ms", o->timeout_ms, "bound of every device spin-wait")
      ->capture_default_str()
      ->check(finite_in(0, 1e9, /*lo_open=*/true));
  sub->add_option("--device", o->device, "CUDA device")->capture_default_str()->check(int_at_least(0));
  sub->add_option("--csv", o->csv, "append one soak row to this CSV file")->check(non_empty_path());
  sub->callback([o] { soak_main(*o); });
}

}  // namespace arlab::cli
