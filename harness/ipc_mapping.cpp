// Implementation of harness/ipc_mapping.h.
#include "harness/ipc_mapping.h"

#include "harness/check.h"

namespace arlab::harness {

cudaIpcMemHandle_t export_ipc_handle(void* base, int rank) {
  cudaIpcMemHandle_t h{};
  ARLAB_CUDA_CHECK_RANK(rank, cudaIpcGetMemHandle(&h, base));
  return h;
}

IpcMapping::IpcMapping(const cudaIpcMemHandle_t& handle, int peer_rank) {
  ARLAB_CUDA_CHECK_RANK(peer_rank, cudaIpcOpenMemHandle(&ptr_, handle, cudaIpcMemLazyEnablePeerAccess));
}

}  // namespace arlab::harness
