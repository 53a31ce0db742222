// The CUDA driver entry points the harness uses (green contexts, SM resources, streams), obtained
// at run time through cudaGetDriverEntryPointByVersion. arlab links only the static CUDA runtime,
// which loads the driver itself: binaries start on machines without a driver (CPU subcommands and
// skipped GPU tests still work) and nothing links libcuda directly. One DriverApi is loaded per
// process user (the node) and passed down; no global state.
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <string>

namespace arlab::harness {

struct DriverApi {
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuGetErrorString_v6000 get_error_string = nullptr;
  PFN_cuDeviceGet_v2000 device_get = nullptr;
  PFN_cuDeviceGetDevResource_v12040 device_get_dev_resource = nullptr;
  PFN_cuDevSmResourceSplitByCount_v12040 dev_sm_resource_split_by_count = nullptr;
  PFN_cuDevResourceGenerateDesc_v12040 dev_resource_generate_desc = nullptr;
  PFN_cuGreenCtxCreate_v12040 green_ctx_create = nullptr;
  PFN_cuGreenCtxDestroy_v12040 green_ctx_destroy = nullptr;
  PFN_cuGreenCtxGetDevResource_v12040 green_ctx_get_dev_resource = nullptr;
  PFN_cuGreenCtxStreamCreate_v12050 green_ctx_stream_create = nullptr;
  PFN_cuStreamDestroy_v4000 stream_destroy = nullptr;

  // Resolves every entry point; throws CudaError naming the first one the driver lacks.
  static DriverApi load();
  // Throws CudaError (see harness/check.h) when code is not CUDA_SUCCESS.
  void check(int code, const char* call, const char* file, int line, int rank) const;
};

}  // namespace arlab::harness
