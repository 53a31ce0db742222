// Launch-configuration policies: the peer mapping (legacy / trtllm), occupancy sizing, the model
// search and explicit configurations, each validated by check_legal before it is returned.
#include "model/policies.h"

#include <algorithm>

#include "model/candidates.h"
#include "model/occupancy.h"

namespace arlab::model {

const char* to_string(Policy p) {
  switch (p) {
    case Policy::legacy: return "legacy";
    case Policy::trtllm: return "trtllm";
    case Policy::occupancy: return "occupancy";
    case Policy::model: return "model";
    case Policy::flashinfer: return "flashinfer";
    case Policy::explicit_config: return "explicit";
  }
  return "?";
}

Policy parse_policy(const std::string& s) {
  for (Policy p : all_policies())
    if (s == to_string(p)) return p;
  throw InvalidArgument("unknown policy '" + s +
                        "' (expected legacy, trtllm, occupancy, model, flashinfer or explicit)");
}

std::vector<Policy> all_policies() {
  return {Policy::legacy, Policy::trtllm, Policy::occupancy, Policy::model, Policy::flashinfer,
          Policy::explicit_config};
}

namespace {
long long clusters_wanted(const Problem& p) {
  return p.algo == Algorithm::oneshot ? p.tokens : (p.tokens + p.nranks - 1) / p.nranks;
}
std::string problem_text(const Problem& p) {
  return std::to_string(p.tokens) + " tokens, H " + std::to_string(p.hidden) + ", " + to_string(p.dtype) + ", N " +
         std::to_string(p.nranks) + ", " + to_string(p.algo);
}
}  // namespace

PeerMapping peer_mapping(Policy policy, const Problem& p, int sm_count, int cc_major, int max_threads_per_block) {
  if (policy != Policy::legacy && policy != Policy::trtllm)
    throw InvalidArgument(std::string("peer_mapping: policy ") + to_string(policy) + " is not legacy or trtllm");
  PeerMapping m;
  const long long tpt = threads_per_token(p);
  m.clusters_wanted = clusters_wanted(p);
  int cs = cc_major >= 9 ? 8 : 1;
  while (cs > 1 && tpt % cs != 0) cs /= 2;
  long long tpb = tpt / cs;
  while (tpb < 128 && cs >= 2) {
    tpb *= 2;
    cs /= 2;
  }
  if (policy == Policy::trtllm) {
    while (m.clusters_wanted * cs > sm_count && cs > 1 && tpb <= max_threads_per_block / 2) {
      tpb *= 2;
      cs /= 2;
    }
  }
  const long long grid = std::min<long long>(sm_count, m.clusters_wanted * cs) / cs * cs;
  m.tpb = static_cast<int>(std::min<long long>(tpb, 1 << 30));
  m.cluster = cs;
  m.grid = static_cast<int>(grid);
  return m;
}

Algorithm flashinfer_algorithm(const Problem& p) {
  // Its table (MiB per world size) and MAX_COMM_SIZE (INT32_MAX rounded down to 2 MiB), trtllm_ar.py.
  constexpr double kMiB = 1024.0 * 1024.0;
  constexpr long long kMaxCommSize = 2147483647LL & ~((1LL << 21) - 1);
  double limit_mib = 0;
  switch (p.nranks) {
    case 2: limit_mib = 512; break;
    case 4: limit_mib = 64; break;
    case 8: limit_mib = 42; break;
    default:
      throw InvalidArgument("flashinfer policy: FlashInfer " + std::string(flashinfer_version()) +
                            "'s one-/two-shot rule has no entry for N = " + std::to_string(p.nranks) +
                            " (it knows 2, 4 and 8)");
  }
  const double elems = static_cast<double>(p.tokens) * p.hidden;
  const double comm_mib = elems * 2 * p.nranks * dtype_bytes(p.dtype) / kMiB;
  const double lamport_bytes = elems * p.nranks * (p.dtype == DType::fp32 ? 4 : 2);
  const bool oneshot = comm_mib <= limit_mib && lamport_bytes <= static_cast<double>(kMaxCommSize);
  if (!oneshot && p.tokens <= p.nranks)
    throw InvalidArgument("flashinfer policy: FlashInfer's rule picks two-shot, which it allows only for tokens > N (" +
                          std::to_string(p.tokens) + " tokens, N " + std::to_string(p.nranks) + ")");
  return oneshot ? Algorithm::oneshot : Algorithm::twoshot;
}

namespace {

// The registers one block may use (cudaDevAttrMaxRegistersPerBlock on sm_70 and later): FlashInfer's
// launcher caps its block size at this / registers per thread.
constexpr int kRegistersPerBlock = 65536;

LaunchConfig peer_config(Policy policy, const Problem& p, const GpuSpec& s, int max_threads_per_block = 1024) {
  const PeerMapping m = peer_mapping(policy, p, s.sm_count, s.cc_major, max_threads_per_block);
  const std::string who = std::string(to_string(policy)) + " policy (" + problem_text(p) + " on " + s.name + "): ";
  if (m.tpb > kMaxThreadsPerBlock)
    throw InvalidArgument(who + "the reference mapping tpb * cluster == threads_per_token needs tpb = " +
                          std::to_string(threads_per_token(p)) + " / " + std::to_string(m.cluster) + " = " +
                          std::to_string(m.tpb) + " > " + std::to_string(kMaxThreadsPerBlock) +
                          " (threads_per_token has no power-of-two factor large enough); the model and explicit "
                          "policies can cover it with vecs_per_thread > 1");
  if (m.grid < m.cluster)
    throw InvalidArgument(who + "grid = " + std::to_string(m.grid) + " < cluster = " + std::to_string(m.cluster) +
                          " (fewer SMs than one cluster)");
  if (p.algo == Algorithm::twoshot && m.tpb < p.nranks)
    throw InvalidArgument(who + "two-shot needs tpb >= nranks, got tpb = " + std::to_string(m.tpb));
  if (p.algo == Algorithm::twoshot && m.grid > kPeerTwoShotMaxBlocks)
    throw InvalidArgument(who + "grid = " + std::to_string(m.grid) + " exceeds the peer's " +
                          std::to_string(kPeerTwoShotMaxBlocks) + " two-shot barrier flags");
  LaunchConfig c;
  c.tpb = m.tpb;
  c.cluster = m.cluster;
  c.grid = m.grid;
  c.vecs_per_thread = 1;
  c.algo = p.algo;
  return c;
}

LaunchConfig occupancy_config(const Problem& p, const GpuSpec& s, const KernelResources& res) {
  LaunchConfig c = peer_config(Policy::trtllm, p, s);
  const int bps = blocks_per_sm(s, c.tpb, res.regs_per_thread, res.smem_per_block_bytes);
  long long cap = max_active_clusters(s, c.cluster, bps);
  if (p.algo == Algorithm::twoshot) {
    cap = std::min<long long>(cap, static_cast<long long>(bps) * s.sm_count / c.cluster);
    cap = std::min<long long>(cap, kMaxTwoShotBlocks / c.cluster);
  }
  cap = std::min<long long>(cap, kMaxGridBlocks / c.cluster);
  const long long clusters = std::min(clusters_wanted(p), cap);
  if (clusters < 1)
    throw InvalidArgument("occupancy policy (" + problem_text(p) + " on " + s.name + "): no cluster of " +
                          std::to_string(c.cluster) + " x " + std::to_string(c.tpb) + " threads with " +
                          std::to_string(res.regs_per_thread) + " registers/thread can be resident");
  c.grid = static_cast<int>(clusters * c.cluster);
  return c;
}

}  // namespace

LaunchConfig choose_launch_config(Policy policy, const Problem& p, const GpuSpec& s, const KernelResources& res,
                                  const Calibration& cal, const LaunchConfig* explicit_cfg,
                                  const std::vector<Impl>& bodies) {
  return explain_launch_config(policy, p, s, res, cal, explicit_cfg, bodies).config;
}

PolicyChoice explain_launch_config(Policy policy, const Problem& p, const GpuSpec& s, const KernelResources& res,
                                   const Calibration& cal, const LaunchConfig* explicit_cfg,
                                   const std::vector<Impl>& bodies) {
  validate(p);
  validate(s);
  if (bodies.empty()) throw InvalidArgument(std::string(to_string(policy)) + " policy: no kernel body given");
  for (Impl b : bodies)
    if (!is_kernel_body(b))
      throw InvalidArgument(std::string(to_string(policy)) + " policy: " + to_string(b) +
                            " is a baseline, not a kernel body (" + kernel_body_names() + ")");
  if (policy != Policy::model && bodies.size() != 1)
    throw InvalidArgument(std::string(to_string(policy)) +
                          " policy: takes one kernel body; only the model policy chooses among several (--kernel auto)");
  PolicyChoice choice;
  LaunchConfig& c = choice.config;
  switch (policy) {
    case Policy::legacy:
    case Policy::trtllm: c = peer_config(policy, p, s); c.impl = bodies.front(); break;
    case Policy::occupancy: c = occupancy_config(p, s, res); c.impl = bodies.front(); break;
    case Policy::flashinfer: {
      Problem chosen = p;
      chosen.algo = flashinfer_algorithm(p);
      const int max_tpb = std::min(kMaxThreadsPerBlock, kRegistersPerBlock / std::max(1, res.regs_per_thread));
      c = peer_config(Policy::trtllm, chosen, s, max_tpb);
      c.impl = bodies.front();
      choice.note = std::string("FlashInfer ") + flashinfer_version() + "'s rule: " + to_string(chosen.algo) +
                    (chosen.algo != p.algo ? " (problem asked " + std::string(to_string(p.algo)) + ")" : "");
      break;
    }
    case Policy::model: {
      const SearchResult sr = search_best_config(p, s, res, cal, model_algorithms(p), bodies);
      c = sr.best;
      choice.note = "searched " + std::to_string(sr.evaluated) + " legal candidates (" +
                    model_search_space(p, bodies) + ")";
      if (c.algo != p.algo)
        choice.note += "; switched algorithm: " + std::string(to_string(c.algo)) + " (problem asked " +
                       to_string(p.algo) + ")";
      break;
    }
    case Policy::explicit_config:
      if (!explicit_cfg) throw InvalidArgument("explicit policy: no configuration given (tpb / cluster / grid)");
      c = *explicit_cfg;
      c.impl = bodies.front();
      break;
  }
  if (!runs_algorithm(c.impl, c.algo))
    throw InvalidArgument(std::string(to_string(policy)) + " policy: " + algorithm_limit(c.impl) + " (it has no " +
                          to_string(c.algo) + " kernel); use --kernel reference or --policy model");
  const std::string v = legality_violation(p, c, s, res);
  if (!v.empty())
    throw InvalidArgument(std::string(to_string(policy)) + " policy produced an illegal configuration: " + v);
  return choice;
}

std::string model_search_space(const Problem& p, const std::vector<Impl>& bodies) {
  const std::vector<Algorithm> algos = model_algorithms(p);
  bool any_twoshot = false, all_twoshot = true;
  std::string names, oneshot_only;
  for (Impl b : bodies) {
    names += (names.empty() ? "" : ", ") + std::string(to_string(b));
    const bool two = runs_algorithm(b, Algorithm::twoshot);
    any_twoshot = any_twoshot || two;
    all_twoshot = all_twoshot && two;
    if (!two) oneshot_only += (oneshot_only.empty() ? "" : ", ") + std::string(to_string(b));
  }
  std::string space;
  if (algos.size() == 1) space = "one-shot only: tokens < ranks";
  else if (!any_twoshot) space = "one-shot only: " + oneshot_only + " runs one-shot only";
  else if (!all_twoshot) space = "one-shot + two-shot; " + oneshot_only + " one-shot only";
  else space = "one-shot + two-shot";
  return space + "; kernel " + names;
}

int bodies_in_search_note(const std::string& note) {
  const std::string key = "; kernel ";
  const size_t at = note.rfind(key);
  if (at == std::string::npos) return 0;
  const size_t begin = at + key.size();
  const size_t end = std::min(note.find(')', begin), note.size());
  if (end <= begin) return 0;
  return 1 + static_cast<int>(std::count(note.begin() + static_cast<std::ptrdiff_t>(begin),
                                         note.begin() + static_cast<std::ptrdiff_t>(end), ','));
}

LaunchConfig separate_norm_config(const Problem& problem, const GpuSpec& spec) {
  const long long vectors = threads_per_token(problem);  // one 16-byte vector per thread at vpt 1
  LaunchConfig cfg;
  cfg.algo = problem.algo;
  cfg.cluster = 1;
  for (int vpt : {1, 2, 4}) {
    cfg.vecs_per_thread = vpt;
    cfg.tpb = static_cast<int>((vectors + vpt - 1) / vpt);
    if (cfg.tpb <= spec.max_threads_per_block) break;
  }
  if (cfg.tpb > spec.max_threads_per_block)
    throw InvalidArgument("H = " + std::to_string(problem.hidden) + " needs " + std::to_string(vectors) +
                          " vectors per token: more than 4 per thread in one block of " +
                          std::to_string(spec.max_threads_per_block) + " threads");
  cfg.vecs_per_thread = static_cast<int>((vectors + cfg.tpb - 1) / cfg.tpb);  // what the block really needs
  const long long cap = static_cast<long long>(spec.sm_count) * kNormBlocksPerSm;
  cfg.grid = static_cast<int>(std::min<long long>(std::max(problem.tokens, 1), std::max(cap, 1LL)));
  return cfg;
}

}  // namespace arlab::model
