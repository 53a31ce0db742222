// Implementation of harness/timing.h.
#include "harness/timing.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "harness/cupti_timer.h"

namespace arlab::harness {
namespace {

constexpr double kUsPerMs = 1e3;
constexpr double kNsPerUs = 1e3;
constexpr int kSyncEvery = 32;        // iterations enqueued between host synchronizations
constexpr uint64_t kTagRankBits = 8;  // CUPTI external id = (iteration << 8) | rank (N <= 16 < 256)

// One graph per rank holding `calls` launches of the call; input sets rotate when `rotate`.
std::vector<GraphExec> capture_graphs(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, int calls,
                                      bool rotate) {
  EmulatedNode& node = runner.node();
  std::vector<GraphExec> execs;
  for (int r = 0; r < node.nranks(); ++r) {
    const cudaStream_t s = node.rank(r).stream();
    ARLAB_CUDA_CHECK_RANK(r, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t raw = nullptr;
    try {
      for (int c = 0; c < calls; ++c) runner.enqueue_rank(r, call, cfg, rotate ? c % runner.nsets() : 0, false);
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

TimingReport summarize(const std::vector<IterationFigures>& figs, const std::string& source, const std::string& note,
                       int nsets) {
  TimingReport rep;
  rep.source = source;
  rep.note = note;
  rep.iters = static_cast<int>(figs.size());
  rep.nsets = nsets;
  std::vector<double> dur, skew, spread;
  for (const auto& f : figs) {
    dur.push_back(f.max_duration);
    skew.push_back(f.skew_free);
    spread.push_back(f.rank_spread);
  }
  rep.kernel_us = spread3(dur);
  rep.skewfree_us = quantile(skew, 0.5);
  rep.rank_spread_us = quantile(spread, 0.5);
  return rep;
}

}  // namespace

TimingReport time_isolated(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, const TimingOptions& opt,
                           CuptiKernelTimer* cupti) {
  if (opt.iters < 1 || opt.warmup < 0)
    throw InvalidArgument("iterations = " + std::to_string(opt.iters) + " (>= 1) and warm-up = " +
                          std::to_string(opt.warmup) + " (>= 0) required");
  runner.validate_call(call, cfg);
  EmulatedNode& node = runner.node();
  const int n = node.nranks();

  // Warm-up (module load, caches, clocks), untimed.
  for (int i = 0; i < opt.warmup; ++i) {
    runner.enqueue(call, cfg, i % runner.nsets(), /*gate=*/true);
    if ((i + 1) % kSyncEvery == 0) node.synchronize();
  }
  node.synchronize();
  if (cupti) cupti->collect();  // drop whatever was recorded before

  // Events around every launch: the fallback source, and cheap enough to always record.
  std::vector<Event> begin(static_cast<size_t>(opt.iters * n)), end(static_cast<size_t>(opt.iters * n));
  Event origin;
  ARLAB_CUDA_CHECK(cudaEventRecord(origin.get(), node.rank(0).stream()));
  for (int i = 0; i < opt.iters; ++i) {
    for (int r = 0; r < n; ++r) {
      const size_t k = static_cast<size_t>(i * n + r);
      RankContext& rank = node.rank(r);
      rank.launch_gate(node.timeout_ns());
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(begin[k].get(), rank.stream()));
      runner.enqueue_rank(r, call, cfg, (opt.warmup + i) % runner.nsets(), false, cupti,
                          (static_cast<uint64_t>(i) << kTagRankBits) | static_cast<uint64_t>(r));
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(end[k].get(), rank.stream()));
    }
    if ((i + 1) % kSyncEvery == 0) node.synchronize();
  }
  node.synchronize();

  std::string note;
  if (cupti) {
    std::unordered_map<uint64_t, KernelInterval> by_tag;
    for (const KernelInterval& k : cupti->collect()) by_tag[k.external_id] = k;
    std::vector<IterationFigures> figs;
    bool complete = true;
    for (int i = 0; i < opt.iters && complete; ++i) {
      std::vector<double> s, e;
      for (int r = 0; r < n; ++r) {
        const auto it = by_tag.find((static_cast<uint64_t>(i) << kTagRankBits) | static_cast<uint64_t>(r));
        if (it == by_tag.end()) {
          complete = false;
          break;
        }
        s.push_back(static_cast<double>(it->second.start_ns) / kNsPerUs);
        e.push_back(static_cast<double>(it->second.end_ns) / kNsPerUs);
      }
      if (complete) figs.push_back(combine_ranks(s, e));
    }
    if (complete) return summarize(figs, "cupti", "", runner.nsets());
    note = "CUPTI delivered " + std::to_string(by_tag.size()) + " of " + std::to_string(opt.iters * n) +
           " kernel records; using CUDA events";
  } else {
    note = "CUPTI not used";
  }
  std::vector<IterationFigures> figs;
  for (int i = 0; i < opt.iters; ++i) {
    std::vector<double> s, e;
    for (int r = 0; r < n; ++r) {
      const size_t k = static_cast<size_t>(i * n + r);
      s.push_back(event_us(origin, begin[k]));
      e.push_back(event_us(origin, end[k]));
    }
    figs.push_back(combine_ranks(s, e));
  }
  return summarize(figs, "events", note, runner.nsets());
}

double time_graph_per_call(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, const TimingOptions& opt) {
  if (opt.graph_calls < 1 || opt.graph_reps < 1)
    throw InvalidArgument("graph calls = " + std::to_string(opt.graph_calls) + " and replays = " +
                          std::to_string(opt.graph_reps) + " must both be >= 1");
  runner.validate_call(call, cfg);
  EmulatedNode& node = runner.node();
  const int n = node.nranks();
  std::vector<GraphExec> graphs = capture_graphs(runner, call, cfg, opt.graph_calls, /*rotate=*/true);
  std::vector<Event> begin(static_cast<size_t>(n)), end(static_cast<size_t>(n));
  std::vector<double> per_call;
  for (int rep = 0; rep <= opt.graph_reps; ++rep) {  // replay 0 warms up
    for (int r = 0; r < n; ++r) {
      RankContext& rank = node.rank(r);
      rank.launch_gate(node.timeout_ns());
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(begin[static_cast<size_t>(r)].get(), rank.stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaGraphLaunch(graphs[static_cast<size_t>(r)].get(), rank.stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(end[static_cast<size_t>(r)].get(), rank.stream()));
    }
    node.synchronize();
    if (rep == 0) continue;
    double worst = 0;
    for (int r = 0; r < n; ++r)
      worst = std::max(worst, event_us(begin[static_cast<size_t>(r)], end[static_cast<size_t>(r)]));
    per_call.push_back(worst / opt.graph_calls);
  }
  return quantile(per_call, 0.5);
}

ref::GateReport check_graph_replay(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, int calls) {
  if (calls < 1) throw InvalidArgument("graph calls = " + std::to_string(calls) + " must be >= 1");
  runner.validate_call(call, cfg);
  EmulatedNode& node = runner.node();
  std::vector<GraphExec> graphs = capture_graphs(runner, call, cfg, calls, /*rotate=*/false);
  runner.poison(call);
  for (int r = 0; r < node.nranks(); ++r)
    ARLAB_CUDA_CHECK_RANK(r, cudaGraphLaunch(graphs[static_cast<size_t>(r)].get(), node.rank(r).stream()));
  node.synchronize();
  return runner.judge(call, 0, runner.download(call));
}

}  // namespace arlab::harness
