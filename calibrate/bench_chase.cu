// Bench `chase`: the latency of one dependent global load, by pointer chasing. One thread follows a
// random cyclic chain of 8-byte node addresses (each load's address is the previous load's value,
// so no two loads overlap); %globaltimer (ns; 32 ns steps on an H200, so over >= 2048 loads the
// step adds < 0.02 ns per load) is read before the first and after the last load, and latency_ns =
// interval / loads. The first timer read waits for the chain's start (a branch on it) and the last
// one for the last load (a store of its value first), so the interval holds exactly the loads.
// Variants (size = footprint bytes):
//   hbm          ld.global.cg (L2, not L1) over a 1 GiB footprint (halved while it does not fit in
//                half the free memory), one node per 4 KiB page-slot at a random 128-byte line in
//                it. L2 is flushed (a memset of 4x L2 bytes) before every repetition and no node is
//                visited twice across repetitions (while the chain is long enough), so every load
//                misses L2. TLB: cudaMalloc maps 2 MiB pages, so 1 GiB spans 512 pages and random
//                loads across them may also miss the GPU's TLBs (their reach is not published);
//                the figure is the latency a random HBM load sees here, TLB misses included.
//   l2           ld.global.cg over 4 MiB (one node per 128-byte line, 2 large pages: no TLB misses),
//                warmed by reading it once, so every load hits L2.
//   relaxed_sys  ld.relaxed.sys.global on the same L2-resident chain: the load the one-shot kernel
//                polls its Lamport buffer with (kernels/device_sync.cuh).
//   acquire_sys  ld.acquire.sys.global on the same chain: the flag load of the two-shot barrier.
#include <cuda_runtime.h>

#include <cstdint>
#include <numeric>
#include <random>

#include "calibrate/bench_common.cuh"
#include "calibrate/calibrate_core.h"
#include "harness/cuda_resources.h"

namespace arlab::calibrate {
namespace {

enum class LoadKind { cg = 0, relaxed_sys = 1, acquire_sys = 2 };

template <LoadKind K>
__device__ __forceinline__ unsigned long long load_next(unsigned long long addr) {
  unsigned long long v;
  if constexpr (K == LoadKind::cg) {
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
  } else if constexpr (K == LoadKind::relaxed_sys) {
    asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
  } else {
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
  }
  return v;
}

__device__ __forceinline__ unsigned long long timer_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// One thread: *cursor is the node to start from; it is left at the node reached, so the next
// repetition continues the chain.
template <LoadKind K>
__global__ void chase_kernel(unsigned long long* cursor, int loads, unsigned long long* times) {
  unsigned long long p = *cursor;
  if (p == 0) return;  // never (a node address); makes the timer read below wait for p
  const unsigned long long t0 = timer_ns();
  for (int i = 0; i < loads; ++i) p = load_next<K>(p);
  *cursor = p;  // waits for the last load
  const unsigned long long t1 = timer_ns();
  times[0] = t0;
  times[1] = t1;
}

// node i (at base + offset[i]) holds the address of node next[i].
__global__ void link_kernel(char* base, const unsigned long long* offset, const unsigned* next, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    *reinterpret_cast<unsigned long long*>(base + offset[i]) =
        reinterpret_cast<unsigned long long>(base + offset[next[i]]);
}

// Reads every 8-byte word of [p, p + bytes) once (the L2 warm-up); `sink` keeps the loads.
__global__ void warm_kernel(const unsigned long long* p, size_t words, unsigned long long* sink) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
    acc ^= __ldcg(p + i);
  if (acc == 0x5bd1e995ull) *sink = acc;  // practically never; the loads cannot be removed
}

// A chain over `bytes` of device memory: `slot` bytes per node, each node at a random 128-byte line
// of its slot (line_jitter) and the nodes in one random cycle (Sattolo's algorithm).
struct Chain {
  harness::DeviceBuffer mem;
  unsigned long long first = 0;
};

Chain make_chain(const BenchEnv& env, size_t bytes, size_t slot, bool line_jitter, std::mt19937_64& rng) {
  constexpr size_t kLine = 128;  // L2 line; nodes never share one
  const unsigned n = static_cast<unsigned>(bytes / slot);
  std::vector<unsigned> order(n);
  std::iota(order.begin(), order.end(), 0u);
  for (unsigned i = n - 1; i > 0; --i) {  // Sattolo: a single cycle through all n nodes
    std::uniform_int_distribution<unsigned> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  std::vector<unsigned long long> offset(n);
  std::uniform_int_distribution<size_t> line(0, slot / kLine - 1);
  for (unsigned i = 0; i < n; ++i) offset[i] = i * slot + (line_jitter ? line(rng) * kLine : 0);
  Chain c;
  c.mem = harness::DeviceBuffer(bytes, env.rank);
  harness::DeviceBuffer d_next(n * sizeof(unsigned), env.rank), d_off(n * sizeof(unsigned long long), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(d_next.data(), order.data(), n * sizeof(unsigned),
                                                  cudaMemcpyHostToDevice, env.stream));
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(d_off.data(), offset.data(), n * sizeof(unsigned long long),
                                                  cudaMemcpyHostToDevice, env.stream));
  constexpr int kLinkBlocks = 256, kLinkThreads = 256;  // any grid works (grid-stride); this is quick
  launch(Shape{kLinkBlocks, kLinkThreads, 1}, env.stream, env.rank, link_kernel, c.mem.as<char>(),
         d_off.as<const unsigned long long>(), d_next.as<const unsigned>(), n);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaStreamSynchronize(env.stream));
  c.first = reinterpret_cast<unsigned long long>(c.mem.as<char>() + offset[0]);
  return c;
}

template <LoadKind K>
std::vector<double> chase(const BenchEnv& env, const Chain& c, int loads, const std::function<void()>& before) {
  harness::DeviceBuffer cursor(sizeof(unsigned long long), env.rank);
  harness::DeviceBuffer times(2 * sizeof(unsigned long long), env.rank);
  ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemcpyAsync(cursor.data(), &c.first, sizeof(c.first), cudaMemcpyHostToDevice,
                                                  env.stream));
  std::vector<double> ns;
  for (int r = 0; r < env.reps; ++r) {
    if (before) before();
    launch(Shape{1, 1, 1}, env.stream, env.rank, chase_kernel<K>, cursor.as<unsigned long long>(), loads,
           times.as<unsigned long long>());
    ns.push_back(device_interval_ns(env, times.as<unsigned long long>()) / loads);
  }
  return ns;
}

}  // namespace

void bench_chase(const BenchEnv& env, int /*nranks*/, std::vector<MicrobenchRow>& out) {
  constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ull;  // any fixed seed: the chain is the same every run
  std::mt19937_64 rng(kSeed);
  const int loads = env.quick ? 2048 : 4096;  // >= 2000 dependent loads per repetition
  {
    // hbm: 1 GiB (256 MiB with --quick), halved while it exceeds half the free memory.
    size_t bytes = env.quick ? (size_t(256) << 20) : (size_t(1) << 30);
    size_t free_b = 0, total_b = 0;
    ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemGetInfo(&free_b, &total_b));
    constexpr size_t kMinBytes = size_t(64) << 20;  // still > L2 (50 MiB on an H200) and 16384 nodes
    while (bytes > free_b / 2 && bytes > kMinBytes) bytes /= 2;
    constexpr size_t kSlot = 4096;  // one node per 4 KiB: no two nodes share a DRAM page's line
    const Chain c = make_chain(env, bytes, kSlot, /*line_jitter=*/true, rng);
    // 4x L2 of fresh writes evicts every node from L2 before each repetition.
    const size_t flush_bytes = static_cast<size_t>(4 * std::max<int64_t>(env.device->props.l2_bytes, 1 << 20));
    harness::DeviceBuffer flush(flush_bytes, env.rank);
    int flips = 0;
    const auto flush_l2 = [&] {
      ARLAB_CUDA_CHECK_RANK(env.rank, cudaMemsetAsync(flush.data(), ++flips & 0xff, flush_bytes, env.stream));
    };
    out.push_back(make_point(PointKey{"chase", "hbm", 1, 1, 0, double(bytes), "bytes", "latency_ns"},
                             chase<LoadKind::cg>(env, c, loads, flush_l2)));
  }
  {
    constexpr size_t kL2Bytes = size_t(4) << 20;  // 4 MiB: far inside L2, far beyond L1 (256 KiB)
    constexpr size_t kSlot = 128;                 // one node per L2 line
    const Chain c = make_chain(env, kL2Bytes, kSlot, /*line_jitter=*/false, rng);
    harness::DeviceBuffer sink(sizeof(unsigned long long), env.rank);
    const auto warm = [&] {
      constexpr int kBlocks = 32, kThreads = 256;  // a quick full read of 4 MiB
      launch(Shape{kBlocks, kThreads, 1}, env.stream, env.rank, warm_kernel, c.mem.as<const unsigned long long>(),
             kL2Bytes / sizeof(unsigned long long), sink.as<unsigned long long>());
    };
    const PointKey l2{"chase", "l2", 1, 1, 0, double(kL2Bytes), "bytes", "latency_ns"};
    out.push_back(make_point(l2, chase<LoadKind::cg>(env, c, loads, warm)));
    PointKey k = l2;
    k.variant = "relaxed_sys";
    out.push_back(make_point(k, chase<LoadKind::relaxed_sys>(env, c, loads, warm)));
    k.variant = "acquire_sys";
    out.push_back(make_point(k, chase<LoadKind::acquire_sys>(env, c, loads, warm)));
  }
}

}  // namespace arlab::calibrate
