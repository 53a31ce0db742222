// The peers' kernels (common/implementations.h: the flashinfer and vllm rows): the kernels of the
// pinned FlashInfer release's headers (peers/flashinfer.pin), launched as the libraries launch
// them, behind one small interface the runner (harness/fused_runner.cpp) uses. A build without the
// headers links peers/peers_none.cpp, whose functions say so. Host launchers only: they never
// allocate, synchronize or query the device. The peers' kernels have no bounded waits of their own
// (the libraries spin until their peers arrive): arlab bounds its host-side wait for them
// (harness/node.h synchronize), so a rank that never launches is reported, but the GPU context is then
// lost -- docs/errors.md.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/launch_config.h"
#include "common/problem.h"

namespace arlab::peers {

// True when this build has the peers' kernels; else the reason (configure's).
bool built();
std::string not_built_reason();

// One FlashInfer fused call: the tensors of this rank and the workspace pointer array
// trtllm_allreduce_fusion.cuh's AllReduceFusionParams::workspace wants (device memory, 3N + 1
// pointers: every rank's two-shot comm buffer, every rank's barrier flags, every rank's Lamport
// buffers, then this rank's control ints; peers/peer_layout.h).
struct FlashinferArgs {
  int rank = 0;
  const void* x = nullptr;
  const void* residual_in = nullptr;
  const void* gamma = nullptr;
  const float* scale = nullptr;
  void* allreduce_out = nullptr;
  void* residual_out = nullptr;
  void* norm_out = nullptr;
  void* quant_out = nullptr;
  void* scale_out = nullptr;
  void* const* workspace = nullptr;
};

// The __global__ function a FlashInfer call of p with algorithm `algo` launches (for its
// attributes); throws InvalidArgument for a combination this build has no kernel of.
const void* flashinfer_kernel(const Problem& p, Algorithm algo);
// Launches it with cfg's grid, block, cluster and PDL (the caller checked cfg against
// FlashInfer's mapping: model/legality.h rule 2b).
cudaError_t launch_flashinfer(const Problem& p, const LaunchConfig& cfg, const FlashinferArgs& a, cudaStream_t stream);

// One vLLM custom all-reduce: RankData (every rank's registered input, device memory), every rank's
// Signal and this rank's, the output; size = tokens x H elements of p.dtype.
constexpr int kVllmMaxRanks = 8;
struct VllmArgs {
  int rank = 0;
  const void* rank_data = nullptr;
  void* signals[kVllmMaxRanks] = {};
  void* self_signal = nullptr;
  void* out = nullptr;
};
// The kernel vLLM's rule picks for p (one- or two-stage), and its launch shape: threads 512,
// blocks min(36, packs / 512 rounded up) (vllm_custom_all_reduce.cuh CustomAllreduce::allreduce).
const void* vllm_kernel(const Problem& p);
LaunchConfig vllm_launch_config(const Problem& p);
cudaError_t launch_vllm(const Problem& p, const VllmArgs& a, cudaStream_t stream);

}  // namespace arlab::peers
