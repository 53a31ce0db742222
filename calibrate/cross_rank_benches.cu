// Implementation of calibrate/cross_rank_benches.h: the host side of the cross-rank benches
// (kernels in calibrate/cross_rank_kernels.cu, pure statistics in calibrate/cross_rank_stats.h).
//
// Every bench follows the same collective pattern, so that under mpirun every process makes the
// same node calls in the same order whatever ranks it drives:
//   1. each process prepares its own ranks' scratch (fills of its own region, on its own stream);
//   2. every rank of the node enqueues the start gate (kernels/gate.h; it waits for ALL ranks, so
//      the idle ranks 2 .. N-1 take part too), then ranks 0 and 1 enqueue their bench kernel;
//   3. node.synchronize() (bounded host wait, fault words of the gate), then every process reads
//      its ranks' status words and gathers them (a timeout anywhere throws in every process,
//      after node.reinitialize(), naming rank and bench);
//   4. per point, each rank's figures are gathered to process 0 (Node::allgather), which appends
//      the rows.
// Stream order puts each rank's fill before its gate, and a rank's gate only opens once every
// rank has entered it, so no rank stores into a peer's region before the peer's fill is done.
// Scratch: the first bytes of each rank's Lamport region (mapped for every peer through the
// rank's peer bases, the mapping the one-shot push uses). The benches write their own
// "not arrived" mark first, so the dtype the workspaces are formatted for does not matter;
// node.reinitialize() at the end restores every workspace.
//
// Clocks. %globaltimer is one clock per GPU: on the emulated node (one process drives ranks 0 and
// 1 on one GPU) poll latencies and start skews compare %globaltimer values directly. Across GPUs
// the timers are not synchronised: poll (variant lamport_ntp_offset) then shifts rank 1's
// timestamps by the clock offset that a ping-pong of kOffsetRounds rounds, run just before each
// repetition, estimates (NTP: offset = t1 - (t0 + t2) / 2, assuming equal one-way times);
// start_skew uses CUPTI's start records, which CUPTI converts to the host's clock in every
// process (as harness/timing.cpp does for the skew-free figure).
#include "calibrate/cross_rank_benches.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "calibrate/cross_rank_kernels.h"
#include "calibrate/cross_rank_stats.h"
#include "harness/check.h"
#include "harness/cuda_resources.h"
#include "harness/cupti_timer.h"
#include "harness/host_hold.h"
#include "harness/timing_stats.h"
#include "harness/workspace.h"
#include "kernels/fill.h"
#include "kernels/gate.h"
#include "kernels/lamport_layout.h"

namespace arlab::calibrate {
namespace {

using harness::DeviceBuffer;
using harness::Event;
using harness::Node;

// ---- constants --------------------------------------------------------------------------------
constexpr uint32_t kMarkWord = 0x80008000u;   // two bf16/fp16 -0.0: the benches' "not arrived" mark
constexpr uint32_t kValueWord = 0x3f803f80u;  // two bf16 1.0: what the stores write (never the mark)
constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kPeerStoreBytes = 64 * kMiB;       // ~0.2 ms at NVLink rate: launch (~5 us) < 3 %
constexpr size_t kPeerStoreQuickBytes = 8 * kMiB;   // quick mode: still ~30x a launch at full rate
constexpr size_t kFlagStride = 256;  // flags 256 B apart: distinct 128-byte L2 lines, like separate words
constexpr size_t kPollSlotsOffset = 2 * kFlagStride;  // region: [flag 0][flag 1][poll slots ...]
constexpr int kPingPongRounds = 2000;       // >= 1000 round trips per repetition (the brief)
constexpr int kPingPongQuickRounds = 1000;
constexpr int kPingPongWarmup = 100;        // untimed rounds: the partner's launch falls in them
constexpr int kOffsetRounds = 64;           // NTP rounds per poll repetition (median of 64)
constexpr int kOffsetWarmup = 16;
constexpr unsigned long long kPollDelayNs = 50'000;  // > gate release skew (< 0.5 us) + launching 64
                                                     // blocks of pollers (a few us), by a wide margin
constexpr int kSkewBatch = 16;        // gated starts per host-hold batch (as harness/timing.h)
constexpr int kSkewIters = 256;       // >= 200 gated starts (the brief)
constexpr int kSkewQuickIters = 64;
constexpr int kQuickReps = 5;
// exchange: threads of the one block per member: 128 (the one-shot kernel's smallest blocks at 1
// token) and 1024 (a full block: the most pollers one block puts on the memory system).
constexpr std::array<int, 2> kExchangeThreads = {128, 1024};
// exchange all_to_all_grid: one round between 2 ranks with several blocks each (one per SM, as the
// fused kernels' grids at one token per cluster), at these block counts and block sizes: the round's
// growth with the threads that take part, beyond one block. Counts above the rank's SMs (128 and 256
// on a 64-SM partition: 2 and 4 blocks per SM, as the model's picks of 128-256 blocks of 256-512
// threads) run only where every block is resident at once (exchange_blocks_per_sm), so the round is
// one wave; since 2026-12-04.
constexpr std::array<int, 6> kExchangeGridBlocks = {1, 4, 16, 64, 128, 256};
constexpr std::array<int, 3> kExchangeGridThreads = {128, 512, 1024};
constexpr uint64_t kTagRankBits = 8;  // CUPTI tag = (iteration << 8) | rank (N <= 16 < 256)
constexpr int kMaxPollThreads = 65536;

// Rank `peer`'s workspace allocation as mapped for `rank`. RankContext keeps its peer bases
// private; its gate parameters hold &peer_control->gate_seen[rank] for every peer, and the control
// block sits at offset 0 of every workspace (kernels/lamport_layout.h), so the base follows.
char* peer_workspace(const harness::RankContext& rank, int peer) {
  const kernels::GateParams g = rank.gate_params(0);
  char* slot = reinterpret_cast<char*>(g.peer_slot[peer]);
  return slot - offsetof(kernels::LamportControl, gate_seen) - static_cast<size_t>(rank.rank()) * sizeof(uint64_t);
}

// One local rank's bench state: its and its peers' region addresses and its own small buffers.
struct LocalRank {
  LocalRank(harness::RankContext& ctx, int nranks, int sms, int max_stamps)
      : ctx(ctx),
        status(sizeof(unsigned long long), ctx.rank()),
        total(sizeof(unsigned long long), ctx.rank()),
        times(kMaxPollThreads * sizeof(unsigned long long), ctx.rank()),
        offset_log(2 * kOffsetRounds * sizeof(unsigned long long), ctx.rank()),
        stamps(static_cast<size_t>(max_stamps) * sizeof(unsigned long long), ctx.rank()),
        smid(static_cast<size_t>(sms) * sizeof(int), ctx.rank()),
        preload_scratch(kPreloadScratchBytes, ctx.rank()),
        gate_scratch(sizeof(kernels::LamportControl), ctx.rank()) {
    for (int p = 0; p < nranks; ++p) regions.push_back(harness::lamport_region(peer_workspace(ctx, p)));
    ARLAB_CUDA_CHECK_RANK(ctx.rank(), cudaMemsetAsync(status.data(), 0, status.bytes(), ctx.stream()));
  }
  int rank() const { return ctx.rank(); }
  cudaStream_t stream() const { return ctx.stream(); }
  char* region(int r) const { return static_cast<char*>(regions[static_cast<size_t>(r)]); }
  CrossStatus cross_status(unsigned long long timeout_ns) const {
    return CrossStatus{status.as<unsigned long long>(), timeout_ns, rank()};
  }
  std::vector<uint64_t> read(const DeviceBuffer& b, size_t count) const {
    std::vector<uint64_t> v(count);
    ARLAB_CUDA_CHECK_RANK(rank(), cudaMemcpy(v.data(), b.data(), count * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    return v;
  }

  harness::RankContext& ctx;
  std::vector<void*> regions;  // index = rank: that rank's Lamport region as mapped here
  DeviceBuffer status;         // encode_cross_timeout code of the first timeout, 0 = none
  DeviceBuffer total;          // ping-pong: ns of the timed rounds
  DeviceBuffer times;          // poll: stored_ns (rank 0) / seen_ns (rank 1)
  DeviceBuffer offset_log;     // NTP rounds: (t0, t2) pairs (rank 0) / t1 (rank 1)
  DeviceBuffer stamps;         // start_skew: %globaltimer at each stamp kernel's entry
  DeviceBuffer smid;           // peer_store: the SM of each store block
  DeviceBuffer preload_scratch;  // preload: what the kernels' non-waiting first launches touch
  DeviceBuffer gate_scratch;     // preload: a private control block for a one-rank gate
  Event begin, end;            // peer_store: around the store kernel
};

class CrossRankBenches {
 public:
  CrossRankBenches(Node& node, const CrossRankOptions& options, std::vector<MicrobenchRow>& out)
      : node_(node),
        given_cupti_(options.cupti),
        quick_(options.quick),
        reps_(options.quick ? std::min(options.reps, kQuickReps) : options.reps),
        out_(out) {
    if (node.nranks() < 2) throw InvalidArgument("cross-rank benches need >= 2 ranks");
    if (options.reps < 1) throw InvalidArgument("cross-rank benches: reps = " + std::to_string(options.reps));
    const int stamps = quick_ ? kSkewQuickIters : kSkewIters;
    for (int r : node.local_ranks())
      local_.push_back(std::make_unique<LocalRank>(node.rank(r), node.nranks(), node.sms_per_rank(), stamps));
    region_bytes_ = node.rank(node.local_ranks().front()).workspace().layout().region_bytes;
    one_clock_ = drives(0) && drives(1);  // the emulated node: ranks 0 and 1 on one GPU, one %globaltimer
  }

  void run() {
    preload();
    step("peer_store", "one_way", [&] { peer_store("one_way"); });
    step("peer_store", "both_ways_polling", [&] { peer_store("both_ways_polling"); });
    step("ping_pong", "flag", [&] { ping_pong("flag", FlagOrder::relaxed, false); });
    step("ping_pong", "flag_acq_rel", [&] { ping_pong("flag_acq_rel", FlagOrder::release_acquire, false); });
    step("ping_pong", "local_flag", [&] { ping_pong("local_flag", FlagOrder::relaxed, true); });
    step("poll", one_clock_ ? "lamport" : "lamport_ntp_offset", [&] { poll(); });
    step("start_skew", "gated", [&] { start_skew(); });
    step("exchange", "all_to_all", [&] { exchange(); });
    step("exchange", "all_to_all_grid", [&] { exchange_grid(); });
    step("exchange", "all_to_all_cluster", [&] { exchange_cluster(); });
    node_.reinitialize();
  }

 private:
  bool drives(int r) const {
    const std::vector<int>& l = node_.local_ranks();
    return std::find(l.begin(), l.end(), r) != l.end();
  }
  LocalRank* local(int r) {
    for (auto& l : local_)
      if (l->rank() == r) return l.get();
    return nullptr;
  }
  bool process0() const { return node_.process_index() == 0; }
  void note(const std::string& text) const {
    if (process0()) std::cerr << "arlab calibrate: note: " << text << "\n";
  }

  // One bench (variant) with a progress line before and after it in process 0, so that a failure
  // names the bench it happened in.
  template <typename Body>
  void step(const std::string& bench, const std::string& variant, const Body& body) {
    if (process0()) std::cerr << "arlab calibrate: cross-rank starting " << bench << " " << variant << std::endl;
    const size_t before = out_.size();
    const auto t0 = std::chrono::steady_clock::now();
    body();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (process0())
      std::cerr << "arlab calibrate: cross-rank " << bench << " " << variant << ": " << (out_.size() - before)
                << " points, " << s << " s" << std::endl;
  }

  // Before any bench: every kernel the benches launch is loaded into every local rank's context by
  // a launch that waits for nothing, and the node is idle again (collective: node_.synchronize()).
  // Under lazy module loading a first launch may wait for the device's running work; on the
  // emulated node that work is the partner rank's gate or bench kernel spinning for this very
  // launch (cross_rank_kernels.h, preload_cross_rank_kernels). The gate is loaded by a one-rank gate
  // on a private control block (the workspaces' gate words stay as they are), the hold by a hold
  // that is already open, the fill by a fill of the scratch.
  void preload() {
    harness::HostHold hold;
    hold.preload(node_);
    for (auto& l : local_) {
      const int r = l->rank();
      ARLAB_CUDA_CHECK_RANK(r, cudaMemsetAsync(l->preload_scratch.data(), 0, l->preload_scratch.bytes(), l->stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaMemsetAsync(l->gate_scratch.data(), 0, l->gate_scratch.bytes(), l->stream()));
      kernels::GateParams g = l->ctx.gate_params(node_.timeout_ns());
      auto* own = l->gate_scratch.as<kernels::LamportControl>();
      g.my_control = own;
      for (auto*& slot : g.peer_slot) slot = nullptr;
      g.peer_slot[0] = &own->gate_seen[0];
      g.nranks = 1;
      g.release_ns = nullptr;
      ARLAB_CUDA_CHECK_RANK(r, kernels::launch_gate(g, l->stream()));
      ARLAB_CUDA_CHECK_RANK(r, kernels::launch_fill_u32(l->preload_scratch.data(), kVectorBytes, kMarkWord,
                                                        l->stream()));
      ARLAB_CUDA_CHECK_RANK(r, cudaMemsetAsync(l->preload_scratch.data(), 0, l->preload_scratch.bytes(), l->stream()));
      ARLAB_CUDA_CHECK_RANK(r, preload_cross_rank_kernels(l->preload_scratch.data(),
                                                          l->cross_status(node_.timeout_ns()), l->stream()));
    }
    finish("preload");
  }

  // Step 2 of the pattern: every local rank enters the start gate.
  void gate_all() {
    for (auto& l : local_) l->ctx.launch_gate(node_.timeout_ns());
  }

  // Step 3: wait (bounded), then every rank's status word; a timeout anywhere throws everywhere.
  void finish(const std::string& variant) {
    node_.synchronize();
    std::vector<std::vector<uint64_t>> mine(static_cast<size_t>(node_.nranks()));
    std::vector<bool> owned(static_cast<size_t>(node_.nranks()), false);
    for (auto& l : local_) {
      mine[static_cast<size_t>(l->rank())] = l->read(l->status, 1);
      owned[static_cast<size_t>(l->rank())] = true;
    }
    const auto all = unpack_owned(node_.allgather_u64(pack_owned(mine, owned, 1)), node_.nranks(), 1);
    for (const auto& w : all)
      if (w[0] != 0) {
        const std::string what = cross_timeout_message(w[0], variant, node_.timeout_ms());
        node_.reinitialize();
        throw CudaError(what);
      }
  }

  // Step 4: per rank, `len` values (ranks that produced nothing pass zeros), from every process.
  template <typename T>
  std::vector<std::vector<T>> gather(std::unordered_map<int, std::vector<T>>& by_rank, size_t len) {
    std::vector<std::vector<T>> mine(static_cast<size_t>(node_.nranks()));
    std::vector<bool> owned(static_cast<size_t>(node_.nranks()), false);
    for (auto& l : local_) {
      std::vector<T>& v = by_rank[l->rank()];
      v.resize(len, T{0});
      mine[static_cast<size_t>(l->rank())] = v;
      owned[static_cast<size_t>(l->rank())] = true;
    }
    if constexpr (std::is_same_v<T, double>)
      return unpack_owned(node_.allgather(pack_owned(mine, owned, len)), node_.nranks(), len);
    else
      return unpack_owned(node_.allgather_u64(pack_owned(mine, owned, len)), node_.nranks(), len);
  }

  void add_row(const std::string& bench, const std::string& variant, int rank, int sms, int tpb, double size,
               const std::string& unit, const std::string& metric, const std::vector<double>& samples,
               int cluster = 0) {
    if (!process0()) return;
    MicrobenchRow row;  // provenance columns (git_sha, date_utc, gpu, topology, link) left to the caller
    row.nranks = node_.nranks();
    row.sm_per_rank = node_.sms_per_rank();
    row.rank = rank;
    row.bench = bench;
    row.variant = variant;
    row.sms = sms;
    row.tpb = tpb;
    row.cluster = cluster;
    row.size = size;
    row.size_unit = unit;
    row.metric = metric;
    const harness::Spread3 s = harness::spread3(samples);
    row.value = s.median;
    row.p10 = s.p10;
    row.p90 = s.p90;
    row.reps = static_cast<int>(samples.size());
    out_.push_back(row);
  }

  // ---- peer_store ------------------------------------------------------------------------------
  // Rank 0 (and, both_ways_polling, rank 1 at the same time) streams `bytes` into the peer's
  // region with `sms` blocks of 1024 threads; CUDA events around the kernel on the sender's stream
  // (after its gate) time it; gbps = bytes / time. In both_ways_polling each kernel also runs one
  // poller block on its own incoming data, so its time ends when both its stores have drained and
  // the peer's last vectors have arrived (the one-shot kernel's situation).
  void peer_store(const std::string& variant) {
    const bool both = variant == "both_ways_polling";
    const size_t wanted = quick_ ? kPeerStoreQuickBytes : kPeerStoreBytes;
    const size_t bytes = peer_store_bytes(wanted, region_bytes_);
    if (bytes < wanted && !both)
      note("peer_store moves " + std::to_string(bytes) + " bytes per run (the Lamport region holds " +
           std::to_string(region_bytes_) + "), not " + std::to_string(wanted) + ": launch overhead weighs more");
    const long long vectors = static_cast<long long>(bytes / kVectorBytes);
    const std::vector<int> senders = both ? std::vector<int>{0, 1} : std::vector<int>{0};
    for (int sms : peer_store_sms(node_.sms_per_rank(), quick_)) {
      std::unordered_map<int, std::vector<double>> rate;  // rank -> gbps per repetition
      for (int rep = 0; rep < reps_; ++rep) {
        for (int r : senders)  // the receiver of r's data is 1 - r: its region gets the mark first
          if (LocalRank* rx = local(1 - r))
            ARLAB_CUDA_CHECK_RANK(rx->rank(),
                                  kernels::launch_fill_u32(rx->region(rx->rank()), bytes, kMarkWord, rx->stream()));
        gate_all();
        for (int r : senders) {
          LocalRank* tx = local(r);
          if (!tx) continue;
          PeerStoreParams p;
          p.dst = tx->region(1 - r);
          p.vectors = vectors;
          p.store_blocks = sms;
          p.incoming_tail = both ? tx->region(r) + (vectors - kStoreTpb) * static_cast<long long>(kVectorBytes)
                                 : nullptr;
          p.empty_word = kMarkWord;
          p.value_word = kValueWord;
          p.smid = tx->smid.as<int>();
          p.status = tx->cross_status(node_.timeout_ns());
          ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(tx->begin.get(), tx->stream()));
          ARLAB_CUDA_CHECK_RANK(r, launch_peer_store(p, tx->stream()));
          ARLAB_CUDA_CHECK_RANK(r, cudaEventRecord(tx->end.get(), tx->stream()));
        }
        finish(variant);
        for (int r : senders)
          if (LocalRank* tx = local(r)) {
            float ms = 0;
            ARLAB_CUDA_CHECK_RANK(r, cudaEventElapsedTime(&ms, tx->begin.get(), tx->end.get()));
            rate[r].push_back(gbps(static_cast<double>(bytes), static_cast<double>(ms) * 1e3));
            if (rep == 0) check_distinct_sms(*tx, sms, variant);
          }
      }
      const auto all = gather(rate, static_cast<size_t>(reps_));
      for (int r : senders)
        add_row("peer_store", variant, r, sms, kStoreTpb, static_cast<double>(bytes), "bytes", "gbps",
                all[static_cast<size_t>(r)]);
    }
  }

  // "One block per SM" is the block scheduler's choice, not a guarantee: say when it was not so.
  void check_distinct_sms(const LocalRank& tx, int sms, const std::string& variant) const {
    std::vector<int> ids(static_cast<size_t>(sms));
    ARLAB_CUDA_CHECK_RANK(tx.rank(), cudaMemcpy(ids.data(), tx.smid.data(), ids.size() * sizeof(int),
                                                cudaMemcpyDeviceToHost));
    const size_t distinct = std::set<int>(ids.begin(), ids.end()).size();
    if (distinct < ids.size())
      std::cerr << "arlab calibrate: note: peer_store " << variant << " rank " << tx.rank() << ": " << sms
                << " store blocks ran on " << distinct << " distinct SMs\n";
  }

  // ---- ping_pong -------------------------------------------------------------------------------
  // flag / flag_acq_rel: one thread on rank 0 (pinger) and one on rank 1 (ponger), each polling a
  // flag in its own region that the other stores to; local_flag: both roles on rank 0, both flags
  // in rank 0's region (an L2 round trip). one_way_ns = timed rounds' total / (2 rounds).
  void ping_pong(const std::string& variant, FlagOrder order, bool same_rank) {
    const int rounds = quick_ ? kPingPongQuickRounds : kPingPongRounds;
    for (auto& l : local_)  // flags of this variant start at 0; round values only grow from there
      ARLAB_CUDA_CHECK_RANK(l->rank(), cudaMemsetAsync(l->region(l->rank()), 0, 2 * kFlagStride, l->stream()));
    std::unordered_map<int, std::vector<double>> one_way;
    for (int rep = 0; rep < reps_; ++rep) {
      const auto base = static_cast<uint32_t>(rep * (kPingPongWarmup + rounds));
      gate_all();
      for (int r : {0, 1}) {
        LocalRank* l = local(r);
        if (!l || (same_rank && r == 1)) continue;
        PingPongParams p;
        if (same_rank) {
          auto* f0 = reinterpret_cast<uint32_t*>(l->region(0));
          auto* f1 = reinterpret_cast<uint32_t*>(l->region(0) + kFlagStride);
          p.side[0] = PingPongSide{f0, f1, nullptr};
          p.side[1] = PingPongSide{f1, f0, nullptr};
          p.blocks = 2;
        } else {
          p.side[r] = PingPongSide{reinterpret_cast<uint32_t*>(l->region(r)),
                                   reinterpret_cast<uint32_t*>(l->region(1 - r)), nullptr};
          p.role = r;
          p.blocks = 1;
        }
        p.warmup = kPingPongWarmup;
        p.rounds = rounds;
        p.base = base;
        p.order = order;
        p.total_ns = l->total.as<unsigned long long>();
        p.bench = CrossBench::ping_pong;
        p.status = l->cross_status(node_.timeout_ns());
        ARLAB_CUDA_CHECK_RANK(r, launch_ping_pong(p, l->stream()));
      }
      finish(variant);
      if (LocalRank* l = local(0))
        one_way[0].push_back(static_cast<double>(l->read(l->total, 1)[0]) / (2.0 * rounds));
    }
    const auto all = gather(one_way, static_cast<size_t>(reps_));
    add_row("ping_pong", variant, 0, 0, 1, rounds, "round_trips", "one_way_ns", all[0]);
  }

  // ---- poll ------------------------------------------------------------------------------------
  // Rank 1 runs T spinning threads, each on its own 16-byte slot of its region; rank 0, 50 us
  // after its own start, stores every slot (one thread per slot) and logs the %globaltimer of each
  // store; each poller logs when it saw its slot. latency = seen - stored (- the NTP clock offset
  // across GPUs), pooled over slots and repetitions.
  void poll() {
    const std::string variant = one_clock_ ? "lamport" : "lamport_ntp_offset";
    for (auto& l : local_)  // the NTP ping-pong's flags
      ARLAB_CUDA_CHECK_RANK(l->rank(), cudaMemsetAsync(l->region(l->rank()), 0, 2 * kFlagStride, l->stream()));
    int blocks_per_sm = 0;
    ARLAB_CUDA_CHECK(poll_wait_blocks_per_sm(&blocks_per_sm));
    uint32_t ntp_base = 0;
    for (int threads : poll_threads(quick_)) {
      const int blocks = (threads + kStoreTpb - 1) / kStoreTpb;
      const bool fits = blocks <= blocks_per_sm * node_.sms_per_rank() &&
                        kPollSlotsOffset + static_cast<size_t>(threads) * kVectorBytes <= region_bytes_;
      const std::vector<double> fit_all = node_.allgather({fits ? 1.0 : 0.0});  // one decision in every process
      if (std::any_of(fit_all.begin(), fit_all.end(), [](double v) { return v != 1.0; })) {
        note("poll skips " + std::to_string(threads) + " spinning threads: they do not all fit at once (" +
             std::to_string(blocks_per_sm) + " blocks of 1024 per SM) or their slots exceed the region");
        continue;
      }
      const int len = threads + 2 * kOffsetRounds;  // per rank: T times, then the NTP log
      std::vector<double> latency;
      for (int rep = 0; rep < reps_; ++rep) {
        if (LocalRank* rx = local(1))
          ARLAB_CUDA_CHECK_RANK(1, kernels::launch_fill_u32(rx->region(1) + kPollSlotsOffset,
                                                            static_cast<size_t>(threads) * kVectorBytes, kMarkWord,
                                                            rx->stream()));
        if (!one_clock_) {
          ntp_exchange(ntp_base);
          ntp_base += kOffsetWarmup + kOffsetRounds;
        }
        gate_all();
        if (LocalRank* tx = local(0)) {
          PollStoreParams p;
          p.peer_slots = tx->region(1) + kPollSlotsOffset;
          p.threads = threads;
          p.delay_ns = kPollDelayNs;
          p.value_word = kValueWord;
          p.stored_ns = tx->times.as<unsigned long long>();
          ARLAB_CUDA_CHECK_RANK(0, launch_poll_store(p, tx->stream()));
        }
        if (LocalRank* rx = local(1)) {
          PollWaitParams p;
          p.my_slots = rx->region(1) + kPollSlotsOffset;
          p.threads = threads;
          p.empty_word = kMarkWord;
          p.seen_ns = rx->times.as<unsigned long long>();
          p.status = rx->cross_status(node_.timeout_ns());
          ARLAB_CUDA_CHECK_RANK(1, launch_poll_wait(p, rx->stream()));
        }
        finish(variant);
        std::unordered_map<int, std::vector<uint64_t>> logs;
        for (int r : {0, 1})
          if (LocalRank* l = local(r)) {
            std::vector<uint64_t>& v = logs[r];
            v = l->read(l->times, static_cast<size_t>(threads));
            const std::vector<uint64_t> ntp = l->read(l->offset_log, 2 * kOffsetRounds);
            v.insert(v.end(), ntp.begin(), ntp.end());
          }
        const auto all = gather(logs, static_cast<size_t>(len));
        if (!process0()) continue;
        const std::vector<uint64_t>& a = all[0];
        const std::vector<uint64_t>& b = all[1];
        const auto t = static_cast<std::ptrdiff_t>(threads);
        double offset = 0;
        if (!one_clock_) {
          std::vector<uint64_t> t0, t1, t2;
          for (int k = 0; k < kOffsetRounds; ++k) {
            t0.push_back(a[static_cast<size_t>(threads + 2 * k)]);
            t2.push_back(a[static_cast<size_t>(threads + 2 * k + 1)]);
            t1.push_back(b[static_cast<size_t>(threads + k)]);
          }
          offset = clock_offset_ns(t0, t1, t2);
        }
        const std::vector<double> lat = poll_latencies_ns(std::vector<uint64_t>(a.begin(), a.begin() + t),
                                                          std::vector<uint64_t>(b.begin(), b.begin() + t), offset);
        latency.insert(latency.end(), lat.begin(), lat.end());
      }
      add_row("poll", variant, 1, blocks, std::min(threads, kStoreTpb), threads, "spinning_threads", "latency_ns",
              latency);
    }
  }

  // The NTP exchange before a cross-GPU poll repetition: a logged relaxed ping-pong between rank 0
  // (pinger) and rank 1 (ponger) through the flags at the head of their regions.
  void ntp_exchange(uint32_t base) {
    gate_all();
    for (int r : {0, 1}) {
      LocalRank* l = local(r);
      if (!l) continue;
      PingPongParams p;
      p.side[r] = PingPongSide{reinterpret_cast<uint32_t*>(l->region(r)),
                               reinterpret_cast<uint32_t*>(l->region(1 - r)), l->offset_log.as<unsigned long long>()};
      p.role = r;
      p.blocks = 1;
      p.warmup = kOffsetWarmup;
      p.rounds = kOffsetRounds;
      p.base = base;
      p.order = FlagOrder::relaxed;
      p.total_ns = l->total.as<unsigned long long>();
      p.bench = CrossBench::clock_offset;
      p.status = l->cross_status(node_.timeout_ns());
      ARLAB_CUDA_CHECK_RANK(r, launch_ping_pong(p, l->stream()));
    }
    // No synchronize here: the poll kernels follow in stream order behind another gate.
  }

  // The CUPTI timer of a bench that compares kernel records across ranks: the caller's, else one of
  // the bench's own (kept alive in `own`); null unless every process has one (collective: the same
  // answer everywhere). Drops the records of earlier benches.
  harness::CuptiKernelTimer* cupti_in_every_process(std::unique_ptr<harness::CuptiKernelTimer>& own,
                                                    const std::string& bench) {
    harness::CuptiKernelTimer* cupti = given_cupti_;
    if (!cupti) {
      try {
        own = std::make_unique<harness::CuptiKernelTimer>();
        cupti = own.get();
      } catch (const CudaError& e) {
        note(bench + " without CUPTI (" + e.what() + ")");
      }
    }
    const std::vector<double> have = node_.allgather({cupti ? 1.0 : 0.0});
    if (std::any_of(have.begin(), have.end(), [](double v) { return v != 1.0; })) return nullptr;
    cupti->collect();
    return cupti;
  }

  // ---- start_skew ------------------------------------------------------------------------------
  // As harness/timing.cpp starts fused kernels: a host hold at the head of every rank's stream, a
  // batch of kSkewBatch (gate, empty kernel) per rank queued behind it, then the release. Per
  // iteration skew = max - min over all ranks of the kernels' starts: CUPTI start records when
  // CUPTI is available in every process (host clock, comparable across processes), else (one
  // process only) the %globaltimer each empty kernel reads at entry.
  void start_skew() {
    std::unique_ptr<harness::CuptiKernelTimer> own_cupti;
    harness::CuptiKernelTimer* cupti = cupti_in_every_process(own_cupti, "start_skew");
    const bool single_process = static_cast<int>(node_.local_ranks().size()) == node_.nranks();
    if (!cupti && !single_process) {
      note("start_skew skipped: CUPTI is unavailable and the processes' GPU clocks cannot be compared");
      return;
    }
    const int iters = quick_ ? kSkewQuickIters : kSkewIters;
    harness::HostHold hold;
    std::unordered_map<int, std::vector<uint64_t>> starts;
    for (int first = -kSkewBatch; first < iters; first += kSkewBatch) {  // the first batch warms up
      const bool timed = first >= 0;
      hold.arm(node_);
      for (int i = 0; i < kSkewBatch; ++i)
        for (auto& l : local_) {
          l->ctx.launch_gate(node_.timeout_ns());
          const int it = timed ? first + i : i;
          if (cupti && timed) cupti->set_tag((static_cast<uint64_t>(it) << kTagRankBits) |
                                             static_cast<uint64_t>(l->rank()));
          const cudaError_t e = launch_stamp(l->stamps.as<unsigned long long>() + it, l->stream());
          if (cupti && timed) cupti->clear_tag();
          ARLAB_CUDA_CHECK_RANK(l->rank(), e);
        }
      hold.release();
      node_.synchronize();
      if (cupti) {
        std::unordered_map<uint64_t, uint64_t> start_by_tag;
        for (const harness::KernelInterval& k : cupti->collect()) start_by_tag[k.tag] = k.start_ns;
        if (!timed) continue;
        bool complete = true;
        for (auto& l : local_)
          for (int i = first; i < first + kSkewBatch; ++i) {
            const auto it = start_by_tag.find((static_cast<uint64_t>(i) << kTagRankBits) |
                                              static_cast<uint64_t>(l->rank()));
            complete = complete && it != start_by_tag.end();
            starts[l->rank()].push_back(complete ? it->second : 0);
          }
        const std::vector<double> ok = node_.allgather({complete ? 1.0 : 0.0});  // one decision everywhere
        if (std::any_of(ok.begin(), ok.end(), [](double v) { return v != 1.0; }))
          throw CudaError("start_skew: CUPTI did not deliver a start record of every tagged empty kernel");
      }
    }
    if (!cupti)
      for (auto& l : local_) starts[l->rank()] = l->read(l->stamps, static_cast<size_t>(iters));
    // CUPTI records arrive per batch: the iteration order of starts[r] is batch by batch, the same for every rank.
    const auto all = gather(starts, static_cast<size_t>(iters));
    if (!process0()) return;
    add_row("start_skew", "gated", -1, 0, kStampThreads, iters, "gated_starts", "skew_us", start_skews_us(all));
  }

  // ---- exchange --------------------------------------------------------------------------------
  // One all-to-all round among ranks 0 .. k-1 (calibrate/cross_rank_kernels.h exchange) for every k
  // of exchange_groups(N) and kExchangeThreads threads in one block, timed as harness/timing.cpp
  // times the fused kernels (exchange_round_us): the skew-free duration (max end - max start over
  // the members), the fused kernels' headline figure. Ranks outside the group take the gate only.
  // Needs CUPTI in every process (the skew-free figure compares starts and ends across ranks):
  // without it, skipped.
  void exchange() {
    std::unique_ptr<harness::CuptiKernelTimer> own_cupti;
    harness::CuptiKernelTimer* cupti = cupti_in_every_process(own_cupti, "exchange");
    if (!cupti) {
      note("exchange skipped: CUPTI is unavailable in some process (the skew-free figure needs its start and end "
           "records)");
      return;
    }
    const std::vector<int> groups = exchange_groups(node_.nranks());
    const size_t scratch = static_cast<size_t>(groups.back()) * kExchangeThreads.back() * kVectorBytes;
    if (scratch > region_bytes_) {
      note("exchange skipped: its scratch (" + std::to_string(scratch) + " bytes) exceeds the Lamport region (" +
           std::to_string(region_bytes_) + ")");
      return;
    }
    zero_scratch(scratch);
    for (int k : groups)
      for (int threads : kExchangeThreads)
        add_row("exchange", "all_to_all", -1, 1, threads, k, "ranks", "skewfree_us",
                exchange_round_us(*cupti, k, 1, threads));
  }

  // ---- exchange all_to_all_grid ------------------------------------------------------------------
  // One round between ranks 0 and 1 with kExchangeGridBlocks blocks (at most the rank's SMs) of
  // kExchangeGridThreads threads each, timed as `exchange`; the row's `sms` column holds the blocks.
  void exchange_grid() {
    std::unique_ptr<harness::CuptiKernelTimer> own_cupti;
    harness::CuptiKernelTimer* cupti = cupti_in_every_process(own_cupti, "exchange all_to_all_grid");
    if (!cupti) {
      note("exchange all_to_all_grid skipped: CUPTI is unavailable in some process");
      return;
    }
    constexpr int kGroup = 2;
    const int sms = node_.sms_per_rank();
    std::vector<std::pair<int, int>> points;  // (blocks, threads) that run as one wave
    size_t largest = 0;                        // threads of the largest grid
    for (int b : kExchangeGridBlocks)
      for (int threads : kExchangeGridThreads) {
        int per_sm = 0;
        ARLAB_CUDA_CHECK(exchange_blocks_per_sm(threads, &per_sm));
        if (b > sms && (b + sms - 1) / sms > per_sm) continue;  // more than one wave: not this bench's round
        points.emplace_back(b, threads);
        largest = std::max(largest, static_cast<size_t>(b) * threads);
      }
    const size_t scratch = static_cast<size_t>(kGroup) * largest * kVectorBytes;
    if (scratch > region_bytes_) {
      note("exchange all_to_all_grid skipped: its scratch (" + std::to_string(scratch) +
           " bytes) exceeds the Lamport region (" + std::to_string(region_bytes_) + ")");
      return;
    }
    zero_scratch(scratch);
    for (const auto& [b, threads] : points)
      add_row("exchange", "all_to_all_grid", -1, b, threads, kGroup, "ranks", "skewfree_us",
              exchange_round_us(*cupti, kGroup, b, threads));
  }

  // exchange all_to_all_cluster (since session 49): one round between 2 ranks on ONE cluster of c blocks of
  // T / c threads (T = 256 and 1024: a token of H 2048 and 8192 at one vector per thread; c = 1, 2, 4, 8), as a
  // call of one token spreads its token over a cluster, with no cluster exchange after the poll (variant
  // all_to_all_cluster), the reference's (all_to_all_cluster_sum: cluster_sum and its relaxed closing barrier)
  // and the lean kernel's (all_to_all_cluster_pushed: the pushed exchange, started before the stores). Why:
  // the fused one-shot rows of one token are a few hundred ns longer at clusters of 2-8 blocks than at one
  // block of the same threads, in both bodies, beyond what the exchange's own benches give (docs/model.md,
  // session 49). Rows: sms = blocks, tpb, cluster, size = 2 ranks, metric skewfree_us.
  void exchange_cluster() {
    std::unique_ptr<harness::CuptiKernelTimer> own_cupti;
    harness::CuptiKernelTimer* cupti = cupti_in_every_process(own_cupti, "exchange all_to_all_cluster");
    if (!cupti) {
      note("exchange all_to_all_cluster skipped: CUPTI is unavailable in some process");
      return;
    }
    constexpr int kGroup = 2;
    const size_t scratch = static_cast<size_t>(kGroup) * 1024 * kVectorBytes;
    if (scratch > region_bytes_) {  // as all_to_all_grid's check (its 32 KB fit every region arlab allocates)
      note("exchange all_to_all_cluster skipped: its scratch (" + std::to_string(scratch) +
           " bytes) exceeds the Lamport region (" + std::to_string(region_bytes_) + ")");
      return;
    }
    zero_scratch(scratch);
    const std::pair<int, const char*> modes[] = {{kExchangeNone, "all_to_all_cluster"},
                                                 {kExchangeSum, "all_to_all_cluster_sum"},
                                                 {kExchangePushed, "all_to_all_cluster_pushed"}};
    for (int threads : {256, 1024})
      for (int c : {1, 2, 4, 8}) {
        if (c > node_.sms_per_rank()) continue;
        for (const auto& [mode, variant] : modes) {
          if (c == 1 && mode != kExchangeNone) continue;  // no cluster: nothing to exchange
          add_row("exchange", variant, -1, c, threads / c, kGroup, "ranks", "skewfree_us",
                  exchange_round_us(*cupti, kGroup, c, threads / c, c, mode), c);
        }
      }
  }

  // Tags start at 1: zeroed slots hold no launch's tag (exchange_tag_ continues across the sweeps,
  // so no slot ever holds an earlier launch's tag either).
  void zero_scratch(size_t bytes) {
    for (auto& l : local_)
      ARLAB_CUDA_CHECK_RANK(l->rank(), cudaMemsetAsync(l->region(l->rank()), 0, bytes, l->stream()));
    finish("exchange fill");
  }

  // The skew-free durations (us, process 0; empty elsewhere) of one all-to-all round among ranks
  // 0 .. k-1 with `blocks` blocks of `threads` threads each: a host hold at the head of every rank's
  // stream, a batch of kSkewBatch (gate, kernel) per rank queued behind it, then the release; CUPTI
  // start and end records of the members' kernels give per iteration max end - max start.
  std::vector<double> exchange_round_us(harness::CuptiKernelTimer& cupti, int k, int blocks, int threads,
                                        int cluster = 1, int cluster_mode = kExchangeNone) {
    const int iters = quick_ ? kSkewQuickIters : kSkewIters;
    harness::HostHold hold;
    std::unordered_map<int, std::vector<uint64_t>> starts, ends;
    for (int first = -kSkewBatch; first < iters; first += kSkewBatch) {  // the first batch warms up
      const bool timed = first >= 0;
      hold.arm(node_);
      for (int i = 0; i < kSkewBatch; ++i, ++exchange_tag_)
        for (auto& l : local_) {
          l->ctx.launch_gate(node_.timeout_ns());
          if (l->rank() >= k) continue;
          ExchangeParams p;
          for (int r = 0; r < k; ++r) p.scratch[r] = l->region(r);
          p.group = k;
          p.rank = l->rank();
          p.threads = threads;
          p.blocks = blocks;
          p.tag = exchange_tag_;
          p.status = l->cross_status(node_.timeout_ns());
          p.cluster = cluster;
          p.cluster_mode = cluster_mode;
          if (timed) cupti.set_tag((static_cast<uint64_t>(first + i) << kTagRankBits) | static_cast<uint64_t>(l->rank()));
          const cudaError_t e = launch_exchange(p, l->stream());
          if (timed) cupti.clear_tag();
          ARLAB_CUDA_CHECK_RANK(l->rank(), e);
        }
      hold.release();
      finish("all_to_all");
      std::unordered_map<uint64_t, harness::KernelInterval> by_tag;
      for (const harness::KernelInterval& ki : cupti.collect()) by_tag[ki.tag] = ki;
      if (!timed) continue;
      bool complete = true;
      for (auto& l : local_) {
        if (l->rank() >= k) continue;
        for (int i = first; i < first + kSkewBatch; ++i) {
          const auto it = by_tag.find((static_cast<uint64_t>(i) << kTagRankBits) | static_cast<uint64_t>(l->rank()));
          complete = complete && it != by_tag.end();
          starts[l->rank()].push_back(complete ? it->second.start_ns : 0);
          ends[l->rank()].push_back(complete ? it->second.end_ns : 0);
        }
      }
      const std::vector<double> ok = node_.allgather({complete ? 1.0 : 0.0});  // one decision everywhere
      if (std::any_of(ok.begin(), ok.end(), [](double v) { return v != 1.0; }))
        throw CudaError("exchange: CUPTI did not deliver a record of every tagged exchange kernel");
    }
    auto all_starts = gather(starts, static_cast<size_t>(iters));
    auto all_ends = gather(ends, static_cast<size_t>(iters));
    if (!process0()) return {};
    all_starts.resize(static_cast<size_t>(k));  // the members' rows (ranks 0 .. k-1)
    all_ends.resize(static_cast<size_t>(k));
    return skew_free_durations_us(all_starts, all_ends);
  }

  Node& node_;
  harness::CuptiKernelTimer* given_cupti_;  // the caller's CUPTI timer, or null
  bool quick_;
  int reps_;
  std::vector<MicrobenchRow>& out_;
  std::vector<std::unique_ptr<LocalRank>> local_;
  size_t region_bytes_ = 0;
  bool one_clock_ = false;
  uint32_t exchange_tag_ = 1;  // the next exchange launch's tag (0 is the filled scratch's word)
};

}  // namespace

void run_cross_rank_benches(harness::Node& node, const CrossRankOptions& options, std::vector<MicrobenchRow>& out) {
  CrossRankBenches benches(node, options, out);
  benches.run();
}

}  // namespace arlab::calibrate
