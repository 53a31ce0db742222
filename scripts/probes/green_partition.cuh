// What the standalone probes of the emulated node share (scripts/probes/cluster_placement.cu,
// cluster_capacity.cu): error checks that end the probe, the shortest of repeated timed launches, and the
// green-context partitions split as the harness splits them (harness/green_partitions.cpp: equal groups of S SMs, asking for the largest potential
// cluster size). Header-only, for probes built alone with nvcc (`-lcuda`); not part of the build.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace probe {

inline void check_driver(CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return;
  const char* msg = nullptr;
  cuGetErrorString(rc, &msg);
  std::fprintf(stderr, "probe: %s failed: %s\n", what, msg ? msg : "unknown error");
  std::exit(1);
}

inline void check_runtime(cudaError_t rc, const char* what) {
  if (rc == cudaSuccess) return;
  std::fprintf(stderr, "probe: %s failed: %s\n", what, cudaGetErrorString(rc));
  std::exit(1);
}

// The shortest launch-to-end time of `reps` calls of `launch` (which enqueues one kernel on `stream`), in
// microseconds, from CUDA events recorded around each call.
template <class Launch>
float best_launch_us(cudaStream_t stream, int reps, Launch launch) {
  cudaEvent_t begin = nullptr, end = nullptr;
  check_runtime(cudaEventCreate(&begin), "cudaEventCreate");
  check_runtime(cudaEventCreate(&end), "cudaEventCreate");
  float best_us = 1e30f;
  for (int rep = 0; rep < reps; ++rep) {
    check_runtime(cudaEventRecord(begin, stream), "cudaEventRecord");
    launch();
    check_runtime(cudaEventRecord(end, stream), "cudaEventRecord");
    check_runtime(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    float ms = 0;
    check_runtime(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    best_us = best_us < ms * 1000.0f ? best_us : ms * 1000.0f;
  }
  check_runtime(cudaEventDestroy(begin), "cudaEventDestroy");
  check_runtime(cudaEventDestroy(end), "cudaEventDestroy");
  return best_us;
}

// Device 0's primary context, made current.
inline CUcontext primary_context(CUdevice& dev) {
  check_driver(cuInit(0), "cuInit");
  check_driver(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext primary = nullptr;
  check_driver(cuDevicePrimaryCtxRetain(&primary, dev), "cuDevicePrimaryCtxRetain");
  check_driver(cuCtxSetCurrent(primary), "cuCtxSetCurrent");
  return primary;
}

// The SM groups of an emulated node of `nranks` ranks: `made` groups of `sms` SMs each.
struct Split {
  unsigned sms = 0;
  unsigned made = 0;
  std::vector<CUdevResource> groups;
};

inline Split split_sms(CUdevice dev, int nranks) {
  CUdevResource whole = {};
  check_driver(cuDeviceGetDevResource(dev, &whole, CU_DEV_RESOURCE_TYPE_SM), "cuDeviceGetDevResource");
  Split s;
  s.sms = whole.sm.smCount / nranks / whole.sm.smCoscheduledAlignment * whole.sm.smCoscheduledAlignment;
  s.groups.resize(static_cast<size_t>(nranks));
  s.made = static_cast<unsigned>(nranks);
  CUdevResource rest = {};
  check_driver(cuDevSmResourceSplitByCount(s.groups.data(), &s.made, &whole, &rest,
                                           CU_DEV_SM_RESOURCE_SPLIT_MAX_POTENTIAL_CLUSTER_SIZE, s.sms),
               "cuDevSmResourceSplitByCount");
  return s;
}

// One rank's partition: a green context on `group` with a stream, made current until close().
struct Partition {
  CUgreenCtx green = nullptr;
  CUstream stream = nullptr;

  Partition(CUdevice dev, CUdevResource& group) {
    CUdevResourceDesc desc = nullptr;
    check_driver(cuDevResourceGenerateDesc(&desc, &group, 1), "cuDevResourceGenerateDesc");
    check_driver(cuGreenCtxCreate(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM), "cuGreenCtxCreate");
    check_driver(cuGreenCtxStreamCreate(&stream, green, CU_STREAM_NON_BLOCKING, 0), "cuGreenCtxStreamCreate");
    CUcontext as_ctx = nullptr;
    check_driver(cuCtxFromGreenCtx(&as_ctx, green), "cuCtxFromGreenCtx");
    check_driver(cuCtxSetCurrent(as_ctx), "cuCtxSetCurrent");
  }
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;
  // Makes `primary` current again and destroys the stream and the green context.
  void close(CUcontext primary) {
    check_driver(cuCtxSetCurrent(primary), "cuCtxSetCurrent");
    check_driver(cuStreamDestroy(stream), "cuStreamDestroy");
    check_driver(cuGreenCtxDestroy(green), "cuGreenCtxDestroy");
  }
  cudaStream_t runtime_stream() const { return reinterpret_cast<cudaStream_t>(stream); }
};

}  // namespace probe
