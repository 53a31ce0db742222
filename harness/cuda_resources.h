// RAII owners of the CUDA resources the harness creates: device and pinned host buffers, events,
// streams (runtime- or green-context-created), green contexts, graphs and graph executables.
// Move-only; destructors never throw (a failing release during teardown is ignored, the process
// is already unwinding or exiting). Creation failures throw CudaError (harness/check.h).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "harness/check.h"
#include "harness/driver_api.h"

namespace arlab::harness {

// A unique owner of a handle with a release function.
template <typename Handle, typename Release>
class Owned {
 public:
  Owned() = default;
  Owned(Handle h, Release r) : h_(h), release_(r) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, Handle{})), release_(o.release_) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, Handle{});
      release_ = o.release_;
    }
    return *this;
  }
  ~Owned() { reset(); }
  void reset() noexcept {
    if (h_ != Handle{}) release_(h_);
    h_ = Handle{};
  }
  // Gives the handle up without releasing it: for a failure path where a release could wait for a
  // hung device (cudaFree and cudaFreeHost synchronise); the process is about to end or re-initialize.
  void abandon() noexcept { h_ = Handle{}; }
  Handle get() const { return h_; }
  explicit operator bool() const { return h_ != Handle{}; }

 private:
  Handle h_{};
  Release release_{};
};

struct CudaFreeRelease {
  void operator()(void* p) const noexcept { cudaFree(p); }
};
struct CudaFreeHostRelease {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
struct EventRelease {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};
struct GraphRelease {
  void operator()(cudaGraph_t g) const noexcept { cudaGraphDestroy(g); }
};
struct GraphExecRelease {
  void operator()(cudaGraphExec_t g) const noexcept { cudaGraphExecDestroy(g); }
};
// Green-context streams are destroyed through the driver entry point they were created with.
struct StreamRelease {
  PFN_cuStreamDestroy_v4000 driver_destroy = nullptr;  // nullptr: a runtime-created stream
  void operator()(cudaStream_t s) const noexcept {
    if (driver_destroy) driver_destroy(s);
    else cudaStreamDestroy(s);
  }
};
struct GreenCtxRelease {
  PFN_cuGreenCtxDestroy_v12040 destroy = nullptr;
  void operator()(CUgreenCtx g) const noexcept {
    if (destroy) destroy(g);
  }
};

// Memory of one kind, owned: Kind::allocate (a cudaMalloc-like call) and Kind::Release.
template <typename Kind>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes, int rank = detail::kNoRank) : bytes_(bytes) {
    void* p = nullptr;
    if (bytes > 0) ARLAB_CUDA_CHECK_RANK(rank, Kind::allocate(&p, bytes));
    mem_ = Owned<void*, typename Kind::Release>(p, typename Kind::Release{});
  }
  void* data() const { return mem_.get(); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(mem_.get());
  }
  size_t bytes() const { return bytes_; }
  // Leaks the memory instead of freeing it (Owned::abandon): failure paths only.
  void abandon() noexcept { mem_.abandon(); }

 private:
  Owned<void*, typename Kind::Release> mem_;
  size_t bytes_ = 0;
};

// Device memory (cudaMalloc: 256-byte aligned, and shareable through CUDA IPC handles).
struct DeviceMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
  using Release = CudaFreeRelease;
};
using DeviceBuffer = Buffer<DeviceMemory>;

// Page-locked host memory (fast, asynchronous copies).
struct PinnedMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
  using Release = CudaFreeHostRelease;
};
using PinnedBuffer = Buffer<PinnedMemory>;

// Page-locked host memory mapped into the device address space of every context (green contexts
// too): a word the device polls while the host writes it (the timing loop's host hold).
struct MappedPinnedMemory {
  static cudaError_t allocate(void** p, size_t bytes) {
    return cudaHostAlloc(p, bytes, cudaHostAllocMapped | cudaHostAllocPortable);
  }
  using Release = CudaFreeHostRelease;
};
using MappedPinnedBuffer = Buffer<MappedPinnedMemory>;

class Event {
 public:
  Event() {
    cudaEvent_t e = nullptr;
    ARLAB_CUDA_CHECK(cudaEventCreate(&e));
    ev_ = Owned<cudaEvent_t, EventRelease>(e, EventRelease{});
  }
  cudaEvent_t get() const { return ev_.get(); }

 private:
  Owned<cudaEvent_t, EventRelease> ev_;
};

using Stream = Owned<cudaStream_t, StreamRelease>;
using GreenContext = Owned<CUgreenCtx, GreenCtxRelease>;
using Graph = Owned<cudaGraph_t, GraphRelease>;
using GraphExec = Owned<cudaGraphExec_t, GraphExecRelease>;

// A non-blocking runtime stream.
inline Stream make_stream() {
  cudaStream_t s = nullptr;
  ARLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s, StreamRelease{});
}

}  // namespace arlab::harness
