// vLLM's custom all-reduce (vllm_custom_all_reduce.cuh of the pinned flashinfer-python wheel,
// peers/flashinfer.pin) behind peers/peer_kernels.h: its one- and two-stage kernels, picked by its
// own rule, launched with its own shape (peers/vllm_config.cpp). The input is the registered buffer
// of every rank (vLLM's registered-buffer path: RankData holds every rank's input pointer).
#include "flashinfer/comm/vllm_custom_all_reduce.cuh"
#include "peers/peer_kernels.h"
#include "peers/peer_layout.h"

namespace arlab::peers {

static_assert(sizeof(vllm::Signal) == kVllmSignalBytes, "peers/peer_layout.h kVllmSignalBytes is not sizeof(vllm::Signal)");
static_assert(sizeof(vllm::RankData) <= kVllmRankDataBytes, "vllm::RankData outgrew its workspace slot");

namespace {

bool two_stage(const Problem& p) {
  const long long bytes = static_cast<long long>(p.tokens) * p.hidden * dtype_bytes(p.dtype);
  const long long from = vllm_two_stage_min_bytes(p.nranks);
  return from >= 0 && bytes >= from;
}

template <typename T, int NG>
const void* kernel_of(bool two) {
  return two ? reinterpret_cast<const void*>(&vllm::cross_device_reduce_2stage<T, NG>)
             : reinterpret_cast<const void*>(&vllm::cross_device_reduce_1stage<T, NG>);
}

template <typename T, int NG>
void launch_of(const Problem& p, const VllmArgs& a, cudaStream_t s) {
  const LaunchConfig c = vllm_launch_config(p);
  const int packs = static_cast<int>(static_cast<long long>(p.tokens) * p.hidden / vec_elems(p.dtype));
  vllm::RankSignals sg;
  for (int r = 0; r < NG; ++r) sg.signals[r] = static_cast<vllm::Signal*>(a.signals[r]);
  auto* dp = static_cast<vllm::RankData*>(const_cast<void*>(a.rank_data));
  auto* self = static_cast<vllm::Signal*>(a.self_signal);
  T* out = static_cast<T*>(a.out);
  if (two_stage(p))
    vllm::cross_device_reduce_2stage<T, NG><<<c.grid, c.tpb, 0, s>>>(dp, sg, self, out, a.rank, packs);
  else
    vllm::cross_device_reduce_1stage<T, NG><<<c.grid, c.tpb, 0, s>>>(dp, sg, self, out, a.rank, packs);
}

template <typename T>
const void* kernel_for(const Problem& p) {
  const bool two = two_stage(p);
  switch (p.nranks) {
    case 2: return kernel_of<T, 2>(two);
    case 4: return kernel_of<T, 4>(two);
    case 8: return kernel_of<T, 8>(two);
  }
  return nullptr;
}

template <typename T>
bool launch_for(const Problem& p, const VllmArgs& a, cudaStream_t s) {
  switch (p.nranks) {
    case 2: launch_of<T, 2>(p, a, s); return true;
    case 4: launch_of<T, 4>(p, a, s); return true;
    case 8: launch_of<T, 8>(p, a, s); return true;
  }
  return false;
}

}  // namespace

const void* vllm_kernel(const Problem& p) {
  const void* fn = p.dtype == DType::bf16   ? kernel_for<nv_bfloat16>(p)
                   : p.dtype == DType::fp16 ? kernel_for<half>(p)
                                            : kernel_for<float>(p);
  if (fn == nullptr)
    throw InvalidArgument("vLLM's custom all-reduce has no kernel for N = " + std::to_string(p.nranks) +
                          " in this build (2, 4, 8)");
  return fn;
}

cudaError_t launch_vllm(const Problem& p, const VllmArgs& a, cudaStream_t stream) {
  const bool ok = p.dtype == DType::bf16   ? launch_for<nv_bfloat16>(p, a, stream)
                  : p.dtype == DType::fp16 ? launch_for<half>(p, a, stream)
                                           : launch_for<float>(p, a, stream);
  if (!ok) return cudaErrorInvalidValue;
  return cudaGetLastError();
}

}  // namespace arlab::peers
