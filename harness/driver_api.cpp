// Implementation of harness/driver_api.h.
#include "harness/driver_api.h"

#include <cuda_runtime.h>

#include "harness/check.h"

namespace arlab::harness {
namespace {

// The CUDA version each PFN_..._vNNNNN typedef denotes (the suffix), as the entry-point query wants.
template <typename Fn>
void resolve(Fn& fn, const char* symbol, unsigned version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status);
  if (e != cudaSuccess || status != cudaDriverEntryPointSuccess || p == nullptr)
    throw CudaError(std::string("CUDA driver entry point ") + symbol + " (CUDA " + std::to_string(version / 1000) +
                    "." + std::to_string(version % 1000 / 10) + ") is not available: " +
                    (e != cudaSuccess ? cudaGetErrorString(e)
                                      : (status == cudaDriverEntryPointVersionNotSufficent ? "driver too old"
                                                                                           : "symbol not found")));
  fn = reinterpret_cast<Fn>(p);
}

}  // namespace

DriverApi DriverApi::load() {
  DriverApi d;
  resolve(d.get_error_name, "cuGetErrorName", 6000);
  resolve(d.get_error_string, "cuGetErrorString", 6000);
  resolve(d.device_get, "cuDeviceGet", 2000);
  resolve(d.device_get_dev_resource, "cuDeviceGetDevResource", 12040);
  resolve(d.dev_sm_resource_split_by_count, "cuDevSmResourceSplitByCount", 12040);
  resolve(d.dev_resource_generate_desc, "cuDevResourceGenerateDesc", 12040);
  resolve(d.green_ctx_create, "cuGreenCtxCreate", 12040);
  resolve(d.green_ctx_destroy, "cuGreenCtxDestroy", 12040);
  resolve(d.green_ctx_get_dev_resource, "cuGreenCtxGetDevResource", 12040);
  resolve(d.green_ctx_stream_create, "cuGreenCtxStreamCreate", 12050);
  resolve(d.stream_destroy, "cuStreamDestroy", 4000);
  return d;
}

void DriverApi::check(int code, const char* call, const char* file, int line, int rank) const {
  if (code == CUDA_SUCCESS) return;
  const char* name = "?";
  const char* text = "?";
  if (get_error_name) get_error_name(static_cast<CUresult>(code), &name);
  if (get_error_string) get_error_string(static_cast<CUresult>(code), &text);
  detail::throw_cuda_error("CUDA driver", call, code, name ? name : "?", text ? text : "?", file, line, rank);
}

}  // namespace arlab::harness
