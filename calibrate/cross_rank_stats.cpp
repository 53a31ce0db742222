// Implementation of calibrate/cross_rank_stats.h.
#include "calibrate/cross_rank_stats.h"

#include <algorithm>
#include <string>

#include "common/problem.h"
#include "harness/timing_stats.h"

namespace arlab::calibrate {

CrossTimeout decode_cross_timeout(unsigned long long code) {
  CrossTimeout t;
  t.bench = static_cast<CrossBench>((code >> 56) & kCrossMask8);
  t.wait = static_cast<CrossWait>((code >> 48) & kCrossMask8);
  t.rank = static_cast<int>((code >> 40) & kCrossMask8);
  t.block = static_cast<int>((code >> 20) & kCrossMask20);
  t.index = static_cast<int>(code & kCrossMask20);
  return t;
}

const char* to_string(CrossBench b) {
  switch (b) {
    case CrossBench::peer_store: return "peer_store";
    case CrossBench::ping_pong: return "ping_pong";
    case CrossBench::poll: return "poll";
    case CrossBench::clock_offset: return "poll (clock offset ping-pong)";
    case CrossBench::exchange: return "exchange";
    case CrossBench::none: break;
  }
  return "unknown";
}

static std::string wait_text(const CrossTimeout& t) {
  const std::string i = std::to_string(t.index);
  switch (t.wait) {
    case CrossWait::incoming_data:
      return "the peer's stores to replace the -0.0 mark of its last incoming vectors (tail vector " + i + ")";
    case CrossWait::flag: return "round " + i + " of its partner's flag";
    case CrossWait::slot: return "rank 0's store into the slot of spinning thread " + i;
    case CrossWait::member: return "the vectors of the members from rank " + i + " (a poll batch of 4)";
    case CrossWait::none: break;
  }
  return "an unknown wait (" + i + ")";
}

std::string cross_timeout_message(unsigned long long code, const std::string& variant, double timeout_ms) {
  const CrossTimeout t = decode_cross_timeout(code);
  std::string ms = std::to_string(timeout_ms);
  ms.erase(ms.find_last_not_of('0') + 1);
  if (!ms.empty() && ms.back() == '.') ms.pop_back();
  return std::string("calibrate cross-rank bench ") + to_string(t.bench) + " (variant " + variant + "): rank " +
         std::to_string(t.rank) + " block " + std::to_string(t.block) + " timed out after " + ms +
         " ms waiting for " + wait_text(t);
}

std::vector<int> peer_store_sms(int sms_per_rank, bool quick) {
  if (sms_per_rank < 1) throw InvalidArgument("peer_store: " + std::to_string(sms_per_rank) + " SMs per rank");
  constexpr int kLargestPowerOfTwo = 64;  // the sweep of the brief: 1, 2, 4, ..., 64, then all SMs
  constexpr int kQuickStride = 8;         // quick mode keeps 1, 8, 64 (then all)
  std::vector<int> sms;
  for (int s = 1; s <= kLargestPowerOfTwo && s < sms_per_rank; s *= quick ? kQuickStride : 2) sms.push_back(s);
  sms.push_back(sms_per_rank);
  return sms;
}

std::vector<int> poll_threads(bool quick) {
  if (quick) return {32, 8192};
  return {32, 1024, 8192, 65536};
}

size_t peer_store_bytes(size_t wanted, size_t region_bytes) {
  const size_t pass = kVectorBytes * static_cast<size_t>(kStoreTpb);  // 16 KiB: one vector per thread of a block
  const size_t bytes = std::min(wanted, region_bytes) / pass * pass;
  if (bytes == 0)
    throw InvalidArgument("peer_store: a Lamport region of " + std::to_string(region_bytes) +
                          " bytes holds less than one pass of " + std::to_string(pass) + " bytes");
  return bytes;
}

double gbps(double bytes, double us) { return bytes / (us * 1e3); }

double clock_offset_ns(const std::vector<uint64_t>& t0, const std::vector<uint64_t>& t1,
                       const std::vector<uint64_t>& t2) {
  if (t0.empty() || t0.size() != t1.size() || t0.size() != t2.size())
    throw InvalidArgument("clock offset: " + std::to_string(t0.size()) + "/" + std::to_string(t1.size()) + "/" +
                          std::to_string(t2.size()) + " timestamps (expected equal, non-zero counts)");
  std::vector<double> offsets;
  for (size_t k = 0; k < t0.size(); ++k) {
    if (t2[k] < t0[k]) throw InvalidArgument("clock offset: round " + std::to_string(k) + " ends before it starts");
    // Integer differences first (timestamps ~1e18 ns do not survive a double): t1 - t0 is signed
    // (two clocks; the wrap-around of the unsigned difference cast to int64 is its exact value).
    const auto a_to_b = static_cast<int64_t>(t1[k] - t0[k]);
    const double half_rtt = static_cast<double>(t2[k] - t0[k]) / 2;
    offsets.push_back(static_cast<double>(a_to_b) - half_rtt);  // t1 - t0 - (t2 - t0) / 2 = t1 - (t0 + t2) / 2
  }
  return harness::quantile(offsets, 0.5);
}

std::vector<double> poll_latencies_ns(const std::vector<uint64_t>& stored, const std::vector<uint64_t>& seen,
                                      double offset_ns) {
  if (stored.size() != seen.size())
    throw InvalidArgument("poll: " + std::to_string(stored.size()) + " store times for " +
                          std::to_string(seen.size()) + " seen times");
  std::vector<double> lat;
  lat.reserve(stored.size());
  for (size_t i = 0; i < stored.size(); ++i) {
    const bool later = seen[i] >= stored[i];
    const double d = static_cast<double>(later ? seen[i] - stored[i] : stored[i] - seen[i]);
    lat.push_back((later ? d : -d) - offset_ns);
  }
  return lat;
}

std::vector<double> start_skews_us(const std::vector<std::vector<uint64_t>>& starts) {
  if (starts.empty() || starts[0].empty()) throw InvalidArgument("start skew: no starts");
  for (const auto& s : starts)
    if (s.size() != starts[0].size())
      throw InvalidArgument("start skew: ranks with " + std::to_string(s.size()) + " and " +
                            std::to_string(starts[0].size()) + " starts");
  std::vector<double> skew;
  for (size_t i = 0; i < starts[0].size(); ++i) {
    uint64_t lo = starts[0][i], hi = starts[0][i];
    for (const auto& s : starts) {
      lo = std::min(lo, s[i]);
      hi = std::max(hi, s[i]);
    }
    skew.push_back(harness::to_relative_us(hi, lo));
  }
  return skew;
}

std::vector<double> skew_free_durations_us(const std::vector<std::vector<uint64_t>>& starts,
                                           const std::vector<std::vector<uint64_t>>& ends) {
  if (starts.empty() || starts[0].empty()) throw InvalidArgument("skew-free duration: no starts");
  if (ends.size() != starts.size())
    throw InvalidArgument("skew-free duration: " + std::to_string(starts.size()) + " ranks of starts, " +
                          std::to_string(ends.size()) + " of ends");
  const size_t iters = starts[0].size();
  for (size_t r = 0; r < starts.size(); ++r)
    if (starts[r].size() != iters || ends[r].size() != iters)
      throw InvalidArgument("skew-free duration: rank " + std::to_string(r) + " has " +
                            std::to_string(starts[r].size()) + " starts and " + std::to_string(ends[r].size()) +
                            " ends, rank 0 " + std::to_string(iters));
  std::vector<double> d;
  d.reserve(iters);
  for (size_t i = 0; i < iters; ++i) {
    uint64_t last_start = 0, last_end = 0;
    for (size_t r = 0; r < starts.size(); ++r) {
      if (ends[r][i] < starts[r][i])
        throw InvalidArgument("skew-free duration: rank " + std::to_string(r) + " iteration " + std::to_string(i) +
                              " ends before it starts");
      last_start = std::max(last_start, starts[r][i]);
      last_end = std::max(last_end, ends[r][i]);
    }
    d.push_back(harness::to_relative_us(last_end, last_start));
  }
  return d;
}

std::vector<int> exchange_groups(int nranks) {
  if (nranks < 2) throw InvalidArgument("exchange: " + std::to_string(nranks) + " ranks (needs >= 2)");
  std::vector<int> g;
  for (int k = 2; k < nranks; k *= 2) g.push_back(k);
  g.push_back(nranks);
  return g;
}

template <typename T>
std::vector<T> pack_owned(const std::vector<std::vector<T>>& by_rank, const std::vector<bool>& owned, size_t len) {
  if (by_rank.size() != owned.size())
    throw InvalidArgument("pack_owned: " + std::to_string(by_rank.size()) + " ranks of values, " +
                          std::to_string(owned.size()) + " ownership flags");
  std::vector<T> pack;
  pack.reserve(by_rank.size() * (1 + len));
  for (size_t r = 0; r < by_rank.size(); ++r) {
    if (owned[r] && by_rank[r].size() != len)
      throw InvalidArgument("pack_owned: rank " + std::to_string(r) + " has " + std::to_string(by_rank[r].size()) +
                            " values, expected " + std::to_string(len));
    pack.push_back(owned[r] ? T{1} : T{0});
    for (size_t k = 0; k < len; ++k) pack.push_back(owned[r] ? by_rank[r][k] : T{0});
  }
  return pack;
}

template <typename T>
std::vector<std::vector<T>> unpack_owned(const std::vector<T>& all, int nranks, size_t len) {
  const size_t per_process = static_cast<size_t>(nranks) * (1 + len);
  if (nranks < 1 || all.empty() || all.size() % per_process != 0)
    throw InvalidArgument("unpack_owned: " + std::to_string(all.size()) + " values do not split into packs of " +
                          std::to_string(nranks) + " ranks x (1 + " + std::to_string(len) + ")");
  std::vector<std::vector<T>> out(static_cast<size_t>(nranks));
  std::vector<int> owners(static_cast<size_t>(nranks), 0);
  for (size_t p = 0; p < all.size() / per_process; ++p)
    for (size_t r = 0; r < static_cast<size_t>(nranks); ++r) {
      const size_t at = p * per_process + r * (1 + len);
      if (all[at] == T{0}) continue;
      ++owners[r];
      out[r].assign(all.begin() + static_cast<std::ptrdiff_t>(at + 1),
                    all.begin() + static_cast<std::ptrdiff_t>(at + 1 + len));
    }
  for (size_t r = 0; r < owners.size(); ++r)
    if (owners[r] != 1)
      throw InvalidArgument("unpack_owned: rank " + std::to_string(r) + " is driven by " + std::to_string(owners[r]) +
                            " processes (expected exactly one)");
  return out;
}

template std::vector<double> pack_owned(const std::vector<std::vector<double>>&, const std::vector<bool>&, size_t);
template std::vector<uint64_t> pack_owned(const std::vector<std::vector<uint64_t>>&, const std::vector<bool>&, size_t);
template std::vector<std::vector<double>> unpack_owned(const std::vector<double>&, int, size_t);
template std::vector<std::vector<uint64_t>> unpack_owned(const std::vector<uint64_t>&, int, size_t);

}  // namespace arlab::calibrate
