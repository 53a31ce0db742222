// The soak test of the "no hang, nothing lost" issue: a long run of consecutive fused calls on the
// emulated node with changing token counts, launch configurations (each token count's trtllm
// configuration) and input sets, every call's outputs poisoned first and then compared ON THE GPU
// against a deliberately simple implementation of the same op (kernels/soak_reference.h):
// all-reduce / residual bit-exact, norm_out within 1 ulp (its sum of squares is reduced in another
// order). The simple implementation is itself checked against the CPU reference first. Every
// spin-wait stays bounded; a timeout ends the soak with the fault's description.
#pragma once

#include <cstdint>
#include <string>

#include "common/problem.h"
#include "harness/node.h"

namespace arlab::harness {

struct SoakOptions {
  long long calls = 1000000;
  int max_tokens = 128;   // token counts are drawn from [1, max_tokens]
  int sets = 4;           // input sets rotated call by call
  uint64_t seed = 1;      // inputs and the token-count sequence
  int sync_every = 512;   // calls between host synchronizations (fault check, counter read-back)
};

struct SoakReport {
  long long calls = 0;
  long long mismatched_calls = 0;       // calls with any difference on any rank
  long long sum_mismatches = 0;         // allreduce_out / residual_out elements not bit-exact
  long long norm_over_1ulp = 0;         // norm_out elements more than 1 ulp away
  long long timeouts = 0;               // device faults (a fault ends the soak)
  long long elements_compared = 0;      // output elements compared, summed over ranks and calls
  int reference_checked_tokens = 0;     // rows of the simple implementation checked against the CPU
  double seconds = 0;
  std::string fault;                    // the fault that ended the soak, if any
};

// Throws InvalidArgument unless the simple implementation covers `shape`: bf16, pairwise, pattern
// ar or ar_res_rms.
void check_soak_shape(const Problem& shape);

// Runs the soak of `shape` (bf16, pattern ar or ar_res_rms, pairwise; shape.tokens is ignored)
// on `node`. Throws InvalidArgument for an unsupported shape and CudaError on CUDA failures.
SoakReport run_soak(Node& node, const Problem& shape, const SoakOptions& opt);

}  // namespace arlab::harness
