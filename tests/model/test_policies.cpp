// Launch-configuration policies: every row of the docs/policies.md table and the other-GPU rows, the
// occupancy and explicit policies, check_legal's rules, and property tests over tokens, every
// valid hidden size 1024..16384, N in {2,4,8,16} and all dtypes.
#include <algorithm>
#include <cstdint>
#include <string>

#include "model/candidates.h"
#include "model/legality.h"
#include "model/occupancy.h"
#include "model/policies.h"
#include "model/timing_model.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::model;

namespace {
const KernelResources kRes{64, 0};  // the __launch_bounds__(1024) register cap

Problem problem(int tokens, int hidden, int n = 2, Algorithm algo = Algorithm::oneshot, DType d = DType::bf16) {
  Problem p;
  p.tokens = tokens;
  p.hidden = hidden;
  p.nranks = n;
  p.algo = algo;
  p.dtype = d;
  return p;
}

std::string shape(const LaunchConfig& c) {
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid);
}
std::string shape(const PeerMapping& m) {
  return std::to_string(m.tpb) + "/" + std::to_string(m.cluster) + "/" + std::to_string(m.grid);
}
LaunchConfig choose(Policy pol, const Problem& p, const GpuSpec& s) {
  return choose_launch_config(pol, p, s, kRes, default_calibration());
}
}  // namespace

TEST_CASE("docs/policies.md table: bf16, 132 SMs, sm_90, one-shot", "[policies]") {
  struct Row {
    int hidden, tokens;
    const char* legacy;
    const char* trtllm;
  };
  const Row rows[] = {
      {4096, 1, "128/4/4", "128/4/4"},       {4096, 32, "128/4/128", "128/4/128"},
      {4096, 64, "128/4/132", "256/2/128"},  {4096, 128, "128/4/132", "512/1/128"},
      {8192, 1, "128/8/8", "128/8/8"},       {8192, 16, "128/8/128", "128/8/128"},
      {8192, 32, "128/8/128", "256/4/128"},  {8192, 64, "128/8/128", "512/2/128"},
      {8192, 128, "128/8/128", "1024/1/128"},
  };
  for (const char* gpu : {"h100_sxm", "h200_sxm"}) {
    const GpuSpec s = gpu_preset(gpu);
    for (const Row& r : rows) {
      INFO(gpu << " H " << r.hidden << " tokens " << r.tokens);
      const Problem p = problem(r.tokens, r.hidden);
      CHECK(shape(choose(Policy::legacy, p, s)) == r.legacy);
      CHECK(shape(choose(Policy::trtllm, p, s)) == r.trtllm);
      CHECK(choose(Policy::legacy, p, s).vecs_per_thread == 1);
    }
  }
}

TEST_CASE("docs/policies.md: two-shot, tp8, H 8192", "[policies]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Problem p256 = problem(256, 8192, 8, Algorithm::twoshot);
  const Problem p2048 = problem(2048, 8192, 8, Algorithm::twoshot);
  CHECK(shape(peer_mapping(Policy::legacy, p256, s.sm_count, s.cc_major)) == "128/8/128");
  CHECK(shape(peer_mapping(Policy::trtllm, p256, s.sm_count, s.cc_major)) == "256/4/128");
  CHECK(shape(choose(Policy::trtllm, p2048, s)) == "1024/1/132");
  // With 64 registers/thread (8 blocks of 128 or 4 of 256 threads per SM) both peer grids are
  // co-resident, so the policies return them as they are.
  CHECK(shape(choose(Policy::legacy, p256, s)) == "128/8/128");
  CHECK(shape(choose(Policy::trtllm, p256, s)) == "256/4/128");
  CHECK(shape(choose(Policy::occupancy, p256, s)) == "256/4/128");  // ceil(256/8) = 32 clusters wanted, all fit
  // At one block per SM, GPC placement leaves 120 SMs for clusters of 4 or 8 on this H200 and
  // arlab's two-shot barrier needs co-residency: the peer grid of 128 blocks is refused, naming
  // the rule.
  const KernelResources heavy{255, 0};  // 255 regs: 8 warps/SM -> one block of 256 threads per SM
  const Problem big = problem(2048, 16384, 8, Algorithm::twoshot);  // legacy 256/8/128
  CHECK(shape(peer_mapping(Policy::legacy, big, s.sm_count, s.cc_major)) == "256/8/128");
  CHECK_THROWS_WITH(choose_launch_config(Policy::legacy, big, s, heavy, default_calibration()),
                    Catch::Contains("rule 4 (two-shot co-residency)") && Catch::Contains("120 blocks"));
  // trtllm's shape here is 1024/2: a block of 1024 threads x 255 registers cannot launch at all.
  CHECK_THROWS_WITH(choose_launch_config(Policy::occupancy, big, s, heavy, default_calibration()),
                    Catch::Contains("can be resident"));
}

TEST_CASE("docs/policies.md: other GPUs, 128 tokens, one-shot, H 8192", "[policies]") {
  const Problem p = problem(128, 8192);
  CHECK(shape(choose(Policy::legacy, p, gpu_preset("b200"))) == "128/8/144");  // 148 SMs
  CHECK(shape(choose(Policy::legacy, p, gpu_preset("h20"))) == "128/8/72");    // 78 SMs
  CHECK(shape(choose(Policy::trtllm, p, gpu_preset("h20"))) == "1024/1/78");
  // No clusters below cc 9: legacy and trtllm coincide on an A100.
  const GpuSpec a = gpu_preset("a100_sxm");
  CHECK(shape(choose(Policy::legacy, p, a)) == "1024/1/108");
  CHECK(choose(Policy::legacy, p, a) == choose(Policy::trtllm, p, a));
}

TEST_CASE("occupancy policy: trtllm's shape, grid = min(clusters wanted, resident capacity)", "[policies]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  // 1024 tokens, H 4096: trtllm 512/1/132; 2 blocks of 512 x 64 regs per SM -> 264 clusters.
  const Problem p = problem(1024, 4096);
  CHECK(shape(choose(Policy::trtllm, p, s)) == "512/1/132");
  CHECK(shape(choose(Policy::occupancy, p, s)) == "512/1/264");
  // Few tokens: as many clusters as tokens.
  CHECK(shape(choose(Policy::occupancy, problem(16, 8192), s)) == "128/8/128");
  // trtllm caps the grid at the SM count; occupancy lets 2 blocks of 512 share an SM.
  CHECK(shape(choose(Policy::trtllm, problem(200, 4096), s)) == "512/1/132");
  CHECK(shape(choose(Policy::occupancy, problem(200, 4096), s)) == "512/1/200");
  CHECK(shape(choose(Policy::occupancy, problem(40, 8192), s)) == "512/2/80");  // as trtllm: 40 clusters fit
}

TEST_CASE("explicit policy: accepted after check_legal, refused with the rule named", "[policies][legality]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Problem p = problem(128, 8192);
  LaunchConfig c;
  c.tpb = 256;
  c.cluster = 2;
  c.grid = 256;
  c.vecs_per_thread = 2;
  CHECK(choose_launch_config(Policy::explicit_config, p, s, kRes, default_calibration(), &c) == c);
  c.vecs_per_thread = 1;
  CHECK_THROWS_WITH(choose_launch_config(Policy::explicit_config, p, s, kRes, default_calibration(), &c),
                    Catch::Contains("rule 2 (token coverage)"));
  CHECK_THROWS_WITH(choose_launch_config(Policy::explicit_config, p, s, kRes, default_calibration(), nullptr),
                    Catch::Contains("no configuration given"));
}

TEST_CASE("check_legal names each broken rule", "[legality]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Problem p = problem(128, 4096);  // 512 vectors per token
  auto cfg = [](int tpb, int cs, int grid, int vpt, Algorithm a = Algorithm::oneshot) {
    LaunchConfig c;
    c.tpb = tpb;
    c.cluster = cs;
    c.grid = grid;
    c.vecs_per_thread = vpt;
    c.algo = a;
    return c;
  };
  auto violation = [&](const Problem& pp, const LaunchConfig& c, const KernelResources& r = kRes) {
    return legality_violation(pp, c, s, r);
  };
  CHECK(violation(p, cfg(512, 1, 128, 1)).empty());
  CHECK_THAT(violation(p, cfg(2048, 1, 128, 1)), Catch::Contains("rule 1 (block size)"));
  CHECK_THAT(violation(p, cfg(0, 1, 128, 1)), Catch::Contains("rule 1 (block size)"));
  CHECK_THAT(violation(p, cfg(128, 3, 129, 2)), Catch::Contains("rule 1 (cluster size)"));
  CHECK_THAT(violation(p, cfg(128, 16, 128, 1)), Catch::Contains("rule 1 (cluster size)"));
  CHECK_THAT(violation(p, cfg(128, 4, 130, 1)), Catch::Contains("rule 1 (grid)"));
  CHECK_THAT(violation(p, cfg(128, 4, 70000, 1)), Catch::Contains("rule 1 (grid)"));
  CHECK_THAT(violation(p, cfg(128, 1, 128, 3)), Catch::Contains("rule 2 (vectors per thread)"));
  CHECK_THAT(violation(p, cfg(128, 1, 128, 2)), Catch::Contains("rule 2 (token coverage)"));
  CHECK(violation(p, cfg(128, 1, 128, 4)).empty());
  CHECK_THAT(violation(p, cfg(96, 2, 128, 4)), Catch::Contains("rule 2 (token coverage)"));  // needs ceil(512/192) = 3
  CHECK(violation(p, cfg(1024, 1, 128, 1)).empty());  // threads past the token idle
  CHECK_THAT(violation(p, cfg(1024, 1, 128, 1), KernelResources{65, 0}), Catch::Contains("rule 3 (resources)"));
  const GpuSpec a = gpu_preset("a100_sxm");
  CHECK_THAT(legality_violation(p, cfg(128, 4, 128, 1), a, kRes),
             Catch::Contains("exceeds the maximum cluster size 1"));
  // Two-shot rules.
  const Problem t = problem(128, 4096, 8, Algorithm::twoshot);
  CHECK(violation(t, cfg(512, 1, 16, 1, Algorithm::twoshot)).empty());
  CHECK_THAT(violation(problem(4, 4096, 8, Algorithm::twoshot), cfg(512, 1, 4, 1, Algorithm::twoshot)),
             Catch::Contains("rule 4 (two-shot tokens)"));
  CHECK_THAT(violation(problem(128, 1024, 16, Algorithm::twoshot, DType::fp32), cfg(8, 8, 16, 4, Algorithm::twoshot)),
             Catch::Contains("rule 4 (two-shot block size)"));
  CHECK(violation(t, cfg(1024, 1, 132, 1, Algorithm::twoshot)).empty());
  CHECK_THAT(violation(t, cfg(1024, 1, 133, 1, Algorithm::twoshot)), Catch::Contains("rule 4 (two-shot co-residency)"));
  CHECK_THAT(violation(t, cfg(512, 1, 512, 1, Algorithm::twoshot)), Catch::Contains("rule 4 (two-shot co-residency)"));
  const KernelResources heavy{255, 0};
  CHECK(violation(t, cfg(256, 8, 120, 1, Algorithm::twoshot), heavy).empty());
  CHECK_THAT(violation(t, cfg(256, 8, 128, 1, Algorithm::twoshot), heavy),
             Catch::Contains("rule 4 (two-shot co-residency)") && Catch::Contains("15 clusters of 8 (120 blocks)"));
  CHECK(violation(t, cfg(256, 8, 128, 1, Algorithm::oneshot), heavy).empty());  // one-shot needs no co-residency
  CHECK_THAT(violation(problem(2048, 2048, 8, Algorithm::twoshot), cfg(64, 1, 1032, 4, Algorithm::twoshot)),
             Catch::Contains("rule 4 (two-shot barrier flags)"));
  CHECK_THROWS_AS(check_legal(t, cfg(1024, 1, 133, 1, Algorithm::twoshot), s, kRes), InvalidArgument);
  // Invalid problems are reported as such.
  CHECK_THAT(violation(problem(128, 4095), cfg(512, 1, 128, 1)), Catch::Contains("invalid problem"));
}

namespace {
// The largest of 8, 4, 2, 1 dividing threads_per_token: the peer mapping's first cluster size.
int first_cluster(long long tpt) {
  int cs = 8;
  while (cs > 1 && tpt % cs != 0) cs /= 2;
  return cs;
}

struct Tally {
  long long returned = 0, refused_tpb = 0, refused_coresidency = 0;
};

// Checks every docs/policies.md invariant of the peer policies, and that every refusal has a reason the
// test computes independently.
void check_peer(Policy pol, const Problem& p, const GpuSpec& s, Tally& tally) {
  const long long tpt = threads_per_token(p);
  const bool tpb_impossible = tpt / first_cluster(tpt) > 1024;
  LaunchConfig c;
  try {
    c = choose(pol, p, s);
  } catch (const InvalidArgument& e) {
    const std::string msg = e.what();
    if (tpb_impossible) {
      ++tally.refused_tpb;
      return;
    }
    const PeerMapping m = peer_mapping(pol, p, s.sm_count, s.cc_major);
    const int bps = blocks_per_sm(s, m.tpb, kRes.regs_per_thread, 0);
    const bool not_coresident =
        p.algo == Algorithm::twoshot && m.grid > max_active_clusters(s, m.cluster, bps) * m.cluster;
    INFO(to_string(pol) << " refused " << p.tokens << " tokens H " << p.hidden << " N " << p.nranks << " "
                        << to_string(p.dtype) << " " << to_string(p.algo) << ": " << msg);
    REQUIRE(not_coresident);
    ++tally.refused_coresidency;
    return;
  }
  INFO(to_string(pol) << " " << p.tokens << " tokens H " << p.hidden << " N " << p.nranks << " "
                      << to_string(p.dtype) << " " << to_string(p.algo) << " -> " << shape(c));
  REQUIRE_FALSE(tpb_impossible);
  REQUIRE(static_cast<long long>(c.tpb) * c.cluster == tpt);  // reference mapping
  REQUIRE(c.vecs_per_thread == 1);
  REQUIRE(c.grid % c.cluster == 0);
  REQUIRE(c.grid <= s.sm_count);
  REQUIRE(c.tpb <= 1024);
  REQUIRE(c.grid <= kPeerTwoShotMaxBlocks);
  if (p.algo == Algorithm::twoshot) REQUIRE(c.tpb >= p.nranks);
  REQUIRE(legality_violation(p, c, s, kRes).empty());
  ++tally.returned;
}

void check_occupancy(const Problem& p, const GpuSpec& s) {
  LaunchConfig c;
  try {
    c = choose(Policy::occupancy, p, s);
  } catch (const InvalidArgument&) {
    const long long tpt = threads_per_token(p);
    REQUIRE(tpt / first_cluster(tpt) > 1024);  // only trtllm's own impossibility
    return;
  }
  const PeerMapping t = peer_mapping(Policy::trtllm, p, s.sm_count, s.cc_major);
  REQUIRE(c.tpb == t.tpb);
  REQUIRE(c.cluster == t.cluster);
  REQUIRE(c.grid % c.cluster == 0);
  const int bps = blocks_per_sm(s, c.tpb, kRes.regs_per_thread, 0);
  REQUIRE(c.grid <= max_active_clusters(s, c.cluster, bps) * c.cluster);
  REQUIRE(legality_violation(p, c, s, kRes).empty());
}
}  // namespace

TEST_CASE("property: every valid H 1024..16384, all dtypes, N 2/4/8/16, sampled tokens, both algorithms",
          "[policies][property]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const int tokens[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 64, 100, 127, 128, 129, 255, 256, 500, 1000, 1024, 2047, 4096};
  Tally tally;
  long long problems = 0;
  for (DType d : {DType::bf16, DType::fp16, DType::fp32}) {
    const int step = vec_elems(d);
    for (int h = 1024; h <= 16384; h += step) {
      for (int n : {2, 4, 8, 16}) {
        for (Algorithm a : {Algorithm::oneshot, Algorithm::twoshot}) {
          // Rotate through the token samples so each (H, N, algo) sees three of them and every
          // sample meets every H residue class over the sweep.
          for (int k = 0; k < 3; ++k) {
            const int t = tokens[(h / step + 7 * k + n + (a == Algorithm::twoshot ? 5 : 0)) % 21];
            Problem p = problem(t, h, n, a, d);
            if (a == Algorithm::twoshot && t < n) p.tokens = n;
            ++problems;
            check_peer(Policy::legacy, p, s, tally);
            check_peer(Policy::trtllm, p, s, tally);
            check_occupancy(p, s);
          }
        }
      }
    }
  }
  WARN("peer policies over " << problems << " problems: " << tally.returned << " configurations returned, "
                             << tally.refused_tpb << " refused (H/VEC has no power-of-two factor giving tpb <= 1024), "
                             << tally.refused_coresidency << " refused (two-shot grid not co-resident)");
  CHECK(tally.returned > 0);
}

TEST_CASE("property: FP4 patterns over every H multiple of 16", "[policies][property]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  Tally tally;
  for (int h = 1024; h <= 16384; h += 16) {
    Problem p = problem(1 + (h / 16) % 4096, h, 2 << ((h / 16) % 4), Algorithm::oneshot, DType::bf16);
    p.pattern = Pattern::ar_res_rms_fp4;
    check_peer(Policy::legacy, p, s, tally);
    check_peer(Policy::trtllm, p, s, tally);
    check_occupancy(p, s);
  }
  CHECK(tally.refused_tpb == 0);  // multiples of 16 elements always have a cluster factor >= 2
}

TEST_CASE("property: every token count 1..4096 for the seed sizes", "[policies][property]") {
  for (const char* gpu : {"h200_sxm", "b200", "h20", "a100_sxm"}) {
    const GpuSpec s = gpu_preset(gpu);
    Tally tally;
    for (int h : {4096, 8192})
      for (int n : {2, 4, 8, 16})
        for (int t = 1; t <= 4096; ++t)
          for (Algorithm a : {Algorithm::oneshot, Algorithm::twoshot}) {
            if (a == Algorithm::twoshot && t < n) continue;
            const Problem p = problem(t, h, n, a);
            check_peer(Policy::legacy, p, s, tally);
            check_peer(Policy::trtllm, p, s, tally);
            check_occupancy(p, s);
          }
    INFO(gpu);
    CHECK(tally.returned > 0);
  }
}

// The model policy's search returns its lowest prediction, so against a configuration among its
// candidates it wins by construction: what is tested is whether the other policies' configurations
// are among them (model/candidates.h: every grid up to the resident-cluster limit), and, for those
// that are not (more clusters than can be resident at once), that the model predicts them slower.
TEST_CASE("property: model policy legal; candidates cover the other policies up to the resident limit",
          "[policies][model]") {
  const GpuSpec h = gpu_preset("h200_sxm");
  const GpuSpec emu = sm_partition(h, 4);
  const Calibration cal = default_calibration();
  std::uint64_t x = 12345;
  auto next = [&x](int n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
    return static_cast<int>((x >> 33) % static_cast<std::uint64_t>(n));
  };
  int covered = 0, beyond_resident = 0;
  for (int i = 0; i < 60; ++i) {
    const DType d = static_cast<DType>(next(3));
    const int step = vec_elems(d);
    const int hidden = 1024 + step * next((16384 - 1024) / step + 1);
    const int n = 2 << next(4);
    const Problem p = problem(1 + next(4096), hidden, n, next(3) == 0 ? Algorithm::twoshot : Algorithm::oneshot, d);
    if (p.algo == Algorithm::twoshot && p.tokens < n) continue;
    const GpuSpec& s = i % 2 ? emu : h;
    const LaunchConfig m = choose_launch_config(Policy::model, p, s, kRes, cal);
    Problem run = p;
    run.algo = m.algo;
    INFO(p.tokens << " tokens H " << hidden << " N " << n << " " << to_string(d) << " on " << s.name << " -> "
                  << to_string(m));
    REQUIRE(legality_violation(run, m, s, kRes).empty());
    const std::vector<LaunchConfig> cands = candidate_configs(p, s, kRes, model_algorithms(p));
    for (Policy pol : {Policy::legacy, Policy::trtllm, Policy::occupancy}) {
      LaunchConfig c;
      try {
        c = choose_launch_config(pol, p, s, kRes, cal);
      } catch (const InvalidArgument&) {
        continue;
      }
      INFO(to_string(pol) << " " << to_string(c));
      if (std::find(cands.begin(), cands.end(), c) != cands.end()) {
        ++covered;
        continue;
      }
      const int resident = max_active_clusters(s, c.cluster, blocks_per_sm(s, c.tpb, kRes.regs_per_thread, 0));
      CHECK(c.grid / c.cluster > resident);  // outside the candidates only beyond the resident limit
      CHECK(predict_total_us(run, m, s, cal, kRes) < predict_total_us(p, c, s, cal, kRes));
      ++beyond_resident;
    }
  }
  INFO(covered << " peer configurations among the candidates, " << beyond_resident << " beyond the resident limit");
  CHECK(covered > 100);  // the sample mostly exercises coverage
}

TEST_CASE("candidate space: widths the issue asks for, all legal", "[candidates]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Problem p = problem(128, 4096);
  const auto cands = candidate_configs(p, s, kRes, {Algorithm::oneshot, Algorithm::twoshot});
  bool seen_cluster[9] = {}, seen_vpt[5] = {}, seen_twoshot = false, seen_tpb64 = false, seen_tpb1024 = false;
  bool seen_one_cluster_grid = false;
  for (const auto& c : cands) {
    Problem run = p;
    run.algo = c.algo;
    REQUIRE(legality_violation(run, c, s, kRes).empty());
    seen_cluster[c.cluster] = true;
    seen_vpt[c.vecs_per_thread] = true;
    seen_twoshot |= c.algo == Algorithm::twoshot;
    seen_tpb64 |= c.tpb == 64;
    seen_tpb1024 |= c.tpb == 1024;
    seen_one_cluster_grid |= c.grid == c.cluster;
  }
  CHECK(seen_cluster[1]);
  CHECK(seen_cluster[2]);
  CHECK(seen_cluster[4]);
  CHECK(seen_cluster[8]);
  CHECK(seen_vpt[1]);
  CHECK(seen_vpt[2]);
  CHECK(seen_vpt[4]);
  CHECK(seen_twoshot);
  CHECK(seen_tpb64);
  CHECK(seen_tpb1024);
  CHECK(seen_one_cluster_grid);
  // The occupancy limit is reached: 64 regs x 128 threads -> 8 blocks/SM -> 1056 clusters of 1;
  // one-shot never uses more clusters than tokens (128).
  bool seen_max = false;
  for (const auto& c : cands) seen_max |= c.algo == Algorithm::oneshot && c.cluster == 1 && c.grid == 128;
  CHECK(seen_max);
  // An odd hidden size still has candidates (exact covers with vpt 1/2/4).
  CHECK_FALSE(candidate_configs(problem(64, 16376), s, kRes, {Algorithm::oneshot}).empty());
  CHECK(model_algorithms(problem(1, 4096, 2)).size() == 1);
}

TEST_CASE("candidate space: clusters of 4 and 8 beyond one block per SM at N = 2 only", "[candidates]") {
  // The picks this keeps out at N >= 4 and lets in at N = 2 (data/h100/candidate_lift_emulated.csv): TP2 H 8192 x
  // 16 tokens at 128/8/128 (16 clusters of 8 on the 66-SM partition: two blocks on some SMs), TP4 H 4096 x 8 at
  // 64/8/64 (8 clusters of 8 on 33 SMs).
  const GpuSpec h = gpu_preset("h200_sxm");
  const auto has = [](const std::vector<LaunchConfig>& cands, int tpb, int cluster, int grid) {
    return std::any_of(cands.begin(), cands.end(), [&](const LaunchConfig& c) {
      return c.algo == Algorithm::oneshot && c.tpb == tpb && c.cluster == cluster && c.grid == grid;
    });
  };
  const auto tp2 = candidate_configs(problem(16, 8192, 2), sm_partition(h, 2), kRes, {Algorithm::oneshot});
  CHECK(has(tp2, 128, 8, 128));
  CHECK(has(tp2, 512, 2, 32));
  const auto tp4 = candidate_configs(problem(8, 4096, 4), sm_partition(h, 4), kRes, {Algorithm::oneshot});
  CHECK_FALSE(has(tp4, 64, 8, 64));
  CHECK(has(tp4, 64, 8, 32));  // 4 clusters of 8: one block per SM
  CHECK(has(tp4, 256, 2, 16));
  // The real node's GPU at N = 4 keeps the cap too: clusters of 8 up to 132 / 8 = 16 of them.
  const auto real4 = candidate_configs(problem(64, 4096, 4), h, kRes, {Algorithm::oneshot});
  for (const LaunchConfig& c : real4)
    if (c.cluster == 8) CHECK(c.grid <= 128);
}

TEST_CASE("policy names round-trip", "[policies]") {
  for (Policy p : all_policies()) CHECK(parse_policy(to_string(p)) == p);
  CHECK_THROWS_WITH(parse_policy("fastest"), Catch::Contains("fastest"));
}

// Kernel bodies (issue 13, common/implementations.h): every policy but the model takes
// exactly one and stamps it on its configuration, which is otherwise the reference variant's.
TEST_CASE("kernel variants: the fixed policies take one variant and stamp it", "[policies][variants]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Calibration cal = default_calibration();
  const std::vector<Impl> lean = {Impl::lean};
  for (const Problem& p : {problem(1, 4096), problem(128, 8192), problem(1000, 5120, 4)}) {
    for (Policy pol : {Policy::legacy, Policy::trtllm, Policy::occupancy}) {
      INFO(to_string(pol) << " " << p.tokens << " tokens H " << p.hidden);
      const LaunchConfig ref = choose_launch_config(pol, p, s, kRes, cal);
      CHECK(ref.impl == Impl::reference);
      LaunchConfig got = choose_launch_config(pol, p, s, kRes, cal, nullptr, lean);
      CHECK(got.impl == Impl::lean);
      got.impl = Impl::reference;
      CHECK(got == ref);  // the same launch shape: the variant is the only difference
      CHECK(explain_launch_config(pol, p, s, kRes, cal, nullptr, lean).config.impl == Impl::lean);
    }
  }
  // The explicit configuration's own variant is replaced by the one given.
  const Problem p = problem(128, 8192);
  LaunchConfig c;
  c.tpb = 256;
  c.cluster = 2;
  c.grid = 256;
  c.vecs_per_thread = 2;
  c.impl = Impl::reference;
  CHECK(choose_launch_config(Policy::explicit_config, p, s, kRes, cal, &c, lean).impl == Impl::lean);
  c.impl = Impl::lean;
  CHECK(choose_launch_config(Policy::explicit_config, p, s, kRes, cal, &c).impl == Impl::reference);
}

TEST_CASE("kernel variants: refusals name the policy and the variant", "[policies][variants]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Calibration cal = default_calibration();
  const Problem one = problem(128, 8192);
  const Problem two = problem(2048, 8192, 8, Algorithm::twoshot);
  for (Policy pol : {Policy::legacy, Policy::trtllm, Policy::occupancy}) {
    INFO(to_string(pol));
    CHECK_THROWS_WITH(choose_launch_config(pol, one, s, kRes, cal, nullptr, arlab_bodies()),
                      Catch::Contains(to_string(pol)) &&
                          Catch::Contains("only the model policy chooses among several"));
    CHECK_THROWS_WITH(choose_launch_config(pol, one, s, kRes, cal, nullptr, {}),
                      Catch::Contains("no kernel body given"));
    // Both bodies run both algorithms: a two-shot problem keeps its algorithm with either.
    for (Impl body : {Impl::reference, Impl::lean}) {
      const LaunchConfig c = choose_launch_config(pol, two, s, kRes, cal, nullptr, {body});
      CHECK(c.algo == Algorithm::twoshot);
      CHECK(c.impl == body);
    }
  }
  LaunchConfig c = choose_launch_config(Policy::trtllm, two, s, kRes, cal);
  CHECK(choose_launch_config(Policy::explicit_config, two, s, kRes, cal, &c, {Impl::lean}).impl == Impl::lean);
  CHECK_THROWS_WITH(choose_launch_config(Policy::model, one, s, kRes, cal, nullptr, {}),
                    Catch::Contains("no kernel body given"));
  CHECK_THROWS_AS(candidate_configs(one, s, kRes, {Algorithm::oneshot}, {}), InvalidArgument);
}

TEST_CASE("kernel variants: the model policy searches the variants it is given", "[policies][variants][model]") {
  const GpuSpec h = gpu_preset("h200_sxm");
  const GpuSpec emu = sm_partition(h, 2);
  const Calibration cal = default_calibration();
  const std::vector<Impl> ref = {Impl::reference};
  const std::vector<Impl> lean = {Impl::lean};
  const std::vector<Impl> both = arlab_bodies();
  // One-shot problems (tokens < N too: one-shot only) and problems where two-shot is allowed.
  for (const Problem& p : {problem(1, 8192), problem(1, 4096, 4), problem(128, 8192), problem(128, 4096, 2),
                           problem(2048, 8192, 8, Algorithm::twoshot), problem(512, 4096, 4, Algorithm::twoshot)}) {
    for (const GpuSpec* s : {&h, &emu}) {
      INFO(p.tokens << " tokens H " << p.hidden << " N " << p.nranks << " " << to_string(p.algo) << " on " << s->name);
      const LaunchConfig r = choose_launch_config(Policy::model, p, *s, kRes, cal, nullptr, ref);
      const LaunchConfig l = choose_launch_config(Policy::model, p, *s, kRes, cal, nullptr, lean);
      const PolicyChoice b = explain_launch_config(Policy::model, p, *s, kRes, cal, nullptr, both);
      INFO("reference " << to_string(r) << ", lean " << to_string(l) << ", both " << to_string(b.config));
      CHECK(r.impl == Impl::reference);
      // Lean alone: one- or two-shot, always the lean body; tokens < N leaves one-shot only.
      CHECK(l.impl == Impl::lean);
      if (p.tokens < p.nranks) CHECK(l.algo == Algorithm::oneshot);
      // Both: the pick is no slower than either search alone.
      CHECK(b.note.find("kernel reference, lean") != std::string::npos);
      auto time = [&](const LaunchConfig& c) {
        Problem run = p;
        run.algo = c.algo;
        return predict_total_us(run, c, *s, cal, kRes);
      };
      CHECK(time(b.config) <= std::min(time(r), time(l)) + 1e-9);
      for (const LaunchConfig& c : {r, l, b.config}) {
        Problem run = p;
        run.algo = c.algo;
        CHECK(legality_violation(run, c, *s, kRes).empty());
      }
    }
  }
}

TEST_CASE("kernel variants: candidates double, one- and two-shot, with the lean body", "[candidates][variants]") {
  const GpuSpec s = gpu_preset("h200_sxm");
  const Problem p = problem(128, 4096);
  const auto all = candidate_configs(p, s, kRes, {Algorithm::oneshot, Algorithm::twoshot}, arlab_bodies());
  for (Algorithm algo : {Algorithm::oneshot, Algorithm::twoshot}) {
    INFO(to_string(algo));
    const auto ref = candidate_configs(p, s, kRes, {algo});
    size_t lean = 0, reference = 0;
    for (const LaunchConfig& c : all)
      if (c.algo == algo) (c.impl == Impl::lean ? lean : reference) += 1;
    CHECK(reference == ref.size());
    CHECK(lean == ref.size());
    // The lean candidates are the reference ones with the variant changed.
    for (LaunchConfig c : candidate_configs(p, s, kRes, {algo}, {Impl::lean})) {
      CHECK(c.impl == Impl::lean);
      c.impl = Impl::reference;
      CHECK(std::find(ref.begin(), ref.end(), c) != ref.end());
    }
  }
}

TEST_CASE("kernel variant names round-trip", "[variants]") {
  for (Impl v : kernel_bodies()) CHECK(parse_kernel_body(to_string(v)) == v);
  CHECK_THROWS_WITH(parse_kernel_body("fast"), Catch::Contains("'fast'") && Catch::Contains("reference, lean"));
}

TEST_CASE("bodies_in_search_note: model/auto's note lists several bodies, model/BODY's one, others none",
          "[policies]") {
  Problem p;
  p.tokens = 1;
  p.hidden = 4096;
  p.nranks = 2;
  const std::string auto_note = "searched 252 legal candidates (" +
                                model::model_search_space(p, {Impl::reference, Impl::lean}) + ")";
  const std::string lean_note = "searched 126 legal candidates (" + model::model_search_space(p, {Impl::lean}) + ")";
  CHECK(model::bodies_in_search_note(auto_note) == 2);
  CHECK(model::bodies_in_search_note(lean_note) == 1);
  CHECK(model::bodies_in_search_note("") == 0);
  CHECK(model::bodies_in_search_note("FlashInfer 0.7.2's rule: oneshot") == 0);
}
