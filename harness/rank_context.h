// One rank of a node: its id, its stream (in its green context on the emulated node; on its own
// GPU in a multi-process node), the GpuSpec its policy sees, its Lamport workspace, and the peer
// view (every rank's workspace base as mapped into this process: direct device pointers on the
// emulated node, CUDA IPC mappings in a multi-process node). Everything here is per rank and uses
// no other rank's objects, so the same class serves a rank that is a process of its own.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "common/launch_config.h"
#include "common/problem.h"
#include "harness/rank_tensors.h"
#include "harness/workspace.h"
#include "kernels/dispatch.h"
#include "kernels/gate.h"
#include "model/gpu_spec.h"

namespace arlab::harness {

class RankContext {
 public:
  RankContext(int rank, int nranks, cudaStream_t stream, const model::GpuSpec& spec, const WorkspaceShape& shape);

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  cudaStream_t stream() const { return stream_; }
  const model::GpuSpec& spec() const { return spec_; }
  LamportWorkspace& workspace() { return workspace_; }
  const LamportWorkspace& workspace() const { return workspace_; }

  // peer_bases[r] = rank r's workspace allocation as addressable from this rank (index = rank);
  // the start gate reaches every rank's control block through them.
  void connect(const std::vector<void*>& peer_bases);
  // Rank q's workspace allocation as this rank reaches it (after connect()).
  void* peer_base(int q) const { return peer_bases_.at(static_cast<size_t>(q)); }

  // The kernel's argument block for a call of `p` on input set `set` with launch shape `cfg`.
  kernels::FusedParams fused_params(const Problem& p, const LaunchConfig& cfg, const RankTensors& t, int set,
                                    unsigned long long timeout_ns) const;
  kernels::GateParams gate_params(unsigned long long timeout_ns, unsigned long long* release_ns = nullptr) const;

  // Enqueue on this rank's stream (asynchronous; launch errors throw CudaError naming the rank).
  void launch_fused(const kernels::FusedKernel& k, const kernels::FusedParams& params, const LaunchConfig& cfg) const;
  // The start gate; with `release_ns`, it writes there when it saw every rank arrive.
  void launch_gate(unsigned long long timeout_ns, unsigned long long* release_ns = nullptr) const;
  // The host hold at the head of a timed batch (kernels/gate.h): opens when *host_word == target.
  void launch_host_hold(const unsigned int* host_word, unsigned int target, unsigned long long timeout_ns) const;

  // True when every call enqueued on this rank's stream has finished (a failed one throws
  // CudaError naming the rank). Does not wait.
  bool finished() const;
  // Synchronous read of the fault word (call after the stream is idle).
  unsigned long long read_fault_word() const;

 private:
  int rank_;
  int nranks_;
  cudaStream_t stream_;
  model::GpuSpec spec_;
  LamportWorkspace workspace_;
  std::vector<void*> peer_bases_;
};

}  // namespace arlab::harness
