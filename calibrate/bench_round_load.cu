// Bench `round_load`: the DRAM load of one round of the fused kernel as a block sees it. Every
// block of the partition (one per SM) steps through a buffer far larger than L2: at each step each
// thread loads one 16-byte vector (coalesced: a block reads tpb x 16 contiguous bytes, as the
// fused kernel's push and residual loads do), the next step's address depends on the loaded value
// (so the steps cannot overlap), and the block waits at __syncthreads for its slowest warp -- the
// barrier every token round of the one-shot kernel ends with. No vector is read twice and L2 is
// flushed before every repetition, so every load misses L2. ns_per_step = block 0's %globaltimer
// interval / steps: the idle pointer chase (bench chase) plus what many warps loading at once and
// waiting for the slowest add. Variant dram_barrier; tpb {128, 256, 512, 1024}; sms = the partition.
// Variant push_store: the one-shot push loop instead (kernels/oneshot_kernel.cuh step 2): each step
// loads a vector of x the same way and stores it with st.relaxed.sys.v4 into two other buffers (the
// own slot and a peer's slot, both on this GPU here), with no barrier between steps: a thread's next
// load issues after its stores (they need the loaded value); ns_per_step = the whole loop / steps.
// Variants push_store_1, push_store_4, push_store_8 (since 2026-12-02): the same step with 1, 4 and 8
// stores (the lean body at N = 2; N = 4 and 8 ranks), for the push step's cost per warp and store.
// Variant push_store_steps (since 2026-12-04): push_store run 1, 2, 4, 16 and 64 steps in a row on 16 blocks
// and the whole partition (a record: does a run's first step cost what its later ones do?).
// Variants push_store_few and push_store_1_few (since 2026-12-03): push_store and push_store_1 on grids
// of {1, 8, 16, 32} blocks (one per SM) instead of the whole partition, sms = the blocks: what a push
// step costs where few SMs push (the small grids of the latency regime); quick: tpb 1024, 1 and 8.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "calibrate/single_rank_benches.h"
#include "harness/cuda_resources.h"
#include "kernels/device_sync.cuh"

namespace arlab::calibrate {
namespace {

__global__ void __launch_bounds__(1024)
    round_load_kernel(const uint4* buf, int steps, unsigned long long* times, unsigned* sink) {
  unsigned dep = 0, acc = 0;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;  // vectors per step, all blocks
  const long long mine = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (int s = 0; s < steps; ++s) {
    uint4 v;
    const uint4* p = buf + static_cast<long long>(s) * stride + mine + dep;  // dep is 0: the buffer holds zeros
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p)
                 : "memory");
    dep = v.x & 0x80000000u ? 1u : 0u;
    acc ^= v.y;
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    if (blockIdx.x == 0) {
      times[0] = t0;
      times[1] = t1;
    }
  }
  if (acc == 0x5bd1e995u) sink[0] = acc + dep;  // never (zeros); the loads cannot be removed
}

// kStores destinations, `dst_stride` vectors apart (the ranks' slots a pushed vector goes to).
template <int kStores>
__global__ void __launch_bounds__(1024)
    push_store_kernel(const uint4* buf, uint4* dst, long long dst_stride, int steps, unsigned long long* times) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long mine = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  __syncthreads();
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
#pragma unroll 1
  for (int s = 0; s < steps; ++s) {
    const long long i = static_cast<long long>(s) * stride + mine;
    uint4 v;
    asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(buf + i)
                 : "memory");
#pragma unroll
    for (int j = 0; j < kStores; ++j) kernels::st_relaxed_sys_v4(dst + j * dst_stride + i, v);
  }
  __syncthreads();  // the block's slowest warp
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    times[0] = t0;
    times[1] = t1;
  }
}

// The push variants: stores per step and row variant. "push_store" (two: the reference's own and peer
// slot at N = 2) is the one the calibration's push step is fitted on; the others give its slope per
// warp as a function of the stores per step (the lean body at N = 2 stores once, N ranks N or N - 1
// times).
struct PushVariant {
  int stores;
  const char* variant;
  void (*kernel)(const uint4*, uint4*, long long, int, unsigned long long*);
};
const PushVariant kPushVariants[] = {{2, "push_store", push_store_kernel<2>},
                                     {1, "push_store_1", push_store_kernel<1>},
                                     {4, "push_store_4", push_store_kernel<4>},
                                     {8, "push_store_8", push_store_kernel<8>}};
constexpr int kMaxPushStores = 8;

}  // namespace

void bench_round_load(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  const int steps = env.quick ? 16 : 64;
  constexpr int kMaxTpb = 1024;
  const size_t bytes = static_cast<size_t>(steps) * env.sms * kMaxTpb * 16 + 16;  // every step's vectors, once
  harness::DeviceBuffer buf(bytes, env.rank), times(2 * sizeof(unsigned long long), env.rank),
      sink(sizeof(unsigned), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(buf.data(), 0, bytes, env.stream));
  // 4x L2 of fresh writes evicts the buffer from L2 before each repetition (as bench chase does).
  const size_t flush_bytes = static_cast<size_t>(4 * std::max<int64_t>(env.device->props.l2_bytes, 1 << 20));
  harness::DeviceBuffer flush(flush_bytes, env.rank);
  int flips = 0;
  for (int tpb : {128, 256, 512, 1024}) {
    std::vector<double> ns;
    for (int r = 0; r < env.reps; ++r) {
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush_bytes, env.stream));
      launch(Shape{env.sms, tpb, 1}, env.stream, env.rank, round_load_kernel, buf.as<const uint4>(), steps,
             times.as<unsigned long long>(), sink.as<unsigned>());
      ns.push_back(device_interval_ns(env, times.as<unsigned long long>()) / steps);
    }
    out.push_back(make_point(PointKey{"round_load", "dram_barrier", env.sms, tpb, 1, double(steps), "steps",
                                      "ns_per_step"},
                             ns));
  }
  // Destinations: kMaxPushStores buffers of every step's vectors (as big as the source), one allocation.
  const long long dst_stride = static_cast<long long>(bytes / 16);
  harness::DeviceBuffer dst(static_cast<size_t>(kMaxPushStores) * bytes, env.rank);
  for (const PushVariant& pv : kPushVariants) {
    for (int tpb : {128, 256, 512, 1024}) {
      std::vector<double> ns;
      for (int r = 0; r < env.reps; ++r) {
        ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush_bytes, env.stream));
        launch(Shape{env.sms, tpb, 1}, env.stream, env.rank, pv.kernel, buf.as<const uint4>(), dst.as<uint4>(),
               dst_stride, steps, times.as<unsigned long long>());
        ns.push_back(device_interval_ns(env, times.as<unsigned long long>()) / steps);
      }
      out.push_back(make_point(PointKey{"round_load", pv.variant, env.sms, tpb, 1, double(steps), "steps",
                                        "ns_per_step"},
                               ns));
    }
  }
  // The push on few blocks: the two- and one-store steps (the reference's and lean's at N = 2).
  const std::vector<int> few_tpbs = env.quick ? std::vector<int>{1024} : std::vector<int>{128, 256, 512, 1024};
  const std::vector<int> few_grids = env.quick ? std::vector<int>{1, 8} : std::vector<int>{1, 8, 16, 32};
  for (const auto& [kernel, variant] :
       {std::pair{kPushVariants[0].kernel, "push_store_few"}, std::pair{kPushVariants[1].kernel, "push_store_1_few"}}) {
    for (int grid : few_grids) {
      if (grid >= env.sms) continue;  // the whole partition is the variants above
      for (int tpb : few_tpbs) {
        std::vector<double> ns;
        for (int r = 0; r < env.reps; ++r) {
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush_bytes, env.stream));
          launch(Shape{grid, tpb, 1}, env.stream, env.rank, kernel, buf.as<const uint4>(), dst.as<uint4>(), dst_stride,
                 steps, times.as<unsigned long long>());
          ns.push_back(device_interval_ns(env, times.as<unsigned long long>()) / steps);
        }
        out.push_back(make_point(PointKey{"round_load", variant, grid, tpb, 1, double(steps), "steps", "ns_per_step"}, ns));
      }
    }
  }
  // The push's first steps apart (since 2026-12-04; a record, no constant): the two-store step run 1, 2,
  // 4, 16 and 64 steps in a row on 16 blocks and on the whole partition, ns per step of the run. The
  // constants above are the mean of 64 steps; a fused call pushes R x vectors-per-thread steps, often 1.
  if (env.quick) return;
  const std::vector<int> run_grids = env.sms > 16 ? std::vector<int>{16, env.sms} : std::vector<int>{env.sms};
  for (int grid : run_grids)
    for (int tpb : {128, 512, 1024})
      for (int run : {1, 2, 4, 16, 64}) {
        if (run > steps) continue;
        std::vector<double> ns;
        for (int r = 0; r < env.reps; ++r) {
          ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush_bytes, env.stream));
          launch(Shape{grid, tpb, 1}, env.stream, env.rank, kPushVariants[0].kernel, buf.as<const uint4>(),
                 dst.as<uint4>(), dst_stride, run, times.as<unsigned long long>());
          ns.push_back(device_interval_ns(env, times.as<unsigned long long>()) / run);
        }
        out.push_back(make_point(
            PointKey{"round_load", "push_store_steps", grid, tpb, 1, double(run), "steps", "ns_per_step"}, ns));
      }
}

}  // namespace arlab::calibrate
