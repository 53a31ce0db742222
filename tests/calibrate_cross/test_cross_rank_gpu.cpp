// GPU test of the cross-rank calibrate benches (calibrate/cross_rank_benches.h) on the emulated
// node, quick mode: every bench yields its rows with plausible values, idle ranks (N = 4) take part
// in the gates without hanging, and the workspaces are back to their initial state afterwards.
#include <cmath>
#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "calibrate/cross_rank_benches.h"
#include "calibrate/cross_rank_stats.h"
#include "harness/emulated_node.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::harness;

namespace {

std::vector<MicrobenchRow> rows_of(const std::vector<MicrobenchRow>& rows, const std::string& bench,
                                   const std::string& variant) {
  std::vector<MicrobenchRow> r;
  for (const MicrobenchRow& row : rows)
    if (row.bench == bench && row.variant == variant) r.push_back(row);
  return r;
}

}  // namespace

TEST_CASE("cross-rank benches on the emulated node: every bench, plausible values, clean workspaces") {
  request_device_connections();
  for (int n : {2, 4}) {
    NodeOptions o;
    o.nranks = n;
    o.max_tokens = 1024;  // 16 MiB slots: the 8 MiB quick transfer fits
    o.max_hidden = 8192;
    EmulatedNode node(o);
    node.format(DType::bf16);
    calibrate::CrossRankOptions opt;
    opt.quick = true;
    std::vector<MicrobenchRow> rows;
    calibrate::run_cross_rank_benches(node, opt, rows);
    INFO("N = " << n << ", " << rows.size() << " rows");
    for (const MicrobenchRow& r : rows)  // the figures, for whoever reads the test log
      std::cout << "N=" << n << " " << r.bench << " " << r.variant << " rank " << r.rank << " sms " << r.sms
                << " size " << r.size << " " << r.metric << " " << r.value << " [" << r.p10 << ", " << r.p90
                << "] reps " << r.reps << "\n";

    const std::vector<int> sms = calibrate::peer_store_sms(node.sms_per_rank(), true);
    const auto one_way = rows_of(rows, "peer_store", "one_way");
    const auto both = rows_of(rows, "peer_store", "both_ways_polling");
    REQUIRE(one_way.size() == sms.size());
    REQUIRE(both.size() == 2 * sms.size());
    for (const auto* set : {&one_way, &both})
      for (const MicrobenchRow& r : *set) {
        INFO(r.variant << " rank " << r.rank << " sms " << r.sms << ": " << r.value << " GB/s");
        CHECK(r.metric == "gbps");
        CHECK(r.value > 1.0);      // anything below 1 GB/s is a broken bench, not a slow GPU
        CHECK(r.value < 10000.0);  // above any HBM rate
        CHECK(r.p10 <= r.value);
        CHECK(r.value <= r.p90);
      }
    std::set<int> both_ranks;
    for (const MicrobenchRow& r : both) both_ranks.insert(r.rank);
    CHECK(both_ranks == std::set<int>{0, 1});

    for (const std::string v : {"flag", "flag_acq_rel", "local_flag"}) {
      const auto pp = rows_of(rows, "ping_pong", v);
      REQUIRE(pp.size() == 1);
      INFO(v << ": " << pp[0].value << " ns one way");
      CHECK(pp[0].metric == "one_way_ns");
      CHECK(pp[0].value > 10.0);     // an L2 round trip takes hundreds of ns
      CHECK(pp[0].value < 20000.0);
    }

    const auto poll = rows_of(rows, "poll", "lamport");  // one GPU: one %globaltimer
    REQUIRE(poll.size() == calibrate::poll_threads(true).size());
    for (const MicrobenchRow& r : poll) {
      INFO(r.size << " spinning threads: " << r.value << " ns");
      CHECK(r.metric == "latency_ns");
      CHECK(r.value > 0.0);
      CHECK(r.value < 100000.0);
    }

    const auto skew = rows_of(rows, "start_skew", "gated");
    REQUIRE(skew.size() == 1);
    CHECK(skew[0].metric == "skew_us");
    CHECK(skew[0].value >= 0.0);
    CHECK(skew[0].value < 100.0);
    CHECK(skew[0].reps >= 64);

    const auto exchange = rows_of(rows, "exchange", "all_to_all");  // groups 2 .. n x 128 and 1024 threads
    REQUIRE(exchange.size() == 2 * calibrate::exchange_groups(n).size());
    for (const MicrobenchRow& r : exchange) {
      INFO(r.size << " ranks x " << r.tpb << " threads: " << r.value << " us");
      CHECK(r.metric == "skewfree_us");
      CHECK(r.size_unit == "ranks");
      CHECK((r.tpb == 128 || r.tpb == 1024));
      CHECK(r.value > 0.0);    // a launch, a store and a poll round trip
      CHECK(r.value < 100.0);
      CHECK(r.reps >= 64);
    }

    // One round between ranks 0 and 1 with grids of 1, 4, 16, 64 blocks x 128, 512, 1024 threads (every
    // size up to the rank's SMs), and of 128 and 256 blocks where all are resident at once (several
    // per SM: never more threads than an sm_90 SM holds, 2048); `sms` holds the blocks.
    constexpr int kMaxThreadsPerSm = 2048;  // sm_90 (CUDA programming guide, compute capability 9.0)
    const auto grid = rows_of(rows, "exchange", "all_to_all_grid");
    REQUIRE(!grid.empty());
    const int rank_sms = grid[0].sm_per_rank;
    size_t one_per_sm_blocks = 0, one_per_sm_rows = 0;
    for (int b : {1, 4, 16, 64}) one_per_sm_blocks += b <= rank_sms ? 1 : 0;
    for (const MicrobenchRow& r : grid) one_per_sm_rows += r.sms <= rank_sms ? 1 : 0;
    CHECK(one_per_sm_rows == 3 * one_per_sm_blocks);
    for (const MicrobenchRow& r : grid) {
      INFO(r.sms << " blocks x " << r.tpb << " threads: " << r.value << " us");
      CHECK(r.metric == "skewfree_us");
      CHECK(r.size == 2.0);
      CHECK((r.sms == 1 || r.sms == 4 || r.sms == 16 || r.sms == 64 || r.sms == 128 || r.sms == 256));
      if (r.sms > rank_sms) CHECK((r.sms + rank_sms - 1) / rank_sms * r.tpb <= kMaxThreadsPerSm);
      CHECK((r.tpb == 128 || r.tpb == 512 || r.tpb == 1024));
      CHECK(r.value > 0.0);
      CHECK(r.value < 100.0);
      CHECK(r.reps >= 64);
    }

    for (const MicrobenchRow& r : rows) {
      CHECK(r.nranks == n);
      CHECK(r.git_sha.empty());  // provenance is the caller's
      CHECK(std::isfinite(r.value));
    }

    // Every workspace is back to its initial state: gate words zero, the region's head the -0.0 mark.
    for (int r = 0; r < n; ++r) {
      const LamportWorkspace& w = node.rank(r).workspace();
      kernels::LamportControl c{};
      REQUIRE(cudaMemcpy(&c, w.control(), sizeof(c), cudaMemcpyDeviceToHost) == cudaSuccess);
      CHECK(c.gate_generation == 0);
      std::vector<uint32_t> head(1024);
      REQUIRE(cudaMemcpy(head.data(), lamport_region(w.base()), head.size() * sizeof(uint32_t),
                         cudaMemcpyDeviceToHost) == cudaSuccess);
      for (uint32_t word : head) CHECK(word == 0x80008000u);
    }
  }
}
