// The correctness gate (DESIGN §2), applied to every output of every rank of every run:
//   allreduce_out, residual_out   bit-exact with the reference (a NaN where the reference has a NaN,
//                                 any payload, counts as exact);
//   norm_out                      within 1 ulp of T (the sum of squares is reduced in another order)
//                                 for bf16/fp16; more for fp32, see norm_ulp_tolerance;
//   quant_out                     FP8 / FP4 codes within one quantization step, the non-exact ones
//                                 counted;
//   scale_out                     NVFP4 scale factors within one e4m3 step (padding bytes included:
//                                 the reference has 0 there);
//   across ranks                  every rank's outputs byte-identical to rank 0's.
// It also reports the error of rank 0's main output (allreduce_out for `ar`, else norm_out when the
// pattern writes it, else residual_out) against the fp64 reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"
#include "reference/fused_reference.h"

namespace arlab::ref {

// Largest norm_out ulp distance the gate accepts. DESIGN §2 allows 1 ulp of T because the kernels
// reduce the sum of squares ss in another order than the reference. That assumes the order-dependent
// error of the fp32 ss is far below T's ulp: true for bf16/fp16 (fp32 is 2^13+ times finer), so the
// limit there is 1. For fp32 T the same error is of the size of T's ulp itself: a reduction tree of
// depth ~log2(H) moves ss by up to ~log2(H) fp32 ulps, which inv = 1/sqrt(ss/H + eps) halves, and the
// final rounding adds 1. A simulated GPU-order reduction (4 elements per thread, then a binary tree;
// H = 4096 and 8192, 512 tokens, 8 ranks) put 3.5% of fp32 norm_out elements 2 ulps and 0.1% 3 ulps
// from the reference. So for fp32 the limit is 1 + ceil(log2(H) / 2) (7 for H = 4096). Order is the
// only difference: the kernels round every square before adding it, as the reference does
// (__fmul_rn / __fadd_rn in kernels/fused_epilogue.cuh, so nvcc cannot contract them to FMAs).
int norm_ulp_tolerance(const Problem& p);

struct GateReport {
  bool pass = true;
  std::string first_failure;  // output, rank, index (token, column), expected / got bits; "" on pass
  Pattern pattern = Pattern::ar;
  int ranks_checked = 0;
  // Counts are summed over the ranks checked (a wrong element on every rank counts once per rank).
  int64_t allreduce_mismatches = 0, residual_mismatches = 0;
  int norm_ulp_limit = 1;      // norm_ulp_tolerance(p): 1 for bf16/fp16
  int64_t norm_nonexact = 0;   // norm_out elements 1..norm_ulp_limit ulps off (allowed)
  int64_t norm_over_1ulp = 0;  // norm_out elements more than norm_ulp_limit ulps off (fail; the name says
                               // "1 ulp", the limit of DESIGN §2 for the 16-bit dtypes)
  int norm_max_ulp = 0;        // largest norm_out ulp distance (INT32_MAX for a NaN mismatch)
  int64_t quant_nonexact = 0, quant_over_1step = 0;  // FP8/FP4 codes (elements)
  int64_t sf_nonexact = 0, sf_over_1step = 0;        // NVFP4 scale-factor bytes
  int64_t cross_rank_mismatches = 0;  // elements (bytes for quant/scale) differing from rank 0
  // Against the fp64 reference (NaN / -1 when no exact reference was given).
  std::string exact_output;  // which output the three figures below describe
  double err_max_abs_vs_exact = 0.0, err_rel_rms_vs_exact = 0.0;
  int64_t max_ulp_vs_exact = -1;

  std::string summary() const;  // one line: verdict and every count relevant to the pattern
};

// `expected` = reference_fused(p, inputs); per_rank[r] = rank r's outputs (1..nranks ranks; the
// harness passes all of them). Outputs the pattern does not write are ignored. Throws
// InvalidArgument when a present output has the wrong size (a harness bug, not a kernel error).
GateReport check_outputs(const Problem& p, const FusedOutputs& expected, const std::vector<FusedOutputs>& per_rank,
                         const ExactOutputs* exact);

}  // namespace arlab::ref
