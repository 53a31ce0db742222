// The fused operation on the CPU (docs/operation.md), the yardstick every kernel output is checked against:
// seeded inputs, the bit-exact reference (rounding at exactly the points docs/operation.md names), an fp64
// "exact" reference without intermediate rounding, and the NVFP4 scale-factor layouts.
//
// Rounding points of reference_fused (T = problem dtype, float = fp32, no FMA contraction):
//   inputs     x_r equal to -0.0 are read as +0.0 (the one-shot protocol's "not arrived" mark);
//   sum        pairwise: acc = x_0; acc = round_T(acc + x_r) for r = 1..N-1 (rank order);
//              fp32_acc: acc = x_0 + x_1 + ... + x_{N-1} in fp32 (rank order), rounded to T once;
//   residual   h = round_T(s + residual_in);
//   RMSNorm    ss = sum_i h_i^2, formed as the fp32 rounding of the fp64 sum of the fp32 squares (the
//              squares are exact for bf16/fp16): the order-free value that every fp32 reduction order
//              approximates, which is why the gate allows norm_out 1 ulp;
//              inv = 1.0f / sqrtf(ss / H + eps) (IEEE sqrt and division);
//              norm = round_T((h * inv) * gamma);
//   FP8        rcp = 1.0f / scale once; q = e4m3(norm * rcp), satfinite;
//   NVFP4      per 16-element block: amax = max |norm| (NaN ignored, like fmaxf);
//              sf = e4m3((S * amax) / 6.0f); out_scale = S / float(sf), 0 when sf is 0;
//              code = e2m1(norm * out_scale); two codes per byte, even element in the low nibble.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"
#include "reference/host_tensor.h"

namespace arlab::ref {

// ---- inputs ------------------------------------------------------------------------------------
// Value distribution of x and residual_in (gamma is always uniform in [0.5, 1.5)):
//   normal        N(0, 1);
//   uniform       U[-1, 1);
//   heavy_tailed  Student-t with 3 degrees of freedom, clamped to +-1000 so that fp16 sums of 16
//                 ranks plus the residual stay finite (16 * 1000 + 1000 < 65504).
enum class Distribution { normal, uniform, heavy_tailed };
const char* to_string(Distribution d);
Distribution parse_distribution(const std::string& s);  // throws InvalidArgument naming the value

struct FusedInputs {
  std::vector<HostTensor> x;  // per rank, [tokens, H], dtype T
  HostTensor residual_in;     // [tokens, H], T, the same on every rank
  HostTensor gamma;           // [1, H], T
};

// Deterministic inputs for `p` (validated first): a function of (seed, distribution, tokens, hidden,
// dtype) only -- not of pattern or accumulation, so both accumulation modes see the same data -- and
// rank r's x does not depend on nranks (the first ranks of an N = 8 problem are those of N = 4).
// Each tensor draws from its own std::mt19937_64 stream with arlab's own normal/uniform transforms
// (std::normal_distribution differs between standard libraries). Values are rounded to T; no
// element is -0.0 (a negative value that rounds to zero becomes +0.0).
FusedInputs make_inputs(const Problem& p, uint64_t seed, Distribution d = Distribution::normal);

// Sets a deterministic `fraction` (0..1) of the elements of every x_r to -0.0, to exercise the
// "-0.0 is +0.0" rule (and, on the GPU, the one-shot protocol's arrival test).
void add_negative_zeros(FusedInputs& in, uint64_t seed, double fraction);

// ---- outputs -----------------------------------------------------------------------------------
// Only the outputs of the pattern are non-empty (docs/operation.md table), each sized exactly:
// allreduce_out / residual_out / norm_out [tokens, H] of T; quant_out quant_out_bytes();
// scale_out scale_out_bytes().
struct FusedOutputs {
  HostTensor allreduce_out, residual_out, norm_out;
  std::vector<uint8_t> quant_out, scale_out;
};

size_t quant_out_bytes(const Problem& p);  // fp8: tokens*H; fp4: tokens*H/2; otherwise 0
// fp4 only (otherwise 0): linear tokens*(H/16); swizzled_128x4 rows padded to 128, 16-blocks to 4.
size_t scale_out_bytes(const Problem& p);
// Byte offset of the scale factor of (token, 16-block) (docs/operation.md):
//   linear          token * (H/16) + block
//   swizzled_128x4  (token/128) * (ceil(H/64) * 512) + (block/4) * 512 + (token%32) * 16
//                   + ((token%128)/32) * 4 + (block%4)
// Throws InvalidArgument for H not a multiple of 16, a negative token or a block outside [0, H/16).
int64_t sf_offset(ScaleLayout layout, int64_t token, int64_t block, int64_t hidden);

// Inverse of sf_offset: the (token, block) stored at a byte offset of the scale buffer. In the
// swizzled layout a padding byte maps to token >= tokens or block >= H/16.
struct SfPosition {
  int64_t token = 0, block = 0;
};
SfPosition sf_position(ScaleLayout layout, int64_t offset, int64_t hidden);

// Zero-filled outputs of exactly the pattern's shapes (the reference leaves SF padding at 0).
FusedOutputs allocate_outputs(const Problem& p);

// ---- the reference -----------------------------------------------------------------------------
// validate(p), then checks that `in` matches it: nranks tensors x of [tokens, hidden] and dtype T;
// residual_in [tokens, hidden] and gamma [1, hidden] of T for every pattern but `ar` (which ignores
// them). Throws InvalidArgument naming the tensor, its shape/dtype and the expected one.
void check_inputs(const Problem& p, const FusedInputs& in);

// The all-reduced sum s [tokens, H] of T, accumulated as p.acc says (whatever the pattern).
HostTensor allreduce_sum(const Problem& p, const FusedInputs& in);

// Everything the pattern writes, rounded as described at the top of this file.
FusedOutputs reference_fused(const Problem& p, const FusedInputs& in);

// fp64 reference on the same (T-rounded) inputs with no intermediate rounding: sum always;
// residual = sum + residual_in and norm = residual * gamma / sqrt(mean(residual^2) + eps) for every
// pattern but `ar`. Flat row-major, tokens*H each.
struct ExactOutputs {
  std::vector<double> sum, residual, norm;
};
ExactOutputs exact_fused(const Problem& p, const FusedInputs& in);

}  // namespace arlab::ref
