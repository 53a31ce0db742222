// reference/compare.h: the correctness gate passes identical outputs and catches every kind of
// deviation it is meant to (docs/operation.md), with tolerances exactly where the design puts them.
#include <string>
#include <vector>

#include "reference/compare.h"
#include "reference/dtypes.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::ref;

namespace {

struct Case {
  Problem p;
  FusedOutputs expected;
  ExactOutputs exact;
  std::vector<FusedOutputs> ranks;  // start as copies of the reference
};

Case make_case(Pattern pattern, DType dtype = DType::bf16, int nranks = 4) {
  Case c;
  c.p.pattern = pattern;
  c.p.dtype = dtype;
  c.p.nranks = nranks;
  c.p.tokens = 6;
  c.p.hidden = 128;
  c.p.scale = 0.05f;  // FP8: |norm| / 0.05 spans e4m3's range without saturating most values
  const FusedInputs in = make_inputs(c.p, 99);
  c.expected = reference_fused(c.p, in);
  c.exact = exact_fused(c.p, in);
  c.ranks.assign(static_cast<size_t>(nranks), c.expected);
  return c;
}

GateReport run(const Case& c) { return check_outputs(c.p, c.expected, c.ranks, &c.exact); }

// Moves element i `steps` ulps away from zero (sign-magnitude: the magnitude bits grow by `steps`;
// the test values are far from the top of the range).
void move_ulps(HostTensor& t, int64_t i, int steps) { t.set_bits(i, t.bits(i) + static_cast<uint32_t>(steps)); }

int64_t first_index_where(const HostTensor& t, bool (*pred)(float)) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (pred(t.get(i))) return i;
  return -1;
}

}  // namespace

TEST_CASE("the gate passes identical outputs for every pattern and dtype", "[gate]") {
  for (int pi = 0; pi < kNumPatterns; ++pi)
    for (DType dtype : {DType::bf16, DType::fp16, DType::fp32}) {
      const auto pattern = static_cast<Pattern>(pi);
      if (has_fp4(pattern) && dtype == DType::fp32) continue;
      INFO(to_string(pattern) << " " << to_string(dtype));
      const Case c = make_case(pattern, dtype);
      const GateReport r = run(c);
      CHECK(r.pass);
      CHECK(r.first_failure.empty());
      CHECK(r.ranks_checked == 4);
      CHECK(r.allreduce_mismatches + r.residual_mismatches + r.norm_nonexact + r.norm_over_limit + r.quant_nonexact +
                r.sf_nonexact + r.cross_rank_mismatches ==
            0);
      CHECK(r.summary().rfind("PASS", 0) == 0);
      // error against fp64: present, small, non-zero (rounding happened)
      CHECK_FALSE(r.exact_output.empty());
      CHECK(r.err_rel_rms_vs_exact > 0.0);
      CHECK(r.err_rel_rms_vs_exact < (dtype == DType::fp32 ? 1e-6 : 2e-2));
      CHECK(r.max_ulp_vs_exact >= 0);
    }
}

TEST_CASE("one flipped bit in allreduce_out or residual_out fails the gate", "[gate]") {
  Case c = make_case(Pattern::ar);
  c.ranks[2].allreduce_out.bytes[100] ^= 0x01;  // the lowest bit of element 50: 1 ulp, still not exact
  GateReport r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.allreduce_mismatches == 1);
  CHECK(r.cross_rank_mismatches == 1);
  CHECK(r.first_failure.find("allreduce_out rank 2 index 50 (token 0, column 50)") != std::string::npos);
  CHECK(r.summary().find("FAIL") == 0);

  c = make_case(Pattern::ar_res_rms);
  c.ranks[0].residual_out.bytes[2 * 130 + 1] ^= 0x80;  // the sign bit of element 130 (token 1, column 2)
  r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.residual_mismatches == 1);
  CHECK(r.first_failure.find("residual_out rank 0 index 130 (token 1, column 2)") != std::string::npos);
}

TEST_CASE("norm_out: 1 ulp is accepted and counted, 2 ulps fail", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms);
  const int64_t i = first_index_where(c.expected.norm_out, [](float v) { return v > 0.5f; });
  REQUIRE(i >= 0);
  for (auto& rank : c.ranks) move_ulps(rank.norm_out, i, 1);  // same on every rank: no cross-rank issue
  GateReport r = run(c);
  CHECK(r.pass);
  CHECK(r.norm_nonexact == 4);  // one element on each of 4 ranks
  CHECK(r.norm_max_ulp == 1);

  for (auto& rank : c.ranks) move_ulps(rank.norm_out, i, 1);  // now 2 ulps
  r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.norm_over_limit == 4);
  CHECK(r.norm_max_ulp == 2);
  CHECK(r.first_failure.find("norm_out rank 0 index " + std::to_string(i)) != std::string::npos);
  CHECK(r.first_failure.find("2 ulp") != std::string::npos);
}

TEST_CASE("norm_out in fp32: the limit grows with the reduction depth", "[gate]") {
  // H = 128: ceil(log2 128) = 7 -> 1 + 4 = 5 ulps (see norm_ulp_tolerance).
  Case c = make_case(Pattern::ar_res_rms, DType::fp32, 2);
  CHECK(norm_ulp_tolerance(c.p) == 5);
  Problem big = c.p;
  big.hidden = 4096;
  CHECK(norm_ulp_tolerance(big) == 7);
  big.hidden = 8192;
  CHECK(norm_ulp_tolerance(big) == 8);
  big.dtype = DType::fp16;
  CHECK(norm_ulp_tolerance(big) == 1);
  const int64_t i = first_index_where(c.expected.norm_out, [](float v) { return v > 0.5f; });
  for (auto& rank : c.ranks) move_ulps(rank.norm_out, i, 5);
  GateReport r = run(c);
  CHECK(r.pass);
  CHECK(r.norm_ulp_limit == 5);
  CHECK(r.norm_nonexact == 2);
  for (auto& rank : c.ranks) move_ulps(rank.norm_out, i, 1);
  r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.first_failure.find("6 ulp (limit 5)") != std::string::npos);
}

TEST_CASE("NaN handling: NaN where the reference has NaN is exact, elsewhere a failure", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms, DType::fp16);
  c.expected.residual_out.set_bits(3, 0x7FFFu);
  for (auto& rank : c.ranks) rank.residual_out.set_bits(3, 0x7E01u);  // another NaN payload, same on every rank
  CHECK(run(c).pass);
  for (auto& rank : c.ranks) rank.norm_out.set_bits(5, 0x7E00u);  // NaN where the reference has a number
  const GateReport r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.norm_over_limit == 4);
  CHECK(r.first_failure.find("NaN against a number") != std::string::npos);
}

TEST_CASE("FP8 codes: one step off is counted but passes, two steps fail", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms_out_fp8);
  // Three codes one step up (code + 1 stays below the NaN code 0x7F for non-saturated values).
  int moved = 0;
  for (size_t i = 0; i < c.expected.quant_out.size() && moved < 3; ++i) {
    const uint8_t code = c.expected.quant_out[i];
    if ((code & 0x7F) >= 0x7E) continue;
    for (auto& rank : c.ranks) rank.quant_out[i] = static_cast<uint8_t>(code + 1);
    ++moved;
  }
  REQUIRE(moved == 3);
  GateReport r = run(c);
  CHECK(r.pass);
  CHECK(r.quant_nonexact == 3 * 4);
  CHECK(r.quant_over_1step == 0);
  CHECK(r.summary().find("quant 12 non-exact, 0 over 1 step") != std::string::npos);

  c.ranks[1].quant_out[7] ^= 0x40;  // a high exponent bit: many steps
  r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.quant_over_1step == 1);
  CHECK(r.cross_rank_mismatches >= 1);
  CHECK(r.first_failure.find("quant_out (fp8) rank 1 index 7") != std::string::npos);
}

TEST_CASE("FP4 codes and scale factors: steps counted, single bit flips caught", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms_out_fp4, DType::bf16, 2);
  // Odd element 3 (high nibble of byte 1): move its code one step (magnitude +-1 within 0..7).
  const uint8_t byte = c.expected.quant_out[1];
  const uint8_t hi = byte >> 4;
  const uint8_t moved = (hi & 7) < 7 ? static_cast<uint8_t>(hi + 1) : static_cast<uint8_t>(hi - 1);
  for (auto& rank : c.ranks) rank.quant_out[1] = static_cast<uint8_t>((byte & 0x0F) | (moved << 4));
  GateReport r = run(c);
  CHECK(r.pass);
  CHECK(r.quant_nonexact == 2);

  // Flip the sign bit of the even element 0 (a non-zero code): 2 * magnitude steps away.
  Case d = make_case(Pattern::ar_res_rms_out_fp4, DType::bf16, 2);
  size_t b = 0;
  while ((d.expected.quant_out[b] & 0x7) == 0) ++b;
  d.ranks[0].quant_out[b] ^= 0x08;
  r = run(d);
  CHECK_FALSE(r.pass);
  CHECK(r.quant_over_1step == 1);
  CHECK(r.first_failure.find("quant_out (fp4) rank 0 index " + std::to_string(2 * b)) != std::string::npos);

  // A scale factor one e4m3 step off passes (counted); a flipped exponent bit fails, and so does a
  // non-zero padding byte.
  Case e = make_case(Pattern::ar_res_rms_fp4, DType::fp16, 2);
  const auto off = static_cast<size_t>(sf_offset(e.p.sf_layout, 1, 2, e.p.hidden));
  REQUIRE(e.expected.scale_out[off] != 0);
  for (auto& rank : e.ranks) rank.scale_out[off] = static_cast<uint8_t>(e.expected.scale_out[off] + 1);
  r = run(e);
  CHECK(r.pass);
  CHECK(r.sf_nonexact == 2);
  e.ranks[1].scale_out[off] ^= 0x20;
  r = run(e);
  CHECK_FALSE(r.pass);
  CHECK(r.sf_over_1step == 1);
  CHECK(r.first_failure.find("(token 1, block 2)") != std::string::npos);

  Case f = make_case(Pattern::ar_res_rms_fp4, DType::bf16, 2);
  const size_t padding = f.expected.scale_out.size() - 1;  // 6 tokens: row 127 of the tile is padding
  REQUIRE(f.expected.scale_out[padding] == 0);
  for (auto& rank : f.ranks) rank.scale_out[padding] = 0x30;
  r = run(f);
  CHECK_FALSE(r.pass);
  CHECK(r.first_failure.find("(padding)") != std::string::npos);
}

TEST_CASE("cross-rank mismatches fail even when each rank is within tolerance", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms, DType::bf16, 8);
  const int64_t i = first_index_where(c.expected.norm_out, [](float v) { return v > 0.5f; });
  move_ulps(c.ranks[5].norm_out, i, 1);  // 1 ulp: fine against the reference, but rank 5 != rank 0
  const GateReport r = run(c);
  CHECK_FALSE(r.pass);
  CHECK(r.norm_over_limit == 0);
  CHECK(r.norm_nonexact == 1);
  CHECK(r.cross_rank_mismatches == 1);
  CHECK(r.first_failure.find("norm_out: rank 5 differs from rank 0 in 1 elements") != std::string::npos);
}

TEST_CASE("the gate refuses malformed outputs and works without the exact reference", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms_out_fp4);
  std::vector<FusedOutputs> bad = c.ranks;
  bad[1].norm_out = HostTensor::make(DType::bf16, 6, 64);
  CHECK_THROWS_AS(check_outputs(c.p, c.expected, bad, nullptr), InvalidArgument);
  try {
    check_outputs(c.p, c.expected, bad, nullptr);
  } catch (const InvalidArgument& e) {
    CHECK(std::string(e.what()).find("rank 1 norm_out is bf16 [6, 64]") != std::string::npos);
  }
  bad = c.ranks;
  bad[0].scale_out.resize(10);
  CHECK_THROWS_AS(check_outputs(c.p, c.expected, bad, nullptr), InvalidArgument);
  CHECK_THROWS_AS(check_outputs(c.p, c.expected, {}, nullptr), InvalidArgument);
  bad = c.ranks;
  bad.push_back(c.expected);  // 5 ranks for N = 4
  CHECK_THROWS_AS(check_outputs(c.p, c.expected, bad, nullptr), InvalidArgument);

  // Outputs the pattern does not write are ignored; no exact reference -> no vs-exact figures.
  bad = c.ranks;
  bad[2].allreduce_out = HostTensor::make(DType::fp32, 1, 1);
  const GateReport r = check_outputs(c.p, c.expected, bad, nullptr);
  CHECK(r.pass);
  CHECK(r.exact_output.empty());
  CHECK(r.max_ulp_vs_exact == -1);

  // One rank alone (a multi-process run checks its own outputs).
  CHECK(check_outputs(c.p, c.expected, {c.ranks[0]}, &c.exact).ranks_checked == 1);
}

TEST_CASE("failure messages name the real rank ids (one process of an MPI node checks rank 3)", "[gate]") {
  Case c = make_case(Pattern::ar_res_rms, DType::bf16, 4);
  std::vector<FusedOutputs> mine = {c.expected};
  mine[0].residual_out.set_bits(7, mine[0].residual_out.bits(7) ^ 1u);
  const GateReport r = check_outputs(c.p, c.expected, mine, &c.exact, {3});
  CHECK_FALSE(r.pass);
  CHECK(r.first_failure.find("residual_out rank 3 index 7") != std::string::npos);
  // Two ranks of one process: the cross-rank comparison names both ids.
  Case two = make_case(Pattern::ar_res_rms, DType::bf16, 4);
  std::vector<FusedOutputs> pair = {two.expected, two.expected};
  const int64_t i = first_index_where(two.expected.norm_out, [](float v) { return v > 0.5f; });
  move_ulps(pair[1].norm_out, i, 1);
  const GateReport q = check_outputs(two.p, two.expected, pair, &two.exact, {2, 3});
  CHECK(q.first_failure.find("norm_out: rank 3 differs from rank 2 in 1 elements") != std::string::npos);
  CHECK_THROWS_WITH(check_outputs(c.p, c.expected, mine, &c.exact, {1, 2}), Catch::Contains("2 rank ids"));
}

TEST_CASE("GateReport: merge folds tallies and verdicts; the words carry every tally", "[gate]") {
  GateReport a;
  a.ranks_checked = 1;
  a.norm_nonexact = 4;
  a.norm_max_ulp = 1;
  a.quant_nonexact = 2;
  GateReport b;
  b.pass = false;
  b.first_failure = "rank 1 norm_out";
  b.ranks_checked = 1;
  b.norm_over_limit = 3;
  b.norm_max_ulp = 9;
  b.sf_over_1step = 5;
  b.cross_rank_mismatches = 6;

  // Every tally survives the words (each gets a distinct value so a swapped position shows).
  GateReport all;
  uint64_t v = 1;
#define ARLAB_TEST_SET(type, name, fold, description) all.name = static_cast<type>(v++);
  ARLAB_GATE_TALLIES(ARLAB_TEST_SET)
#undef ARLAB_TEST_SET
  all.pass = false;
  const std::vector<uint64_t> words = all.to_words();
  REQUIRE(words.size() == GateReport::kWords);
  const GateReport back = GateReport::from_words(words.data());
  CHECK_FALSE(back.pass);
#define ARLAB_TEST_SAME(type, name, fold, description) CHECK(back.name == all.name);
  ARLAB_GATE_TALLIES(ARLAB_TEST_SAME)
#undef ARLAB_TEST_SAME

  GateReport m = a;
  m.merge(GateReport::from_words(b.to_words().data()));
  CHECK_FALSE(m.pass);
  CHECK(m.ranks_checked == 2);
  CHECK(m.norm_nonexact == 4);
  CHECK(m.norm_over_limit == 3);
  CHECK(m.norm_max_ulp == 9);  // a maximum, not a sum
  CHECK(m.quant_nonexact == 2);
  CHECK(m.sf_over_1step == 5);
  CHECK(m.cross_rank_mismatches == 6);
  GateReport failed_first = b;
  failed_first.merge(a);  // a passing report never replaces the first failure
  CHECK(failed_first.first_failure == "rank 1 norm_out");
  CHECK_FALSE(failed_first.pass);
  GateReport passed = a;
  passed.merge(b);
  CHECK(passed.first_failure == "rank 1 norm_out");
}

TEST_CASE("Problem: equality compares every field; same_except_tokens ignores tokens only", "[problem]") {
  Problem a;
  Problem b = a;
  CHECK(a == b);
  b.tokens = 7;
  CHECK(a != b);
  CHECK(same_except_tokens(a, b));
  Problem c = a;
  c.scale = 2.0f;
  CHECK_FALSE(same_except_tokens(a, c));
  c = a;
  c.sf_layout = ScaleLayout::linear;
  CHECK_FALSE(same_except_tokens(a, c));
  c = a;
  c.eps = 1e-6f;
  CHECK_FALSE(same_except_tokens(a, c));
  c = a;
  c.algo = Algorithm::twoshot;
  CHECK_FALSE(same_except_tokens(a, c));
}
