// The correctness gate (DESIGN §2), applied to every output of every rank of every run:
//   allreduce_out, residual_out   bit-exact with the reference (a NaN where the reference has a NaN,
//                                 any payload, counts as exact);
//   norm_out                      within 1 ulp of T (the sum of squares is reduced in another order);
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

struct GateReport {
  bool pass = true;
  std::string first_failure;  // output, rank, index (token, column), expected / got bits; "" on pass
  Pattern pattern = Pattern::ar;
  int ranks_checked = 0;
  // Counts are summed over the ranks checked (a wrong element on every rank counts once per rank).
  int64_t allreduce_mismatches = 0, residual_mismatches = 0;
  int64_t norm_nonexact = 0;   // norm_out elements 1 ulp off (allowed)
  int64_t norm_over_1ulp = 0;  // norm_out elements more than 1 ulp off (fail)
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
