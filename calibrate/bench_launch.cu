// Bench `launch`: what a kernel launch costs on the GPU before any work -- the CUPTI duration
// (start to end of the kernel on the GPU's clock) of an EMPTY kernel, over grid x tpb x cluster.
// Every block is still dispatched, so a grid above one wave (more blocks than fit the partition at
// once) shows the per-block dispatch cost; clusters show what placing a cluster (all its blocks on
// one GPC at once) adds. Each call is isolated (stream synchronized after it), as the fused kernel's
// timed calls are. Variant `plain` at cluster 1, `cluster` otherwise; size = grid (blocks).
// Variants `store_1` and `store_8` (since 2026-12-03, cluster 1): the same launch of a kernel whose
// every thread stores 1 or 8 16-byte vectors (plain st.global.v4, coalesced, distinct lines, into
// L2-resident memory) and exits: a kernel ends only once its stores have drained, so store_1 minus
// plain at the same grid and tpb is what the last stores of a kernel body that ends on them (no
// closing barrier whose release has already waited for them) add to its duration, and store_8 how
// that grows with the stores each thread has outstanding (the lean one-shot body's clear on consume
// at N = 8 leaves 7 per vector beside its outputs).
// Variants `prologue_0`, `prologue_2` and `prologue_2_wait` (since session 58, cluster 1): the one-shot bodies' path from launch
// to the first store, alone (kernels/oneshot_kernel.cuh steps 0-1): thread 0 reads a control word with a
// volatile load (as read_control_block does; the word was last written by another SM, block 0 of the
// previous call, as the last arriver publishes the flag), every thread loads 0 or 2 L2-resident 16-byte
// operands meanwhile (the epilogue's gamma and residual of the `ar_res_rms` patterns), a block barrier, then
// every thread stores one vector that depends on the word (the push's first store) and exits. The kernel's
// parameter block has the fused kernels' size (kernels::FusedParams), read at its first and last words.
// prologue_K minus store_1 at the same grid and tpb is what that path adds to a kernel that ends on its
// stores, and prologue_2_wait minus prologue_2 what the bodies' first instruction, griddepcontrol.wait, costs
// a launch that is not programmatic; the phase stamps (docs/kernels.md, "Phase stamps") measure the same path inside the fused bodies.
#include <algorithm>
#include <set>
#include <tuple>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"
#include "kernels/device_sync.cuh"
#include "kernels/fused_params.h"

namespace arlab::calibrate {
namespace {

__global__ void empty_kernel() {}

// Each thread stores kStores vectors, the j-th of all threads contiguous (one coalesced line per warp).
template <int kStores>
__global__ void __launch_bounds__(1024) store_exit_kernel(uint4* dst) {
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long me = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 v = make_uint4(0x80008000u, 0x80008000u, 0x80008000u, 0x80008000u);  // bf16 -0.0 pairs
#pragma unroll
  for (int j = 0; j < kStores; ++j) dst[j * threads + me] = v;
}

// A parameter block of the fused kernels' size: the control word and the operands at its start, the
// destination at its end (so the kernel reads both ends of the block, as the fused bodies read fields from
// `x` to `timeout_ns`).
struct PrologueParams {
  unsigned long long* control;
  const uint4* operands;
  char middle[sizeof(kernels::FusedParams) - 3 * sizeof(void*)];
  uint4* dst;
};
static_assert(sizeof(PrologueParams) == sizeof(kernels::FusedParams), "the fused kernels' parameter size");

template <int kOperands, bool kGridDepWait>
__global__ void __launch_bounds__(1024) prologue_kernel(const __grid_constant__ PrologueParams a) {
  __shared__ unsigned long long flag;
  if constexpr (kGridDepWait) kernels::pdl_wait_for_prerequisites();  // the fused bodies' first instruction
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long me = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) flag = *reinterpret_cast<volatile unsigned long long*>(a.control);
  uint4 v = make_uint4(0x80008000u, 0x80008000u, 0x80008000u, 0x80008000u);  // bf16 -0.0 pairs
#pragma unroll
  for (int j = 0; j < kOperands; ++j) {
    const uint4 o = a.operands[j * threads + me];
    v.x ^= o.x, v.y ^= o.y, v.z ^= o.z, v.w ^= o.w;
  }
  __syncthreads();
  v.x += static_cast<unsigned>(flag & 1u);  // the store depends on the word, as the push's buffer does
  a.dst[me] = v;
  // Block 0 publishes the next call's word (another SM's line for most blocks of the next call).
  if (blockIdx.x == 0 && threadIdx.x == 0) *reinterpret_cast<volatile unsigned long long*>(a.control) = flag + 1;
}

struct PrologueVariant {
  int operands;
  const char* variant;
  void (*kernel)(PrologueParams);
};
const PrologueVariant kPrologueVariants[] = {{0, "prologue_0", prologue_kernel<0, false>},
                                             {2, "prologue_2", prologue_kernel<2, false>},
                                             {2, "prologue_2_wait", prologue_kernel<2, true>}};
constexpr int kMaxPrologueOperands = 2;

struct StoreVariant {
  int stores;
  const char* variant;
  void (*kernel)(uint4*);
};
const StoreVariant kStoreVariants[] = {{1, "store_1", store_exit_kernel<1>}, {8, "store_8", store_exit_kernel<8>}};
constexpr int kMaxExitStores = 8;

}  // namespace

void bench_launch(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  const int sms = env.sms;
  // Grids: a single block, a few, one block per SM, and two and four waves of one block per SM.
  const std::vector<int> grids =
      env.quick ? std::vector<int>{1, sms} : std::vector<int>{1, 8, 32, sms, 2 * sms, 4 * sms};
  // tpb 1024 is what model/calibration_derive.cpp fits the per-block slope on, so --quick keeps it.
  const std::vector<int> tpbs = env.quick ? std::vector<int>{1024} : std::vector<int>{128, 1024};
  // Cluster sizes up to 8, the portable maximum on sm_90 (no non-portable attribute needed).
  const std::vector<int> clusters = env.quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 4, 8};
  constexpr int kWarmup = 3;  // first launches load the module in the context and ramp clocks
  std::set<std::tuple<int, int, int>> done;
  for (int cluster : clusters)
    for (int tpb : tpbs)
      for (int g : grids) {
        const int grid = (g + cluster - 1) / cluster * cluster;  // a multiple of the cluster size
        if (!done.insert({cluster, tpb, grid}).second) continue;
        const Shape s{grid, tpb, cluster};
        const std::vector<double> us =
            time_calls(env, kWarmup, env.reps, {}, [&] { launch(s, env.stream, env.rank, empty_kernel); });
        out.push_back(make_point(
            PointKey{"launch", cluster == 1 ? "plain" : "cluster", sms, tpb, cluster, double(grid), "blocks",
                     "duration_us"},
            us));
      }
  // The stores' drain: cluster 1, the grids of one block, a few and one per SM (every block of the
  // largest grid co-resident, so no second wave hides the first's drain).
  const std::vector<int> store_grids = env.quick ? std::vector<int>{1, sms} : std::vector<int>{1, 8, sms};
  const size_t store_bytes = static_cast<size_t>(kMaxExitStores) * sms * 1024 * sizeof(uint4);
  harness::DeviceBuffer dst(store_bytes, env.rank);
  for (const StoreVariant& sv : kStoreVariants)
    for (int tpb : tpbs)
      for (int grid : store_grids) {
        const Shape s{grid, tpb, 1};
        const std::vector<double> us = time_calls(env, kWarmup, env.reps, {},
                                                  [&] { launch(s, env.stream, env.rank, sv.kernel, dst.as<uint4>()); });
        out.push_back(make_point(
            PointKey{"launch", sv.variant, sms, tpb, 1, double(grid), "blocks", "duration_us"}, us));
      }
  // The path from launch to the first store: the same grids and block sizes as the stores' drain.
  harness::DeviceBuffer control(sizeof(unsigned long long), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(control.data(), 0, sizeof(unsigned long long), env.stream));
  const size_t operand_bytes = static_cast<size_t>(kMaxPrologueOperands) * sms * 1024 * sizeof(uint4);
  harness::DeviceBuffer operands(operand_bytes, env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(operands.data(), 0x3c, operand_bytes, env.stream));
  PrologueParams params{};
  params.control = control.as<unsigned long long>();
  params.operands = operands.as<uint4>();
  params.dst = dst.as<uint4>();
  for (const PrologueVariant& pv : kPrologueVariants)
    for (int tpb : tpbs)
      for (int grid : store_grids) {
        const Shape s{grid, tpb, 1};
        const std::vector<double> us =
            time_calls(env, kWarmup, env.reps, {}, [&] { launch(s, env.stream, env.rank, pv.kernel, params); });
        out.push_back(make_point(
            PointKey{"launch", pv.variant, sms, tpb, 1, double(grid), "blocks", "duration_us"}, us));
      }
}

}  // namespace arlab::calibrate
