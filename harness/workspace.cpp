// Implementation of harness/workspace.h.
#include "harness/workspace.h"

#include <climits>
#include <string>

#include "kernels/fill.h"

namespace arlab::harness {

uint32_t negative_zero_fill(DType dtype) {
  constexpr uint32_t kNegZero16x2 = 0x80008000u;  // bf16 and fp16 -0.0 = 0x8000
  constexpr uint32_t kNegZero32 = 0x80000000u;    // fp32 -0.0
  return dtype == DType::fp32 ? kNegZero32 : kNegZero16x2;
}

static WorkspaceShape checked(const WorkspaceShape& s) {
  if (s.max_tokens < 1 || s.max_hidden < 1)
    throw InvalidArgument("workspace of " + std::to_string(s.max_tokens) + " tokens x " + std::to_string(s.max_hidden) +
                          " hidden: both must be >= 1");
  if (!is_supported_nranks(s.nranks))
    throw InvalidArgument("workspace for nranks = " + std::to_string(s.nranks) + " (expected 2, 4, 8 or 16)");
  if (s.max_elem_bytes != 2 && s.max_elem_bytes != 4)
    throw InvalidArgument("workspace element size " + std::to_string(s.max_elem_bytes) + " bytes (expected 2 or 4)");
  return s;
}

LamportWorkspace::LamportWorkspace(const WorkspaceShape& shape, int rank)
    : shape_(checked(shape)),
      rank_(rank),
      layout_(kernels::lamport_layout(shape.max_tokens, shape.max_hidden, shape.nranks, shape.max_elem_bytes)),
      peer_layout_(peers::peer_layout(layout_, shape.nranks)),
      mem_(shape.peers ? peer_layout_.total_bytes : kernels::workspace_bytes(layout_), rank) {}

long long LamportWorkspace::token_capacity(int hidden, DType dtype) const {
  if (hidden < 1) return 0;
  return static_cast<long long>(layout_.slot_bytes / (static_cast<size_t>(hidden) * dtype_bytes(dtype)));
}

void LamportWorkspace::initialize(DType dtype, cudaStream_t stream) {
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemsetAsync(mem_.data(), 0, kernels::kRegionOffset, stream));
  ARLAB_CUDA_CHECK_RANK(rank_, kernels::launch_fill_u32(lamport_region(mem_.data()), layout_.region_bytes,
                                                        negative_zero_fill(dtype), stream));
  ARLAB_CUDA_CHECK_RANK(rank_,
                        cudaMemsetAsync(twoshot_flags(mem_.data(), layout_), 0, kernels::kTwoshotSyncBytes, stream));
  if (!shape_.peers) return;
  char* base = mem_.as<char>();
  const peers::PeerLayout& p = peer_layout_;
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemsetAsync(base + p.fi_barrier, 0, p.fi_lamport - p.fi_barrier, stream));
  ARLAB_CUDA_CHECK_RANK(rank_, kernels::launch_fill_u32(base + p.fi_lamport, 3 * p.fi_lamport_buffer_bytes,
                                                        negative_zero_fill(dtype), stream));
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemsetAsync(base + p.fi_flags, 0, peers::kFlashinferFlagsBytes, stream));
  const int lamport_bytes = static_cast<int>(p.fi_lamport_buffer_bytes);
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(base + p.fi_flags + peers::kFlashinferFlagLamportSize * sizeof(int),
                                               &lamport_bytes, sizeof(int), cudaMemcpyHostToDevice, stream));
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemsetAsync(base + p.vllm_signal, 0, peers::kVllmSignalBytes, stream));
  // cudaMemcpyAsync from pageable host memory returns once the source is staged: lamport_bytes may go.
}

}  // namespace arlab::harness
