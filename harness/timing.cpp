// Implementation of harness/timing.h.
#include "harness/timing.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
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
constexpr uint64_t kTagRankBits = 8;  // CUPTI tag = (iteration << 8) | rank (N <= 16 < 256)

// One graph per local rank (in local_ranks() order) holding `calls` launches of the call; input
// sets rotate when `rotate`.
std::vector<GraphExec> capture_graphs(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, int calls,
                                      bool rotate) {
  Node& node = runner.node();
  std::vector<GraphExec> execs;
  for (int r : node.local_ranks()) {
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

// Per iteration, the figures of all ranks of the node: s_local / e_local hold this process's
// [iteration][local rank] start / end times; every process contributes the same count. Without a
// clock shared by the processes (CUDA events are relative to a per-process origin) the skew-free
// figure is not defined (NaN).
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
    if (!shared_clock) figs.back().skew_free = std::numeric_limits<double>::quiet_NaN();
  }
  return figs;
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
  Node& node = runner.node();
  const std::vector<int>& local = node.local_ranks();
  const int n = static_cast<int>(local.size());
  const bool one_process = n == node.nranks();

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
  ARLAB_CUDA_CHECK(cudaEventRecord(origin.get(), node.rank(local[0]).stream()));
  for (int i = 0; i < opt.iters; ++i) {
    for (int j = 0; j < n; ++j) {
      const int r = local[static_cast<size_t>(j)];
      const size_t k = static_cast<size_t>(i * n + j);
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
  std::vector<double> s_local, e_local;  // [iteration][local rank]
  bool complete = cupti != nullptr;
  if (cupti) {
    std::unordered_map<uint64_t, KernelInterval> by_tag;
    for (const KernelInterval& k : cupti->collect()) by_tag[k.tag] = k;
    for (int i = 0; i < opt.iters && complete; ++i) {
      for (int r : local) {
        const auto it = by_tag.find((static_cast<uint64_t>(i) << kTagRankBits) | static_cast<uint64_t>(r));
        if (it == by_tag.end()) {
          complete = false;
          break;
        }
        s_local.push_back(static_cast<double>(it->second.start_ns) / kNsPerUs);
        e_local.push_back(static_cast<double>(it->second.end_ns) / kNsPerUs);
      }
    }
    if (!complete)
      note = "CUPTI delivered " + std::to_string(by_tag.size()) + " of " + std::to_string(opt.iters * n) +
             " tagged kernel records (" + std::to_string(cupti->last_kernel_records()) + " kernel records, " +
             std::to_string(cupti->last_tagged_launches()) + " tagged launches seen); using CUDA events";
  } else {
    note = "CUPTI not used";
  }
  // Every process must take the same branch (the gathers below are collective).
  const std::vector<double> all_complete = node.allgather({complete ? 1.0 : 0.0});
  complete = std::all_of(all_complete.begin(), all_complete.end(), [](double v) { return v == 1.0; });
  if (complete) {
    // CUPTI timestamps: one GPU's clock on the emulated node; across processes CUPTI's
    // host-normalized timestamps (approximately one clock).
    return summarize(node_figures(node, opt.iters, s_local, e_local, true), "cupti",
                     one_process ? "" : "skew-free figure from CUPTI timestamps of several processes", runner.nsets());
  }
  if (note.empty()) note = "CUPTI records incomplete in another process; using CUDA events";
  s_local.clear();
  e_local.clear();
  for (int i = 0; i < opt.iters; ++i) {
    for (int j = 0; j < n; ++j) {
      const size_t k = static_cast<size_t>(i * n + j);
      s_local.push_back(event_us(origin, begin[k]));
      e_local.push_back(event_us(origin, end[k]));
    }
  }
  return summarize(node_figures(node, opt.iters, s_local, e_local, one_process), "events", note, runner.nsets());
}

double time_graph_per_call(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, const TimingOptions& opt) {
  if (opt.graph_calls < 1 || opt.graph_reps < 1)
    throw InvalidArgument("graph calls = " + std::to_string(opt.graph_calls) + " and replays = " +
                          std::to_string(opt.graph_reps) + " must both be >= 1");
  runner.validate_call(call, cfg);
  Node& node = runner.node();
  const std::vector<int>& local = node.local_ranks();
  const size_t n = local.size();
  std::vector<GraphExec> graphs = capture_graphs(runner, call, cfg, opt.graph_calls, /*rotate=*/true);
  std::vector<Event> begin(n), end(n);
  std::vector<double> per_call;
  for (int rep = 0; rep <= opt.graph_reps; ++rep) {  // replay 0 warms up
    for (size_t j = 0; j < n; ++j) {
      const int r = local[j];
      RankContext& rank = node.rank(r);
      rank.launch_gate(node.timeout_ns());
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(begin[j].get(), rank.stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaGraphLaunch(graphs[j].get(), rank.stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(end[j].get(), rank.stream()));
    }
    node.synchronize();
    if (rep == 0) continue;
    double worst = 0;
    for (size_t j = 0; j < n; ++j) worst = std::max(worst, event_us(begin[j], end[j]));
    const std::vector<double> all = node.allgather({worst});  // max over the ranks of every process
    per_call.push_back(*std::max_element(all.begin(), all.end()) / opt.graph_calls);
  }
  return quantile(per_call, 0.5);
}

ref::GateReport check_graph_replay(FusedRunner& runner, const Problem& call, const LaunchConfig& cfg, int calls) {
  if (calls < 1) throw InvalidArgument("graph calls = " + std::to_string(calls) + " must be >= 1");
  runner.validate_call(call, cfg);
  Node& node = runner.node();
  std::vector<GraphExec> graphs = capture_graphs(runner, call, cfg, calls, /*rotate=*/false);
  runner.poison(call);
  const std::vector<int>& local = node.local_ranks();
  for (size_t j = 0; j < local.size(); ++j)
    ARLAB_CUDA_CHECK_RANK(local[j], cudaGraphLaunch(graphs[j].get(), node.rank(local[j]).stream()));
  node.synchronize();
  return runner.judge(call, 0, runner.download(call));
}

}  // namespace arlab::harness
