// The correctness gate (docs/operation.md), applied to every output of every rank of every run:
//   allreduce_out, residual_out   bit-exact with the reference (a NaN where the reference has a NaN,
//                                 any payload, counts as exact);
//   norm_out                      within 1 ulp of T (the sum of squares is reduced in another order)
//                                 for bf16/fp16; more for fp32, see norm_ulp_tolerance;
//   quant_out                     FP8 / FP4 codes within one quantization step, the non-exact ones
//                                 counted;
//   scale_out                     NVFP4 scale factors within one e4m3 step (padding bytes included:
//                                 the reference has 0 there);
//   across ranks                  every rank's outputs byte-identical to the first checked rank's.
// It also reports the error of the first checked rank's main output (allreduce_out for `ar`, else
// norm_out when the pattern writes it, else residual_out) against the fp64 reference.
// Reports of disjoint sets of ranks (one per process under MPI) merge into one (GateReport::merge);
// their verdict and tallies travel between processes as words generated from one field list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/problem.h"
#include "reference/fused_reference.h"

namespace arlab::ref {

// Largest norm_out ulp distance the gate accepts. docs/operation.md allows 1 ulp of T because the kernels
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

// The tallies of a gate report: one list for the fields, GateReport::merge and the word
// serialization, so a new tally cannot escape either. Counts are summed over the ranks checked (a
// wrong element on every rank counts once per rank).
// X(type, name, fold, description); fold: sum or max (how two reports' values combine).
#define ARLAB_GATE_TALLIES(X)                                                                    \
  X(int, ranks_checked, sum, "ranks whose outputs were checked")                                 \
  X(int64_t, allreduce_mismatches, sum, "allreduce_out elements not bit-exact")                  \
  X(int64_t, residual_mismatches, sum, "residual_out elements not bit-exact")                    \
  X(int64_t, norm_nonexact, sum, "norm_out elements 1..norm_ulp_limit ulps off (allowed)")       \
  X(int64_t, norm_over_limit, sum, "norm_out elements more than norm_ulp_limit ulps off (fail)") \
  X(int, norm_max_ulp, max, "largest norm_out ulp distance (INT32_MAX for a NaN mismatch)")      \
  X(int64_t, quant_nonexact, sum, "FP8/FP4 codes off the reference (within one step: allowed)")  \
  X(int64_t, quant_over_1step, sum, "FP8/FP4 codes more than one step off (fail)")               \
  X(int64_t, sf_nonexact, sum, "NVFP4 scale-factor bytes off the reference (within one step)")   \
  X(int64_t, sf_over_1step, sum, "NVFP4 scale-factor bytes more than one e4m3 step off (fail)")  \
  X(int64_t, cross_rank_mismatches, sum, "elements (bytes for quant/scale) differing from the first rank")

struct GateReport {
  bool pass = true;
  std::string first_failure;  // output, rank, index (token, column), expected / got bits; "" on pass
  Pattern pattern = Pattern::ar;
  int norm_ulp_limit = 1;     // norm_ulp_tolerance(p): 1 for bf16/fp16
#define ARLAB_GATE_FIELD(type, name, fold, description) type name = 0;
  ARLAB_GATE_TALLIES(ARLAB_GATE_FIELD)
#undef ARLAB_GATE_FIELD
  // Against the fp64 reference (NaN / -1 when no exact reference was given).
  std::string exact_output;  // which output the three figures below describe
  double err_max_abs_vs_exact = 0.0, err_rel_rms_vs_exact = 0.0;
  int64_t max_ulp_vs_exact = -1;

  std::string summary() const;  // one line: verdict and every count relevant to the pattern

  // Folds in the report of other ranks of the same call: tallies sum (maxima take the larger), the
  // verdict passes only when both do, and the first failure stays this report's when it has one.
  // The pattern, the limit and the fp64 figures stay this report's.
  void merge(const GateReport& other);

  // The verdict (1 = pass) then every tally in ARLAB_GATE_TALLIES order (all are >= 0).
#define ARLAB_GATE_ONE_WORD(type, name, fold, description) +1
  static constexpr size_t kWords = 1 ARLAB_GATE_TALLIES(ARLAB_GATE_ONE_WORD);
#undef ARLAB_GATE_ONE_WORD
  std::vector<uint64_t> to_words() const;
  // The verdict and tallies of kWords words written by to_words (first_failure stays empty).
  static GateReport from_words(const uint64_t* words);
};

// `expected` = reference_fused(p, inputs); per_rank[i] = the outputs of rank rank_ids[i] (1..nranks
// ranks; empty rank_ids: ranks 0, 1, ... in order), named so in every failure message. Outputs the
// pattern does not write are ignored. Throws InvalidArgument when a present output has the wrong
// size (a harness bug, not a kernel error) or rank_ids does not match per_rank.
GateReport check_outputs(const Problem& p, const FusedOutputs& expected, const std::vector<FusedOutputs>& per_rank,
                         const ExactOutputs* exact, const std::vector<int>& rank_ids = {});

}  // namespace arlab::ref
