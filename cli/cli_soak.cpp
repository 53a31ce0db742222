// `arlab soak`: the long-run check of harness/soak.h on the emulated node -- consecutive fused
// calls with changing token counts, configurations and input sets, each call's outputs compared on
// the GPU with a simple implementation of the op. Prints one SOAK line, appends one CSV row, and
// exits non-zero on any mismatch or timeout.
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

#ifdef ARLAB_HAVE_CUDA
#include "common/csv.h"
#include "common/utc_time.h"
#include "harness/device_query.h"
#include "harness/emulated_node.h"
#include "harness/fused_runner.h"
#include "harness/measurement.h"
#include "harness/soak.h"
#endif

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

#ifdef ARLAB_HAVE_CUDA
// The soak CSV: one row per soak run (defined here, its only writer).
const std::vector<std::string> kSoakHeader = {
    "git_sha", "date_utc", "gpu", "topology", "nranks", "dtype", "pattern", "hidden", "max_tokens", "sets", "seed",
    "calls", "mismatched_calls", "sum_mismatches", "norm_over_1ulp", "timeouts", "elements_compared",
    "reference_checked_tokens", "seconds"};

void soak_main(const SoakCliOptions& o) {
  harness::request_device_connections();
  Problem p = to_problem(o.problem);
  harness::check_soak_shape(p);  // before any device: the simple implementation covers a few shapes
  std::unique_ptr<CsvAppender> out;  // opened (header checked) before any device, appended at the end
  if (!o.csv.empty()) out = std::make_unique<CsvAppender>(o.csv, kSoakHeader);
  harness::require_cuda_devices("arlab soak", o.device);
  harness::SoakOptions so;
  so.calls = o.calls;
  so.max_tokens = o.max_tokens;
  so.sets = o.sets;
  so.seed = o.seed;
  so.sync_every = o.sync_every;
  harness::NodeOptions nopt;
  nopt.nranks = p.nranks;
  nopt.device = o.device;
  nopt.max_tokens = o.max_tokens;
  nopt.max_hidden = p.hidden;
  nopt.max_elem_bytes = dtype_bytes(p.dtype);
  nopt.timeout_ms = o.timeout_ms;
  harness::EmulatedNode node(nopt);
  std::printf("arlab soak: %lld calls, N=%d H=%d %s %s, tokens 1..%d (trtllm configuration of each), %d input sets, "
              "seed %llu, sync every %d calls; %s; git %s\n",
              o.calls, p.nranks, p.hidden, to_string(p.dtype), to_string(p.pattern), o.max_tokens, o.sets, o.seed,
              o.sync_every, node.describe().c_str(), arlab::git_sha());
  std::fflush(stdout);
  const harness::SoakReport r = harness::run_soak(node, p, so);
  std::printf("SOAK calls %lld | mismatched calls %lld | sum mismatches %lld | norm > 1 ulp %lld | timeouts %lld | "
              "%.1f s (%.2f us/call) | simple implementation checked against the CPU on %d tokens\n",
              r.calls, r.mismatched_calls, r.sum_mismatches, r.norm_over_1ulp, r.timeouts, r.seconds,
              r.calls ? 1e6 * r.seconds / static_cast<double>(r.calls) : 0.0, r.reference_checked_tokens);
  if (!r.fault.empty()) std::printf("  fault: %s\n", r.fault.c_str());
  if (out) {
    out->append({arlab::git_sha(), arlab::utc_now_iso8601(), node.device().name, node.topology(),
                std::to_string(p.nranks), to_string(p.dtype), to_string(p.pattern), std::to_string(p.hidden),
                std::to_string(o.max_tokens), std::to_string(o.sets), std::to_string(o.seed), std::to_string(r.calls),
                std::to_string(r.mismatched_calls), std::to_string(r.sum_mismatches),
                std::to_string(r.norm_over_1ulp), std::to_string(r.timeouts), std::to_string(r.elements_compared),
                std::to_string(r.reference_checked_tokens), csv_num(r.seconds)});
  }
  if (r.mismatched_calls || r.timeouts || r.calls != o.calls)
    throw std::runtime_error("soak FAILED: " + std::to_string(r.mismatched_calls) + " mismatched call(s), " +
                             std::to_string(r.timeouts) + " timeout(s), " + std::to_string(r.calls) + " of " +
                             std::to_string(o.calls) + " calls run");
}
#else
void soak_main(const SoakCliOptions&) {
  throw std::runtime_error("`arlab soak` needs the GPU parts, and this arlab was built without CUDA");
}
#endif

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
