// Implementation of harness/timing.h.
#include "harness/timing.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <set>
#include <unordered_map>
#include <vector>

#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "harness/cupti_timer.h"
#include "harness/host_hold.h"

namespace arlab::harness {
namespace {

constexpr double kUsPerMs = 1e3;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr uint64_t kTagRankBits = 8;  // CUPTI tag = (iteration in batch << 8) | rank (N <= 16 < 256)
constexpr int kRatioResamples = 2000;        // bootstrap resamples of a ratio's CI
constexpr uint64_t kRatioSeed = 0x5eed'a7ab;  // any fixed seed: ratio CIs are reproducible
constexpr size_t kMaxKernelNames = 8;         // a call launches 1-2 kernels; more names would be noise

// One graph per local rank (in local_ranks() order) holding `calls` launches of the call; input
// sets rotate when `rotate`.
std::vector<GraphExec> capture_graphs(FusedRunner& runner, const CheckedCall& call, int calls, bool rotate) {
  Node& node = runner.node();
  std::vector<GraphExec> execs;
  for (int r : node.local_ranks()) {
    const cudaStream_t s = node.rank(r).stream();
    ARLAB_CUDA_CHECK_RANK(r, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t raw = nullptr;
    try {
      for (int c = 0; c < calls; ++c) runner.enqueue_rank(r, call, rotate ? c % runner.nsets() : 0, false);
    } catch (...) {
      cudaStreamEndCapture(s, &raw);
      if (raw) cudaGraphDestroy(raw);
      throw;
    }
    ARLAB_CUDA_CHECK_RANK(r, cudaStreamEndCapture(s, &raw));
    const Graph graph(raw, GraphRelease{});
    cudaGraphExec_t exec = nullptr;
    ARLAB_CUDA_CHECK_RANK(r, cudaGraphInstantiate(&exec, graph.get(), 0));
    execs.emplace_back(exec, GraphExecRelease{});
  }
  return execs;
}

// Event time of `e` relative to `ref`, microseconds (both recorded and complete).
double event_us(const Event& ref, const Event& e) {
  float ms = 0;
  ARLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, ref.get(), e.get()));
  return static_cast<double>(ms) * kUsPerMs;
}

double max_over_processes(const Node& node, double mine) {
  const std::vector<double> all = node.allgather({mine});
  return *std::max_element(all.begin(), all.end());
}

// Per iteration, the figures of all ranks of the node: s_local / e_local hold this process's
// [iteration][local rank] start / end times (us); every process contributes the same count.
// Without a clock shared by the ranks, the figures that compare ranks' timestamps are NaN.
std::vector<IterationFigures> node_figures(const Node& node, int iters, const std::vector<double>& s_local,
                                           const std::vector<double>& e_local, bool shared_clock) {
  const std::vector<double> s_all = node.allgather(s_local), e_all = node.allgather(e_local);
  const size_t per_process = s_local.size();
  const size_t n_local = per_process / static_cast<size_t>(iters);
  const size_t processes = s_all.size() / per_process;
  std::vector<IterationFigures> figs;
  for (int i = 0; i < iters; ++i) {
    std::vector<double> s, e;
    for (size_t p = 0; p < processes; ++p)
      for (size_t j = 0; j < n_local; ++j) {
        const size_t k = p * per_process + static_cast<size_t>(i) * n_local + j;
        s.push_back(s_all[k]);
        e.push_back(e_all[k]);
      }
    figs.push_back(combine_ranks(s, e));
    if (!shared_clock) figs.back().skew_free = figs.back().start_skew = kNaN;
  }
  return figs;
}

// The samples of one configuration, as the rounds deliver them.
struct Samples {
  std::vector<double> kernel, skew_free, rank_spread, start_skew, gate_skew;
  std::vector<double> allreduce;  // baselines: max over ranks of the all-reduce step alone
  RoundSamples kernel_rounds, skew_free_rounds;
  int iters = 0;
  std::string source = "cupti", note;
  std::set<std::string> kernel_names;  // the distinct CUPTI names of the call's kernels
  bool met = false;  // the noise target was met at a check (then no longer re-checked)
};

// Spread of values that may all be NaN (figures not defined on this node).
// The finite values of v: figures a node cannot define (no shared clock) are NaN.
std::vector<double> finite_only(const std::vector<double>& v) {
  std::vector<double> finite;
  for (double x : v)
    if (std::isfinite(x)) finite.push_back(x);
  return finite;
}

Spread3 spread3_or_nan(const std::vector<double>& v) {
  const std::vector<double> finite = finite_only(v);
  return finite.empty() ? Spread3{kNaN, kNaN, kNaN} : spread3(finite);
}

MedianCI median_ci_or_nan(const std::vector<double>& v, double confidence) {
  const std::vector<double> finite = finite_only(v);
  return finite.empty() ? MedianCI{kNaN, kNaN, kNaN, false} : median_ci(finite, confidence);
}

// Skew-free when every sample has it (one clock for all ranks), else the max over ranks.
Headline headline_of(const Samples& s) {
  const bool defined = !s.skew_free.empty() && std::all_of(s.skew_free.begin(), s.skew_free.end(),
                                                           [](double v) { return std::isfinite(v); });
  return defined ? Headline::skew_free : Headline::max_over_ranks;
}

const std::vector<double>& headline_samples(const Samples& s) {
  return headline_of(s) == Headline::skew_free ? s.skew_free : s.kernel;
}

// Runs `count` gated iterations of `cfg` on every local rank behind a host hold and appends their
// figures to `out` (when `out` is null the batch is a warm-up: nothing is tagged or kept).
class BatchRunner {
 public:
  // While an exception unwinds (a launch or CUDA error mid-batch), the release logs are leaked, not
  // freed, for the reason given at ~HostHold: no failure path waits for the device.
  ~BatchRunner() {
    if (std::uncaught_exceptions() > 0)
      for (DeviceBuffer& log : release_logs_) log.abandon();
  }
  BatchRunner(const BatchRunner&) = delete;
  BatchRunner& operator=(const BatchRunner&) = delete;
  BatchRunner(FusedRunner& runner, int max_batch, bool use_hold, CuptiKernelTimer* cupti)
      : runner_(runner), node_(runner.node()), cupti_(cupti), use_hold_(use_hold) {
    const size_t n_local = node_.local_ranks().size();
    for (size_t j = 0; j < n_local; ++j)
      release_logs_.emplace_back(static_cast<size_t>(max_batch) * sizeof(unsigned long long),
                                 node_.local_ranks()[j]);
    if (!cupti_) {
      origins_.resize(n_local);
      begin_.resize(static_cast<size_t>(max_batch) * n_local);
      end_.resize(static_cast<size_t>(max_batch) * n_local);
    }
  }

  void run(const CheckedCall& call, int count, Samples* out) {
    kernels_per_call_ = runner_.kernels_per_call(call.config());
    const std::vector<int>& local = node_.local_ranks();
    const size_t n = local.size();
    if (use_hold_) hold_.arm(node_);
    if (!cupti_)
      for (size_t j = 0; j < n; ++j)
        ARLAB_CUDA_CHECK_RANK(local[j], cudaEventRecord(origins_[j].get(), node_.rank(local[j]).stream()));
    for (int i = 0; i < count; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const int r = local[j];
        RankContext& rank = node_.rank(r);
        const size_t k = static_cast<size_t>(i) * n + j;
        rank.launch_gate(node_.timeout_ns(), release_logs_[j].as<unsigned long long>() + i);
        if (!cupti_) ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(begin_[k].get(), rank.stream()));
        const bool tagged = out && cupti_;
        runner_.enqueue_rank(r, call, set_++ % runner_.nsets(), false, tagged ? cupti_ : nullptr,
                             (static_cast<uint64_t>(i) << kTagRankBits) | static_cast<uint64_t>(r));
        if (!cupti_) ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(end_[k].get(), rank.stream()));
      }
    }
    if (use_hold_) hold_.release();
    node_.synchronize();
    if (!out) {
      if (cupti_) cupti_->collect();  // drop the warm-up's records
      return;
    }
    collect(count, *out);
  }

 private:
  void collect(int count, Samples& out) {
    const std::vector<int>& local = node_.local_ranks();
    const size_t n = local.size();
    const bool one_process = static_cast<int>(n) == node_.nranks();
    std::vector<uint64_t> s_ns, e_ns;  // [iteration][local rank]
    std::vector<double> allreduce_local;  // [iteration][local rank]: the all-reduce step alone, us
    bool complete = cupti_ != nullptr;
    if (cupti_) {
      // One call = its kernels under one tag (a baseline's second kernel has kSecondKernelTagBit):
      // the call runs from its first kernel's start to its last kernel's end.
      struct Call {
        uint64_t start = std::numeric_limits<uint64_t>::max(), end = 0, first_end = 0;
        int parts = 0;  // bit 0: the first (or only) kernel seen, bit 1: the second
      };
      std::unordered_map<uint64_t, Call> by_tag;
      size_t records = 0;
      for (const KernelInterval& k : cupti_->collect()) {
        ++records;
        if (out.kernel_names.size() < kMaxKernelNames) out.kernel_names.insert(k.name);
        const bool second = (k.tag & kSecondKernelTagBit) != 0;
        Call& c = by_tag[k.tag & ~kSecondKernelTagBit];
        c.start = std::min(c.start, k.start_ns);
        c.end = std::max(c.end, k.end_ns);
        if (!second) c.first_end = std::max(c.first_end, k.end_ns);
        c.parts |= second ? 2 : 1;
      }
      const int want = kernels_per_call_ == 2 ? 3 : 1;
      for (int i = 0; i < count && complete; ++i)
        for (int r : local) {
          const auto it = by_tag.find((static_cast<uint64_t>(i) << kTagRankBits) | static_cast<uint64_t>(r));
          if (it == by_tag.end() || it->second.parts != want) {
            complete = false;
            break;
          }
          s_ns.push_back(it->second.start);
          e_ns.push_back(it->second.end);
          allreduce_local.push_back(kernels_per_call_ == 2 ? to_relative_us(it->second.first_end, it->second.start)
                                                           : kNaN);
        }
      const std::vector<double> all = node_.allgather({complete ? 1.0 : 0.0});  // collective: same branch
      complete = std::all_of(all.begin(), all.end(), [](double v) { return v == 1.0; });
      if (!complete)
        throw CudaError("CUPTI delivered only " + std::to_string(records) + " tagged kernel records for " +
                        std::to_string(count * static_cast<int>(n)) + " calls of " +
                        std::to_string(kernels_per_call_) + " kernel(s) each in a timing batch (" +
                        std::to_string(cupti_->last_kernel_records()) + " kernel records seen); run with --no-cupti "
                        "to time with CUDA events");
    }
    std::vector<double> s_us, e_us;
    bool shared_clock = one_process;
    if (complete) {
      // One integer origin for the node: the earliest start of any rank in this batch.
      const uint64_t local_min = *std::min_element(s_ns.begin(), s_ns.end());
      const std::vector<uint64_t> mins = node_.allgather_u64({local_min});
      const uint64_t origin = *std::min_element(mins.begin(), mins.end());
      for (size_t k = 0; k < s_ns.size(); ++k) {
        s_us.push_back(to_relative_us(s_ns[k], origin));
        e_us.push_back(to_relative_us(e_ns[k], origin));
      }
      // CUPTI timestamps of several processes are host-normalized: approximately one clock.
      shared_clock = true;
      if (!one_process) out.note = "skew-free figure from CUPTI timestamps of several processes";
    } else {
      out.source = "events";
      out.note = "CUPTI not used: CUDA events around each launch (they include launch gaps)";
      for (int i = 0; i < count; ++i)
        for (size_t j = 0; j < n; ++j) {
          const size_t k = static_cast<size_t>(i) * n + j;
          s_us.push_back(event_us(origins_[j], begin_[k]));
          e_us.push_back(event_us(origins_[j], end_[k]));
        }
      shared_clock = false;  // every rank's events are relative to its own origin
    }
    const std::vector<IterationFigures> figs = node_figures(node_, count, s_us, e_us, shared_clock);
    if (complete) {
      // The all-reduce step alone, max over every rank of the node per iteration (NaN for one-kernel calls).
      const std::vector<double> ar_all = node_.allgather(allreduce_local);
      const size_t per_process = allreduce_local.size(), n_local = per_process / static_cast<size_t>(count);
      for (int i = 0; i < count; ++i) {
        double worst = kNaN;
        for (size_t p = 0; p * per_process < ar_all.size(); ++p)
          for (size_t j = 0; j < n_local; ++j) {
            const double v = ar_all[p * per_process + static_cast<size_t>(i) * n_local + j];
            if (std::isfinite(v)) worst = std::isfinite(worst) ? std::max(worst, v) : v;
          }
        out.allreduce.push_back(worst);
      }
    }
    const std::vector<double> gate = gate_release_skews(count);
    std::vector<double> round_kernel, round_skew;
    for (size_t i = 0; i < figs.size(); ++i) {
      const IterationFigures& f = figs[i];
      out.kernel.push_back(f.max_duration);
      out.skew_free.push_back(f.skew_free);
      out.rank_spread.push_back(f.rank_spread);
      out.start_skew.push_back(f.start_skew);
      out.gate_skew.push_back(gate[i]);
      round_kernel.push_back(f.max_duration);
      round_skew.push_back(f.skew_free);
    }
    out.kernel_rounds.push_back(std::move(round_kernel));
    out.skew_free_rounds.push_back(std::move(round_skew));
    out.iters += count;
  }

  // Per iteration, max - min over ranks of the gate's release time (us); NaN across processes,
  // whose GPUs' %globaltimer values are not one clock.
  std::vector<double> gate_release_skews(int count) {
    const std::vector<int>& local = node_.local_ranks();
    if (static_cast<int>(local.size()) != node_.nranks()) return std::vector<double>(static_cast<size_t>(count), kNaN);
    std::vector<std::vector<unsigned long long>> logs;
    for (size_t j = 0; j < local.size(); ++j) {
      logs.emplace_back(static_cast<size_t>(count));
      ARLAB_CUDA_CHECK_RANK(local[j], cudaMemcpy(logs.back().data(), release_logs_[j].data(),
                                                 static_cast<size_t>(count) * sizeof(unsigned long long),
                                                 cudaMemcpyDeviceToHost));
    }
    std::vector<double> skew;
    for (int i = 0; i < count; ++i) {
      uint64_t lo = std::numeric_limits<uint64_t>::max(), hi = 0;
      for (const auto& log : logs) {
        lo = std::min<uint64_t>(lo, log[static_cast<size_t>(i)]);
        hi = std::max<uint64_t>(hi, log[static_cast<size_t>(i)]);
      }
      skew.push_back(to_relative_us(hi, lo));
    }
    return skew;
  }

  FusedRunner& runner_;
  Node& node_;
  CuptiKernelTimer* cupti_;
  bool use_hold_;
  HostHold hold_;
  std::vector<DeviceBuffer> release_logs_;  // per local rank: the gate's release time per iteration
  std::vector<Event> origins_, begin_, end_;  // events fallback only
  int set_ = 0;                              // input-set rotation
  int kernels_per_call_ = 1;                 // of the configuration being run (FusedRunner::kernels_per_call)
};

ClockReading node_min_clocks(const Node& node, const GpuClocks* clocks) {
  const ClockReading mine = clocks ? clocks->read() : ClockReading{};
  const std::vector<double> all =
      node.allgather({static_cast<double>(mine.sm_mhz), static_cast<double>(mine.mem_mhz)});
  ClockReading r{std::numeric_limits<int>::max(), std::numeric_limits<int>::max()};
  for (size_t p = 0; p + 1 < all.size(); p += 2) {
    r.sm_mhz = std::min(r.sm_mhz, static_cast<int>(all[p]));
    r.mem_mhz = std::min(r.mem_mhz, static_cast<int>(all[p + 1]));
  }
  return r;
}

TimingReport summarize(const Samples& s, const TimingOptions& opt, int rounds, double elapsed_s, StopReason stop,
                       int nsets) {
  TimingReport rep;
  rep.source = s.source;
  rep.note = s.note;
  rep.kernel_names.assign(s.kernel_names.begin(), s.kernel_names.end());
  rep.iters = s.iters;
  rep.rounds = rounds;
  rep.nsets = nsets;
  rep.elapsed_s = elapsed_s;
  rep.stop = stop;
  rep.kernel = median_ci(s.kernel, opt.stop.confidence);
  rep.kernel_us = spread3(s.kernel);
  rep.skew_free = median_ci_or_nan(s.skew_free, opt.stop.confidence);
  rep.rank_spread_us = quantile(s.rank_spread, 0.5);
  rep.start_skew_us = spread3_or_nan(s.start_skew);
  rep.gate_skew_us = spread3_or_nan(s.gate_skew);
  rep.allreduce_us = spread3_or_nan(s.allreduce);
  rep.headline_figure = headline_of(s);
  rep.noise = rep.headline().relative_half_width();
  rep.noise_met = rep.noise <= opt.stop.max_noise;
  rep.kernel_rounds = s.kernel_rounds;
  rep.skew_free_rounds = s.skew_free_rounds;
  return rep;
}

}  // namespace

const char* to_string(Headline h) { return h == Headline::skew_free ? "skew_free" : "max_over_ranks"; }

std::vector<TimingReport> time_interleaved(FusedRunner& runner, const std::vector<CheckedCall>& configs,
                                           const TimingOptions& opt, CuptiKernelTimer* cupti,
                                           const GpuClocks* clocks) {
  validate(opt);
  if (configs.empty()) throw InvalidArgument("time_interleaved: no configurations");
  Node& node = runner.node();
  BatchRunner batches(runner, opt.batch, opt.host_hold, cupti);
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  // Warm-up by time: every configuration at least once, until warmup_ms have passed on every process.
  const Clock::time_point warm0 = Clock::now();
  do {
    for (const CheckedCall& call : configs) batches.run(call, opt.batch, nullptr);
  } while (max_over_processes(node, seconds_since(warm0) * 1e3) < opt.warmup_ms);

  const ClockReading clocks_start = node_min_clocks(node, clocks);
  std::vector<Samples> samples(configs.size());
  std::vector<StopReason> reasons(configs.size(), StopReason::keep_going);
  const Clock::time_point t0 = Clock::now();
  int rounds = 0;
  double elapsed = 0;
  for (bool done = false; !done;) {
    const int count = opt.fixed_iters > 0 ? std::min(opt.batch, opt.fixed_iters - samples[0].iters) : opt.batch;
    // The order rotates by one position per round (A B C, B C A, ...): whatever favours a position
    // in the round (the first batch follows the host's pause between rounds) falls on every
    // configuration alike and cancels in the ratios.
    for (size_t k = 0; k < configs.size(); ++k) {
      const size_t c = (k + static_cast<size_t>(rounds)) % configs.size();
      batches.run(configs[c], count, &samples[c]);
    }
    ++rounds;
    elapsed = max_over_processes(node, seconds_since(t0));  // one decision on every process
    // --max-time is per configuration: a group of K shares K times that, round by round.
    const double per_config_s = elapsed / static_cast<double>(configs.size());
    done = true;
    for (size_t c = 0; c < configs.size(); ++c) {
      Samples& s = samples[c];
      if (opt.fixed_iters > 0) {
        reasons[c] = s.iters >= opt.fixed_iters ? StopReason::max_iters : StopReason::keep_going;
      } else {
        // Once met, a configuration's noise is not re-checked (a sort of every sample per round
        // would dominate large groups); the final report recomputes it from all samples.
        if (!s.met && s.iters >= opt.stop.min_iters)
          s.met = median_ci(headline_samples(s), opt.stop.confidence).relative_half_width() <= opt.stop.max_noise;
        const double noise = s.met ? 0.0 : std::numeric_limits<double>::infinity();
        reasons[c] = stop_reason(opt.stop, s.iters, rounds, per_config_s, noise);
      }
      if (reasons[c] == StopReason::keep_going) done = false;
    }
  }
  const ClockReading clocks_end = node_min_clocks(node, clocks);

  std::vector<TimingReport> reports;
  for (size_t c = 0; c < configs.size(); ++c) {
    TimingReport rep = summarize(samples[c], opt, rounds, elapsed, reasons[c], runner.nsets());
    rep.clocks_start = clocks_start;
    rep.clocks_end = clocks_end;
    reports.push_back(std::move(rep));
  }
  return reports;
}

TimingReport time_isolated(FusedRunner& runner, const CheckedCall& call, const TimingOptions& opt,
                           CuptiKernelTimer* cupti, const GpuClocks* clocks) {
  return time_interleaved(runner, {call}, opt, cupti, clocks).front();
}

RatioCI headline_ratio(const TimingReport& a, const TimingReport& b, double confidence) {
  return ratio_of_medians(a.headline_rounds(), b.headline_rounds(), confidence, kRatioResamples, kRatioSeed);
}

double time_graph_per_call(FusedRunner& runner, const CheckedCall& call, const TimingOptions& opt) {
  if (opt.graph_calls < 1 || opt.graph_reps < 1)
    throw InvalidArgument("graph calls = " + std::to_string(opt.graph_calls) + " and replays = " +
                          std::to_string(opt.graph_reps) + " must both be >= 1");
  Node& node = runner.node();
  const std::vector<int>& local = node.local_ranks();
  const size_t n = local.size();
  std::vector<GraphExec> graphs = capture_graphs(runner, call, opt.graph_calls, /*rotate=*/true);
  std::vector<Event> begin(n), end(n);
  std::vector<double> per_call;
  HostHold hold;
  for (int rep = 0; rep <= opt.graph_reps; ++rep) {  // replay 0 warms up
    hold.arm(node);
    for (size_t j = 0; j < n; ++j) {
      const int r = local[j];
      RankContext& rank = node.rank(r);
      rank.launch_gate(node.timeout_ns());
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(begin[j].get(), rank.stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaGraphLaunch(graphs[j].get(), rank.stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(end[j].get(), rank.stream()));
    }
    hold.release();
    node.synchronize();
    if (rep == 0) continue;
    double worst = 0;
    for (size_t j = 0; j < n; ++j) worst = std::max(worst, event_us(begin[j], end[j]));
    per_call.push_back(max_over_processes(node, worst) / opt.graph_calls);
  }
  return quantile(per_call, 0.5);
}

ref::GateReport check_graph_replay(FusedRunner& runner, const CheckedCall& call, int calls) {
  if (calls < 1) throw InvalidArgument("graph calls = " + std::to_string(calls) + " must be >= 1");
  Node& node = runner.node();
  std::vector<GraphExec> graphs = capture_graphs(runner, call, calls, /*rotate=*/false);
  runner.poison(call.problem());
  const std::vector<int>& local = node.local_ranks();
  for (size_t j = 0; j < local.size(); ++j)
    ARLAB_CUDA_CHECK_RANK(local[j], cudaGraphLaunch(graphs[j].get(), node.rank(local[j]).stream()));
  node.synchronize();
  return runner.judge(call.problem(), 0, runner.download(call.problem()));
}

}  // namespace arlab::harness
