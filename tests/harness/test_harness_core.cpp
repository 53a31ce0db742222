// CPU tests of the pure parts of harness/: timing statistics (docs/measurement.md figures), the pairwise
// covering-array generator the GPU correctness matrix uses, fault-word text, the node core (option
// checks, deadline, fault words), and the Lamport workspace layout / fault-word encoding shared
// with the kernels.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "common/problem.h"
#include "harness/covering_array.h"
#include "harness/fault_text.h"
#include "harness/node_core.h"
#include "harness/size_sweep.h"
#include "harness/timing_stats.h"
#include "kernels/device_fault.h"
#include "kernels/lamport_layout.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::harness;

namespace {
// Interpolated quantiles are not exact in binary floating point; Catch2's Approx differs between
// v2 and v3, so compare with an explicit tolerance.
bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }
}  // namespace

TEST_CASE("quantile interpolates between order statistics") {
  REQUIRE(quantile({3, 1, 2}, 0.5) == 2.0);
  REQUIRE(quantile({4, 1, 3, 2}, 0.5) == 2.5);
  REQUIRE(quantile({10, 20}, 0.0) == 10.0);
  REQUIRE(quantile({10, 20}, 1.0) == 20.0);
  REQUIRE(near(quantile({0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 0.1), 10.0));
  REQUIRE(near(quantile({0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 0.9), 90.0));
  const Spread3 s = spread3({5, 1, 4, 2, 3});
  REQUIRE(s.median == 3.0);
  REQUIRE(near(s.p10, 1.4));
  REQUIRE(near(s.p90, 4.6));
  REQUIRE_THROWS_AS(quantile({}, 0.5), InvalidArgument);
  REQUIRE_THROWS_AS(quantile({1}, 1.5), InvalidArgument);
}

TEST_CASE("combine_ranks: max duration, skew-free figure, spread") {
  // rank 0 starts early and waits for rank 1: its duration holds the start skew.
  const IterationFigures f = combine_ranks({100, 103}, {110, 111});
  REQUIRE(f.max_duration == 10.0);  // rank 0: 110 - 100
  REQUIRE(f.skew_free == 8.0);      // 111 - 103
  REQUIRE(f.rank_spread == 2.0);    // 10 - 8
  REQUIRE_THROWS_AS(combine_ranks({1}, {0}), InvalidArgument);
  REQUIRE_THROWS_AS(combine_ranks({1, 2}, {3}), InvalidArgument);
  REQUIRE_THROWS_AS(combine_ranks({}, {}), InvalidArgument);
}

TEST_CASE("combine_ranks: start skew is the spread of the start times") {
  const IterationFigures f = combine_ranks({100, 103, 101}, {110, 111, 112});
  REQUIRE(f.start_skew == 3.0);
}

TEST_CASE("to_relative_us keeps every nanosecond of epoch timestamps") {
  // CUPTI timestamps are ~1.8e18 ns. As doubles they step by 256 ns, and in microseconds by 0.25 us:
  // the quantization every arlab time showed before the integer origin.
  const uint64_t origin = 1'764'000'000'123'456'789ull;
  const uint64_t t = origin + 5'123;  // 5.123 us later
  REQUIRE(to_relative_us(t, origin) == 5.123);
  REQUIRE(to_relative_us(origin, t) == -5.123);  // a start before the origin (another process's)
  const double naive = static_cast<double>(t) / 1e3 - static_cast<double>(origin) / 1e3;
  REQUIRE(std::fabs(naive - 5.123) > 0.05);  // the old conversion: off by a large part of a 0.25 us step
}

TEST_CASE("median_ci: distribution-free order-statistic interval") {
  // n = 100, 95 %: the classical ranks are x_(40) and x_(61) (P(Bin(100, 1/2) <= 39) = 0.018).
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  std::reverse(v.begin(), v.end());  // order does not matter
  const MedianCI ci = median_ci(v, 0.95);
  REQUIRE(ci.exact);
  REQUIRE(ci.median == 50.5);
  REQUIRE(ci.lo == 40.0);
  REQUIRE(ci.hi == 61.0);
  REQUIRE(near(ci.relative_half_width(), 10.5 / 50.5));
  // Too few samples for 95 %: [min, max], flagged.
  const MedianCI tiny = median_ci({3, 1, 2}, 0.95);
  REQUIRE_FALSE(tiny.exact);
  REQUIRE(tiny.lo == 1.0);
  REQUIRE(tiny.hi == 3.0);
  // n = 6 is the smallest n with a 95 % interval: [x_(1), x_(6)].
  REQUIRE(median_ci({1, 2, 3, 4, 5, 6}, 0.95).exact);
  REQUIRE_THROWS_AS(median_ci({}, 0.95), InvalidArgument);
  REQUIRE_THROWS_AS(median_ci({1}, 1.0), InvalidArgument);
}

TEST_CASE("median_ci covers the true median at about the stated rate") {
  // 400 samples of 41 draws from a skewed distribution whose median is known: coverage >= 95 %.
  std::mt19937_64 rng(12345);
  std::exponential_distribution<double> expo(1.0);
  const double true_median = std::log(2.0);
  int covered = 0;
  const int trials = 400;
  for (int k = 0; k < trials; ++k) {
    std::vector<double> v(41);
    for (double& x : v) x = expo(rng);
    const MedianCI ci = median_ci(v, 0.95);
    if (ci.lo <= true_median && true_median <= ci.hi) ++covered;
  }
  REQUIRE(covered >= static_cast<int>(0.92 * trials));  // 95 % nominal (exact >= 95 %), 3 % slack for 400 trials
}

TEST_CASE("ratio_of_medians: paired rounds, bootstrap interval around the ratio") {
  // b is a with a 2 % drift per round; a/b's true ratio is 1.25 and the drift cancels in pairs.
  RoundSamples a, b;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  for (int k = 0; k < 30; ++k) {
    const double drift = 1.0 + 0.02 * k;
    std::vector<double> ra, rb;
    for (int i = 0; i < 16; ++i) {
      ra.push_back(1.25 * drift * (1.0 + noise(rng)));
      rb.push_back(drift * (1.0 + noise(rng)));
    }
    a.push_back(ra);
    b.push_back(rb);
  }
  const RatioCI r = ratio_of_medians(a, b, 0.95, 500, 99);
  REQUIRE(r.rounds == 30);
  REQUIRE(r.lo <= r.ratio);
  REQUIRE(r.ratio <= r.hi);
  REQUIRE(std::fabs(r.ratio - 1.25) < 0.05);
  REQUIRE(r.hi - r.lo < 0.2);
  // Deterministic for a seed.
  const RatioCI again = ratio_of_medians(a, b, 0.95, 500, 99);
  REQUIRE(again.lo == r.lo);
  REQUIRE(again.hi == r.hi);
  REQUIRE_THROWS_AS(ratio_of_medians(a, RoundSamples(29), 0.95, 10, 1), InvalidArgument);
  REQUIRE_THROWS_AS(ratio_of_medians({}, {}, 0.95, 10, 1), InvalidArgument);
}

TEST_CASE("stop rule: noise, iteration cap, time cap, and option validation") {
  StopRule rule;
  rule.max_noise = 0.01;
  rule.min_iters = 64;
  rule.max_iters = 1000;
  rule.max_time_s = 2.0;
  rule.min_rounds = 4;
  REQUIRE(stop_reason(rule, 32, 4, 0.1, 0.001) == StopReason::keep_going);  // below min_iters
  REQUIRE(stop_reason(rule, 64, 3, 0.1, 0.001) == StopReason::keep_going);  // below min_rounds
  REQUIRE(stop_reason(rule, 64, 4, 0.1, 0.001) == StopReason::noise_met);
  REQUIRE(stop_reason(rule, 64, 4, 0.1, 0.02) == StopReason::keep_going);
  REQUIRE(stop_reason(rule, 1000, 4, 0.1, 0.02) == StopReason::max_iters);
  REQUIRE(stop_reason(rule, 200, 4, 2.5, 0.02) == StopReason::max_time);
  REQUIRE_NOTHROW(validate(rule));
  StopRule bad = rule;
  bad.max_noise = 0;
  REQUIRE_THROWS_AS(validate(bad), InvalidArgument);
  bad = rule;
  bad.max_iters = 10;  // below min_iters
  REQUIRE_THROWS_AS(validate(bad), InvalidArgument);
  bad = rule;
  bad.min_rounds = 0;
  REQUIRE_THROWS_AS(validate(bad), InvalidArgument);
  bad = rule;
  bad.max_time_s = std::nan("");
  REQUIRE_THROWS_AS(validate(bad), InvalidArgument);
  TimingOptions t;
  REQUIRE_NOTHROW(validate(t));
  t.batch = kMaxTimingBatch + 1;
  REQUIRE_THROWS_AS(validate(t), InvalidArgument);
  t = TimingOptions{};
  t.warmup_ms = -1;
  REQUIRE_THROWS_AS(validate(t), InvalidArgument);
}

TEST_CASE("pairwise_cover covers every feasible pair and respects the constraint") {
  // The GPU matrix's shape: pattern x dtype x N x tokens x H x acc x config x pdl x sf layout, with
  // NVFP4 patterns (3, 5) excluded for fp32 (dtype index 2).
  const std::vector<int> levels = {6, 3, 3, 5, 5, 2, 8, 2, 2};
  auto allowed = [](const CoverRow& r) { return !((r[0] == 3 || r[0] == 5) && r[1] == 2); };
  const PairwiseCover c = pairwise_cover(levels, allowed);
  REQUIRE(covers_all_feasible_pairs(levels, allowed, c.rows));
  for (const CoverRow& r : c.rows) REQUIRE(allowed(r));
  // Lower bound: the two largest axes' product; the greedy stays well below the full product.
  REQUIRE(c.rows.size() >= 48u);
  REQUIRE(c.rows.size() < 120u);
  // Exactly the two excluded (pattern, dtype) pairs are infeasible.
  REQUIRE(c.infeasible.size() == 2u);
  for (const auto& p : c.infeasible) {
    REQUIRE(p.param_a == 0);
    REQUIRE(p.param_b == 1);
    REQUIRE(p.value_b == 2);
    REQUIRE((p.value_a == 3 || p.value_a == 5));
  }
  // Every value of every axis appears.
  for (size_t i = 0; i < levels.size(); ++i) {
    std::set<int> seen;
    for (const CoverRow& r : c.rows) seen.insert(r[i]);
    REQUIRE(static_cast<int>(seen.size()) == levels[i]);
  }
  // Deterministic.
  REQUIRE(pairwise_cover(levels, allowed).rows == c.rows);
}

TEST_CASE("covers_all_feasible_pairs detects a missing pair") {
  const std::vector<int> levels = {2, 2, 2};
  const PairwiseCover c = pairwise_cover(levels, nullptr);
  REQUIRE(covers_all_feasible_pairs(levels, nullptr, c.rows));
  std::vector<CoverRow> fewer(c.rows.begin(), c.rows.end() - 1);
  REQUIRE_FALSE(covers_all_feasible_pairs(levels, nullptr, fewer));
  REQUIRE_THROWS_AS(pairwise_cover({3}, nullptr), InvalidArgument);
  REQUIRE_THROWS_AS(pairwise_cover({2, 0}, nullptr), InvalidArgument);
}

TEST_CASE("fault words round-trip and read as text") {
  using kernels::WaitKind;
  const unsigned long long w = kernels::encode_fault(WaitKind::peer_data, 3, 7, 1000, 12345);
  const kernels::FaultInfo f = kernels::decode_fault(w);
  REQUIRE(f.kind == WaitKind::peer_data);
  REQUIRE(f.rank == 3);
  REQUIRE(f.peer == 7);
  REQUIRE(f.block == 1000);
  REQUIRE(f.token == 12345);
  REQUIRE(w != 0ull);  // a recorded fault is never the "no fault" word
  const std::string text = describe_fault(f, 50, 8);
  REQUIRE(text.find("rank 3, block 1000") != std::string::npos);
  REQUIRE(text.find("rank 7's data of token 12345") != std::string::npos);
  const std::string gate =
      describe_fault(kernels::decode_fault(kernels::encode_fault(WaitKind::gate, 1, 1, 0, 0)), 50, 2);
  REQUIRE(gate.find("saw only 1 of 2 ranks") != std::string::npos);
  const kernels::FaultInfo c = kernels::decode_fault(kernels::encode_fault(WaitKind::cluster_total, 1, 5, 40, 17));
  REQUIRE(c.kind == WaitKind::cluster_total);
  const std::string cluster = describe_fault(c, 50, 2);
  REQUIRE(cluster.find("rank 1, block 40") != std::string::npos);
  REQUIRE(cluster.find("token 17 from block 5 of its cluster") != std::string::npos);
}

TEST_CASE("Lamport layout: 3 buffers of N slots after the control block and fault word") {
  const kernels::LamportLayout l = kernels::lamport_layout(1000, 8192, 8, 2);
  REQUIRE(l.slot_bytes == kernels::round_up(1000ull * 8192 * 2, kernels::kLayoutAlign));
  REQUIRE(l.buffer_bytes == 8 * l.slot_bytes);
  REQUIRE(l.region_bytes == 3 * l.buffer_bytes);
  REQUIRE(l.total_bytes == kernels::kRegionOffset + l.region_bytes);
  REQUIRE(kernels::kRegionOffset % 16 == 0);
  REQUIRE(kernels::kFaultOffset >= sizeof(kernels::LamportControl));
  const kernels::LamportLayout odd = kernels::lamport_layout(3, 1032, 2, 2);
  REQUIRE(odd.slot_bytes % kernels::kLayoutAlign == 0);
  REQUIRE(odd.slot_bytes >= 3u * 1032u * 2u);
}

TEST_CASE("node core: options, spin-wait bound, hang text, first fault, format changes") {
  NodeOptions o;
  CHECK_NOTHROW(check_node_options(o));
  o.nranks = 3;
  CHECK_THROWS_WITH(check_node_options(o), Catch::Contains("nranks = 3 is not supported"));
  o.nranks = 2;
  o.timeout_ms = 0;
  CHECK_THROWS_WITH(check_node_options(o), Catch::Contains("must be > 0"));

  CHECK(timeout_ns(2000) == 2000000000ull);
  const std::string hang = hang_message("MPI rank 3 of 4 (host h, GPU 1)", 2000);
  CHECK(hang.find("MPI rank 3 of 4 (host h, GPU 1) did not finish within 32 s") != std::string::npos);
  CHECK(hang.find("bounded by 2000 ms") != std::string::npos);

  int polls = 0;
  poll_until_done([&polls] { return ++polls == 3; }, 2000, "rank 0");
  CHECK(polls == 3);
  // Past the deadline the end_process action runs (MPI: MPI_Abort); here it throws to end the poll.
  struct Ended {};
  const double no_slack_ms = 1 - kHostDeadlineSlackMs;  // deadline 1 ms from now
  CHECK_THROWS_AS(poll_until_done([] { return false; }, no_slack_ms, "rank 1", [] { throw Ended{}; }), Ended);

  CHECK_FALSE(first_fault({0, 0, 0}).has_value());
  const uint64_t w1 = kernels::encode_fault(kernels::WaitKind::peer_data, 1, 0, 7, 5);
  const uint64_t w2 = kernels::encode_fault(kernels::WaitKind::gate, 2, 1, 0, 0);
  const auto f = first_fault({0, w1, w2});
  REQUIRE(f.has_value());
  CHECK(f->rank == 1);
  CHECK(f->block == 7);
  const std::string text = fault_message(*f, 20, 4);
  CHECK(text.find("rank 1, block 7") != std::string::npos);
  CHECK(text.find("re-initialized") != std::string::npos);

  WorkspaceFormat fmt;
  CHECK(fmt.set(DType::bf16));        // the first format always initializes
  CHECK_FALSE(fmt.set(DType::bf16));  // the same dtype again: nothing to do
  CHECK(fmt.set(DType::fp32));
  CHECK(fmt.dtype() == DType::fp32);
}

TEST_CASE("fault injection: the hidden --inject-fault option parses or names what is wrong") {
  CHECK_FALSE(parse_fault_injection("", 2).any());
  const FaultInjection skip = parse_fault_injection("skip-kernel-rank=1", 2);
  CHECK(skip.skip_kernel_rank == 1);
  CHECK(skip.cuda_error_rank == -1);
  CHECK(skip.from_call == 0);
  CHECK(parse_fault_injection("cuda-error-rank=7", 8).cuda_error_rank == 7);
  const FaultInjection mid = parse_fault_injection("cuda-error-rank=1@call=40", 2);
  CHECK(mid.cuda_error_rank == 1);
  CHECK(mid.from_call == 40);
  CHECK(parse_fault_injection("skip-kernel-rank=0@call=0", 2).skip_kernel_rank == 0);
  for (const char* bad : {"bogus", "skip-kernel-rank", "skip-kernel-rank=", "skip-kernel-rank=2", "hang=1",
                          "cuda-error-rank=-1", "cuda-error-rank=1x", "cuda-error-rank=999", "cuda-error-rank=1@",
                          "cuda-error-rank=1@call=", "cuda-error-rank=1@call=-3", "cuda-error-rank=1@calls=4",
                          "cuda-error-rank=1@call=99999999999", "@call=3", "skip-kernel-rank=2@call=1"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_fault_injection(bad, 2), Catch::Contains("--inject-fault '"));
  }
}

TEST_CASE("size sweeps step like nccl-tests and name a bad option") {
  CHECK(token_sweep(1, 512, 2) == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
  CHECK(token_sweep(3, 100, 4) == std::vector<int>{3, 12, 48});
  CHECK(token_sweep(7, 7, 2) == std::vector<int>{7});
  CHECK(token_sweep(1, 2147483647, 2).size() == 31);  // no overflow at the top of int
  CHECK_THROWS_WITH(token_sweep(0, 8, 2), Catch::Contains("-b/--begin-tokens = 0"));
  CHECK_THROWS_WITH(token_sweep(8, 4, 2), Catch::Contains("-e/--end-tokens = 4"));
  CHECK_THROWS_WITH(token_sweep(1, 8, 1), Catch::Contains("-f/--step-factor = 1"));
  // 2 MiB in 10 us: 209.7 GB/s; bus bandwidth x 2 (N - 1) / N: x 1 at N = 2, x 1.75 at N = 8.
  CHECK(algbw_gbps(2097152, 10) == Approx(209.7152));
  CHECK(busbw_gbps(2097152, 10, 2) == Approx(209.7152));
  CHECK(busbw_gbps(2097152, 10, 8) == Approx(209.7152 * 1.75));
  CHECK(std::isnan(algbw_gbps(1, 0)));
}
