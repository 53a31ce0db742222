// reference/fused_reference.h: NVFP4 scale-factor layouts, the fused op on hand-computed cases,
// pattern outputs, accumulation modes, quantization, inputs and bad arguments.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "reference/fused_reference.h"
#include "reference/ulp.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::ref;

namespace {

Problem small_problem(DType dtype, Pattern pattern, int tokens, int hidden, int nranks = 2) {
  Problem p;
  p.dtype = dtype;
  p.pattern = pattern;
  p.tokens = tokens;
  p.hidden = hidden;
  p.nranks = nranks;
  p.eps = 0.0f;
  return p;
}

// Inputs with every element of x_r / residual / gamma set from per-column values (same on every row
// unless `rows` gives per-row values).
FusedInputs filled_inputs(const Problem& p, const std::vector<std::vector<float>>& x_rows_per_rank,
                          const std::vector<float>& residual, const std::vector<float>& gamma) {
  FusedInputs in;
  for (int r = 0; r < p.nranks; ++r) {
    HostTensor x = HostTensor::make(p.dtype, p.tokens, p.hidden);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.set(i, x_rows_per_rank[static_cast<size_t>(r)][static_cast<size_t>(i % p.hidden)]);
    in.x.push_back(x);
  }
  in.residual_in = HostTensor::make(p.dtype, p.tokens, p.hidden);
  for (int64_t i = 0; i < in.residual_in.numel(); ++i)
    in.residual_in.set(i, residual[static_cast<size_t>(i % p.hidden)]);
  in.gamma = HostTensor::make(p.dtype, 1, p.hidden);
  for (int64_t i = 0; i < p.hidden; ++i) in.gamma.set(i, gamma[static_cast<size_t>(i)]);
  return in;
}

// A straightforward element-at-a-time re-statement of docs/operation.md through HostTensor::get/set,
// independent of the reference's row kernels, used to cross-check them on random data.
struct Simple {
  HostTensor sum, residual, norm;
};
Simple simple_reference(const Problem& p, const FusedInputs& in) {
  Simple s{HostTensor::make(p.dtype, p.tokens, p.hidden), HostTensor::make(p.dtype, p.tokens, p.hidden),
           HostTensor::make(p.dtype, p.tokens, p.hidden)};
  auto input = [&](int r, int64_t i) {
    const float v = in.x[static_cast<size_t>(r)].get(i);
    return v == 0.0f ? 0.0f : v;  // -0.0 -> +0.0
  };
  for (int64_t i = 0; i < s.sum.numel(); ++i) {
    float acc = input(0, i);
    for (int r = 1; r < p.nranks; ++r)
      acc = p.acc == Accumulation::pairwise ? round_to(p.dtype, acc + input(r, i)) : acc + input(r, i);
    s.sum.set(i, acc);
    s.residual.set(i, s.sum.get(i) + in.residual_in.get(i));
  }
  for (int t = 0; t < p.tokens; ++t) {
    double ss = 0.0;
    for (int c = 0; c < p.hidden; ++c) {
      const float h = s.residual.get(static_cast<int64_t>(t) * p.hidden + c);
      ss += static_cast<double>(h * h);
    }
    const float inv = 1.0f / std::sqrt(static_cast<float>(ss) / static_cast<float>(p.hidden) + p.eps);
    for (int c = 0; c < p.hidden; ++c) {
      const int64_t i = static_cast<int64_t>(t) * p.hidden + c;
      const float scaled = s.residual.get(i) * inv;
      s.norm.set(i, scaled * in.gamma.get(c));
    }
  }
  return s;
}

bool same_bits(const HostTensor& a, const HostTensor& b) { return a.dtype == b.dtype && a.bytes == b.bytes; }

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument thrown)";
}

}  // namespace

// ---- NVFP4 scale-factor layouts -----------------------------------------------------------------

TEST_CASE("sf_offset: hand-worked positions in both layouts", "[reference][nvfp4]") {
  // LINEAR, H = 64 -> 4 blocks per token: off = m*4 + k.
  CHECK(sf_offset(ScaleLayout::linear, 0, 0, 64) == 0);
  CHECK(sf_offset(ScaleLayout::linear, 3, 2, 64) == 14);   // 3*4 + 2
  CHECK(sf_offset(ScaleLayout::linear, 5, 4, 80) == 29);   // H = 80: 5 blocks; 5*5 + 4
  // SWIZZLED 128x4, H = 64: ceil(64/64) = 1 column tile, so a 128-row tile is 512 bytes.
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 0, 0, 64) == 0);
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 0, 3, 64) == 3);     // k%4 = 3
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 1, 0, 64) == 16);    // (m%32)*16 = 16
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 31, 0, 64) == 496);  // 31*16
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 32, 0, 64) == 4);    // ((m%128)/32)*4 = 4
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 33, 1, 64) == 21);   // 1*16 + 1*4 + 1
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 127, 3, 64) == 511); // 31*16 + 3*4 + 3: last byte of the tile
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 128, 0, 64) == 512); // (m/128) * (1*512)
  // H = 128: 8 blocks = 2 column tiles; a 128-row band is 1024 bytes.
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 0, 4, 128) == 512);     // (k/4)*512
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 128, 5, 128) == 1537);  // 1*1024 + 1*512 + 0 + 0 + 1
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 200, 7, 128) ==
        1024 + 512 + (200 % 32) * 16 + ((200 % 128) / 32) * 4 + 3);
  // H = 80: 5 blocks, padded to 8 columns = 2 column tiles.
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 0, 4, 80) == 512);
  CHECK(sf_offset(ScaleLayout::swizzled_128x4, 128, 0, 80) == 1024);
}

TEST_CASE("scale_out_bytes pads the swizzled layout to 128 rows x 4 blocks", "[reference][nvfp4]") {
  Problem p = small_problem(DType::bf16, Pattern::ar_res_rms_fp4, 3, 80);
  p.sf_layout = ScaleLayout::linear;
  CHECK(scale_out_bytes(p) == 15);   // 3 tokens * 5 blocks
  CHECK(quant_out_bytes(p) == 120);  // 3 * 80 / 2
  p.sf_layout = ScaleLayout::swizzled_128x4;
  CHECK(scale_out_bytes(p) == 1024);  // 128 rows * 8 columns
  p.tokens = 129;
  CHECK(scale_out_bytes(p) == 2048);  // 256 rows * 8
  p.pattern = Pattern::ar_res_rms_fp8;
  CHECK(scale_out_bytes(p) == 0);
  CHECK(quant_out_bytes(p) == static_cast<size_t>(129 * 80));
  p.pattern = Pattern::ar_res_rms;
  CHECK(quant_out_bytes(p) == 0);
}

TEST_CASE("sf_offset is a bijection onto the non-padding bytes; sf_position inverts it", "[reference][nvfp4]") {
  for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled_128x4}) {
    Problem p = small_problem(DType::bf16, Pattern::ar_res_rms_fp4, 130, 80);
    p.sf_layout = layout;
    const int64_t blocks = p.hidden / 16;
    std::set<int64_t> seen;
    for (int64_t m = 0; m < p.tokens; ++m)
      for (int64_t k = 0; k < blocks; ++k) {
        const int64_t off = sf_offset(layout, m, k, p.hidden);
        REQUIRE(off >= 0);
        REQUIRE(off < static_cast<int64_t>(scale_out_bytes(p)));
        REQUIRE(seen.insert(off).second);
        const SfPosition pos = sf_position(layout, off, p.hidden);
        REQUIRE(pos.token == m);
        REQUIRE(pos.block == k);
      }
    // Every other byte of the buffer is padding: it maps outside the problem.
    for (int64_t off = 0; off < static_cast<int64_t>(scale_out_bytes(p)); ++off) {
      if (seen.count(off)) continue;
      const SfPosition pos = sf_position(layout, off, p.hidden);
      REQUIRE((pos.token >= p.tokens || pos.block >= blocks));
    }
  }
}

TEST_CASE("sf_offset rejects bad arguments, naming them", "[reference][nvfp4]") {
  CHECK(error_of([] { sf_offset(ScaleLayout::linear, 0, 0, 20); }).find("hidden = 20") != std::string::npos);
  CHECK(error_of([] { sf_offset(ScaleLayout::linear, 0, 4, 64); }).find("block = 4") != std::string::npos);
  CHECK(error_of([] { sf_offset(ScaleLayout::swizzled_128x4, -1, 0, 64); }).find("token = -1") != std::string::npos);
}

// ---- hand-computed fused cases ------------------------------------------------------------------

TEST_CASE("residual and RMSNorm on a hand-computed case (H = 8)", "[reference]") {
  for (DType dtype : {DType::bf16, DType::fp16, DType::fp32}) {
    INFO("dtype " << to_string(dtype));
    Problem p = small_problem(dtype, Pattern::ar_res_rms, 2, 8);
    // Row 0: h = 1 + 0.5 + 0.5 = 2 everywhere -> ss = 8 * 4 = 32, ss/H = 4, inv = 1/sqrt(4) = 0.5,
    // so norm = (2 * 0.5) * gamma = gamma.
    // Row 1 (built below): h = [3, 4, 0, ...] -> ss = 25, ss/H = 3.125, inv = 1/sqrt(3.125) = 0.5656854,
    // norm[0] = 3 * 0.5656854 * gamma[0] = 1.6970563 (bf16: 1.6953125, 217 * 2^-7; fp16: 1.6972656,
    // 1738 * 2^-10), norm[1] = 4 * 0.5656854 * 1 = 2.2627417 (bf16 2.265625 = 145 * 2^-6; fp16
    // 2.2636719 = 1159 * 2^-9).
    const std::vector<float> gamma = {1, 1, 0.5f, 2, 1, 1, 1, 1};
    FusedInputs in = filled_inputs(p, {std::vector<float>(8, 1.0f), std::vector<float>(8, 0.5f)},
                                   std::vector<float>(8, 0.5f), gamma);
    const float row1_x0[8] = {3, 0, 0, 0, 0, 0, 0, 0}, row1_x1[8] = {0, 4, 0, 0, 0, 0, 0, 0};
    for (int c = 0; c < 8; ++c) {
      in.x[0].set(8 + c, row1_x0[c]);
      in.x[1].set(8 + c, row1_x1[c]);
      in.residual_in.set(8 + c, 0.0f);
    }
    const FusedOutputs out = reference_fused(p, in);
    for (int c = 0; c < 8; ++c) {
      CHECK(out.residual_out.get(c) == 2.0f);
      CHECK(out.norm_out.get(c) == gamma[static_cast<size_t>(c)]);
    }
    CHECK(out.residual_out.get(8) == 3.0f);
    CHECK(out.residual_out.get(9) == 4.0f);
    const float inv = 1.0f / std::sqrt(3.125f);  // fp32: the formula itself
    const float want0 = dtype == DType::bf16 ? 1.6953125f : dtype == DType::fp16 ? 1.697265625f : 3.0f * inv;
    const float want1 = dtype == DType::bf16 ? 2.265625f : dtype == DType::fp16 ? 2.263671875f : 4.0f * inv;
    CHECK(out.norm_out.get(8) == want0);
    CHECK(out.norm_out.get(9) == want1);
    for (int c = 10; c < 16; ++c) CHECK(out.norm_out.get(c) == 0.0f);

    // eps enters under the square root: row 0 with eps = 12 -> inv = 1/sqrt(4 + 12) = 0.25, norm = gamma / 2.
    p.eps = 12.0f;
    const FusedOutputs with_eps = reference_fused(p, in);
    for (int c = 0; c < 8; ++c) CHECK(with_eps.norm_out.get(c) == gamma[static_cast<size_t>(c)] / 2);
  }
}

TEST_CASE("the residual add rounds once to T", "[reference]") {
  Problem p = small_problem(DType::bf16, Pattern::ar_res_rms, 1, 8);
  // s = 0.5 + 0.5 = 1; h = 1 + 2^-8 is a bf16 tie between 1.0 and 1.0078125 -> the even 1.0.
  // 1 + 3 * 2^-8 ties between 1.0078125 and 1.015625 -> the even 1.015625.
  std::vector<float> residual(8, std::ldexp(1.0f, -8));
  residual[1] = 3 * std::ldexp(1.0f, -8);
  const FusedInputs in = filled_inputs(p, {std::vector<float>(8, 0.5f), std::vector<float>(8, 0.5f)}, residual,
                                       std::vector<float>(8, 1.0f));
  const FusedOutputs out = reference_fused(p, in);
  CHECK(out.residual_out.bits(0) == 0x3F80u);
  CHECK(out.residual_out.bits(1) == 0x3F82u);
}

TEST_CASE("each pattern writes exactly its outputs", "[reference]") {
  for (int pi = 0; pi < kNumPatterns; ++pi) {
    const auto pattern = static_cast<Pattern>(pi);
    INFO("pattern " << to_string(pattern));
    Problem p = small_problem(DType::bf16, pattern, 5, 64, 4);
    p.eps = 1e-5f;
    const FusedOutputs out = reference_fused(p, make_inputs(p, 7));
    const size_t tensor_bytes = 5 * 64 * 2;
    CHECK(out.allreduce_out.size_bytes() == (pattern == Pattern::ar ? tensor_bytes : 0));
    CHECK(out.residual_out.size_bytes() == (pattern != Pattern::ar ? tensor_bytes : 0));
    const bool norm = pattern == Pattern::ar_res_rms || pattern == Pattern::ar_res_rms_out_fp8 ||
                      pattern == Pattern::ar_res_rms_out_fp4;
    CHECK(out.norm_out.size_bytes() == (norm ? tensor_bytes : 0));
    const bool fp8 = pattern == Pattern::ar_res_rms_fp8 || pattern == Pattern::ar_res_rms_out_fp8;
    const bool fp4 = pattern == Pattern::ar_res_rms_fp4 || pattern == Pattern::ar_res_rms_out_fp4;
    CHECK(out.quant_out.size() == (fp8 ? 5u * 64 : fp4 ? 5u * 32 : 0u));
    CHECK(out.scale_out.size() == (fp4 ? 128u * 4 : 0u));  // 4 blocks -> one 128x4 tile
    // Written outputs carry data (random inputs: not all zero).
    if (norm)
      CHECK(std::any_of(out.norm_out.bytes.begin(), out.norm_out.bytes.end(), [](uint8_t b) { return b != 0; }));
    if (fp8 || fp4) CHECK(std::any_of(out.quant_out.begin(), out.quant_out.end(), [](uint8_t b) { return b != 0; }));
    // allocate_outputs has the same shapes
    const FusedOutputs shapes = allocate_outputs(p);
    CHECK(shapes.allreduce_out.size_bytes() == out.allreduce_out.size_bytes());
    CHECK(shapes.norm_out.size_bytes() == out.norm_out.size_bytes());
    CHECK(shapes.quant_out.size() == out.quant_out.size());
    CHECK(shapes.scale_out.size() == out.scale_out.size());
  }
}

TEST_CASE("patterns agree on the outputs they share", "[reference]") {
  Problem p = small_problem(DType::fp16, Pattern::ar_res_rms, 3, 64, 8);
  p.eps = 1e-5f;
  p.scale = 0.25f;
  const FusedInputs in = make_inputs(p, 11);
  const FusedOutputs base = reference_fused(p, in);
  p.pattern = Pattern::ar_res_rms_out_fp8;
  const FusedOutputs fp8_out = reference_fused(p, in);
  p.pattern = Pattern::ar_res_rms_fp8;
  const FusedOutputs fp8_only = reference_fused(p, in);
  CHECK(same_bits(base.residual_out, fp8_out.residual_out));
  CHECK(same_bits(base.norm_out, fp8_out.norm_out));
  CHECK(fp8_out.quant_out == fp8_only.quant_out);  // quantizes the T-rounded norm either way
  p.pattern = Pattern::ar;
  CHECK(same_bits(reference_fused(p, in).allreduce_out, allreduce_sum(p, in)));
}

TEST_CASE("pairwise and fp32_acc differ where they must, agree for fp32", "[reference]") {
  // bf16, N = 4, x = 1, 2^-8, 2^-8, 0. Pairwise: 1 + 2^-8 is a tie -> 1.0, again -> 1.0, so s = 1.0.
  // fp32_acc: 1 + 2^-7 = 1.0078125 exactly (a bf16), so s = 0x3F81.
  Problem p = small_problem(DType::bf16, Pattern::ar, 1, 8, 4);
  const float e = std::ldexp(1.0f, -8);
  const FusedInputs in = filled_inputs(p,
                                       {std::vector<float>(8, 1.0f), std::vector<float>(8, e), std::vector<float>(8, e),
                                        std::vector<float>(8, 0.0f)},
                                       std::vector<float>(8, 0.0f), std::vector<float>(8, 1.0f));
  p.acc = Accumulation::pairwise;
  CHECK(allreduce_sum(p, in).bits(0) == 0x3F80u);
  p.acc = Accumulation::fp32_acc;
  CHECK(allreduce_sum(p, in).bits(0) == 0x3F81u);

  // Random data: the two modes differ somewhere for bf16/fp16 and never for fp32.
  for (DType dtype : {DType::bf16, DType::fp16, DType::fp32}) {
    Problem q = small_problem(dtype, Pattern::ar_res_rms, 16, 256, 8);
    q.eps = 1e-5f;
    const FusedInputs rin = make_inputs(q, 3);
    q.acc = Accumulation::pairwise;
    const FusedOutputs pw = reference_fused(q, rin);
    q.acc = Accumulation::fp32_acc;
    const FusedOutputs fa = reference_fused(q, rin);
    INFO("dtype " << to_string(dtype));
    CHECK(same_bits(pw.residual_out, fa.residual_out) == (dtype == DType::fp32));
    CHECK(same_bits(pw.norm_out, fa.norm_out) == (dtype == DType::fp32));
  }
}

TEST_CASE("row kernels match an element-at-a-time restatement on random data", "[reference]") {
  for (DType dtype : {DType::bf16, DType::fp16, DType::fp32})
    for (Accumulation acc : {Accumulation::pairwise, Accumulation::fp32_acc})
      for (Distribution dist : {Distribution::normal, Distribution::heavy_tailed}) {
        Problem p = small_problem(dtype, Pattern::ar_res_rms, 4, 128, 16);
        p.acc = acc;
        p.eps = 1e-5f;
        FusedInputs in = make_inputs(p, 5, dist);
        add_negative_zeros(in, 9, 0.1);
        const FusedOutputs out = reference_fused(p, in);
        const Simple s = simple_reference(p, in);
        INFO(to_string(dtype) << " " << to_string(acc) << " " << to_string(dist));
        CHECK(same_bits(out.residual_out, s.residual));
        CHECK(same_bits(out.norm_out, s.norm));
        p.pattern = Pattern::ar;
        CHECK(same_bits(allreduce_sum(p, in), s.sum));
      }
}

TEST_CASE("-0.0 inputs are treated as +0.0", "[reference]") {
  for (Accumulation acc : {Accumulation::pairwise, Accumulation::fp32_acc}) {
    Problem p = small_problem(DType::bf16, Pattern::ar, 2, 8, 4);
    p.acc = acc;
    // every x is -0.0: IEEE would give -0.0 (0x8000); the rule gives +0.0.
    const FusedInputs in = filled_inputs(p, std::vector<std::vector<float>>(4, std::vector<float>(8, -0.0f)),
                                         std::vector<float>(8, -0.0f), std::vector<float>(8, 1.0f));
    REQUIRE(in.x[0].bits(0) == 0x8000u);
    const HostTensor s = allreduce_sum(p, in);
    for (int64_t i = 0; i < s.numel(); ++i) CHECK(s.bits(i) == 0x0000u);
  }
  // add_negative_zeros marks elements without changing the sum of the other ranks' values.
  Problem p = small_problem(DType::fp16, Pattern::ar, 8, 64, 2);
  FusedInputs in = make_inputs(p, 1);
  FusedInputs marked = in;
  add_negative_zeros(marked, 2, 0.3);
  int64_t marks = 0;
  for (size_t r = 0; r < marked.x.size(); ++r)
    for (int64_t i = 0; i < marked.x[r].numel(); ++i)
      if (marked.x[r].bits(i) == 0x8000u) {
        ++marks;
        in.x[r].set_bits(i, 0x0000u);  // what the kernels must read
      }
  CHECK(marks > 0);
  CHECK(same_bits(allreduce_sum(p, marked), allreduce_sum(p, in)));
}

// ---- quantization hand cases --------------------------------------------------------------------

TEST_CASE("FP8 quantization: rcp of the scale, rounding, saturation", "[reference][fp8]") {
  // h = 2 everywhere (1 + 0.5 + residual 0.5), eps = 0 -> norm = gamma exactly (see above).
  Problem p = small_problem(DType::bf16, Pattern::ar_res_rms_out_fp8, 1, 8);
  const std::vector<float> gamma = {1, 2, 0.5f, -1, 1.0625f, 0.25f, -3, 0};
  const FusedInputs in = filled_inputs(p, {std::vector<float>(8, 1.0f), std::vector<float>(8, 0.5f)},
                                       std::vector<float>(8, 0.5f), gamma);
  p.scale = 0.5f;  // rcp = 2: q = e4m3(2 * gamma) = 2, 4, 1, -2, 2.125 (tie 2 / 2.25 -> 2), 0.5, -6, 0
  const std::vector<uint8_t> want = {0x40, 0x48, 0x38, 0xC0, 0x40, 0x30, 0xCC, 0x00};
  CHECK(reference_fused(p, in).quant_out == want);
  // rcp = 512: 512 and more saturate to 448 (0x7E), -512 and less to -448 (0xFE); 0.5 * 512 = 256
  // = 2^8 (0x78) and 0.25 * 512 = 128 = 2^7 (0x70) still fit.
  p.scale = 1.0f / 512;
  const std::vector<uint8_t> saturated = {0x7E, 0x7E, 0x78, 0xFE, 0x7E, 0x70, 0xFE, 0x00};
  CHECK(reference_fused(p, in).quant_out == saturated);
}

TEST_CASE("NVFP4 quantization: codes, packing, scale factors, zero block, saturation", "[reference][fp4]") {
  // H = 32: block 0 with norm = gamma = the values below (amax 6), block 1 all zero.
  Problem p = small_problem(DType::bf16, Pattern::ar_res_rms_out_fp4, 1, 32);
  p.sf_layout = ScaleLayout::linear;
  std::vector<float> gamma = {6, -6, 0.5f, 1, 1.5f, 2, 3, 4, 0, -0.5f, 2.5f, 5, 0.25f, 0.75f, 1.25f, 1.75f};
  gamma.resize(32, 0.0f);
  // h = 2 where gamma != 0 ... and everywhere: x0 = 1, x1 = 0.5, residual 0.5 -> ss = 32 * 4, inv = 0.5.
  const FusedInputs in = filled_inputs(p, {std::vector<float>(32, 1.0f), std::vector<float>(32, 0.5f)},
                                       std::vector<float>(32, 0.5f), gamma);
  // S = 1: sf = e4m3(1 * 6 / 6) = 1.0 = 0x38, out_scale = 1, codes = e2m1(gamma):
  //   6->7, -6->F, .5->1, 1->2, 1.5->3, 2->4, 3->5, 4->6, 0->0, -.5->9, 2.5->4 (tie), 5->6 (tie),
  //   .25->0 (tie), .75->2 (tie), 1.25->2 (tie), 1.75->4 (tie); even element in the low nibble.
  p.scale = 1.0f;
  FusedOutputs out = reference_fused(p, in);
  const std::vector<uint8_t> block0 = {0xF7, 0x21, 0x43, 0x65, 0x90, 0x64, 0x20, 0x42};
  REQUIRE(out.quant_out.size() == 16);
  CHECK(std::vector<uint8_t>(out.quant_out.begin(), out.quant_out.begin() + 8) == block0);
  CHECK(std::all_of(out.quant_out.begin() + 8, out.quant_out.end(), [](uint8_t b) { return b == 0; }));
  CHECK(out.scale_out == std::vector<uint8_t>({0x38, 0x00}));  // block 1: amax 0 -> sf 0, codes 0

  // S = 2: sf = e4m3(12 / 6) = 2.0 (0x40), out_scale = 2 / 2 = 1: same codes.
  p.scale = 2.0f;
  out = reference_fused(p, in);
  CHECK(std::vector<uint8_t>(out.quant_out.begin(), out.quant_out.begin() + 8) == block0);
  CHECK(out.scale_out[0] == 0x40);

  // S = 1.1: sf = e4m3(6.6 / 6 = 1.1) = 1.125 (0x39), out_scale = 1.1 / 1.125 = 0.97777...:
  // 6 -> 5.87 -> 6 (7); 1.25 -> 1.222 -> 1.0 (2); 1.75 -> 1.711 -> 1.5 (3); 2.5 -> 2.44 -> 2 (4).
  p.scale = 1.1f;
  out = reference_fused(p, in);
  CHECK(out.scale_out[0] == 0x39);
  CHECK((out.quant_out[0] & 0xF) == 0x7);
  CHECK((out.quant_out[7] & 0xF) == 0x2);  // element 14 (1.25)
  CHECK((out.quant_out[7] >> 4) == 0x3);   // element 15 (1.75)
  CHECK((out.quant_out[5] & 0xF) == 0x4);  // element 10 (2.5)

  // Saturation: S = 1000 -> S * amax / 6 = 1000 > 448: sf saturates to 448 (0x7E), out_scale =
  // 1000 / 448 = 2.232; 6 -> 13.4 -> 6 (7), -6 -> F, 0.5 -> 1.116 -> 1.0 (2), 4 -> 8.9 -> 6 (7).
  p.scale = 1000.0f;
  out = reference_fused(p, in);
  CHECK(out.scale_out[0] == 0x7E);
  CHECK(out.quant_out[0] == 0xF7);
  CHECK((out.quant_out[1] & 0xF) == 0x2);
  CHECK((out.quant_out[3] >> 4) == 0x7);
}

TEST_CASE("NVFP4 swizzled scale factors land at sf_offset and padding stays 0", "[reference][fp4]") {
  Problem p = small_problem(DType::fp16, Pattern::ar_res_rms_fp4, 3, 80, 2);
  p.eps = 1e-5f;
  p.scale = 448.0f * 6.0f / 4.0f;  // a realistic global scale for |norm| up to ~4
  const FusedInputs in = make_inputs(p, 21);
  p.sf_layout = ScaleLayout::linear;
  const FusedOutputs linear = reference_fused(p, in);
  p.sf_layout = ScaleLayout::swizzled_128x4;
  const FusedOutputs swizzled = reference_fused(p, in);
  CHECK(linear.quant_out == swizzled.quant_out);
  std::vector<bool> used(swizzled.scale_out.size(), false);
  for (int64_t m = 0; m < 3; ++m)
    for (int64_t k = 0; k < 5; ++k) {
      const auto off = static_cast<size_t>(sf_offset(ScaleLayout::swizzled_128x4, m, k, 80));
      used[off] = true;
      CHECK(swizzled.scale_out[off] == linear.scale_out[static_cast<size_t>(m * 5 + k)]);
      CHECK(swizzled.scale_out[off] != 0);  // random data: every block has a non-zero amax
    }
  for (size_t off = 0; off < used.size(); ++off)
    if (!used[off]) REQUIRE(swizzled.scale_out[off] == 0);
}

// ---- the fp64 reference -------------------------------------------------------------------------

TEST_CASE("exact_fused: hand case and closeness to the rounded reference", "[reference][exact]") {
  Problem p = small_problem(DType::bf16, Pattern::ar_res_rms, 1, 8);
  const std::vector<float> gamma = {1, 1, 0.5f, 2, 1, 1, 1, 1};
  const FusedInputs in = filled_inputs(p, {std::vector<float>(8, 1.0f), std::vector<float>(8, 0.5f)},
                                       std::vector<float>(8, 0.5f), gamma);
  const ExactOutputs e = exact_fused(p, in);
  for (size_t c = 0; c < 8; ++c) {
    CHECK(e.sum[c] == 1.5);
    CHECK(e.residual[c] == 2.0);
    CHECK(e.norm[c] == static_cast<double>(gamma[c]));
  }
  p.pattern = Pattern::ar;
  const ExactOutputs sum_only = exact_fused(p, in);
  CHECK(sum_only.sum.size() == 8);
  CHECK(sum_only.residual.empty());
  CHECK(sum_only.norm.empty());

  // fp32 data, 16 ranks: norm_out values are O(1) (unit RMS times gamma); the rounded reference
  // differs from the fp64 one by fp32 rounding of the 16-term sums (~16 * 2^-24 * a few), far below
  // 1e-5, but not by zero.
  Problem q = small_problem(DType::fp32, Pattern::ar_res_rms, 8, 64, 16);
  q.eps = 1e-5f;
  const FusedInputs rin = make_inputs(q, 4);
  const FusedOutputs r = reference_fused(q, rin);
  const ExactOutputs x = exact_fused(q, rin);
  double max_abs = 0.0;
  for (int64_t i = 0; i < r.norm_out.numel(); ++i)
    max_abs = std::max(max_abs, std::fabs(r.norm_out.get(i) - x.norm[static_cast<size_t>(i)]));
  CHECK(max_abs < 1e-5);
  CHECK(max_abs > 0.0);
}

// ---- inputs -------------------------------------------------------------------------------------

TEST_CASE("make_inputs is deterministic, rank-stable, never -0.0 and never all zero", "[reference][inputs]") {
  Problem p = small_problem(DType::fp16, Pattern::ar_res_rms, 16, 256, 4);
  const FusedInputs a = make_inputs(p, 42), b = make_inputs(p, 42), c = make_inputs(p, 43);
  for (size_t r = 0; r < 4; ++r) CHECK(same_bits(a.x[r], b.x[r]));
  CHECK(same_bits(a.residual_in, b.residual_in));
  CHECK(same_bits(a.gamma, b.gamma));
  CHECK_FALSE(same_bits(a.x[0], c.x[0]));
  CHECK_FALSE(same_bits(a.x[0], a.x[1]));  // ranks draw different data
  // The accumulation mode and pattern do not change the data; rank r's x does not depend on N.
  Problem q = p;
  q.acc = Accumulation::fp32_acc;
  q.pattern = Pattern::ar;
  q.nranks = 2;
  const FusedInputs d = make_inputs(q, 42);
  CHECK(same_bits(d.x[0], a.x[0]));
  CHECK(same_bits(d.x[1], a.x[1]));
  CHECK(same_bits(d.residual_in, a.residual_in));

  for (Distribution dist : {Distribution::normal, Distribution::uniform, Distribution::heavy_tailed})
    for (DType dtype : {DType::bf16, DType::fp16, DType::fp32}) {
      Problem s = small_problem(dtype, Pattern::ar_res_rms, 64, 1024, 2);
      const FusedInputs in = make_inputs(s, 8, dist);
      INFO(to_string(dist) << " " << to_string(dtype));
      double sum = 0.0, sum_sq = 0.0, max_abs = 0.0;
      int64_t zeros = 0, negative_zeros = 0;
      const uint32_t negative_zero = dtype == DType::fp32 ? 0x80000000u : 0x8000u;
      for (const HostTensor* t : {&in.x[0], &in.x[1], &in.residual_in}) {
        for (int64_t i = 0; i < t->numel(); ++i) {
          const double v = t->get(i);
          sum += v;
          sum_sq += v * v;
          max_abs = std::max(max_abs, std::fabs(v));
          zeros += v == 0.0 ? 1 : 0;
          negative_zeros += t->bits(i) == negative_zero ? 1 : 0;
        }
      }
      const double n = 3.0 * 64 * 1024;
      CHECK(negative_zeros == 0);
      CHECK(zeros < 10);
      CHECK(std::fabs(sum / n) < 0.02);
      if (dist == Distribution::normal) CHECK(std::fabs(std::sqrt(sum_sq / n) - 1.0) < 0.02);
      if (dist == Distribution::uniform) {
        CHECK(max_abs <= 1.0);
        CHECK(std::fabs(sum_sq / n - 1.0 / 3.0) < 0.01);  // variance of U[-1, 1)
      }
      if (dist == Distribution::heavy_tailed) {
        CHECK(max_abs <= 1000.0);
        CHECK(max_abs > 20.0);  // P(|t_3| > 20) ~ 3e-4: ~60 such values expected in 196608
      }
      for (int64_t i = 0; i < s.hidden; ++i) {
        CHECK(in.gamma.get(i) >= 0.5f);
        CHECK(in.gamma.get(i) <= 1.5f);
      }
    }
}

// ---- bad arguments ------------------------------------------------------------------------------

TEST_CASE("bad arguments raise errors that name the value", "[reference][errors]") {
  Problem good = small_problem(DType::bf16, Pattern::ar_res_rms, 4, 64, 2);
  const FusedInputs in = make_inputs(good, 1);

  Problem p = good;
  p.hidden = 60;  // bf16 vector width is 8
  std::string msg = error_of([&] { reference_fused(p, in); });
  CHECK(msg.find("hidden = 60") != std::string::npos);
  CHECK(msg.find("8") != std::string::npos);
  CHECK(error_of([&] { make_inputs(p, 1); }).find("hidden = 60") != std::string::npos);

  p = good;
  p.dtype = DType::fp32;
  p.pattern = Pattern::ar_res_rms_out_fp4;
  CHECK(error_of([&] { reference_fused(p, in); }).find("fp32") != std::string::npos);

  p = good;
  p.nranks = 3;
  CHECK(error_of([&] { reference_fused(p, in); }).find("nranks = 3") != std::string::npos);
  p.nranks = 32;
  CHECK(error_of([&] { make_inputs(p, 1); }).find("nranks = 32") != std::string::npos);

  p = good;
  p.eps = std::nanf("");
  CHECK(error_of([&] { reference_fused(p, in); }).find("eps") != std::string::npos);
  p.eps = std::numeric_limits<float>::infinity();
  CHECK(error_of([&] { exact_fused(p, in); }).find("eps") != std::string::npos);

  // Shapes: inputs that do not match the problem.
  p = good;
  p.tokens = 5;  // inputs have 4 tokens
  msg = error_of([&] { reference_fused(p, in); });
  CHECK(msg.find("x[rank 0]") != std::string::npos);
  CHECK(msg.find("[4, 64]") != std::string::npos);
  CHECK(msg.find("[5, 64]") != std::string::npos);

  FusedInputs bad = in;
  bad.x[1] = HostTensor::make(DType::bf16, 4, 32);
  CHECK(error_of([&] { reference_fused(good, bad); }).find("x[rank 1] is bf16 [4, 32]") != std::string::npos);
  bad = in;
  bad.x.pop_back();
  CHECK(error_of([&] { reference_fused(good, bad); }).find("1 x tensors") != std::string::npos);
  bad = in;
  bad.gamma = HostTensor::make(DType::bf16, 1, 32);
  CHECK(error_of([&] { reference_fused(good, bad); }).find("gamma") != std::string::npos);
  bad = in;
  bad.residual_in = HostTensor::make(DType::fp16, 4, 64);
  CHECK(error_of([&] { exact_fused(good, bad); }).find("residual_in is fp16") != std::string::npos);
  bad = in;
  bad.x[0].bytes.pop_back();  // right header, truncated storage
  CHECK(error_of([&] { reference_fused(good, bad); }).find("x[rank 0]") != std::string::npos);

  // `ar` ignores residual and gamma.
  Problem ar = good;
  ar.pattern = Pattern::ar;
  bad = in;
  bad.residual_in = HostTensor{};
  bad.gamma = HostTensor{};
  CHECK_NOTHROW(reference_fused(ar, bad));

  CHECK(error_of([] { parse_distribution("cauchy"); }).find("'cauchy'") != std::string::npos);
  CHECK(error_of([&] { FusedInputs x = in; add_negative_zeros(x, 1, 1.5); }).find("1.5") != std::string::npos);
  CHECK(error_of([] { HostTensor::make(DType::bf16, -1, 4); }).find("-1") != std::string::npos);
}
