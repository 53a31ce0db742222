// Error checking of every CUDA call the harness makes (runtime, driver, CUPTI, NCCL). A failing call
// throws arlab::CudaError whose message carries the API, the call text, the error name and text,
// file:line and, where known, the rank. A bounded device wait that timed out throws
// arlab::DeviceTimeout (a CudaError) naming rank, block and what was awaited.
#pragma once

#include <stdexcept>
#include <string>

#include "kernels/device_fault.h"

namespace arlab {

struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DeviceTimeout : CudaError {
  DeviceTimeout(const std::string& what, const kernels::FaultInfo& f) : CudaError(what), fault(f) {}
  kernels::FaultInfo fault;
};

namespace detail {
constexpr int kNoRank = -1;
[[noreturn]] void throw_cuda_error(const char* api, const char* call, int code, const std::string& name,
                                   const std::string& text, const char* file, int line, int rank);
void check_runtime(int code, const char* call, const char* file, int line, int rank);  // cudaError_t
void check_cupti(int code, const char* call, const char* file, int line);              // CUptiResult
void check_nccl(int code, const char* call, const char* file, int line, int rank);    // ncclResult_t
}  // namespace detail

}  // namespace arlab

// CUDA runtime call; ARLAB_CUDA_CHECK_RANK names the rank in the message.
#define ARLAB_CUDA_CHECK(call) ::arlab::detail::check_runtime(static_cast<int>(call), #call, __FILE__, __LINE__, -1)
#define ARLAB_CUDA_CHECK_RANK(rank, call) \
  ::arlab::detail::check_runtime(static_cast<int>(call), #call, __FILE__, __LINE__, (rank))
// CUDA driver call through the entry points of harness/driver_api.h (`drv` is a DriverApi).
#define ARLAB_CU_CHECK(drv, call) (drv).check(static_cast<int>(call), #call, __FILE__, __LINE__, -1)
#define ARLAB_CU_CHECK_RANK(drv, rank, call) (drv).check(static_cast<int>(call), #call, __FILE__, __LINE__, (rank))
// CUPTI call (harness/cupti_timer.cpp defines the checker: only it includes CUPTI's headers).
#define ARLAB_CUPTI_CHECK(call) ::arlab::detail::check_cupti(static_cast<int>(call), #call, __FILE__, __LINE__)
// NCCL call (harness/nccl_comm.cpp defines the checker: only it includes nccl.h).
#define ARLAB_NCCL_CHECK_RANK(rank, call) \
  ::arlab::detail::check_nccl(static_cast<int>(call), #call, __FILE__, __LINE__, (rank))
