// CPU tests of calibrate/cross_rank_stats.h: the timeout code and its text, the sweeps, the
// transfer size, the NTP clock offset, poll latencies, start skews and per-rank gathering.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/cross_rank_stats.h"
#include "common/problem.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::calibrate;

TEST_CASE("cross-rank timeout codes round-trip every field") {
  const unsigned long long code = encode_cross_timeout(CrossBench::poll, CrossWait::slot, 1, 63, 65535);
  const CrossTimeout t = decode_cross_timeout(code);
  CHECK(t.bench == CrossBench::poll);
  CHECK(t.wait == CrossWait::slot);
  CHECK(t.rank == 1);
  CHECK(t.block == 63);
  CHECK(t.index == 65535);
  CHECK(encode_cross_timeout(CrossBench::none, CrossWait::none, 0, 0, 0) == 0ull);  // 0 = no timeout
  // The largest fields stay in their own bits.
  const CrossTimeout m = decode_cross_timeout(encode_cross_timeout(CrossBench::clock_offset, CrossWait::flag, 255,
                                                                   0xFFFFF, 0xFFFFF));
  CHECK(m.bench == CrossBench::clock_offset);
  CHECK(m.wait == CrossWait::flag);
  CHECK(m.rank == 255);
  CHECK(m.block == 0xFFFFF);
  CHECK(m.index == 0xFFFFF);
}

TEST_CASE("a cross-rank timeout message names bench, variant, rank, block and the wait") {
  const std::string m = cross_timeout_message(encode_cross_timeout(CrossBench::ping_pong, CrossWait::flag, 1, 0, 17),
                                              "flag", 2000);
  CHECK(m == "calibrate cross-rank bench ping_pong (variant flag): rank 1 block 0 timed out after 2000 ms waiting "
             "for round 17 of its partner's flag");
  const std::string p = cross_timeout_message(encode_cross_timeout(CrossBench::poll, CrossWait::slot, 1, 3, 3100),
                                              "lamport", 2.5);
  CHECK(p.find("bench poll (variant lamport): rank 1 block 3 timed out after 2.5 ms") != std::string::npos);
  CHECK(p.find("spinning thread 3100") != std::string::npos);
  const std::string s = cross_timeout_message(
      encode_cross_timeout(CrossBench::peer_store, CrossWait::incoming_data, 0, 64, 5), "both_ways_polling", 100);
  CHECK(s.find("peer_store (variant both_ways_polling): rank 0 block 64") != std::string::npos);
  CHECK(s.find("tail vector 5") != std::string::npos);
}

TEST_CASE("peer_store sweeps powers of two below the rank's SMs, then all of them") {
  CHECK(peer_store_sms(132, false) == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 132});
  CHECK(peer_store_sms(64, false) == std::vector<int>{1, 2, 4, 8, 16, 32, 64});
  CHECK(peer_store_sms(16, false) == std::vector<int>{1, 2, 4, 8, 16});
  CHECK(peer_store_sms(1, false) == std::vector<int>{1});
  CHECK(peer_store_sms(132, true) == std::vector<int>{1, 8, 64, 132});
  CHECK(peer_store_sms(64, true) == std::vector<int>{1, 8, 64});
  CHECK_THROWS_AS(peer_store_sms(0, false), InvalidArgument);
}

TEST_CASE("poll sweeps 32 to 65536 spinning threads") {
  CHECK(poll_threads(false) == std::vector<int>{32, 1024, 8192, 65536});
  CHECK(poll_threads(true).size() == 2);
}

TEST_CASE("peer_store bytes are clipped to the region and rounded to whole passes of 16 KiB") {
  constexpr size_t kMiB = size_t{1} << 20;
  CHECK(peer_store_bytes(64 * kMiB, 96 * kMiB) == 64 * kMiB);
  CHECK(peer_store_bytes(64 * kMiB, 10 * kMiB + 5) == 10 * kMiB);
  CHECK(peer_store_bytes(64 * kMiB, 16384 + 100) == 16384);
  CHECK_THROWS_AS(peer_store_bytes(64 * kMiB, 16383), InvalidArgument);
}

TEST_CASE("gbps is bytes per nanosecond") {
  CHECK(gbps(64e6, 1000) == 64.0);  // 64 MB in 1 ms = 64 GB/s
  CHECK(std::fabs(gbps(1 << 20, 1) - 1048.576) < 1e-9);
}

TEST_CASE("the NTP clock offset recovers a known offset with symmetric one-way times") {
  // Clock B runs 1'000'000'123 ns ahead of clock A; every one-way trip takes 800 ns.
  const uint64_t epoch = 1'800'000'000'000'000'000ull;  // CUPTI-sized values: exact only in integers
  const int64_t offset = 1'000'000'123;
  std::vector<uint64_t> t0, t1, t2;
  for (uint64_t k = 0; k < 9; ++k) {
    const uint64_t sent = epoch + k * 10'000;
    t0.push_back(sent);
    t1.push_back(sent + 800 + static_cast<uint64_t>(offset));
    t2.push_back(sent + 1600);
  }
  CHECK(clock_offset_ns(t0, t1, t2) == static_cast<double>(offset));
  // A clock B behind A (negative offset) and one slow outlier round: the median ignores it.
  std::vector<uint64_t> u1;
  for (size_t k = 0; k < t0.size(); ++k) u1.push_back(t0[k] + 800 - 5000);
  t2[4] += 100'000;
  u1[4] += 90'000;  // a round whose trips were not symmetric: its estimate is 35000 ns, an outlier
  CHECK(clock_offset_ns(t0, u1, t2) == -5000.0);
  CHECK_THROWS_AS(clock_offset_ns({}, {}, {}), InvalidArgument);
  CHECK_THROWS_AS(clock_offset_ns({1, 2}, {1}, {3, 4}), InvalidArgument);
  CHECK_THROWS_AS(clock_offset_ns({10}, {11}, {9}), InvalidArgument);
}

TEST_CASE("poll latencies subtract the store time and the clock offset") {
  const uint64_t e = 1'800'000'000'000'000'000ull;
  const std::vector<double> lat = poll_latencies_ns({e, e + 10, e + 20}, {e + 700, e + 1010, e + 5}, 0);
  CHECK(lat == std::vector<double>{700, 1000, -15});
  const std::vector<double> shifted = poll_latencies_ns({e}, {e + 2'000'700}, 2'000'000);
  CHECK(shifted == std::vector<double>{700});
  CHECK_THROWS_AS(poll_latencies_ns({1, 2}, {3}, 0), InvalidArgument);
}

TEST_CASE("start skew per iteration is max - min over ranks, in us") {
  const uint64_t e = 1'800'000'000'000'000'000ull;
  const std::vector<double> s = start_skews_us({{e, e + 1000, e + 2000}, {e + 250, e + 1000, e + 1990}});
  CHECK(s == std::vector<double>{0.25, 0.0, 0.01});
  CHECK_THROWS_AS(start_skews_us({}), InvalidArgument);
  CHECK_THROWS_AS(start_skews_us({{1, 2}, {1}}), InvalidArgument);
}

TEST_CASE("skew-free duration per iteration is the last end minus the last start over ranks, in us") {
  const uint64_t e = 1'800'000'000'000'000'000ull;
  // iteration 0: rank 1 starts last (e + 300) and rank 0 ends last (e + 2300): 2.0 us
  // iteration 1: one rank both starts and ends last: 1.5 us
  const std::vector<double> d =
      skew_free_durations_us({{e, e + 10000}, {e + 300, e + 10100}}, {{e + 2300, e + 11000}, {e + 2000, e + 11600}});
  CHECK(d == std::vector<double>{2.0, 1.5});
  CHECK_THROWS_AS(skew_free_durations_us({}, {}), InvalidArgument);
  CHECK_THROWS_AS(skew_free_durations_us({{1, 2}}, {{3}}), InvalidArgument);           // counts differ
  CHECK_THROWS_AS(skew_free_durations_us({{1}, {1}}, {{3}}), InvalidArgument);         // ranks differ
  CHECK_THROWS_AS(skew_free_durations_us({{e + 5}, {e}}, {{e + 4}, {e + 9}}), InvalidArgument);  // end < start
}

TEST_CASE("the exchange sweep doubles from 2 ranks to the node's count") {
  CHECK(exchange_groups(2) == std::vector<int>{2});
  CHECK(exchange_groups(4) == std::vector<int>{2, 4});
  CHECK(exchange_groups(8) == std::vector<int>{2, 4, 8});
  CHECK(exchange_groups(6) == std::vector<int>{2, 4, 6});
  CHECK(exchange_groups(16) == std::vector<int>{2, 4, 8, 16});
  CHECK_THROWS_AS(exchange_groups(1), InvalidArgument);
}

TEST_CASE("per-rank values gather from the one process that drives each rank") {
  // Two processes (MPI-like): process 0 drives rank 0, process 1 drives rank 1.
  const std::vector<double> p0 = pack_owned<double>({{1.5, 2.5}, {}}, {true, false}, 2);
  const std::vector<double> p1 = pack_owned<double>({{}, {7.0, -3.0}}, {false, true}, 2);
  std::vector<double> all = p0;
  all.insert(all.end(), p1.begin(), p1.end());
  const auto by_rank = unpack_owned(all, 2, 2);
  CHECK(by_rank == std::vector<std::vector<double>>{{1.5, 2.5}, {7.0, -3.0}});
  // One process (emulated node) driving both; u64 timestamps keep every bit.
  const uint64_t big = 0xFFFF'FFFF'FFFF'FFF0ull;
  const auto u = unpack_owned(pack_owned<uint64_t>({{big}, {0}}, {true, true}, 1), 2, 1);
  CHECK(u[0][0] == big);
  CHECK(u[1][0] == 0);
  // A rank nobody drives, a rank two processes claim, sizes that do not fit.
  CHECK_THROWS_AS(unpack_owned(p0, 2, 2), InvalidArgument);
  std::vector<double> twice = p0;
  twice.insert(twice.end(), p0.begin(), p0.end());
  CHECK_THROWS_AS(unpack_owned(twice, 2, 2), InvalidArgument);
  CHECK_THROWS_AS(unpack_owned(std::vector<double>(5, 1.0), 2, 2), InvalidArgument);
  CHECK_THROWS_AS(pack_owned<double>({{1.0}}, {true}, 2), InvalidArgument);
  CHECK_THROWS_AS(pack_owned<double>({{1.0}}, {true, false}, 1), InvalidArgument);
}
