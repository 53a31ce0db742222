// RAII over CUDA IPC: the handle of a device allocation (cudaIpcGetMemHandle, for the other
// processes of the node) and a mapping of another process's allocation into this one
// (cudaIpcOpenMemHandle with lazy peer access, so a peer GPU's memory is reached over NVLink; on
// the same GPU it is a second mapping of the same memory). The mapping is closed on destruction;
// the owner must free its allocation only after every peer closed its mapping (harness/mpi_node.cpp
// orders this with barriers).
#pragma once

#include <cuda_runtime.h>

namespace arlab::harness {

// Throws CudaError naming the rank when the allocation cannot be exported.
cudaIpcMemHandle_t export_ipc_handle(void* base, int rank);

class IpcMapping {
 public:
  IpcMapping() = default;
  // Maps peer `peer_rank`'s allocation; throws CudaError naming the peer on failure.
  IpcMapping(const cudaIpcMemHandle_t& handle, int peer_rank);
  ~IpcMapping() { reset(); }
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;
  IpcMapping(IpcMapping&& o) noexcept : ptr_(o.ptr_) { o.ptr_ = nullptr; }
  IpcMapping& operator=(IpcMapping&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = o.ptr_;
      o.ptr_ = nullptr;
    }
    return *this;
  }

  void* get() const { return ptr_; }
  void reset() noexcept {
    if (ptr_) cudaIpcCloseMemHandle(ptr_);  // teardown: a failure cannot be acted on
    ptr_ = nullptr;
  }

 private:
  void* ptr_ = nullptr;
};

}  // namespace arlab::harness
