// Implementation of harness/measurement.h.
#include "harness/measurement.h"

#include "common/measurement_kernel.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <ctime>
#include <exception>
#include <limits>
#include <sstream>

#include "common/build_info.h"
#include "common/row_cells.h"
#include "common/utc_time.h"
#include "model/timing_model.h"

namespace arlab::harness {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kClockChangeWarn = 0.05;  // docs/measurement.md / measurement issue: warn above 5 %
constexpr double kPercent = 100.0;

// The row of one measured candidate: provenance, configuration, timings, prediction, verdict.
void fill_row(Measurement& m, const Node& node, const Candidate& c, const MeasureSettings& s) {
  const Problem& call = c.call.problem();
  const LaunchConfig& cfg = c.call.config();
  MeasurementRow& row = m.row;
  const bool timed = s.timed;
  row.experiment = s.experiment;
  row.git_sha = arlab::git_sha();
  row.date_utc = utc_now_iso8601();
  row.gpu = node.device().name;
  row.driver = node.device().driver;
  row.cuda = node.device().runtime;
  row.topology = node.topology();
  row.link = !s.link.empty() ? s.link : (node.topology() == "emulated" ? "local" : "unknown");
  row.sm_per_rank = node.sms_per_rank();
  set_problem_cells(row, call);
  set_config_cells(row, cfg);
  // The policy's name alone (a label "trtllm/lean" names the kernel too: the kernel_variant column has it).
  row.policy = c.policy.substr(0, c.policy.find('/'));
  row.policy_note = c.policy_note;
  row.pdl = cfg.pdl ? 1 : 0;
  row.regs = c.call.resources().regs_per_thread;  // of the kernel this call runs (0 for nccl)
  const TimingReport& t = m.timing;
  row.iters = timed ? t.iters : 0;
  row.rounds = timed ? t.rounds : 0;
  row.stop_reason = !timed ? "untimed"
                    : s.timing.fixed_iters > 0 ? "fixed"
                    : t.stop == StopReason::noise_met ? "noise"
                    : t.stop == StopReason::max_iters ? "max_iters"
                                                      : "max_time";
  row.timing_source = timed ? t.source : "none";
  row.headline = timed ? to_string(t.headline_figure) : "";
  row.kernel_us_median = timed ? t.kernel.median : kNaN;
  row.kernel_us_ci_lo = timed ? t.kernel.lo : kNaN;
  row.kernel_us_ci_hi = timed ? t.kernel.hi : kNaN;
  row.kernel_us_p10 = timed ? t.kernel_us.p10 : kNaN;
  row.kernel_us_p90 = timed ? t.kernel_us.p90 : kNaN;
  row.skewfree_us_median = timed ? t.skew_free.median : kNaN;
  row.skewfree_us_ci_lo = timed ? t.skew_free.lo : kNaN;
  row.skewfree_us_ci_hi = timed ? t.skew_free.hi : kNaN;
  row.rank_spread_us_median = timed ? t.rank_spread_us : kNaN;
  row.start_skew_us_median = timed ? t.start_skew_us.median : kNaN;
  row.start_skew_us_p90 = timed ? t.start_skew_us.p90 : kNaN;
  row.gate_skew_us_median = timed ? t.gate_skew_us.median : kNaN;
  row.gate_skew_us_p90 = timed ? t.gate_skew_us.p90 : kNaN;
  row.noise_pct = timed ? kPercent * t.noise : kNaN;
  row.noise_target_met = timed && t.noise_met ? 1 : 0;
  row.graph_us_per_call = m.graph_us;
  row.sm_clock_mhz_start = timed ? t.clocks_start.sm_mhz : -1;
  row.sm_clock_mhz_end = timed ? t.clocks_end.sm_mhz : -1;
  row.mem_clock_mhz_start = timed ? t.clocks_start.mem_mhz : -1;
  row.mem_clock_mhz_end = timed ? t.clocks_end.mem_mhz : -1;
  row.predicted_us = m.predicted_us;
  row.check = !m.checked ? "skipped" : (m.gate.pass ? "pass" : "fail");
  row.norm_max_ulp = m.checked ? m.gate.norm_max_ulp : -1;
  row.quant_nonexact = m.checked ? static_cast<long long>(m.gate.quant_nonexact) : -1;
  row.err_rel_rms_vs_exact = m.checked ? m.gate.err_rel_rms_vs_exact : kNaN;
  row.implementation = implementation(cfg.impl).csv_implementation;
  row.allreduce_us_median = timed ? t.allreduce_us.median : kNaN;
  row.kernel_variant = implementation(cfg.impl).csv_kernel_variant;
  row.sf_layout = has_fp4(call.pattern) ? to_string(call.sf_layout) : "";
  row.input_distribution = s.input_distribution;
  row.input_seed = s.input_seed;
}

// An id no other group shares: UTC time, process id and a per-process counter.
std::string new_group_id() {
  static std::atomic<int> counter{0};  // groups measured by this process so far
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return std::string(stamp) + "-" + std::to_string(static_cast<long long>(getpid())) + "-" +
         std::to_string(counter++);
}

// "tpb/cluster/grid/vpt/algo", with "/lean" for the lean kernel (reference rows keep the older text).
std::string config_text(const MeasurementRow& r) {
  return std::to_string(r.tpb) + "/" + std::to_string(r.cluster) + "/" + std::to_string(r.grid) + "/" +
         std::to_string(r.vecs_per_thread) + "/" + r.algo + variant_suffix(row_kernel(r));
}

}  // namespace

RatioRow ratio_row(const Measurement& num, const Measurement& den, double confidence) {
  const RatioCI r = headline_ratio(num.timing, den.timing, confidence);
  RatioRow row;
  row.experiment = num.row.experiment;
  row.git_sha = num.row.git_sha;
  row.date_utc = num.row.date_utc;
  row.group_id = num.row.group_id;
  row.gpu = num.row.gpu;
  row.topology = num.row.topology;
  row.link = num.row.link;
  row.nranks = num.row.nranks;
  row.dtype = num.row.dtype;
  row.pattern = num.row.pattern;
  row.tokens = num.row.tokens;
  row.hidden = num.row.hidden;
  // The policy and, for a non-reference kernel, the kernel: "trtllm" vs "trtllm/lean".
  const auto label = [](const MeasurementRow& m) {
    return m.policy + variant_suffix(row_kernel(m));
  };
  row.numerator = label(num.row);
  row.numerator_cfg = config_text(num.row);
  row.denominator = label(den.row);
  row.denominator_cfg = config_text(den.row);
  row.figure = num.row.headline;
  row.ratio = r.ratio;
  row.ci_lo = r.lo;
  row.ci_hi = r.hi;
  row.rounds = r.rounds;
  return row;
}

std::vector<Measurement> measure_group(FusedRunner& runner, const std::vector<Candidate>& group,
                                       const model::Calibration& cal, const MeasureSettings& s,
                                       CuptiKernelTimer* cupti, const GpuClocks* clocks) {
  if (group.empty()) throw InvalidArgument("measure_group: no configurations");
  Node& node = runner.node();
  std::vector<CheckedCall> calls;
  for (const Candidate& c : group) calls.push_back(c.call);
  std::vector<Measurement> out(group.size());
  for (size_t i = 0; i < group.size(); ++i) {
    out[i].graph_us = kNaN;
    out[i].predicted_us = kNaN;
    if (s.check) {
      out[i].gate = runner.check(calls[i]);
      out[i].checked = true;
    } else {
      // One call outside any hold or gate: it loads the configuration's kernels into every rank's
      // context (lazy loading) before the timed batches, which queue them behind spinning kernels.
      runner.enqueue(calls[i], 0, false);
      node.synchronize();
    }
  }
  if (s.timed) {
    std::vector<TimingReport> reports = time_interleaved(runner, calls, s.timing, cupti, clocks);
    for (size_t i = 0; i < group.size(); ++i) {
      out[i].timing = std::move(reports[i]);
      // NCCL calls are not graph-captured here (a capture must run on every rank at once; not done yet).
      if (s.timing.graph_calls > 0 && calls[i].config().impl != Impl::nccl &&
          calls[i].config().impl != Impl::nccl_symmetric)
        out[i].graph_us = time_graph_per_call(runner, calls[i], s.timing);
    }
  }
  const std::string group_id = new_group_id();  // process 0's is the one its CSV rows carry
  for (size_t i = 0; i < group.size(); ++i) {
    const CheckedCall& call = calls[i];
    if (implementation(call.config().impl).model == ModelDesign::not_modelled) {
      out[i].prediction_note = std::string("the model does not predict the ") + to_string(call.config().impl) +
                               " implementation (no model design in its table row)";
    } else {
      try {
        out[i].predicted_us =
            model::predict(call.problem(), call.config(), node.rank_spec(), cal, call.resources()).total_us;
      } catch (const std::exception& e) {
        out[i].prediction_note = e.what();
      }
    }
    fill_row(out[i], node, group[i], s);
    out[i].row.group_id = group_id;
  }
  return out;
}

Measurement measure_call(FusedRunner& runner, const Candidate& candidate, const model::Calibration& cal,
                         const MeasureSettings& s, CuptiKernelTimer* cupti, const GpuClocks* clocks) {
  return measure_group(runner, {candidate}, cal, s, cupti, clocks).front();
}

std::string node_link(const Node& node, const Nvml& nvml) {
  if (node.topology() == "emulated" || !node.timings_meaningful()) return "local";
  const std::vector<double> ordinals = node.allgather({static_cast<double>(node.device().ordinal)});
  // Each process judges its own GPU's pairs; 0 = nvlink, 1 = pcie, 2 = unknown; the worst wins.
  int worst = 0;
  for (double o : ordinals) {
    const int peer = static_cast<int>(o);
    if (peer == node.device().ordinal) continue;
    const std::string link = nvml.link_between(node.device().ordinal, peer);
    worst = std::max(worst, link == "nvlink" ? 0 : link == "pcie" ? 1 : 2);
  }
  const std::vector<double> all = node.allgather({static_cast<double>(worst)});
  int node_worst = 0;
  for (double w : all) node_worst = std::max(node_worst, static_cast<int>(w));
  return node_worst == 0 ? "nvlink" : node_worst == 1 ? "pcie" : "unknown";
}

std::string measurement_warnings(const Measurement& m, double max_noise) {
  if (m.row.iters == 0) return "";
  std::ostringstream os;
  const TimingReport& t = m.timing;
  if (!t.noise_met && m.row.stop_reason != "fixed")
    os << "noise " << kPercent * t.noise << " % above the target " << kPercent * max_noise << " % after "
       << t.iters << " iterations (" << to_string(t.stop) << "); ";
  const double change = clock_change(t.clocks_start, t.clocks_end);
  if (change > kClockChangeWarn)
    os << "clocks moved by " << kPercent * change << " % during the measurement (SM " << t.clocks_start.sm_mhz
       << " -> " << t.clocks_end.sm_mhz << " MHz, memory " << t.clocks_start.mem_mhz << " -> " << t.clocks_end.mem_mhz
       << " MHz); ";
  std::string w = os.str();
  if (w.size() >= 2) w.resize(w.size() - 2);
  return w;
}

}  // namespace arlab::harness
