// Running a RunPlan's group on an open node (session/run_driver.h).
#include "session/run_driver.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "common/build_info.h"
#include "common/csv.h"
#include "common/measurement_headline.h"
#include "common/measurement_schema.h"
#include "common/ratio_schema.h"
#include "harness/check.h"
#include "harness/cupti_timer.h"
#include "harness/nccl_comm.h"
#include "harness/nvml.h"
#include "harness/size_sweep.h"
#include "harness/timing.h"
#include "model/candidates.h"
#include "model/legality.h"
#include "peers/peer_kernels.h"

namespace arlab::session {

namespace {

// "norm<bf16,ar_res_rms> tpb 1024, grid 128, vpt 1" (nothing for pattern ar: no norm step).
std::string describe_norm(const harness::FusedRunner& runner, const Problem& p) {
  if (!has_residual(p.pattern)) return "(none: pattern ar)";
  const LaunchConfig n = runner.norm_config(p);
  return std::string(to_string(p.dtype)) + "/" + to_string(p.pattern) + " tpb " + std::to_string(n.tpb) + ", grid " +
         std::to_string(n.grid) + ", vpt " + std::to_string(n.vecs_per_thread);
}

// A baseline's configuration: unfused runs the all-reduce-only kernel (pattern ar) at the trtllm
// policy's configuration for that problem (the peer library's choice); nccl has no launch shape.
LaunchConfig baseline_config(Impl baseline, const Problem& p, const harness::Node& node,
                             const harness::FusedRunner& runner, const model::Calibration& cal) {
  LaunchConfig cfg;
  cfg.algo = p.algo;
  cfg.impl = baseline;
  if (baseline == Impl::vllm) return peers::vllm_launch_config(p);
  if (baseline == Impl::unfused) {
    Problem ar = p;
    ar.pattern = Pattern::ar;
    cfg = model::choose_launch_config(model::Policy::trtllm, ar, node.rank_spec(), runner.resources(cfg), cal);
    cfg.impl = baseline;
  } else {
    cfg.tpb = 0;
    cfg.grid = 0;
    cfg.vecs_per_thread = 0;
  }
  return cfg;
}

// The registers and shared memory a policy chooses with for kernel choice k over `algos`: its
// kernel's. For several (body, algorithm) kernels (the model searching bodies and algorithms at
// once, one resource figure for all candidates) the elementwise max: conservative -- every
// configuration the search keeps is legal for whichever kernel it picks, at the price of ruling out
// the few shapes only the leaner kernel would fit.
model::KernelResources resources_for(const harness::FusedRunner& runner, const KernelChoice& k,
                                     const std::vector<Algorithm>& algos) {
  model::KernelResources res{0, 0};
  for (Impl body : k.bodies)
    for (Algorithm algo : algos) {
      if (!runs_algorithm(body, algo)) continue;
      LaunchConfig probe;
      probe.algo = algo;
      probe.impl = body;
      const model::KernelResources r = runner.resources(probe);
      res.regs_per_thread = std::max(res.regs_per_thread, r.regs_per_thread);
      res.smem_per_block_bytes = std::max(res.smem_per_block_bytes, r.smem_per_block_bytes);
    }
  return res;
}

// The member of the group one entry makes at problem p: its configuration chosen and prepared.
harness::Candidate make_candidate(const GroupEntry& e, const RunPlan& plan, const Problem& p,
                                  const harness::Node& node, const harness::FusedRunner& runner) {
  LaunchConfig cfg;
  std::string note;
  switch (e.kind) {
    case GroupEntry::Kind::policy: {
      // The model policy may switch algorithm: its search is sized by every kernel it may pick.
      // FlashInfer's rule picks one algorithm by size (model::flashinfer_algorithm), so only that
      // kernel is asked for its resources (the other may be refused at this size).
      std::vector<Algorithm> algos{p.algo};
      if (e.policy == model::Policy::model) algos = model::model_algorithms(p);
      if (e.policy == model::Policy::flashinfer) algos = {model::flashinfer_algorithm(p)};
      const LaunchConfig given = e.policy == model::Policy::explicit_config ? explicit_config(e.shape, p) : LaunchConfig{};
      const model::PolicyChoice choice =
          model::explain_launch_config(e.policy, p, node.rank_spec(), resources_for(runner, e.kernel, algos),
                                       plan.calibration, e.policy == model::Policy::explicit_config ? &given : nullptr,
                                       e.kernel.bodies);
      cfg = choice.config;
      note = choice.note;
      break;
    }
    case GroupEntry::Kind::explicit_shape:
      cfg = explicit_config(e.shape, p);
      cfg.impl = e.kernel.bodies.front();
      break;
    case GroupEntry::Kind::baseline:
      cfg = baseline_config(e.baseline, p, node, runner, plan.calibration);
      break;
  }
  cfg.pdl = plan.pdl;
  return harness::Candidate{e.label, note, runner.prepare(p, cfg)};
}

// "oneshot<bf16,N=2,ar_res_rms,pairwise> (52 registers/thread), oneshot_lean<...> (56 ...)": the
// fused kernels the group runs (the baselines' kernels are described on their own lines).
std::string describe_kernels(const std::vector<harness::Candidate>& group) {
  std::string out;
  std::vector<std::string> seen;
  for (const harness::Candidate& c : group) {
    if (!is_kernel_body(c.call.config().impl)) continue;
    const std::string& name = c.call.kernel()->kernel.name;
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
    seen.push_back(name);
    out += (out.empty() ? "" : ", ") + name + " (" + std::to_string(c.call.resources().regs_per_thread) +
           " registers/thread)";
  }
  return out.empty() ? std::string("no fused kernel (baselines only)") : out;
}

void print_echo(const RunPlan& plan, harness::Node& node, const harness::FusedRunner& runner,
                const std::vector<harness::Candidate>& group, const harness::MeasureSettings& settings,
                const harness::Nvml& nvml, harness::CuptiKernelTimer* cupti, const std::string& cupti_note) {
  const Problem& p = plan.problem;
  std::printf("  device: %s (%d SMs), driver %s, CUDA runtime %s, git %s\n", node.device().name.c_str(),
              node.device().spec.sm_count, node.device().driver.c_str(), node.device().runtime.c_str(),
              arlab::git_sha());
  std::printf("  node: %s; link %s; workspace %lld tokens, timeout %g ms\n", node.describe().c_str(),
              settings.link.c_str(), node.token_capacity(p.hidden, p.dtype), node.timeout_ms());
  std::printf("  kernel: %s\n", describe_kernels(group).c_str());
  for (const harness::Candidate& c : group) {
    const LaunchConfig& cfg = c.call.config();
    if (cfg.impl == Impl::nccl || cfg.impl == Impl::nccl_symmetric) {
      std::printf("  %-9s -> ncclAllReduce%s (%s), then the separate norm kernel %s\n", c.policy.c_str(),
                  cfg.impl == Impl::nccl_symmetric ? " on symmetric windows" : "", node.nccl().version().c_str(),
                  describe_norm(runner, p).c_str());
      continue;
    }
    if (cfg.impl == Impl::vllm) {
      std::printf("  %-9s -> vLLM custom all-reduce (FlashInfer %s headers; %d blocks x %d threads), then the "
                  "separate norm kernel %s\n", c.policy.c_str(), flashinfer_version(), cfg.grid, cfg.tpb,
                  describe_norm(runner, p).c_str());
      continue;
    }
    std::printf("  %-9s -> %s tpb %d, cluster %d, grid %d, vpt %d%s, %d B shared/block, kernel %s%s%s%s%s\n",
                c.policy.c_str(), to_string(cfg.algo), cfg.tpb, cfg.cluster, cfg.grid, cfg.vecs_per_thread,
                cfg.pdl ? ", pdl" : "", c.call.resources().smem_per_block_bytes,
                cfg.impl == Impl::unfused ? "reference" : to_string(cfg.impl),
                cfg.impl == Impl::unfused ? " (all-reduce-only kernel), then the separate norm kernel " : "",
                cfg.impl == Impl::unfused ? describe_norm(runner, p).c_str() : "",
                c.policy_note.empty() ? "" : "; ", c.policy_note.c_str());
  }
  std::printf("  timing: %s input sets %d; %s%s\n", settings.timed ? "on," : "off,", runner.nsets(),
              cupti ? "cupti" : cupti_note.c_str(), group.size() > 1 ? "; members interleaved round by round" : "");
  std::printf("  clocks: %s\n", nvml.available() ? "NVML (recorded before and after the timed rounds)"
                                                 : nvml.note().c_str());
}

}  // namespace

std::vector<harness::Measurement> measure_plan_group(const RunPlan& plan, harness::FusedRunner& runner,
                                                     harness::CuptiKernelTimer* cupti, const std::string& cupti_note,
                                                     bool throw_on_failure) {
  harness::Node& node = runner.node();
  const Problem& p = plan.problem;
  const bool printer = node.process_index() == 0;

  std::vector<harness::Candidate> group;
  for (const GroupEntry& e : plan.entries) group.push_back(make_candidate(e, plan, p, node, runner));

  const harness::Nvml nvml;
  const harness::GpuClocks clocks(nvml, node.device().ordinal);
  harness::MeasureSettings settings;
  settings.check = plan.check;
  settings.timed = plan.timed;
  settings.experiment = plan.experiment;
  settings.timing = plan.timing;
  settings.link = harness::node_link(node, nvml);
  settings.input_distribution = ref::to_string(plan.distribution);
  settings.input_seed = std::to_string(plan.seed);
  if (printer) print_echo(plan, node, runner, group, settings, nvml, cupti, cupti_note);

  const std::vector<harness::Measurement> ms =
      harness::measure_group(runner, group, plan.calibration, settings, plan.timed ? cupti : nullptr, &clocks);
  const bool meaningful = node.timings_meaningful();
  std::string first_failure;
  for (size_t i = 0; i < ms.size(); ++i) {
    const harness::Measurement& m = ms[i];
    if (m.checked && !m.gate.pass && first_failure.empty())
      first_failure = group[i].policy + ": " + m.gate.first_failure;
    if (m.checked && (printer || !m.gate.pass))
      std::printf("  check %s%s: %s\n", group[i].policy.c_str(), printer ? "" : " (this process)",
                  m.gate.summary().c_str());
    if (!printer) continue;
    if (settings.timed && !m.timing.note.empty()) std::printf("  timing note: %s\n", m.timing.note.c_str());
    if (settings.timed && !is_kernel_body(group[i].call.config().impl) && !m.timing.kernel_names.empty()) {
      std::string names;
      for (const std::string& n : m.timing.kernel_names) names += (names.empty() ? "" : ", ") + n;
      std::printf("  kernels of %s: %s\n", group[i].policy.c_str(), names.c_str());
    }
    if (!m.prediction_note.empty()) std::printf("  model: no prediction (%s)\n", m.prediction_note.c_str());
    const std::string warn = harness::measurement_warnings(m, settings.timing.stop.max_noise);
    if (!warn.empty()) std::printf("  WARNING %s: %s\n", group[i].policy.c_str(), warn.c_str());
  }
  if (printer && settings.timed && !meaningful)
    std::printf("  WARNING: several processes share one GPU and time-slice it (no MPS): the times below are NOT "
                "kernel times; this run proves correctness only (CSV topology %s)\n", node.topology().c_str());
  for (size_t i = 0; printer && i < ms.size(); ++i) {
    const MeasurementRow& row = ms[i].row;
    std::printf("SUMMARY %s %s N=%d H=%d tokens=%d %s %s %s cfg=%d/%d/%d vpt=%d%s kernel %s | check %s | kernel "
                "%.3f us [%.3f, %.3f] (p10 %.3f p90 %.3f, %d iters, noise %.2f %%, %s, %s) skew-free %.3f us spread "
                "%.3f us start skew %.3f us | graph %.3f us/call | clocks SM %d->%d MHz | model %.2f us | %s%s\n",
                row.algo.c_str(), group[i].policy.c_str(), p.nranks, p.hidden, p.tokens, to_string(p.dtype),
                to_string(p.pattern), to_string(p.acc), row.tpb, row.cluster, row.grid, row.vecs_per_thread,
                row.pdl ? " pdl" : "", to_string(group[i].call.config().impl), row.check.c_str(),
                row.kernel_us_median, row.kernel_us_ci_lo, row.kernel_us_ci_hi, row.kernel_us_p10, row.kernel_us_p90,
                row.iters, row.noise_pct, row.stop_reason.c_str(), settings.timed ? row.timing_source.c_str() : "untimed",
                row.skewfree_us_median, row.rank_spread_us_median, row.start_skew_us_median, row.graph_us_per_call,
                row.sm_clock_mhz_start, row.sm_clock_mhz_end, row.predicted_us, node.topology().c_str(),
                meaningful ? "" : " (timings NOT meaningful)");
  }
  std::vector<RatioRow> ratio_rows;
  if (settings.timed)
    for (size_t i = 1; i < ms.size(); ++i)
      ratio_rows.push_back(harness::ratio_row(ms[i], ms[0], settings.timing.stop.confidence));
  for (const RatioRow& r : ratio_rows)
    if (printer)
      std::printf("RATIO %s / %s = %.4f [%.4f, %.4f] (95 %% bootstrap CI over %d paired rounds, %s)\n",
                  r.numerator.c_str(), r.denominator.c_str(), r.ratio, r.ci_lo, r.ci_hi, r.rounds, r.figure.c_str());

  if (printer && !plan.csv.empty()) {
    CsvAppender out(plan.csv, measurement_header());
    for (const harness::Measurement& m : ms) out.append(to_cells(m.row));
    std::printf("  appended %zu row(s) to %s\n", ms.size(), plan.csv.c_str());
  }
  if (printer && !plan.ratios_csv.empty() && !ratio_rows.empty()) {
    CsvAppender out(plan.ratios_csv, ratio_header());
    for (const RatioRow& r : ratio_rows) out.append(to_cells(r));
    std::printf("  appended %zu ratio row(s) to %s\n", ratio_rows.size(), plan.ratios_csv.c_str());
  }
  if (!first_failure.empty() && throw_on_failure) throw std::runtime_error("correctness gate FAILED: " + first_failure);
  return ms;
}

namespace {

// The nccl-tests-style table of a size sweep (process 0): per size and member, the headline time and
// skew-free time, its configuration and bus bandwidth, and whether it failed the gate (#wrong).
struct SweepRow {
  int tokens = 0;
  double bytes = 0;
  std::string policy, config;
  double time_us = 0, skewfree_us = 0;
  int wrong = 0;
};

void print_sweep_table(const std::vector<SweepRow>& rows, int nranks) {
  std::printf("\n#  %8s %12s %-14s %-30s %10s %12s %12s %12s %7s\n", "tokens", "bytes", "policy", "config",
              "time(us)", "skewfree(us)", "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  for (const SweepRow& r : rows)
    std::printf("   %8d %12.0f %-14s %-30s %10.3f %12.3f %12.2f %12.2f %7d\n", r.tokens, r.bytes, r.policy.c_str(),
                r.config.c_str(), r.time_us, r.skewfree_us, harness::algbw_gbps(r.bytes, r.time_us),
                harness::busbw_gbps(r.bytes, r.time_us, nranks), r.wrong);
  std::printf("#  config: tpb/cluster/grid/vpt, algorithm and kernel; bytes: one rank's input (tokens x H x "
              "sizeof(T)); time: the headline (skew-free median where recorded); busbw = algbw x 2 (N - 1) / N\n");
}

}  // namespace

void run_plan_on_node(const RunPlan& plan, harness::Node& node, harness::CuptiKernelTimer* cupti,
                      const std::string& cupti_note) {
  const Problem& p = plan.problem;
  node.check_fits(p);
  const int nsets = plan.sets > 0 ? plan.sets : harness::input_sets_for(p, node.device().spec.l2_bytes);
  harness::FusedRunner runner(node, p, nsets, plan.seed, plan.distribution);
  runner.inject(plan.fault);
  if (plan.sweep.empty()) {
    measure_plan_group(plan, runner, cupti, cupti_note, true);
    return;
  }
  // One runner and workspace for the largest size; every size is its own interleaved group.
  std::vector<SweepRow> table;
  int wrong_total = 0;
  for (int tokens : plan.sweep) {
    RunPlan at = plan;
    at.problem.tokens = tokens;
    for (const harness::Measurement& m : measure_plan_group(at, runner, cupti, cupti_note, false)) {
      SweepRow row;
      row.tokens = tokens;
      row.bytes = static_cast<double>(tokens) * p.hidden * dtype_bytes(p.dtype);
      row.policy = m.row.policy;
      row.config = std::to_string(m.row.tpb) + "/" + std::to_string(m.row.cluster) + "/" +
                   std::to_string(m.row.grid) + "/" + std::to_string(m.row.vecs_per_thread) + " " + m.row.algo + " " +
                   m.row.kernel_variant;
      row.time_us = headline_us(m.row);
      row.skewfree_us = m.row.skewfree_us_median;
      row.wrong = (m.checked && !m.gate.pass) ? 1 : 0;
      wrong_total += row.wrong;
      table.push_back(row);
    }
  }
  if (node.process_index() == 0) print_sweep_table(table, p.nranks);
  if (wrong_total > 0)
    throw std::runtime_error("correctness gate FAILED for " + std::to_string(wrong_total) +
                             " configuration(s) of the size sweep (#wrong column)");
}

}  // namespace arlab::session
