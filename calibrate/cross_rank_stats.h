// Pure C++ parts of the cross-rank microbenchmarks (calibrate/cross_rank_benches.h): the timeout
// code their kernels leave behind and its text, the sweep lists, the transfer size, the clock
// offset between two GPUs from ping-pong timestamps, per-slot poll latencies, per-iteration start
// skews, and packing per-rank values for Node::allgather. No CUDA (the encoder is also used on the
// device); unit-tested on the CPU (tests/calibrate_cross).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/host_device.h"

namespace arlab::calibrate {

constexpr size_t kVectorBytes = 16;  // every store and poll is one 16-byte vector (as in the one-shot kernel)
constexpr int kStoreTpb = 1024;      // threads per block of the store and poll kernels (one block per SM)

// ---- timeout codes: what a cross-rank kernel's bounded wait gave up on ----------------------------
// One 64-bit status word per rank (its own device memory, not the workspace's fault word, whose
// kinds belong to the fused kernel and the gate); the first timeout wins (atomicCAS from 0).
// Bit layout (63..0): bench:8 | wait:8 | rank:8 | block:20 | index:20
enum class CrossBench : unsigned { none = 0, peer_store = 1, ping_pong = 2, poll = 3, clock_offset = 4, exchange = 5 };
enum class CrossWait : unsigned {
  none = 0,
  incoming_data = 1,  // peer_store poller: the peer's last vectors never replaced the -0.0 mark
  flag = 2,           // ping_pong / clock_offset: the partner never wrote round `index`
  slot = 3,           // poll: the slot of thread `index` never replaced the -0.0 mark
  member = 4,         // exchange: a vector of the members from rank `index` (a poll batch) never arrived
};

constexpr unsigned long long kCrossMask8 = 0xFFull;
constexpr unsigned long long kCrossMask20 = 0xFFFFFull;

ARLAB_HD constexpr unsigned long long encode_cross_timeout(CrossBench bench, CrossWait wait, int rank, int block,
                                                           int index) {
  return ((static_cast<unsigned long long>(bench) & kCrossMask8) << 56) |
         ((static_cast<unsigned long long>(wait) & kCrossMask8) << 48) |
         ((static_cast<unsigned long long>(rank) & kCrossMask8) << 40) |
         ((static_cast<unsigned long long>(block) & kCrossMask20) << 20) |
         (static_cast<unsigned long long>(index) & kCrossMask20);
}

struct CrossTimeout {
  CrossBench bench = CrossBench::none;
  CrossWait wait = CrossWait::none;
  int rank = 0, block = 0, index = 0;
};
CrossTimeout decode_cross_timeout(unsigned long long code);
const char* to_string(CrossBench b);
// "calibrate cross-rank bench ping_pong (variant flag): rank 1 block 0 timed out after 2000 ms
// waiting for round 17 of its partner's flag"
std::string cross_timeout_message(unsigned long long code, const std::string& variant, double timeout_ms);

// ---- sweeps and sizes ---------------------------------------------------------------------------
// Blocks (one per SM) of the peer_store sweep: 1, 2, 4, ..., 64 below the rank's SM count, then all.
std::vector<int> peer_store_sms(int sms_per_rank, bool quick);
// Spinning threads of the poll sweep (32 = one warp ... 65536 = 64 blocks of 1024).
std::vector<int> poll_threads(bool quick);
// Bytes of one peer_store transfer: `wanted`, clipped to the part of a region of `region_bytes`
// the bench may use, rounded down to whole 16-byte vectors of kStoreTpb threads (the poller block
// reads the last kStoreTpb vectors). Throws InvalidArgument when not even one such pass fits.
size_t peer_store_bytes(size_t wanted, size_t region_bytes);
// GB/s (1e9 bytes per second) of `bytes` moved in `us` microseconds.
double gbps(double bytes, double us);

// ---- clocks -------------------------------------------------------------------------------------
// Offset of clock B (rank 1's GPU) against clock A (rank 0's) from ping-pong rounds: round k left
// A at t0[k], arrived on B at t1[k], came back to A at t2[k]; assuming both directions take equal
// time, B - A = t1 - (t0 + t2) / 2 (the NTP estimate). Median over rounds, ns (signed). Throws
// InvalidArgument on empty or mismatched inputs or a round that ends before it starts.
double clock_offset_ns(const std::vector<uint64_t>& t0, const std::vector<uint64_t>& t1,
                       const std::vector<uint64_t>& t2);
// Per slot: seen (clock B) - stored (clock A) - offset_ns (B - A), ns. Throws on a size mismatch.
std::vector<double> poll_latencies_ns(const std::vector<uint64_t>& stored, const std::vector<uint64_t>& seen,
                                      double offset_ns);
// starts[rank][iteration] (ns, one clock): per iteration max - min over ranks, us. Throws when the
// ranks' counts differ or there are none.
std::vector<double> start_skews_us(const std::vector<std::vector<uint64_t>>& starts);
// starts[rank][iteration], ends[rank][iteration] (ns, one clock): per iteration max over ranks of
// the end - max over ranks of the start (the fused kernels' skew-free figure), us. Throws as
// start_skews_us does, and when an end precedes its own start.
std::vector<double> skew_free_durations_us(const std::vector<std::vector<uint64_t>>& starts,
                                           const std::vector<std::vector<uint64_t>>& ends);
// Ranks of the exchange sweep: 2, 4, 8, ... up to the node's rank count (itself included).
std::vector<int> exchange_groups(int nranks);

// ---- gathering per-rank values over the node's processes -----------------------------------------
// A process packs, for every rank of the node, [owned flag, L values] (values of ranks it does not
// drive are 0); Node::allgather concatenates the processes' packs; unpack_owned returns each rank's
// values from the one process that owns it. Throws InvalidArgument when a rank is owned by no
// process or by two, or when the sizes do not match.
template <typename T>
std::vector<T> pack_owned(const std::vector<std::vector<T>>& by_rank, const std::vector<bool>& owned, size_t len);
template <typename T>
std::vector<std::vector<T>> unpack_owned(const std::vector<T>& all, int nranks, size_t len);

}  // namespace arlab::calibrate
