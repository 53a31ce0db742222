// A deliberately simple GPU implementation of the fused op (docs/operation.md) for bf16, patterns ar and
// ar_res_rms, pairwise accumulation -- the independent check of the soak test (harness/soak.h):
// one block per token, elementwise sum in rank order straight from every rank's input (no
// protocol, no workspace), residual, RMSNorm; plus a kernel that compares one call's outputs with
// it and counts the differences. Not a performance kernel.
#pragma once

#include <cuda_runtime.h>

#include "kernels/lamport_layout.h"

namespace arlab::kernels {

struct SoakReferenceParams {
  const void* x[kMaxRanks] = {};  // every rank's input [tokens, H] bf16
  const void* residual_in = nullptr;  // [tokens, H] bf16 (ar_res_rms)
  const void* gamma = nullptr;        // [H] bf16
  void* sum_out = nullptr;            // ar: the all-reduced sum; ar_res_rms: residual_out
  void* norm_out = nullptr;           // ar_res_rms only
  float eps = 0.0f;
  int nranks = 0;
  int tokens = 0;
  int hidden = 0;
  int with_norm = 0;  // 0: pattern ar, 1: ar_res_rms
};

cudaError_t launch_soak_reference(const SoakReferenceParams& p, cudaStream_t stream);

struct SoakCompareParams {
  const void* sum = nullptr;           // the call's allreduce_out (ar) or residual_out
  const void* norm = nullptr;          // the call's norm_out (ar_res_rms), or nullptr
  const void* expected_sum = nullptr;  // the simple implementation's
  const void* expected_norm = nullptr;
  long long elements = 0;              // tokens x H of this call
  unsigned long long* counters = nullptr;  // this call's: [0] sum bit mismatches, [1] norm beyond 1 ulp
};

cudaError_t launch_soak_compare(const SoakCompareParams& p, cudaStream_t stream);

}  // namespace arlab::kernels
