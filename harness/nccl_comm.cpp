// Implementation of harness/nccl_comm.h, and the NCCL branch of harness/check.h. In a build without
// NCCL (ARLAB_HAVE_NCCL unset) the communicator cannot be made: its constructor says so.
#include "harness/nccl_comm.h"

#ifdef ARLAB_HAVE_NCCL
#include <nccl.h>
#endif

#include <cstring>
#include <exception>
#include <vector>

#include "harness/check.h"
#include "harness/mpi_session.h"

#ifdef ARLAB_HAVE_NCCL
namespace arlab {
namespace detail {
void check_nccl(int code, const char* call, const char* file, int line, int rank) {
  if (code == ncclSuccess) return;
  const char* text = ncclGetErrorString(static_cast<ncclResult_t>(code));
  throw_cuda_error("NCCL", call, code, "ncclResult_t", text ? text : "?", file, line, rank);
}
}  // namespace detail

namespace harness {
namespace {

ncclDataType_t nccl_type(DType d) {
  switch (d) {
    case DType::bf16: return ncclBfloat16;
    case DType::fp16: return ncclFloat16;
    case DType::fp32: return ncclFloat32;
  }
  return ncclFloat32;
}

}  // namespace

class NcclCommunicator final : public NcclComm {
 public:
  NcclCommunicator(const MpiSession& mpi, int device);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;
  void all_reduce_sum(const void* send, void* recv, size_t count, DType dtype, cudaStream_t stream) const override;
  std::string version() const override;
  bool symmetric_supported() const override;
  void prepare_symmetric(size_t bytes) override;
  void* all_reduce_sum_symmetric(const void* send, size_t count, DType dtype, cudaStream_t stream) const override;

 private:
  void release_symmetric() noexcept;

  ncclComm_t comm_ = nullptr;
  int rank_ = 0;
  // The symmetric windows (NCCL >= 2.27): send and receive buffers of symmetric_bytes_ each.
  void* sym_send_ = nullptr;
  void* sym_recv_ = nullptr;
  size_t symmetric_bytes_ = 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
  ncclWindow_t send_window_{};
  ncclWindow_t recv_window_{};
#endif
};

NcclCommunicator::NcclCommunicator(const MpiSession& mpi, int device) : rank_(mpi.rank()) {
  ncclUniqueId id{};
  if (mpi.rank() == 0) ARLAB_NCCL_CHECK_RANK(rank_, ncclGetUniqueId(&id));
  const std::vector<uint8_t> all = mpi.allgather_bytes(&id, sizeof id);  // rank 0's id comes first
  std::memcpy(&id, all.data(), sizeof id);
  ARLAB_CUDA_CHECK_RANK(rank_, cudaSetDevice(device));
  ARLAB_NCCL_CHECK_RANK(rank_, ncclCommInitRank(&comm_, mpi.size(), id, mpi.rank()));
}

NcclCommunicator::~NcclCommunicator() {
  if (!comm_) return;
  if (std::uncaught_exceptions() == 0) release_symmetric();
  if (std::uncaught_exceptions() > 0) {
    ncclCommAbort(comm_);  // the other ranks may never get here
  } else {
    ncclCommDestroy(comm_);
  }
}

void NcclCommunicator::all_reduce_sum(const void* send, void* recv, size_t count, DType dtype,
                                      cudaStream_t stream) const {
  ARLAB_NCCL_CHECK_RANK(rank_, ncclAllReduce(send, recv, count, nccl_type(dtype), ncclSum, comm_, stream));
}

#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
bool NcclCommunicator::symmetric_supported() const { return true; }

void NcclCommunicator::release_symmetric() noexcept {
  if (sym_send_) {
    ncclCommWindowDeregister(comm_, send_window_);
    ncclMemFree(sym_send_);
  }
  if (sym_recv_) {
    ncclCommWindowDeregister(comm_, recv_window_);
    ncclMemFree(sym_recv_);
  }
  sym_send_ = sym_recv_ = nullptr;
  symmetric_bytes_ = 0;
}

void NcclCommunicator::prepare_symmetric(size_t bytes) {
  if (bytes <= symmetric_bytes_) return;
  release_symmetric();  // collective, like the registrations below: every rank grows at the same call
  ARLAB_NCCL_CHECK_RANK(rank_, ncclMemAlloc(&sym_send_, bytes));
  ARLAB_NCCL_CHECK_RANK(rank_, ncclMemAlloc(&sym_recv_, bytes));
  ARLAB_NCCL_CHECK_RANK(rank_, ncclCommWindowRegister(comm_, sym_send_, bytes, &send_window_, NCCL_WIN_COLL_SYMMETRIC));
  ARLAB_NCCL_CHECK_RANK(rank_, ncclCommWindowRegister(comm_, sym_recv_, bytes, &recv_window_, NCCL_WIN_COLL_SYMMETRIC));
  symmetric_bytes_ = bytes;
}

void* NcclCommunicator::all_reduce_sum_symmetric(const void* send, size_t count, DType dtype,
                                                 cudaStream_t stream) const {
  const size_t bytes = count * static_cast<size_t>(dtype_bytes(dtype));
  if (bytes > symmetric_bytes_)
    throw InvalidArgument("nccl_symmetric: a call of " + std::to_string(bytes) + " bytes on windows of " +
                          std::to_string(symmetric_bytes_) + " (prepare_symmetric first)");
  ARLAB_CUDA_CHECK_RANK(rank_, cudaMemcpyAsync(sym_send_, send, bytes, cudaMemcpyDeviceToDevice, stream));
  ARLAB_NCCL_CHECK_RANK(rank_, ncclAllReduce(sym_send_, sym_recv_, count, nccl_type(dtype), ncclSum, comm_, stream));
  return sym_recv_;
}
#else
bool NcclCommunicator::symmetric_supported() const { return false; }
void NcclCommunicator::release_symmetric() noexcept {}
void NcclCommunicator::prepare_symmetric(size_t) {
  throw InvalidArgument("nccl_symmetric: this arlab was built against NCCL " + std::to_string(NCCL_VERSION_CODE) +
                        ", which has no symmetric windows (NCCL >= 2.27)");
}
void* NcclCommunicator::all_reduce_sum_symmetric(const void*, size_t, DType, cudaStream_t) const {
  throw InvalidArgument("nccl_symmetric: no symmetric windows in this NCCL (>= 2.27 needed)");
}
#endif

std::string NcclCommunicator::version() const {
  int v = 0;
  ARLAB_NCCL_CHECK_RANK(rank_, ncclGetVersion(&v));
  // NCCL_VERSION_CODE >= 2.9 encodes major * 10000 + minor * 100 + patch (nccl.h).
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
}

std::unique_ptr<NcclComm> make_nccl_comm(const MpiSession& mpi, int device) {
  return std::make_unique<NcclCommunicator>(mpi, device);
}

}  // namespace harness
}  // namespace arlab

#else  // no NCCL

#include <stdexcept>

namespace arlab {
namespace detail {
void check_nccl(int code, const char* call, const char* file, int line, int rank) {
  if (code != 0) throw_cuda_error("NCCL", call, code, "ncclResult_t", "?", file, line, rank);
}
}  // namespace detail

namespace harness {
std::unique_ptr<NcclComm> make_nccl_comm(const MpiSession&, int) {
  throw std::runtime_error("this arlab was built without NCCL (no nccl.h / libnccl at configure time): the nccl "
                           "baseline is unavailable; install libnccl-dev and rebuild, or use --baseline unfused");
}
}  // namespace harness
}  // namespace arlab

#endif
