// What the runner needs to call the peers' kernels (peers/peer_kernels.h) on a node whose
// workspaces hold the peers' part (peers/peer_layout.h): per local rank, FlashInfer's workspace
// pointer array (every rank's comm buffer, barrier flags and Lamport buffers as this rank reaches
// them, then its own control ints; device memory, made once) and vLLM's RankData (every rank's
// registered input buffer; written once into this rank's workspace); then each call's arguments.
// Made by FusedRunner when the node has the peers' part and the build has the peers' kernels.
#pragma once

#include <memory>
#include <vector>

#include "harness/cuda_resources.h"
#include "harness/node.h"
#include "harness/rank_tensors.h"
#include "kernels/fused_params.h"
#include "peers/peer_kernels.h"

namespace arlab::harness {

class PeerCalls {
 public:
  // Collective-free: every pointer comes from the node's peer view. Throws CudaError on a failed
  // allocation or copy, InvalidArgument when the node has no peers' part.
  explicit PeerCalls(Node& node);

  // FlashInfer's arguments of a call on rank r (a local rank) from the call's FusedParams.
  peers::FlashinferArgs flashinfer_args(int r, const kernels::FusedParams& k) const;
  // vLLM's arguments of a call on rank r, its sum written to `out`.
  peers::VllmArgs vllm_args(int r, void* out) const;
  // Rank r's registered vLLM input buffer (each call's x is copied here first).
  void* vllm_input(int r) const;

 private:
  Node& node_;
  std::vector<DeviceBuffer> fi_workspace_;  // per rank (index = rank; local ranks only)
};

}  // namespace arlab::harness
