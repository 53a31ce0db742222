// The measuring entry points of session/session.h that need no driver file of their own: `arlab
// run`, its --registers table, and the soak (CUDA builds only; session/no_gpu.cpp otherwise).
#include "session/session.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "common/build_info.h"
#include "common/csv.h"
#include "common/utc_time.h"
#include "harness/check.h"
#include "harness/device_query.h"
#include "harness/soak.h"
#include "kernels/dispatch.h"
#include "session/node_session.h"
#include "session/run_driver.h"

namespace arlab::session {

bool gpu_visible() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

void run_measurements(const RunPlan& plan) {
  NodeSession s("arlab run", plan.device, plan.cupti && plan.timed);
  harness::NodeOptions nopt;
  nopt.nranks = plan.problem.nranks;
  nopt.max_tokens = plan.max_tokens > 0 ? plan.max_tokens : plan.problem.tokens;
  nopt.max_hidden = plan.problem.hidden;
  nopt.max_elem_bytes = dtype_bytes(plan.problem.dtype);
  nopt.timeout_ms = plan.timeout_ms;
  nopt.sms_per_rank = plan.sms_per_rank;
  nopt.peers = needs_peers(plan.entries);
  s.on_node(nopt, [&](harness::Node& node) {
    RunPlan for_gpu = plan;
    if (plan.calibration_for_gpu) plan.calibration_for_gpu(for_gpu, node.device().name);
    run_plan_on_node(for_gpu, node, s.cupti(), s.cupti_note());
  });
}

void print_kernel_registers() {
  harness::require_cuda_devices("arlab run --registers", -1);
  std::printf("%-48s %6s %10s %10s\n", "kernel", "regs", "smem_B", "local_B");
  for (const kernels::KernelKey& key : kernels::all_kernel_keys()) {
    const kernels::FusedKernel k = kernels::find_fused_kernel(key);
    cudaFuncAttributes a{};
    ARLAB_CUDA_CHECK(cudaFuncGetAttributes(&a, k.fn));
    std::printf("%-48s %6d %10zu %10zu\n", k.name.c_str(), a.numRegs, a.sharedSizeBytes, a.localSizeBytes);
  }
}

namespace {

// The soak CSV: one row per soak run (defined here, its only writer).
const std::vector<std::string> kSoakHeader = {
    "git_sha", "date_utc", "gpu", "topology", "nranks", "dtype", "pattern", "hidden", "max_tokens", "sets", "seed",
    "calls", "mismatched_calls", "sum_mismatches", "norm_over_1ulp", "timeouts", "elements_compared",
    "reference_checked_tokens", "seconds"};

}  // namespace

void run_soak(const SoakRequest& o) {
  const Problem& p = o.problem;
  harness::check_soak_shape(p);  // before any device: the simple implementation covers a few shapes
  if (!o.csv.empty()) check_appendable(o.csv, kSoakHeader);  // read only: the file is written at the end
  NodeSession s("arlab soak", o.device, false);
  if (s.multi_process())
    throw InvalidArgument("arlab soak runs on the emulated node only (one process); it was started as one of several");
  harness::SoakOptions so;
  so.calls = o.calls;
  so.max_tokens = o.max_tokens;
  so.sets = o.sets;
  so.seed = o.seed;
  so.sync_every = o.sync_every;
  harness::NodeOptions nopt;
  nopt.nranks = p.nranks;
  nopt.max_tokens = o.max_tokens;
  nopt.max_hidden = p.hidden;
  nopt.max_elem_bytes = dtype_bytes(p.dtype);
  nopt.timeout_ms = o.timeout_ms;
  s.on_node(nopt, [&](harness::Node& node) {
    std::printf("arlab soak: %lld calls, N=%d H=%d %s %s, tokens 1..%d (trtllm configuration of each), %d input "
                "sets, seed %llu, sync every %d calls; %s; git %s\n",
                o.calls, p.nranks, p.hidden, to_string(p.dtype), to_string(p.pattern), o.max_tokens, o.sets, o.seed,
                o.sync_every, node.describe().c_str(), arlab::git_sha());
    std::fflush(stdout);
    const harness::SoakReport r = harness::run_soak(node, p, so);
    std::printf("SOAK calls %lld | mismatched calls %lld | sum mismatches %lld | norm > 1 ulp %lld | timeouts %lld | "
                "%.1f s (%.2f us/call) | simple implementation checked against the CPU on %d tokens\n",
                r.calls, r.mismatched_calls, r.sum_mismatches, r.norm_over_1ulp, r.timeouts, r.seconds,
                r.calls ? 1e6 * r.seconds / static_cast<double>(r.calls) : 0.0, r.reference_checked_tokens);
    if (!r.fault.empty()) std::printf("  fault: %s\n", r.fault.c_str());
    if (!o.csv.empty()) {
      CsvAppender out(o.csv, kSoakHeader);
      out.append({arlab::git_sha(), arlab::utc_now_iso8601(), node.device().name, node.topology(),
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
  });
}

}  // namespace arlab::session
