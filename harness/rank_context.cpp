// Implementation of harness/rank_context.h.
#include "harness/rank_context.h"

#include <string>

#include "harness/check.h"

namespace arlab::harness {

RankContext::RankContext(int rank, int nranks, cudaStream_t stream, const model::GpuSpec& spec,
                         const WorkspaceShape& shape)
    : rank_(rank), nranks_(nranks), stream_(stream), spec_(spec), workspace_(shape, rank) {}

void RankContext::connect(const std::vector<void*>& peer_bases) {
  if (static_cast<int>(peer_bases.size()) != nranks_)
    throw InvalidArgument("rank " + std::to_string(rank_) + ": " + std::to_string(peer_bases.size()) +
                          " peer workspaces given for " + std::to_string(nranks_) + " ranks");
  peer_bases_ = peer_bases;
}

kernels::FusedParams RankContext::fused_params(const Problem& p, const LaunchConfig& cfg, const RankTensors& t,
                                               int set, unsigned long long timeout_ns) const {
  if (static_cast<int>(peer_bases_.size()) != nranks_)
    throw std::logic_error("rank " + std::to_string(rank_) + " used before connect()");
  kernels::FusedParams k;
  k.x = t.x(set);
  k.residual_in = t.residual(set);
  k.gamma = t.gamma();
  k.scale = t.scale();
  k.allreduce_out = t.allreduce_out();
  k.residual_out = t.residual_out();
  k.norm_out = t.norm_out();
  k.quant_out = t.quant_out();
  k.scale_out = t.scale_out();
  k.eps = p.eps;
  k.tokens = p.tokens;
  k.hidden = p.hidden;
  k.sf_swizzled = p.sf_layout == ScaleLayout::swizzled_128x4 ? 1 : 0;
  k.rank = rank_;
  k.cluster = cfg.cluster;
  k.vecs_per_thread = cfg.vecs_per_thread;
  for (int r = 0; r < nranks_; ++r) k.regions[r] = lamport_region(peer_bases_[static_cast<size_t>(r)]);
  k.my_region = lamport_region(workspace_.base());
  k.control = workspace_.control();
  k.fault = workspace_.fault_word();
  k.slot_bytes = static_cast<long long>(workspace_.layout().slot_bytes);
  k.buffer_bytes = static_cast<long long>(workspace_.layout().buffer_bytes);
  k.timeout_ns = timeout_ns;
  const kernels::LamportLayout& l = workspace_.layout();  // every rank's workspace has the same shape
  for (int r = 0; r < nranks_; ++r) {
    k.twoshot.comm[r] = twoshot_comm(peer_bases_[static_cast<size_t>(r)], l);
    k.twoshot.flags[r] = twoshot_flags(peer_bases_[static_cast<size_t>(r)], l);
  }
  k.twoshot.my_comm = twoshot_comm(workspace_.base(), l);
  k.twoshot.my_flags = twoshot_flags(workspace_.base(), l);
  k.twoshot.block_epoch = twoshot_block_epochs(workspace_.base(), l);
  return k;
}

kernels::GateParams RankContext::gate_params(unsigned long long timeout_ns, unsigned long long* release_ns) const {
  kernels::GateParams g;
  g.release_ns = release_ns;
  g.my_control = workspace_.control();
  for (int r = 0; r < nranks_; ++r)  // the control block sits at offset 0 of every workspace
    g.peer_slot[r] = &static_cast<kernels::LamportControl*>(peer_bases_[static_cast<size_t>(r)])->gate_seen[rank_];
  g.fault = workspace_.fault_word();
  g.timeout_ns = timeout_ns;
  g.nranks = nranks_;
  g.rank = rank_;
  return g;
}

void RankContext::launch_fused(const kernels::FusedKernel& k, const kernels::FusedParams& params,
                               const LaunchConfig& cfg) const {
  ARLAB_CUDA_CHECK_RANK(rank_, kernels::launch_fused(k, params, cfg, stream_));
}

void RankContext::launch_gate(unsigned long long timeout_ns, unsigned long long* release_ns) const {
  ARLAB_CUDA_CHECK_RANK(rank_, kernels::launch_gate(gate_params(timeout_ns, release_ns), stream_));
}

void RankContext::launch_host_hold(const unsigned int* host_word, unsigned int target,
                                   unsigned long long timeout_ns) const {
  kernels::HostHoldParams h;
  h.host_word = host_word;
  h.target = target;
  h.fault = workspace_.fault_word();
  h.timeout_ns = timeout_ns;
  h.rank = rank_;
  ARLAB_CUDA_CHECK_RANK(rank_, kernels::launch_host_hold(h, stream_));
}

bool RankContext::finished() const {
  const cudaError_t e = cudaStreamQuery(stream_);
  if (e != cudaErrorNotReady) ARLAB_CUDA_CHECK_RANK(rank_, e);
  return e == cudaSuccess;
}

unsigned long long RankContext::read_fault_word() const {
  unsigned long long w = 0;
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpy(&w, workspace_.fault_word(), sizeof(w), cudaMemcpyDeviceToHost));
  return w;
}

}  // namespace arlab::harness
