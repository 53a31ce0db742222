// One rank's input and output tensors on the device for one problem shape: `nsets` input sets
// (x and residual_in rotate between sets so timed calls do not run out of L2, docs/measurement.md), gamma,
// the device scale scalar, and every output of the pattern. Sized for the largest call
// (shape.tokens); a call may use fewer tokens (the first rows). Outputs are poisoned before a
// checked call: every byte the kernel must write gets kPoisonByte (not a NaN in any dtype, so a NaN
// the reference expects never matches an unwritten element), and NVFP4 scale-factor padding, which
// the kernel does not write, gets the zeros the reference has there.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "common/problem.h"
#include "harness/cuda_resources.h"
#include "reference/fused_reference.h"

namespace arlab::harness {

// bf16 0x7B7B ~ 1.3e36, fp16 0x7B7B = 63328, fp32 ~ 1.3e36, e4m3 0x7B = 352
constexpr unsigned char kPoisonByte = 0x7B;

class RankTensors {
 public:
  RankTensors(const Problem& shape, int nsets, int rank);

  int nsets() const { return nsets_; }
  int capacity_tokens() const { return shape_.tokens; }

  // Asynchronous copies of rank `rank_`'s x, the residual and gamma of `in` (tokens <= capacity)
  // into input set `set`; also writes the device scale scalar (problem.scale).
  void upload(const ref::FusedInputs& in, int set, float scale, cudaStream_t stream);
  // Poison for a call of p.tokens tokens (asynchronous).
  void poison_outputs(const Problem& p, cudaStream_t stream);
  // Synchronizes `stream`, then copies the outputs of a p.tokens-token call back.
  ref::FusedOutputs download_outputs(const Problem& p, cudaStream_t stream) const;

  const void* x(int set) const;
  const void* residual(int set) const;
  const void* gamma() const { return gamma_.data(); }
  const float* scale() const { return scale_.as<float>(); }
  void* allreduce_out() const { return allreduce_out_.data(); }
  void* residual_out() const { return residual_out_.data(); }
  void* norm_out() const { return norm_out_.data(); }
  void* quant_out() const { return quant_out_.data(); }
  void* scale_out() const { return scale_out_.data(); }
  // Where a baseline's all-reduce step leaves the sum (common/launch_config.h Implementation):
  // allreduce_out for pattern ar (the sum is the output), else a [capacity, H] T scratch tensor
  // that the separate norm kernel reads.
  void* baseline_sum() const { return has_allreduce_out(shape_.pattern) ? allreduce_out_.data() : sum_scratch_.data(); }

 private:
  size_t tensor_bytes() const;  // one [capacity, H] tensor of T
  Problem shape_;
  int nsets_;
  int rank_;
  DeviceBuffer x_, residual_, gamma_, scale_;
  DeviceBuffer allreduce_out_, residual_out_, norm_out_, quant_out_, scale_out_;
  DeviceBuffer sum_scratch_;  // baselines only: the all-reduced sum of patterns with an epilogue
};

// Rows [0, tokens) of every tensor of `in` (the inputs of a smaller call).
ref::FusedInputs first_tokens(const ref::FusedInputs& in, int tokens);

// The scale-factor buffer image a poisoned call starts from: kPoisonByte where the call writes a
// factor, 0 in the layout's padding.
std::vector<uint8_t> poisoned_scale_image(const Problem& p);

}  // namespace arlab::harness
