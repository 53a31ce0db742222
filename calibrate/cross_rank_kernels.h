// Kernels of the cross-rank microbenchmarks (calibrate/cross_rank_benches.h) and their launchers.
// Each kernel's protocol, memory ordering and layout are described at its definition in
// cross_rank_kernels.cu. Every spin-wait is bounded by `timeout_ns` of %globaltimer; a wait that
// gives up writes an encode_cross_timeout code (calibrate/cross_rank_stats.h) into the rank's
// status word and ends the kernel, so no kernel here can hang. All launches go through
// cudaLaunchKernelExC (what CUPTI's launch callback of harness/cupti_timer.h sees).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "calibrate/cross_rank_stats.h"
#include "kernels/lamport_layout.h"

namespace arlab::calibrate {

// Where a kernel reports a timeout, and its bound.
struct CrossStatus {
  unsigned long long* word = nullptr;  // this rank's status word (its own device memory), 0 = fine
  unsigned long long timeout_ns = 0;
  int rank = 0;
};

// peer_store: blocks 0 .. store_blocks-1 (kStoreTpb threads each) store `vectors` 16-byte vectors
// of `value_word` into dst[0 .. vectors); with `incoming_tail`, one more block polls the last
// kStoreTpb vectors the peer stores into this rank's region until none holds `empty_word`.
struct PeerStoreParams {
  void* dst = nullptr;                    // the peer's Lamport region, as mapped here
  long long vectors = 0;                  // a multiple of kStoreTpb
  int store_blocks = 0;
  const void* incoming_tail = nullptr;    // my region + (vectors - kStoreTpb) * 16; nullptr: no poller
  uint32_t empty_word = 0;                // the -0.0 mark the regions were filled with
  uint32_t value_word = 0;                // what the stores write (must differ from empty_word)
  int* smid = nullptr;                    // [store_blocks]: the SM each store block ran on
  CrossStatus status;
};
cudaError_t launch_peer_store(const PeerStoreParams& p, cudaStream_t stream);

// ping_pong / clock offset: a pinger and a ponger bounce round numbers through two 32-bit flags.
enum class FlagOrder : int { relaxed = 0, release_acquire = 1 };
struct PingPongSide {
  uint32_t* poll_flag = nullptr;        // the flag this side waits on
  uint32_t* peer_flag = nullptr;        // the flag this side writes
  unsigned long long* log = nullptr;    // optional: pinger [2 * rounds] (sent, back); ponger [rounds] (seen)
};
struct PingPongParams {
  PingPongSide side[2];                 // [0] pinger, [1] ponger
  int role = 0;                         // the role of a one-block launch; a two-block launch plays both
  int blocks = 1;                       // 1: one role (cross-rank); 2: block b plays role b (same rank)
  int warmup = 0;                       // untimed rounds first (absorb the partner's launch)
  int rounds = 0;                       // timed rounds
  uint32_t base = 0;                    // round k writes base + k + 1 (unique across launches)
  FlagOrder order = FlagOrder::relaxed;
  unsigned long long* total_ns = nullptr;  // pinger: %globaltimer ns of the timed rounds
  CrossBench bench = CrossBench::ping_pong;
  CrossStatus status;
};
cudaError_t launch_ping_pong(const PingPongParams& p, cudaStream_t stream);

// poll, storing side (rank 0): thread i waits delay_ns after its own start, reads %globaltimer
// into stored_ns[i] and stores one vector of value_word into slot i of the peer's region.
struct PollStoreParams {
  void* peer_slots = nullptr;
  int threads = 0;                      // T: a multiple of 32; blocks of min(T, kStoreTpb)
  unsigned long long delay_ns = 0;
  uint32_t value_word = 0;
  unsigned long long* stored_ns = nullptr;  // [threads]
};
cudaError_t launch_poll_store(const PollStoreParams& p, cudaStream_t stream);

// poll, spinning side (rank 1): thread i spins on slot i of its own region until it no longer
// holds empty_word and writes %globaltimer into seen_ns[i].
struct PollWaitParams {
  const void* my_slots = nullptr;
  int threads = 0;
  uint32_t empty_word = 0;
  unsigned long long* seen_ns = nullptr;  // [threads]
  CrossStatus status;
};
cudaError_t launch_poll_wait(const PollWaitParams& p, cudaStream_t stream);
// Blocks of kStoreTpb spinning threads one SM holds at once (all must be resident to spin together).
cudaError_t poll_wait_blocks_per_sm(int* blocks);

// start_skew: an empty kernel whose thread 0 writes %globaltimer at entry; one warp, the smallest
// launch the scheduler handles.
constexpr int kStampThreads = 32;
cudaError_t launch_stamp(unsigned long long* entry_ns, cudaStream_t stream);

// exchange: one all-to-all round among ranks 0 .. group-1, the one-shot kernel's push and poll with
// nothing to add: every member runs `blocks` blocks of `threads` threads; thread i of the grid stores
// a 16-byte vector of `tag` into vector i of slot `rank` of every other member's scratch, then polls
// vector i of the other members' slots of its own scratch until each holds `tag` in all four words.
// Scratch layout: slot s at byte s * blocks * threads * 16 (group * blocks * threads * 16 bytes from
// each member's region start).
struct ExchangeParams {
  void* scratch[kernels::kMaxRanks] = {};  // index = rank: that member's scratch as mapped here
  int group = 0;                          // members: ranks 0 .. group-1 (>= 1; 1: nothing to wait for)
  int rank = 0;                           // this rank, < group
  int threads = 0;                        // per block: 32 .. kStoreTpb, a multiple of 32
  int blocks = 1;                         // blocks per member (1: the one block of `all_to_all`)
  uint32_t tag = 0;                       // unique per launch; never the word the scratch was filled with
  CrossStatus status;
  // all_to_all_cluster (since session 49): the grid launched as clusters of `cluster` blocks, and after the
  // poll each block's sum over its vector's words goes through the cluster as a fused kernel's RMSNorm total
  // does: kExchangeNone (no cluster exchange), kExchangeSum (the reference's cluster_sum, then its relaxed
  // closing barrier) or kExchangePushed (the lean kernel's pushed exchange, started before the stores).
  int cluster = 1;
  int cluster_mode = 0;
};
constexpr int kExchangeNone = 0, kExchangeSum = 1, kExchangePushed = 2;
cudaError_t launch_exchange(const ExchangeParams& p, cudaStream_t stream);
// How many exchange_kernel blocks of `threads` threads one SM holds at once (the occupancy API).
cudaError_t exchange_blocks_per_sm(int threads, int* blocks);

// Preloading. Under lazy module loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) the
// first launch of a kernel in a context loads it there, and that load may wait for the work already
// running on the device ("loading kernels might require context synchronization", CUDA C++
// Programming Guide, Lazy Loading). Each green context of the emulated node is a context of its own,
// so the first launch of a kernel on rank 1's stream blocks the host while rank 0's copy of it (or
// its gate) spins waiting for that very launch: a deadlock that only the spin's bound ends (the
// symptom: "the timing gate waited 2000 ms and saw only 1 of 2 ranks"). Under mpirun (one process
// and one GPU per rank) nothing spins on the loading device, so the same code passes.
// preload_cross_rank_kernels launches every kernel of this file once on `stream`, with parameters
// under which none waits for anything (one block or warp, no rounds, slots that have "arrived"), so
// that the benches' real launches find them loaded. `scratch`: kPreloadScratchBytes of this rank's
// device memory, zeroed in stream order before the call; its content afterwards is undefined.
constexpr size_t kPreloadScratchBytes = 2048;
cudaError_t preload_cross_rank_kernels(void* scratch, const CrossStatus& status, cudaStream_t stream);

}  // namespace arlab::calibrate
