// Implementation of calibrate/cross_rank_kernels.h: the device side of the cross-rank benches.
// Every kernel below is separated by a header comment giving its protocol, memory ordering and layout.
#include "calibrate/cross_rank_kernels.h"

#include "calibrate/bench_common.h"
#include "kernels/device_sync.cuh"
#include "kernels/fused_epilogue.cuh"

namespace arlab::calibrate {
namespace {

using kernels::global_timer_ns;
using kernels::ld_acquire_sys;
using kernels::ld_relaxed_sys;
using kernels::ld_relaxed_sys_v4;
using kernels::st_relaxed_sys_v4;
using kernels::st_release_sys;

// A spin-wait reads %globaltimer once every kTimerCheckMask + 1 polls: each poll is a system-scope
// load (hundreds of ns across NVLink, ~0.5 us through L2), so the bound is checked every few us --
// far finer than the timeout (seconds) -- while the poll loop itself stays as tight as the
// one-shot kernel's.
constexpr unsigned kTimerCheckMask = 15;
constexpr int kPollMinBlocksPerSm = 2;  // 2 x 1024 = 2048 threads: an H100/H200 SM's limit

// Spins until ready() holds; false once timeout_ns of %globaltimer have passed (then the caller
// records a timeout and ends).
template <typename Ready>
__device__ __forceinline__ bool spin_until(const Ready& ready, unsigned long long timeout_ns) {
  const unsigned long long start = global_timer_ns();
  for (unsigned spins = 1; !ready(); ++spins)
    if ((spins & kTimerCheckMask) == 0 && global_timer_ns() - start > timeout_ns) return false;
  return true;
}

// First timeout of the rank wins (atomicCAS from 0), as with the workspace's fault word.
__device__ __forceinline__ void report_timeout(const CrossStatus& s, CrossBench bench, CrossWait wait, int index) {
  atomicCAS(s.word, 0ull, encode_cross_timeout(bench, wait, s.rank, static_cast<int>(blockIdx.x), index));
}

// A 16-byte vector still holds the "not arrived" mark in some word (the one-shot poll's test, by
// bit pattern, never float ==).
__device__ __forceinline__ bool holds_mark(const uint4& v, uint32_t mark) {
  return v.x == mark || v.y == mark || v.z == mark || v.w == mark;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// A relaxed system-scope 32-bit store (device_sync.cuh has the 64-bit one): the ping-pong flag
// write of the `relaxed` order.
__device__ __forceinline__ void st_relaxed_sys_u32(uint32_t* p, uint32_t v) {
  asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

template <FlagOrder O>
__device__ __forceinline__ void flag_store(uint32_t* p, uint32_t v) {
  if constexpr (O == FlagOrder::release_acquire) st_release_sys(p, v);
  else st_relaxed_sys_u32(p, v);
}
template <FlagOrder O>
__device__ __forceinline__ uint32_t flag_load(const uint32_t* p) {
  if constexpr (O == FlagOrder::release_acquire) return ld_acquire_sys(p);
  else return ld_relaxed_sys(p);
}

// ==== peer_store ==================================================================================
// Protocol: blocks [0, store_blocks) of kStoreTpb threads stream `vectors` 16-byte vectors into the
// peer's Lamport region, grid-stride (vector i by thread i mod (store_blocks * kStoreTpb)), exactly
// as the one-shot push does: st.relaxed.sys.v4, fire and forget; the kernel's end (stream order,
// CUDA events around it) is when every store has been performed. Thread 0 of each store block
// logs its %smid (the host checks the blocks ran on distinct SMs). With a poller
// (both_ways_polling), block `store_blocks` has each of its threads spin with ld.relaxed.sys.v4 on
// one of the last kStoreTpb vectors the peer stores into this rank's region (the one-shot poll's
// load and test) until it no longer holds the -0.0 mark.
// Layout: destination = peer region [0, vectors * 16); poller reads my region's same range's tail.
__global__ void __launch_bounds__(kStoreTpb) peer_store_kernel(const PeerStoreParams p) {
  if (static_cast<int>(blockIdx.x) < p.store_blocks) {
    if (threadIdx.x == 0) p.smid[blockIdx.x] = static_cast<int>(sm_id());
    const uint4 v = make_uint4(p.value_word, p.value_word, p.value_word, p.value_word);
    char* dst = static_cast<char*>(p.dst);
    const long long stride = static_cast<long long>(p.store_blocks) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < p.vectors; i += stride)
      st_relaxed_sys_v4(dst + i * static_cast<long long>(kVectorBytes), v);
    return;
  }
  const char* mine = static_cast<const char*>(p.incoming_tail) + threadIdx.x * kVectorBytes;
  if (!spin_until([&] { return !holds_mark(ld_relaxed_sys_v4(mine), p.empty_word); }, p.status.timeout_ns))
    report_timeout(p.status, CrossBench::peer_store, CrossWait::incoming_data, static_cast<int>(threadIdx.x));
}

// ==== ping_pong (and the clock-offset exchange of poll on the MPI node) ============================
// Protocol: one thread per role. Round k (value v = base + k + 1, unique across launches because
// the host advances base): the pinger writes v to the ponger's flag, then spins on its own flag
// until it reads v; the ponger spins on its own flag until it reads v, then writes v to the
// pinger's flag. Each side polls a flag in memory the partner stores to (cross-rank: each flag
// lives in its reader's region, so every poll is local and every store crosses; same-rank: both
// flags in rank 0's region, the two roles are two blocks of one kernel: an L2 round trip). The
// first `warmup` rounds are untimed (they absorb the partner kernel's launch); the pinger's
// %globaltimer over the timed rounds is the total (one way = total / (2 rounds)). With logs, the
// pinger records (sent, back) and the ponger the arrival time per timed round: the NTP clock
// offset of calibrate/cross_rank_stats.h.
// Memory ordering: O = relaxed (st/ld.relaxed.sys: the Lamport push's cost) or release_acquire
// (st.release.sys / ld.acquire.sys: the two-shot barrier's cost). Flags are 32-bit words.
template <FlagOrder O>
__global__ void __launch_bounds__(1) ping_pong_kernel(const PingPongParams p) {
  const int role = p.blocks == 2 ? static_cast<int>(blockIdx.x) : p.role;
  const PingPongSide s = role == 0 ? p.side[0] : p.side[1];  // no dynamic index: no local-memory copy
  const int total = p.warmup + p.rounds;
  unsigned long long begin = 0;
  for (int k = 0; k < total; ++k) {
    const uint32_t v = p.base + static_cast<uint32_t>(k) + 1u;
    const int timed = k - p.warmup;  // >= 0: a timed round
    const auto arrived = [&] { return flag_load<O>(s.poll_flag) == v; };
    if (role == 0) {
      const unsigned long long sent = (timed == 0 || (timed > 0 && s.log)) ? global_timer_ns() : 0;
      if (timed == 0) begin = sent;
      flag_store<O>(s.peer_flag, v);
      if (!spin_until(arrived, p.status.timeout_ns)) {
        report_timeout(p.status, p.bench, CrossWait::flag, k);
        return;
      }
      if (timed >= 0 && s.log) {
        s.log[2 * timed] = sent;
        s.log[2 * timed + 1] = global_timer_ns();
      }
    } else {
      if (!spin_until(arrived, p.status.timeout_ns)) {
        report_timeout(p.status, p.bench, CrossWait::flag, k);
        return;
      }
      if (timed >= 0 && s.log) s.log[timed] = global_timer_ns();
      flag_store<O>(s.peer_flag, v);
    }
  }
  if (role == 0) *p.total_ns = global_timer_ns() - begin;
}

// ==== poll: the storing side (rank 0) ============================================================
// Protocol: thread i waits delay_ns after its own start (so that every poller of rank 1, started
// by the same gate, is spinning before anything arrives), reads %globaltimer into stored_ns[i]
// and stores one vector (st.relaxed.sys.v4, the one-shot push) into slot i of rank 1's region.
// The delay loop ends by its own clock: bounded by construction.
// Layout: slot i = peer region [16 i, 16 i + 16).
__global__ void __launch_bounds__(kStoreTpb) poll_store_kernel(const PollStoreParams p) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= p.threads) return;
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < p.delay_ns) {
  }
  const unsigned long long t = global_timer_ns();
  st_relaxed_sys_v4(static_cast<char*>(p.peer_slots) + static_cast<long long>(i) * kVectorBytes,
                    make_uint4(p.value_word, p.value_word, p.value_word, p.value_word));
  p.stored_ns[i] = t;
}

// ==== poll: the spinning side (rank 1) ===========================================================
// Protocol: thread i spins with ld.relaxed.sys.v4 on slot i of its own region until the vector no
// longer holds the -0.0 mark (the one-shot poll), then writes %globaltimer into seen_ns[i]
// (0 after a timeout). All T threads spin at once: the load on the memory system is the variable.
__global__ void __launch_bounds__(kStoreTpb, kPollMinBlocksPerSm) poll_wait_kernel(const PollWaitParams p) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= p.threads) return;
  const char* slot = static_cast<const char*>(p.my_slots) + static_cast<long long>(i) * kVectorBytes;
  if (!spin_until([&] { return !holds_mark(ld_relaxed_sys_v4(slot), p.empty_word); }, p.status.timeout_ns)) {
    report_timeout(p.status, CrossBench::poll, CrossWait::slot, i);
    p.seen_ns[i] = 0;
    return;
  }
  p.seen_ns[i] = global_timer_ns();
}

// ==== exchange: one all-to-all round =============================================================
// Protocol: thread i of the grid (blocks x threads; one block in `all_to_all`, several in
// `all_to_all_grid`) stores vector i of slot `rank` of every other member (st.relaxed.sys.v4, the
// one-shot push), then waits for vector i of every other member's slot of its own scratch to hold
// this launch's tag in all four words, polling kExchangeBatch slots at once with ld.relaxed.sys.v4
// (the one-shot kernel's poll and its batch at N = 8). Tags are unique per launch and the start gate
// precedes every launch, so a slot never holds another launch's tag while a poller looks for this
// one's: no clearing between launches. Bounded: a wait gives up after timeout_ns (CrossWait::member).
constexpr int kExchangeBatch = 4;
__device__ __forceinline__ bool holds_tag(const uint4& v, uint32_t tag) {
  return v.x == tag && v.y == tag && v.z == tag && v.w == tag;
}
// With p.cluster > 1 (all_to_all_cluster) the blocks form clusters and, after the poll, every block's
// sum of its polled words goes through the cluster as the fused kernels' RMSNorm totals do
// (kernels/fused_epilogue.cuh; the sum is of the words the last poll loaded, no load after it):
// cluster_sum with the reference's relaxed closing barrier, or the lean
// kernel's pushed exchange, whose start (mbarrier init, a relaxed cluster arrive) comes before the stores
// as in the lean kernel. A pushed wait that gives up records its fault in the status word (nonzero: the
// bench fails). The block sum goes to p.status.word only if it is NaN (never: the words are small
// integers), so it cannot be dropped.
__global__ void __launch_bounds__(kStoreTpb) exchange_kernel(const ExchangeParams p) {
  __shared__ kernels::EpilogueShared sh;
  const bool pushed = p.cluster > 1 && p.cluster_mode == kExchangePushed;
  if (pushed) kernels::pushed_exchange_init(sh, p.cluster);
  const long long slot_bytes = static_cast<long long>(p.blocks) * p.threads * kVectorBytes;
  const long long my_vector = (static_cast<long long>(blockIdx.x) * p.threads + threadIdx.x) * kVectorBytes;
  const uint4 tag = make_uint4(p.tag, p.tag, p.tag, p.tag);
  for (int r = 0; r < p.group; ++r)
    if (r != p.rank) st_relaxed_sys_v4(static_cast<char*>(p.scratch[r]) + p.rank * slot_bytes + my_vector, tag);
  const char* own = static_cast<const char*>(p.scratch[p.rank]) + my_vector;
  unsigned polled = 0;  // the last poll's first words, summed: the value a cluster exchange sums (no reload)
  for (int base = 0; base < p.group; base += kExchangeBatch) {
    const bool arrived = spin_until(
        [&] {
          uint4 got[kExchangeBatch];
#pragma unroll
          for (int j = 0; j < kExchangeBatch; ++j) {
            const int r = base + j;
            got[j] = r < p.group && r != p.rank ? ld_relaxed_sys_v4(own + r * slot_bytes) : tag;
          }
          bool all = true;
          unsigned words = 0;
#pragma unroll
          for (int j = 0; j < kExchangeBatch; ++j) {
            all = all && holds_tag(got[j], p.tag);
            words += got[j].x & 0xFFu;
          }
          polled = words;
          return all;
        },
        p.status.timeout_ns);
    if (!arrived) {
      report_timeout(p.status, CrossBench::exchange, CrossWait::member, base);
      if (p.cluster == 1 || p.cluster_mode == kExchangeNone) return;
      break;  // every block of a cluster still reaches its exchange, so none waits for one that left
    }
  }
  if (p.cluster == 1 || p.cluster_mode == kExchangeNone) return;
  const float v = static_cast<float>(polled);
  float total;
  if (pushed) {
    kernels::FusedParams fp;
    fp.cluster = p.cluster;
    fp.rank = p.rank;
    fp.fault = p.status.word;
    fp.timeout_ns = p.status.timeout_ns;
    kernels::pushed_exchange_ready(p.cluster);
    total = kernels::cluster_sum_pushed(v, sh, 0, p.cluster, static_cast<int>(blockIdx.x) % p.cluster, 0, fp);
  } else {
    total = kernels::cluster_sum(v, sh, 0, p.cluster);
  }
  if (threadIdx.x == 0 && total != total) atomicExch(p.status.word, 1ull);
  if (!pushed) kernels::cluster_lifetime_barrier();
}

// ==== start_skew: the empty kernel =================================================================
// Thread 0 writes %globaltimer at entry (the start as the kernel sees it; CUPTI's start record is
// the other clock the host compares).
__global__ void stamp_kernel(unsigned long long* entry_ns) {
  if (threadIdx.x == 0) *entry_ns = global_timer_ns();
}

template <typename... Args>
cudaError_t launch_ex(void (*kernel)(Args...), unsigned grid, unsigned block, cudaStream_t stream,
                      const Args&... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(block);
  cfg.stream = stream;
  return cudaLaunchKernelEx(&cfg, kernel, args...);
}

unsigned blocks_for(int threads) {
  return static_cast<unsigned>((threads + kStoreTpb - 1) / kStoreTpb);
}
unsigned tpb_for(int threads) { return static_cast<unsigned>(threads < kStoreTpb ? threads : kStoreTpb); }

}  // namespace

cudaError_t launch_peer_store(const PeerStoreParams& p, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>(p.store_blocks) + (p.incoming_tail ? 1u : 0u);
  return launch_ex(peer_store_kernel, grid, kStoreTpb, stream, p);
}

cudaError_t launch_ping_pong(const PingPongParams& p, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>(p.blocks);
  if (p.order == FlagOrder::release_acquire)
    return launch_ex(ping_pong_kernel<FlagOrder::release_acquire>, grid, 1u, stream, p);
  return launch_ex(ping_pong_kernel<FlagOrder::relaxed>, grid, 1u, stream, p);
}

cudaError_t launch_poll_store(const PollStoreParams& p, cudaStream_t stream) {
  return launch_ex(poll_store_kernel, blocks_for(p.threads), tpb_for(p.threads), stream, p);
}

cudaError_t launch_poll_wait(const PollWaitParams& p, cudaStream_t stream) {
  return launch_ex(poll_wait_kernel, blocks_for(p.threads), tpb_for(p.threads), stream, p);
}

cudaError_t poll_wait_blocks_per_sm(int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, poll_wait_kernel, kStoreTpb, 0);
}

cudaError_t exchange_blocks_per_sm(int threads, int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, exchange_kernel, threads, 0);
}

cudaError_t launch_exchange(const ExchangeParams& p, cudaStream_t stream) {
  cudaLaunchAttribute attr;  // the cluster dimension where p.cluster > 1 (all_to_all_cluster)
  const cudaLaunchConfig_t cfg = launch_config(Shape{p.blocks, p.threads, p.cluster}, stream, attr);
  return cudaLaunchKernelEx(&cfg, exchange_kernel, p);
}

cudaError_t launch_stamp(unsigned long long* entry_ns, cudaStream_t stream) {
  return launch_ex(stamp_kernel, 1u, static_cast<unsigned>(kStampThreads), stream, entry_ns);
}

// Scratch layout: [0, 512) 32 poll slots (zero: never the mark below, so the waiter sees them
// arrived at once; the storer then writes them), [512, 768) stored_ns, [768, 1024) seen_ns,
// [1024, 1032) total_ns, [1032, 1036) smid.
cudaError_t preload_cross_rank_kernels(void* scratch, const CrossStatus& status, cudaStream_t stream) {
  constexpr int kWarp = 32;
  constexpr uint32_t kNeverMark = 0xFFFFFFFFu;  // not a word of the zeroed slots: nothing to wait for
  char* s = static_cast<char*>(scratch);
  void* slots = s;
  auto* stored_ns = reinterpret_cast<unsigned long long*>(s + 512);
  auto* seen_ns = reinterpret_cast<unsigned long long*>(s + 768);
  auto* total_ns = reinterpret_cast<unsigned long long*>(s + 1024);
  auto* smid = reinterpret_cast<int*>(s + 1032);
  static_assert(kPreloadScratchBytes >= 1036, "preload scratch layout");

  PeerStoreParams ps;  // one store block, no vectors, no poller: logs its SM and ends
  ps.dst = slots;
  ps.vectors = 0;
  ps.store_blocks = 1;
  ps.value_word = 1u;
  ps.smid = smid;
  ps.status = status;
  cudaError_t e = launch_peer_store(ps, stream);
  if (e != cudaSuccess) return e;

  PollWaitParams pw;  // the zeroed slots hold no mark: every thread sees its slot at once
  pw.my_slots = slots;
  pw.threads = kWarp;
  pw.empty_word = kNeverMark;
  pw.seen_ns = seen_ns;
  pw.status = status;
  if ((e = launch_poll_wait(pw, stream)) != cudaSuccess) return e;

  PollStoreParams pst;  // no delay, stores into the scratch slots
  pst.peer_slots = slots;
  pst.threads = kWarp;
  pst.delay_ns = 0;
  pst.value_word = 1u;
  pst.stored_ns = stored_ns;
  if ((e = launch_poll_store(pst, stream)) != cudaSuccess) return e;

  for (FlagOrder order : {FlagOrder::relaxed, FlagOrder::release_acquire}) {
    PingPongParams pp;  // no rounds: the pinger only writes its (zero-length) total
    pp.role = 0;
    pp.blocks = 1;
    pp.warmup = 0;
    pp.rounds = 0;
    pp.order = order;
    pp.total_ns = total_ns;
    pp.status = status;
    if ((e = launch_ping_pong(pp, stream)) != cudaSuccess) return e;
  }
  ExchangeParams ex;  // a group of one: no peer to store to or wait for
  ex.scratch[0] = slots;
  ex.group = 1;
  ex.rank = 0;
  ex.threads = kWarp;
  ex.tag = 1u;
  ex.status = status;
  if ((e = launch_exchange(ex, stream)) != cudaSuccess) return e;
  return launch_stamp(stored_ns, stream);
}

}  // namespace arlab::calibrate
