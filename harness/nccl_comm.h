// RAII over one NCCL communicator of the multi-process node (one rank per process and GPU): the
// `nccl` baseline's all-reduce (common/launch_config.h Implementation). Built only with MPI and
// NCCL (ARLAB_HAVE_NCCL); the unique id is made by MPI rank 0 and reaches every process through an
// MPI all-gather, then each process joins with ncclCommInitRank on its own GPU. NCCL refuses two
// ranks on one GPU, so the emulated node has no communicator (harness/node.h Node::nccl).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

#include "common/problem.h"

namespace arlab::harness {

class MpiSession;

// What the runner needs of a communicator (harness/fused_runner.cpp); an interface, so that code
// using it links without NCCL or MPI.
class NcclComm {
 public:
  virtual ~NcclComm() = default;
  // Enqueues ncclAllReduce(sum) of `count` elements of `dtype` from `send` into `recv` on `stream`.
  virtual void all_reduce_sum(const void* send, void* recv, size_t count, DType dtype, cudaStream_t stream) const = 0;
  // "NCCL 2.28.3" (the library actually loaded, ncclGetVersion).
  virtual std::string version() const = 0;

  // NCCL's symmetric kernels (NCCL >= 2.27): buffers from ncclMemAlloc registered as windows with
  // ncclCommWindowRegister(..., NCCL_WIN_COLL_SYMMETRIC), where NCCL runs its symmetric all-reduce.
  virtual bool symmetric_supported() const = 0;
  // Collective: a registered send and receive window of at least `bytes` each (made once, grown
  // when a larger call asks). Throws where NCCL has no symmetric windows.
  virtual void prepare_symmetric(size_t bytes) = 0;
  // Enqueues: `send` copied into the send window (a copy, not a kernel), then ncclAllReduce(sum)
  // window to window; returns the receive window, where the sum lands.
  virtual void* all_reduce_sum_symmetric(const void* send, size_t count, DType dtype, cudaStream_t stream) const = 0;
};

// Makes this process's communicator. Collective over every process of `mpi`: this process is NCCL
// rank mpi.rank() on `device`. Throws CudaError naming the NCCL call on failure, and
// std::runtime_error in a build without NCCL. The communicator is destroyed with ncclCommDestroy
// (ncclCommAbort while an exception unwinds: no wait for the other ranks).
std::unique_ptr<NcclComm> make_nccl_comm(const MpiSession& mpi, int device);

}  // namespace arlab::harness
