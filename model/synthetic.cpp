// Synthetic rows from the model: random problems (machine, size, dtype, pattern, algorithm) and
// random legal configurations, timed by predict_total_us with the given constants.
#include "model/synthetic.h"

#include <algorithm>
#include <cmath>

#include "model/occupancy.h"
#include "model/policies.h"
#include "model/timing_model.h"

namespace arlab::model {

namespace {

// SplitMix64 (Steele, Lea, Flood 2014): small, fast, and identical on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }  // [0, n)
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }  // [0, 1)
  double normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t state_;
};

// Hidden sizes of common models (Llama-3 8B/70B/405B, Mixtral, DeepSeek-V3, ...) plus a random
// multiple of 64 in [1024, 16384].
int pick_hidden(Rng& rng) {
  static constexpr int kCommon[] = {1024, 2048, 4096, 5120, 7168, 8192, 12288, 16384};
  if (rng.below(4) == 0) return 1024 + 64 * rng.below((16384 - 1024) / 64 + 1);
  return kCommon[rng.below(8)];
}

Problem pick_problem(Rng& rng) {
  Problem p;
  static constexpr int kRanks[] = {2, 4, 8};
  p.nranks = kRanks[rng.below(3)];
  p.tokens = static_cast<int>(std::lround(std::exp(rng.uniform() * std::log(4096.0))));  // log-uniform 1..4096
  p.hidden = pick_hidden(rng);
  p.dtype = static_cast<DType>(rng.below(3));
  p.pattern = static_cast<Pattern>(rng.below(kNumPatterns));
  if (has_fp4(p.pattern) && p.dtype == DType::fp32) p.dtype = DType::bf16;
  p.acc = static_cast<Accumulation>(rng.below(2));
  p.algo = (p.tokens >= p.nranks && rng.below(3) == 0) ? Algorithm::twoshot : Algorithm::oneshot;
  return p;
}

// A random legal configuration, or false after a bounded number of tries.
bool pick_config(Rng& rng, const Problem& p, const GpuSpec& s, const KernelResources& res, LaunchConfig& out) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    LaunchConfig c;
    c.algo = p.algo;
    int cs = 1 << rng.below(4);
    if (cs > s.max_cluster_size) cs = 1;
    c.cluster = cs;
    c.tpb = 64 + 32 * rng.below((1024 - 64) / 32 + 1);
    c.vecs_per_thread = required_vecs_per_thread(p, c.tpb, cs);
    const int bps = blocks_per_sm(s, c.tpb, res.regs_per_thread, res.smem_per_block_bytes);
    long long cap = max_active_clusters(s, cs, bps);
    if (p.algo == Algorithm::twoshot) cap = std::min<long long>(cap, kMaxTwoShotBlocks / cs);
    const long long max_clusters = std::min<long long>(cap, p.tokens);
    if (max_clusters < 1) continue;
    c.grid = static_cast<int>((1 + static_cast<long long>(rng.below(static_cast<int>(max_clusters)))) * cs);
    if (legality_violation(p, c, s, res).empty()) {
      out = c;
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<MeasuredRow> synthetic_measurements(const Calibration& truth, const SyntheticOptions& opts) {
  if (opts.gpus.empty()) throw InvalidArgument("synthetic_measurements: no GPU presets given");
  if (opts.rows < 1)
    throw InvalidArgument("synthetic_measurements: rows = " + std::to_string(opts.rows) + " must be >= 1");
  if (!std::isfinite(opts.noise_sigma) || opts.noise_sigma < 0)
    throw InvalidArgument("synthetic_measurements: noise sigma = " + std::to_string(opts.noise_sigma) +
                          " must be finite and >= 0");
  if (!std::isfinite(opts.resolution_us) || opts.resolution_us < 0)
    throw InvalidArgument("synthetic_measurements: resolution = " + std::to_string(opts.resolution_us) +
                          " us must be finite and >= 0");
  if (opts.configs_per_problem < 1)
    throw InvalidArgument("synthetic_measurements: configs_per_problem = " + std::to_string(opts.configs_per_problem) +
                          " must be >= 1");
  Rng rng(opts.seed);
  std::vector<MeasuredRow> rows;
  rows.reserve(static_cast<size_t>(opts.rows) + static_cast<size_t>(opts.configs_per_problem) + 3);
  const KernelResources res{64, 0};  // the __launch_bounds__(1024) register cap (cli/cli_model.cpp --regs)
  while (static_cast<int>(rows.size()) < opts.rows) {
    const Problem p = pick_problem(rng);
    const GpuSpec whole = gpu_preset(opts.gpus[static_cast<size_t>(rng.below(static_cast<int>(opts.gpus.size())))]);
    const bool emulated = rng.below(2) == 0;
    GpuSpec spec = whole;
    if (emulated) {
      try {
        spec = sm_partition(whole, p.nranks);
      } catch (const InvalidArgument&) {
        continue;
      }
    }
    MeasuredRow base;
    base.gpu = whole.name;
    base.link = spec.link;
    base.sm_per_rank = spec.sm_count;
    base.problem = p;
    base.resources = res;
    auto emit = [&](const LaunchConfig& c, const std::string& policy) {
      MeasuredRow r = base;
      r.config = c;
      r.policy = policy;
      const double t = predict_total_us(p, c, spec, truth, res);
      r.kernel_us = t * std::exp(opts.noise_sigma * rng.normal());
      if (opts.resolution_us > 0)
        r.kernel_us = std::max(opts.resolution_us, std::round(r.kernel_us / opts.resolution_us) * opts.resolution_us);
      rows.push_back(r);
    };
    for (Policy pol : {Policy::legacy, Policy::trtllm, Policy::occupancy}) {
      try {
        emit(choose_launch_config(pol, p, spec, res, truth), to_string(pol));
      } catch (const InvalidArgument&) {
      }
    }
    for (int k = 0; k < opts.configs_per_problem; ++k) {
      LaunchConfig c;
      if (pick_config(rng, p, spec, res, c)) emit(c, "explicit");
    }
  }
  return rows;
}

}  // namespace arlab::model
