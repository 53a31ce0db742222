// Implementation of harness/peer_calls.h.
#include "harness/peer_calls.h"

#include <string>

#include "harness/check.h"

namespace arlab::harness {

PeerCalls::PeerCalls(Node& node) : node_(node) {
  fi_workspace_.resize(static_cast<size_t>(node.nranks()));
  const int n = node.nranks();
  for (int r : node.local_ranks()) {
    RankContext& rank = node.rank(r);
    if (!rank.workspace().shape().peers)
      throw InvalidArgument("rank " + std::to_string(r) + "'s workspace has no peers' part: the node was opened "
                            "without NodeOptions::peers");
    const peers::PeerLayout& l = rank.workspace().peer_layout();
    // FlashInfer's workspace array: [comm x N][barrier flags x N][Lamport x N][my control ints].
    std::vector<void*> fi(static_cast<size_t>(3 * n + 1));
    for (int q = 0; q < n; ++q) {
      char* base = static_cast<char*>(rank.peer_base(q));
      fi[static_cast<size_t>(q)] = base + l.fi_comm;
      fi[static_cast<size_t>(n + q)] = base + l.fi_barrier;
      fi[static_cast<size_t>(2 * n + q)] = base + l.fi_lamport;
    }
    fi[static_cast<size_t>(3 * n)] = static_cast<char*>(rank.workspace().base()) + l.fi_flags;
    DeviceBuffer& d = fi_workspace_[static_cast<size_t>(r)];
    d = DeviceBuffer(fi.size() * sizeof(void*), r);
    ARLAB_CUDA_CHECK_RANK(r, cudaMemcpy(d.data(), fi.data(), fi.size() * sizeof(void*), cudaMemcpyHostToDevice));
    // vLLM's RankData: every rank's registered input, in this rank's workspace.
    void* inputs[peers::kVllmMaxRanks] = {};
    for (int q = 0; q < n && q < peers::kVllmMaxRanks; ++q)
      inputs[q] = static_cast<char*>(rank.peer_base(q)) + l.vllm_input;
    ARLAB_CUDA_CHECK_RANK(r, cudaMemcpy(static_cast<char*>(rank.workspace().base()) + l.vllm_rank_data, inputs,
                                        sizeof(inputs), cudaMemcpyHostToDevice));
  }
}

peers::FlashinferArgs PeerCalls::flashinfer_args(int r, const kernels::FusedParams& k) const {
  peers::FlashinferArgs a;
  a.rank = r;
  a.x = k.x;
  a.residual_in = k.residual_in;
  a.gamma = k.gamma;
  a.scale = k.scale;
  a.allreduce_out = k.allreduce_out;
  a.residual_out = k.residual_out;
  a.norm_out = k.norm_out;
  a.quant_out = k.quant_out;
  a.scale_out = k.scale_out;
  a.workspace = fi_workspace_.at(static_cast<size_t>(r)).as<void*>();
  return a;
}

peers::VllmArgs PeerCalls::vllm_args(int r, void* out) const {
  RankContext& rank = node_.rank(r);
  const peers::PeerLayout& l = rank.workspace().peer_layout();
  peers::VllmArgs a;
  a.rank = r;
  a.rank_data = static_cast<char*>(rank.workspace().base()) + l.vllm_rank_data;
  for (int q = 0; q < node_.nranks() && q < peers::kVllmMaxRanks; ++q)
    a.signals[q] = static_cast<char*>(rank.peer_base(q)) + l.vllm_signal;
  a.self_signal = static_cast<char*>(rank.workspace().base()) + l.vllm_signal;
  a.out = out;
  return a;
}

void* PeerCalls::vllm_input(int r) const {
  RankContext& rank = node_.rank(r);
  return static_cast<char*>(rank.workspace().base()) + rank.workspace().peer_layout().vllm_input;
}

}  // namespace arlab::harness
