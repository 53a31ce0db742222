// From `arlab calibrate` microbenchmark rows to the timing model's constants (model/calibration_derive.h).
// Each constant is read from the bench that measures it (calibrate/README.md); where a constant is a
// slope or an intercept, a least-squares line through the bench's points gives it. Nothing here sees
// a fused-kernel timing.
#include "model/calibration_derive.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "common/csv_table.h"
#include "common/csv.h"
#include "common/fmt.h"
#include "common/problem.h"
#include "model/model_terms.h"
#include "model/occupancy.h"

namespace arlab::model {
namespace {

// Vector ops of the epilogue_math bench's one op: the N = 2 bf16 ar_res_rms epilogue of one vector
// (vector_ops_per_vector: 2 rank adds + pack, residual add, 3 RMSNorm ops).
constexpr double kEpilogueBenchOps = 7.0;
// Spinning threads of the poll rows that give the store-to-seen latency: 8192 x 16 B = 128 KiB, under
// 0.4 us of transfer at the measured NVLink store rate (larger counts add transfer time).
constexpr double kPollMaxThreads = 8192;

using Pred = std::function<bool(const MicrobenchRow&)>;

std::vector<const MicrobenchRow*> pick(const std::vector<MicrobenchRow>& rows, const std::string& bench,
                                       const std::string& variant, const std::string& metric, const Pred& keep = {}) {
  std::vector<const MicrobenchRow*> out;
  for (const MicrobenchRow& r : rows)
    if (r.bench == bench && r.variant == variant && r.metric == metric && std::isfinite(r.value) &&
        (!keep || keep(r)))
      out.push_back(&r);
  return out;
}

std::string what(const std::string& bench, const std::string& variant, const std::string& metric) {
  return "bench " + bench + ", variant " + variant + ", metric " + metric;
}

std::vector<const MicrobenchRow*> need(const std::vector<MicrobenchRow>& rows, const std::string& bench,
                                       const std::string& variant, const std::string& metric, const Pred& keep = {},
                                       const std::string& which = "") {
  auto got = pick(rows, bench, variant, metric, keep);
  if (got.empty())
    throw DeriveError("derive_calibration: no microbenchmark row for " + what(bench, variant, metric) +
                          (which.empty() ? "" : " (" + which + ")"),
                      {bench, variant, metric}, false);
  return got;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Line {
  double intercept = 0, slope = 0;
};
// Least squares y = a + b x; needs two distinct x.
Line fit_line(const std::vector<std::pair<double, double>>& xy, const std::string& of) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [x, y] : xy) {
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(xy.size());
  const double den = n * sxx - sx * sx;
  if (xy.size() < 2 || std::fabs(den) < 1e-12)
    throw InvalidArgument("derive_calibration: " + of + " needs points at two or more distinct sizes");
  Line l;
  l.slope = (n * sxy - sx * sy) / den;
  l.intercept = (sy - l.slope * sx) / n;
  return l;
}

// Least squares y = sum_k c_k f_k over rows (f_1..f_K, y), by the normal equations and Gaussian elimination with
// partial pivoting; fails where the features do not vary independently over the rows.
std::vector<double> fit_least_squares(const std::vector<std::vector<double>>& features, const std::vector<double>& y,
                                      const std::string& of) {
  const size_t k = features.empty() ? 0 : features.front().size();
  std::vector<std::vector<double>> m(k, std::vector<double>(k + 1, 0.0));
  for (size_t r = 0; r < features.size(); ++r)
    for (size_t i = 0; i < k; ++i) {
      for (size_t j = 0; j < k; ++j) m[i][j] += features[r][i] * features[r][j];
      m[i][k] += features[r][i] * y[r];
    }
  double scale = 0;
  for (size_t i = 0; i < k; ++i) scale = std::max(scale, std::fabs(m[i][i]));
  for (size_t col = 0; col < k; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < k; ++r)
      if (std::fabs(m[r][col]) > std::fabs(m[pivot][col])) pivot = r;
    if (features.size() < k || std::fabs(m[pivot][col]) < 1e-9 * std::max(1.0, scale))
      throw InvalidArgument("derive_calibration: " + of + " needs rows whose features vary independently");
    std::swap(m[col], m[pivot]);
    for (size_t r = 0; r < k; ++r) {
      if (r == col) continue;
      const double f = m[r][col] / m[col][col];
      for (size_t j = col; j <= k; ++j) m[r][j] -= f * m[col][j];
    }
  }
  std::vector<double> c(k);
  for (size_t i = 0; i < k; ++i) c[i] = m[i][k] / m[i][i];
  return c;
}

// Least squares y = a x1 + b x2 through the origin over (x1, x2, y) points, a and b at least 0: a
// negative coefficient is dropped and the other refitted alone (0 where that is negative too).
struct NonNegativePair {
  double a = 0, b = 0;
};
NonNegativePair fit_nonnegative_pair(const std::vector<std::array<double, 3>>& points) {
  double s11 = 0, s12 = 0, s22 = 0, s1y = 0, s2y = 0;
  for (const auto& [x1, x2, y] : points) {
    s11 += x1 * x1;
    s12 += x1 * x2;
    s22 += x2 * x2;
    s1y += x1 * y;
    s2y += x2 * y;
  }
  const double det = s11 * s22 - s12 * s12;
  NonNegativePair f;
  f.a = det > 0 ? (s1y * s22 - s2y * s12) / det : (s11 > 0 ? s1y / s11 : 0.0);
  f.b = det > 0 ? (s11 * s2y - s12 * s1y) / det : 0.0;
  if (f.b < 0) {
    f.b = 0;
    f.a = s11 > 0 ? s1y / s11 : 0.0;
  }
  if (f.a < 0) {
    f.a = 0;
    f.b = s22 > 0 ? std::max(0.0, s2y / s22) : 0.0;
  }
  return f;
}

class Deriver {
 public:
  Deriver(const std::vector<MicrobenchRow>& rows, const GpuSpec& spec) : rows_(rows), spec_(spec) {}

  DerivedCalibration run() {
    emulated_ = std::any_of(rows_.begin(), rows_.end(), [](const MicrobenchRow& r) { return r.link == "local"; }) ||
                spec_.link == LinkKind::local;
    launch();
    latencies();
    round_load();
    bandwidths();
    store_drain();
    reductions();
    skew_and_math();
    rank_exchange();
    grid_exchange();
    round_overhead();
    pattern_rounds();
    vector_rounds();
    body_rounds();
    further_rounds(ModelDesign::reference);
    further_rounds(ModelDesign::lean);
    quant_further_rounds(ModelDesign::reference);
    quant_further_rounds(ModelDesign::lean);
    ar_round_line(ModelDesign::reference);
    ar_round_line(ModelDesign::lean);
    poll_misses();
    l2_reuse();
    placement_check();
    several_placement_check();
    record_pattern_rounds();
    record_hbm_allbusy();
    hbm_rows_fractions();
    record_hbm_rows();
    record_lean2_rounds();
    twoshot_round_delta();
    lean2_round_lines();
    record_twoshot_epilogue_rounds();
    record_prologue_path();
    shared_sm_rounds();
    check_ranges(out_.calibration);
    return out_;
  }

 private:
  // Every query of the rows is recorded: a constant that cannot be derived, or leaves its physical
  // range, is reported with the bench, variant and metric it came from (DeriveError).
  std::vector<const MicrobenchRow*> pick_rows(const std::string& bench, const std::string& variant,
                                              const std::string& metric, const Pred& keep = {}) {
    last_ = {bench, variant, metric};
    return pick(rows_, bench, variant, metric, keep);
  }
  std::vector<const MicrobenchRow*> need_rows(const std::string& bench, const std::string& variant,
                                              const std::string& metric, const Pred& keep = {},
                                              const std::string& which = "") {
    last_ = {bench, variant, metric};
    return need(rows_, bench, variant, metric, keep, which);
  }
  [[noreturn]] void fail(const std::string& what) const { throw DeriveError("derive_calibration: " + what, last_, true); }
  Line line_of(const std::vector<std::pair<double, double>>& xy, const std::string& of) const {
    try {
      return fit_line(xy, of);
    } catch (const InvalidArgument& e) {
      throw DeriveError(e.what(), last_, true);
    }
  }

  void set(const std::string& name, double value, const std::string& how) {
    for (const CalibrationConstantInfo& info : calibration_constants()) {
      const std::string bad = info.name == name ? range_violation(info, value) : "";
      if (!bad.empty()) fail(bad + ", derived as: " + how);
    }
    set_constant(out_.calibration, name, value);
    out_.notes.push_back(name + " = " + fmt("%.4g", value) + ": " + how);
  }

  // A constant the rows cannot set keeps its prior, with a note: "NAME = VALUE: prior kept (WHY)".
  void keep_prior(const std::string& name, const std::string& why) {
    out_.notes.push_back(name + fmt(" = %.4g", get_constant(out_.calibration, name)) + ": prior kept (" + why + ")");
  }

  void launch() {
    const auto one = need_rows("launch", "plain", "duration_us",
                          [](const MicrobenchRow& r) { return r.cluster <= 1 && r.size == 1; }, "grid 1");
    std::vector<double> v;
    for (const auto* r : one) v.push_back(r->value);
    set("launch_overhead_us", median_of(v), fmt("median over tpb of the empty kernel of one block (%zu rows)",
                                                 one.size()));
    const int sms = max_sms();
    std::vector<std::pair<double, double>> xy;
    for (const auto* r : need_rows("launch", "plain", "duration_us",
                              [sms](const MicrobenchRow& r) { return r.tpb == 1024 && r.size <= sms; }))
      xy.emplace_back(r->size, r->value * 1e3);
    const Line l = line_of(xy, "launch per block");
    set("launch_per_block_ns", std::max(0.0, l.slope),
        fmt("slope of the empty kernel's duration over grid <= %d SMs at tpb 1024 (%zu points)", sms, xy.size()));
    // cluster launch: cluster rows minus the plain row of the same grid and tpb
    std::map<std::pair<int, int>, double> plain;
    for (const auto* r : pick_rows("launch", "plain", "duration_us"))
      plain[{static_cast<int>(r->size), r->tpb}] = r->value;
    std::vector<double> extra;
    for (const auto* r : pick_rows("launch", "cluster", "duration_us")) {
      auto it = plain.find({static_cast<int>(r->size), r->tpb});
      if (it != plain.end()) extra.push_back(r->value - it->second);
    }
    if (extra.empty()) fail("no launch cluster row matches a plain row's grid");
    set("cluster_launch_us", std::max(0.0, median_of(extra)),
        fmt("median of (cluster - plain) empty-kernel duration at equal grid and tpb (%zu pairs)", extra.size()));
  }

  // The drain of a kernel's last stores (launch store_1 / store_8, new on 2026-12-03: older
  // microbenchmarks keep the prior): each row's extra over the empty kernel of the same grid and tpb,
  // less its stores' bytes per SM (one block per SM) through the SM's port (sm_l2_bytes_per_cycle,
  // derived before this), is the fixed part; the median over the grids below the partition (a grid of
  // every SM adds the L2's own write rate, which the model's HBM and port bounds cover).
  void store_drain() {
    std::map<std::pair<int, int>, double> plain;
    for (const auto* r : pick_rows("launch", "plain", "duration_us"))
      plain[{static_cast<int>(r->size), r->tpb}] = r->value;
    const double port = out_.calibration.sm_l2_bytes_per_cycle * spec_.sm_clock_ghz;
    const int sms = max_sms();
    std::vector<double> extra;
    for (const auto& [stores, variant] : {std::pair<int, const char*>{1, "store_1"}, {8, "store_8"}})
      for (const auto* r : pick_rows("launch", variant, "duration_us", [sms](const MicrobenchRow& r) {
             return r.cluster <= 1 && r.size < sms;
           })) {
        auto it = plain.find({static_cast<int>(r->size), r->tpb});
        if (it == plain.end()) continue;
        const double bytes = static_cast<double>(r->tpb) * stores * 16.0;  // one block per SM
        extra.push_back((r->value - it->second) * 1e3 - bytes / port);
      }
    if (extra.empty()) {
      keep_prior("exit_store_drain_ns", "no launch store_1 / store_8 rows below the partition with a plain row of "
                                        "their grid and tpb: microbenchmarks of an arlab before 2026-12-03");
      return;
    }
    set("exit_store_drain_ns", std::max(0.0, median_of(extra)),
        fmt("median over %zu launch store_1 / store_8 rows (grids below %d SMs) of their extra over the empty kernel "
            "of the same grid and tpb less tpb x stores x 16 B / %.3g B/ns (the port)",
            extra.size(), sms, port));
  }

  void latencies() {
    set("dram_latency_ns", value_of("chase", "hbm", "latency_ns"), "pointer chase beyond L2 (chase, hbm)");
    set("l2_latency_ns", value_of("chase", "l2", "latency_ns"), "pointer chase within L2 (chase, l2)");
    set("sys_load_latency_ns", value_of("chase", "relaxed_sys", "latency_ns"),
        "pointer chase of ld.relaxed.sys loads within L2 (chase, relaxed_sys)");
    // The Lamport poll's store-to-seen time, where the stores' own transfer is short (<= 8192
    // spinning threads: <= 128 KiB, well under 1 us of link time): the one-shot first poll.
    std::vector<double> seen;
    last_ = {"poll", "lamport*", "latency_ns"};
    for (const MicrobenchRow& r : rows_)
      if (r.bench == "poll" && r.variant.rfind("lamport", 0) == 0 && r.metric == "latency_ns" &&
          r.size <= kPollMaxThreads && std::isfinite(r.value))
        seen.push_back(r.value);
    if (seen.empty())
      throw DeriveError("derive_calibration: no microbenchmark row for bench poll, variant lamport*, metric "
                        "latency_ns with <= 8192 spinning threads", last_, false);
    set("peer_visibility_ns", median_of(seen),
        fmt("median Lamport poll store-to-seen time over %zu spinner counts <= 8192 (poll; ", seen.size()) +
            (emulated_ ? "two partitions of one GPU)" : "two GPUs)"));
  }

  // round_load is new in the bench set: a microbench.csv of an older arlab has no rows for it.
  void round_load() {
    std::vector<std::pair<double, double>> xy;
    for (const auto* r : pick_rows("round_load", "dram_barrier", "ns_per_step"))
      xy.emplace_back(std::ceil(r->tpb / 32.0), r->value);
    if (xy.size() < 2) {
      for (const char* name : {"dram_round_latency_ns", "dram_round_ns_per_warp"})
        keep_prior(name, "no round_load rows: microbenchmarks of an arlab before the bench");
      return;
    }
    // The push step as a line over the block's warps: one SM issues every warp's loads and stores.
    std::vector<std::pair<double, double>> push;
    for (const auto* r : pick_rows("round_load", "push_store", "ns_per_step"))
      push.emplace_back(std::ceil(r->tpb / 32.0), r->value);
    if (push.size() >= 2) {
      const Line pl = line_of(push, "round_load push_store over warps");
      set("push_step_ns", std::max(0.0, pl.intercept),
          fmt("intercept over warps of round_load push_store (a coalesced DRAM load + two st.relaxed.sys stores per "
              "step, one block per SM; %zu block sizes)", push.size()));
      set("push_step_ns_per_warp", std::max(0.0, pl.slope), "slope per warp of the same line");
      push_step_per_store(pl.slope);
      push_step_few_blocks(pl.slope);
    } else {
      for (const char* name : {"push_step_ns", "push_step_ns_per_warp", "push_step_ns_per_warp_store"})
        keep_prior(name, "fewer than two round_load push_store rows");
    }
    const Line l = line_of(xy, "round_load over warps");
    set("dram_round_latency_ns", std::max(0.0, l.intercept),
        fmt("intercept over warps of a coalesced DRAM load + __syncthreads per step, one block per SM (%zu block "
            "sizes)", xy.size()));
    set("dram_round_ns_per_warp", std::max(0.0, l.slope), "slope per warp of the same line");
  }

  // The push step on few SMs (round_load push_store_few: grids of 1, 8, 16 and 32 blocks): its slope
  // over warps at grids of at most 16 blocks, pooled, against the whole partition's (`full_slope`). A
  // call's first step keeps the whole slope (push_store_steps: a one-step run on 16 blocks costs 1.0-1.2x
  // the whole partition's 64-step line), its later steps take this fraction of it where few blocks push.
  void push_step_few_blocks(double full_slope) {
    std::vector<std::pair<double, double>> few;
    for (const auto* r : pick_rows("round_load", "push_store_few", "ns_per_step",
                                   [](const MicrobenchRow& x) { return x.sms <= 16; }))
      few.emplace_back(std::ceil(r->tpb / 32.0), r->value);
    std::set<double> sizes;
    for (const auto& p : few) sizes.insert(p.first);
    if (sizes.size() < 2 || !(full_slope > 0)) {
      keep_prior("push_step_few_blocks_fraction", "no round_load push_store_few rows at two block sizes or more");
      return;
    }
    const Line fl = line_of(few, "round_load push_store_few (at most 16 blocks) over warps");
    set("push_step_few_blocks_fraction", std::clamp(fl.slope / full_slope, 0.0, 1.0),
        fmt("slope per warp of round_load push_store_few at 1-16 blocks (%zu rows) ", few.size()) +
            fmt("%.4g ns / push_step_ns_per_warp %.4g ns", fl.slope, full_slope));
  }

  // The push step's slope per warp against the stores per step: push_store_1 and push_store_4 beside
  // push_store's two (`slope2`); each store more is one more 16-byte store per thread for the SM to
  // issue. A line through (2, slope2): least squares of (slope - slope2) over (stores - 2). push_store_8
  // is left out: at one 1024-thread block per SM of a 64-SM partition a step stores 8 MB to lines not
  // in L2 and runs at HBM's write rate (about 3 TB/s), which the model's HBM bound covers, not the chain.
  // Microbenchmarks from before these variants keep the prior (0: every step's slope that of two stores).
  void push_step_per_store(double slope2) {
    double sxy = 0, sxx = 0;
    std::string per;
    for (const auto& [stores, variant] : {std::pair<int, const char*>{1, "push_store_1"}, {4, "push_store_4"}}) {
      std::vector<std::pair<double, double>> xy;
      for (const auto* r : pick_rows("round_load", variant, "ns_per_step")) xy.emplace_back(std::ceil(r->tpb / 32.0), r->value);
      if (xy.size() < 2) continue;
      const double slope = line_of(xy, std::string("round_load ") + variant + " over warps").slope;
      sxy += (stores - 2) * (slope - slope2);
      sxx += (stores - 2) * (stores - 2);
      per += fmt(" %d stores %.2f ns/warp;", stores, slope);
    }
    if (sxx == 0) {
      keep_prior("push_step_ns_per_warp_store",
                 "no round_load push_store_1 / push_store_4 rows: microbenchmarks of an arlab before those variants");
      return;
    }
    set("push_step_ns_per_warp_store", std::max(0.0, sxy / sxx),
        fmt("slope per warp of round_load push_store_N against N - 2 through two stores' %.2f ns/warp:", slope2) + per);
  }

  // cluster_sync's `pushed` variant is new in the bench set: an older microbench.csv has no rows for it.
  // The exchange beyond the cluster-1 sum at the same tpb, as a line over the other blocks (cluster - 1).
  void pushed_exchange(const std::map<int, double>& cluster1_by_tpb) {
    std::vector<std::pair<double, double>> xy;
    for (const auto* r : pick_rows("cluster_sync", "pushed", "ns_per_op")) {
      auto it = cluster1_by_tpb.find(r->tpb);
      if (it != cluster1_by_tpb.end() && r->cluster > 1) xy.emplace_back(r->cluster - 1, r->value - it->second);
    }
    std::set<double> peers;
    for (const auto& [x, y] : xy) peers.insert(x);
    if (peers.size() < 2) {
      for (const char* name : {"pushed_exchange_ns", "pushed_exchange_ns_per_peer"})
        keep_prior(name, "no cluster_sync pushed rows at two cluster sizes: microbenchmarks of an arlab before the "
                         "variant");
      return;
    }
    const Line l = line_of(xy, "cluster_sync pushed over cluster - 1");
    set("pushed_exchange_ns", std::max(0.0, l.intercept),
        fmt("intercept of (pushed - cluster-1 sync_dsmem at equal tpb) over cluster - 1 (%zu points)", xy.size()));
    set("pushed_exchange_ns_per_peer", std::max(0.0, l.slope), "slope per other block of the same line");
  }

  // cluster_sync's `barrier` and `barrier_relaxed` variants: bare barriers, one block per SM, at clusters 2, 4, 8
  // and tpb 128 and 1024. Each warp's arrive is its own (with cluster.sync()'s release, its own MEMBAR), so the
  // barrier grows with the block's warps (H100 emulated, session 48's -n 2 run: 404-425 ns at 4 warps, 709-729 ns at 32;
  // the cluster size moves it by a few per cent): a least-squares line over the warps, every cluster size.
  // Rows of one block size give their median and no slope. Before session 49 the constant was the median of
  // every row, whatever its block size.
  void bare_barriers() {
    const std::array<std::array<const char*, 3>, 2> kinds = {
        {{"barrier", "bare_cluster_barrier_ns", "bare_cluster_barrier_ns_per_warp"},
         {"barrier_relaxed", "cluster_lifetime_barrier_ns", "cluster_lifetime_barrier_ns_per_warp"}}};
    for (const auto& [variant, name, per_warp] : kinds) {
      std::vector<std::pair<double, double>> xy;
      std::set<double> widths;
      std::string per;
      for (const auto* r : pick_rows("cluster_sync", variant, "ns_per_op")) {
        xy.emplace_back(std::ceil(r->tpb / 32.0), r->value);
        widths.insert(xy.back().first);
        per += fmt(" %d/", r->tpb) + fmt("%d:", r->cluster) + fmt(" %.0f;", r->value);
      }
      if (xy.empty()) {
        for (const char* constant : {name, per_warp})
          keep_prior(constant, std::string("no cluster_sync ") + variant + " rows: microbenchmarks of an arlab before the "
                                                                          "variant");
        continue;
      }
      if (widths.size() < 2) {
        std::vector<double> v;
        for (const auto& [x, y] : xy) v.push_back(y);
        set(name, median_of(v), fmt("median of %zu cluster_sync ", v.size()) + variant +
                                    " points of one block size (tpb/cluster: ns):" + per);
        set(per_warp, 0.0, "no slope: the rows have one block size");
        continue;
      }
      const Line l = line_of(xy, std::string("cluster_sync ") + variant + " over warps");
      set(name, std::max(0.0, l.intercept),
          fmt("intercept of a line over the block's warps (%zu cluster_sync ", xy.size()) + variant +
              " points, tpb/cluster: ns):" + per);
      set(per_warp, std::max(0.0, l.slope), "slope per warp of the same line");
    }
  }

  void bandwidths() {
    const double dram = out_.calibration.dram_latency_ns;
    const double read1 = value_of("bandwidth", "read", "gbps", [](const MicrobenchRow& r) {
      return r.sms == 1 && r.tpb == 1024;
    });
    set("bytes_in_flight_per_sm", std::clamp(read1 * dram, 128.0, 1048576.0),
        fmt("Little's law: read bandwidth of 1 SM (tpb 1024) %.3g GB/s x DRAM latency", read1) +
            fmt(" %.0f ns", dram));
    const auto clears = need_rows("clear", "neg_zero", "gbps", [](const MicrobenchRow& r) { return r.sms == 1; });
    double clear1 = 0;
    for (const auto* r : clears) clear1 = std::max(clear1, r->value);
    set("sm_l2_bytes_per_cycle", clear1 / spec_.sm_clock_ghz,
        fmt("the -0 clear pass from 1 SM, %.3g GB/s", clear1) + fmt(" / %.3g GHz SM clock", spec_.sm_clock_ghz));
    const int sms = max_sms();
    const auto all_sms = [sms](const MicrobenchRow& r) { return r.sms == sms && r.tpb == 1024; };
    const double copy_all = value_of("bandwidth", "copy", "gbps", all_sms);
    if (emulated_) {
      // The N partitions run the same kernel at once and share one HBM: each gets an equal share of
      // what the GPU delivers (one partition alone already draws the whole GPU's copy bandwidth),
      // and never more than it measured while another partition streamed (copy_busy; that split is
      // not equal: the bench's partner loads less).
      const double busy = value_of("bandwidth", "copy_busy", "gbps", all_sms);
      const int nranks = std::max(1, rows_.front().nranks);
      const double share = std::min(busy, copy_all / nranks);
      set("hbm_efficiency", std::clamp(share / spec_.hbm_gbps, 0.01, 1.0),
          fmt("min(copy while the other partition streams %.4g GB/s, ", busy) +
              fmt("copy of one partition alone %.4g GB/s", copy_all) + fmt(" / %d ranks", nranks) +
              fmt(") / datasheet share %.0f GB/s", spec_.hbm_gbps));
      // Stores into lines that stay in L2, beside the partner partition doing the same: the rate the
      // HBM bounds' bytes reach while a call's data stays in L2 (model_terms.h l2_resident_share).
      const auto stores = pick_rows("bandwidth", "write_l2_busy", "gbps", all_sms);
      if (stores.empty()) {
        keep_prior("l2_store_busy_gbps", "no bandwidth write_l2_busy rows at all SMs, tpb 1024 (benches before "
                                         "2026-12-03 lack them): the HBM bounds keep the HBM rate throughout");
      } else {
        std::vector<double> v;
        for (const auto* r : stores) v.push_back(r->value);
        set("l2_store_busy_gbps", median_of(v),
            fmt("median of bandwidth write_l2_busy at %d SMs, tpb 1024", sms) + fmt(" (%zu rows)", v.size()));
      }
    } else {
      set("hbm_efficiency", std::clamp(copy_all / spec_.hbm_gbps, 0.01, 1.0),
          fmt("copy (read + write bytes) at all %d SMs", sms) + fmt(" %.4g GB/s", copy_all) +
              fmt(" / datasheet %.0f GB/s", spec_.hbm_gbps));
      keep_prior("l2_store_busy_gbps", "a real node: the L2-resident share is an emulated-node term");
    }
    const double peer1 = value_of("peer_store", "one_way", "gbps", [](const MicrobenchRow& r) { return r.sms == 1; });
    set("peer_store_gbps_per_sm", peer1, "16-byte peer stores of one SM (peer_store, one_way, 1 SM)");
    if (emulated_ || spec_.link_gbps <= 0) {
      out_.notes.push_back("link_efficiency = " + fmt("%.3g", out_.calibration.link_efficiency) +
                           ": prior kept, unused on a local link (the emulated node's peer traffic is HBM traffic)");
    } else {
      const auto both = need_rows("peer_store", "both_ways_polling", "gbps");
      int top = 0;
      for (const auto* r : both) top = std::max(top, r->sms);
      std::vector<double> v;
      for (const auto* r : both)
        if (r->sms == top) v.push_back(r->value);
      const double gbps = median_of(v);
      set("link_efficiency", std::clamp(gbps / spec_.link_gbps, 0.01, 1.0),
          fmt("peer stores both ways with the receivers polling, %d SMs", top) + fmt(", %.4g GB/s", gbps) +
              fmt(" / datasheet %.0f GB/s per direction", spec_.link_gbps));
    }
  }

  void reductions() {
    std::vector<std::pair<double, double>> xy;
    for (const auto* r : need_rows("block_reduce", "sum_sq", "ns_per_op"))
      xy.emplace_back(std::ceil(r->tpb / 32.0), r->value);
    const Line b = line_of(xy, "block_reduce over warps");
    set("block_reduce_fixed_ns", std::max(0.0, b.intercept), fmt("intercept over %zu block sizes", xy.size()));
    set("block_reduce_ns_per_warp", std::max(0.0, b.slope), "slope per warp of the same line");
    std::map<int, double> base;  // tpb -> cluster-1 time
    for (const auto* r : need_rows("cluster_sync", "sync_dsmem", "ns_per_op",
                              [](const MicrobenchRow& r) { return r.cluster == 1; }, "cluster 1"))
      base[r->tpb] = r->value;
    std::vector<std::pair<double, double>> cs;  // (cluster x warps, extra over cluster 1)
    for (const auto* r : need_rows("cluster_sync", "sync_dsmem", "ns_per_op",
                              [](const MicrobenchRow& r) { return r.cluster > 1; }, "cluster > 1")) {
      auto it = base.find(r->tpb);
      if (it != base.end()) cs.emplace_back(r->cluster * std::ceil(r->tpb / 32.0), r->value - it->second);
    }
    const Line c = line_of(cs, "cluster_sync over cluster x warps");
    set("cluster_sync_ns", std::max(0.0, c.intercept),
        fmt("intercept of (cluster-cs - cluster-1 reduction) over cluster size x warps (%zu points)", cs.size()));
    set("dsmem_access_ns", std::max(0.0, c.slope), "slope per block-warp of the same line");
    pushed_exchange(base);
    bare_barriers();
    std::map<int, double> empty;
    for (const auto* r : need_rows("atomic", "empty", "duration_us")) empty[r->sms] = r->value;
    std::vector<std::pair<double, double>> at;
    for (const auto* r : need_rows("atomic", "one_counter_fenced", "duration_us")) {
      auto it = empty.find(r->sms);
      if (it != empty.end()) at.emplace_back(r->sms, (r->value - it->second) * 1e3);
    }
    const Line a = line_of(at, "atomic over blocks");
    set("arrival_atomic_ns", std::max(0.0, a.slope),
        fmt("slope over blocks of (fenced atomic - empty) kernel duration (%zu grids)", at.size()));
    set("arrival_fixed_ns", std::max(0.0, a.intercept), "intercept of the same line");
  }

  void skew_and_math() {
    set("sm_ns_per_vector_op", value_of("epilogue_math", "bf16_res_rms", "ns_per_op") / kEpilogueBenchOps,
        "SM-wide time of one thread's epilogue vector op / 7 ops (epilogue_math, ns_per_op)");
    set("vector_op_latency_ns", value_of("epilogue_math", "bf16_res_rms", "ns_per_vector") / kEpilogueBenchOps,
        "one thread's dependent epilogue vector op / 7 ops (epilogue_math, ns_per_vector)");
    const int own_n = rows_.front().nranks;
    const auto skew = pick_rows("start_skew", "gated", "skew_us", [own_n](const MicrobenchRow& r) { return r.nranks == own_n; });
    if (skew.empty()) {
      out_.notes.push_back("rank_skew_us = " + fmt("%.3g", out_.calibration.rank_skew_us) +
                           ": prior kept (no start_skew row); it does not enter the skew-free prediction");
    } else {
      set("rank_skew_us", skew.front()->value,
          "median of max - min start over ranks of gated empty kernels (start_skew); the skew-free prediction "
          "excludes it, the max over ranks adds it");
    }
    // The emulated node's gap between consecutive ranks' starts at N = 2, 4, 8 (the HBM rate's
    // stagger, model_terms.h staggered_hbm_rate): the median skew of the start_skew rows at N ranks /
    // (N - 1). A real node keeps 0 (every GPU its own HBM).
    for (const int n : {2, 4, 8}) {
      const std::string name = "start_spacing_ns_n" + std::to_string(n);
      std::vector<double> at_n;
      for (const auto* r : pick_rows("start_skew", "gated", "skew_us", [n](const MicrobenchRow& x) { return x.nranks == n; }))
        at_n.push_back(r->value);
      if (!emulated_ || at_n.empty()) {
        keep_prior(name, emulated_ ? "no start_skew row at " + std::to_string(n) + " ranks" : "a real node");
        continue;
      }
      std::sort(at_n.begin(), at_n.end());
      const size_t m = at_n.size();
      const double median_us = m % 2 ? at_n[m / 2] : 0.5 * (at_n[m / 2 - 1] + at_n[m / 2]);
      set(name, median_us * 1e3 / (n - 1),
          fmt("median of max - min start over %d ranks of gated empty kernels (start_skew", n) +
              fmt(", %zu run(s)) %.4g us", m, median_us) + fmt(" / %d gaps", n - 1));
    }
  }

  // One all-to-all exchange round among k ranks (exchange all_to_all; median over the block sizes
  // per k, rows of the node with the most ranks) against the same round among 2 of that node:
  // extra(k) = a (k - 2) + b (k - 2)^2 by least squares, a and b at least 0 (a negative one is
  // dropped and the other refitted alone). Rows of 2 ranks only (a TP2 node's calibrate) leave the
  // priors, and say so.
  void rank_exchange() {
    const auto got = pick_rows("exchange", "all_to_all", "skewfree_us");
    // The rows of the largest node only: one node's sweep, its 2-rank round included (a node's idle
    // ranks, gated, lengthen even that round a little: 1.28 vs 1.41 us at 128 threads, emulated H200).
    int node = 0;
    for (const MicrobenchRow* r : got) node = std::max(node, r->nranks);
    std::map<int, std::vector<double>> by_ranks;
    for (const MicrobenchRow* r : got)
      if (r->nranks == node) by_ranks[static_cast<int>(std::lround(r->size))].push_back(r->value);
    const auto two = by_ranks.find(2);
    if (two == by_ranks.end() || by_ranks.size() < 2) {
      for (const char* name : {"exchange_ns_per_rank", "exchange_ns_per_rank_sq"})
        keep_prior(name, "no exchange rows of 2 ranks and of more; `arlab calibrate -n 8` measures them");
      return;
    }
    const double base_us = median_of(two->second);
    std::vector<std::array<double, 3>> xe;  // (k - 2, (k - 2)^2, extra ns)
    std::string points;
    for (const auto& [k, v] : by_ranks) {
      if (k <= 2) continue;
      const double extra = (median_of(v) - base_us) * 1e3;
      xe.push_back({k - 2.0, (k - 2.0) * (k - 2.0), extra});
      points += fmt(" %d ranks %+.0f ns;", k, extra);
    }
    const NonNegativePair f = fit_nonnegative_pair(xe);
    const std::string how = fmt("exchange all_to_all on a node of %d ranks, over 2 ranks (%.3f us):", node, base_us) +
                            points + " least squares of a (N-2) + b (N-2)^2";
    set("exchange_ns_per_rank", f.a, how + ", a");
    set("exchange_ns_per_rank_sq", f.b, "b of the same fit");
  }

  // One exchange round between 2 ranks with B blocks of W warps each (exchange all_to_all_grid)
  // against the round of one block of the same size: extra(B, W) = t(B, W) - t(1, W) - what the
  // launch itself adds per block (launch_per_block_ns x (B - 1), already the launch term's), fitted as
  // a (S_B - 1) + b (B - 1) W by least squares, S_B = min(B, the row's SMs per rank) the SMs the
  // blocks occupy (rows of 2 and 4 blocks per SM since 2026-12-04: blocks that share an SM add their
  // warps, not the per-block part), a and b at least 0 (a negative one is dropped and the other
  // refitted alone). Rows are grouped by the partition they ran on (an `-n 8` run's 16-SM partitions
  // hold 4 blocks per SM where an `-n 2` run's hold one): each group's points are taken against its own
  // one-block row, with its own S_B (since session 47; pooling them took the smallest partition's S_B
  // for the median of both, which on the H100 gave 6.6 ns per occupied SM where the `-n 2` run's rows
  // alone give none: docs/model.md, "The grid term's rows by partition"). Each point is the median
  // over the files given (several processes) of one partition. Without such rows (a calibrate of before
  // 2026-12-03) the priors stay, and say so.
  void grid_exchange() {
    const auto got = pick_rows("exchange", "all_to_all_grid", "skewfree_us",
                               [](const MicrobenchRow& r) { return std::lround(r.size) == 2 && r.sms >= 1; });
    // Rows without a partition size (microbenchmarks of before that column) are taken to hold one block
    // per SM: S_B = B.
    constexpr int kOneBlockPerSm = std::numeric_limits<int>::max();
    // (partition SMs, tpb) -> blocks -> values (us)
    std::map<std::pair<int, int>, std::map<int, std::vector<double>>> groups;
    for (const MicrobenchRow* r : got)
      groups[{r->sm_per_rank > 0 ? r->sm_per_rank : kOneBlockPerSm, r->tpb}][r->sms].push_back(r->value);
    const bool several_partitions = groups.size() > 1 && groups.begin()->first.first != groups.rbegin()->first.first;
    std::vector<std::array<double, 3>> pts;  // (S_B - 1, (B - 1) W, extra ns)
    std::string points;
    for (const auto& [key, by_blocks] : groups) {
      const auto [part, tpb] = key;
      const auto one = by_blocks.find(1);
      if (one == by_blocks.end()) continue;
      const double base_us = median_of(one->second);
      const double warps = std::ceil(tpb / 32.0);
      for (const auto& [blocks, v] : by_blocks) {
        if (blocks <= 1) continue;
        const double extra =
            (median_of(v) - base_us) * 1e3 - out_.calibration.launch_per_block_ns * (blocks - 1);
        const int sms = std::min(blocks, part);
        pts.push_back({sms - 1.0, (blocks - 1.0) * warps, extra});
        const std::string where = several_partitions && part != kOneBlockPerSm ? fmt(" [%d-SM partition]", part) : "";
        points += blocks > sms ? fmt(" %dx%d (on %d SMs) %+.0f ns;", blocks, tpb, sms, extra)
                               : fmt(" %dx%d", blocks, tpb) + where + fmt(" %+.0f ns;", extra);
      }
    }
    if (pts.empty()) {
      for (const char* name : {"exchange_grid_ns_per_block", "exchange_grid_ns_per_block_warp"})
        keep_prior(name, "no exchange all_to_all_grid rows of one block and of more; `arlab calibrate` of 2026-12-03 "
                         "or later measures them");
      return;
    }
    const NonNegativePair f = fit_nonnegative_pair(pts);
    const std::string how =
        "exchange all_to_all_grid between 2 ranks, B blocks x tpb over one block, less launch_per_block_ns x (B-1):" +
        points + " least squares of a (min(B, S)-1) + b (B-1) W";
    set("exchange_grid_ns_per_block", f.a, how + ", a");
    set("exchange_grid_ns_per_block_warp", f.b, "b of the same fit (W: warps of a block)");
  }

  // The model's inputs for one round bench row (one block per SM, one token per cluster, bf16, N ranks,
  // `vpt` vectors per thread) handed to `f`; none where the shape cannot launch.
  template <typename F>
  auto with_bench_inputs(const MicrobenchRow& r, Pattern pattern, int nranks, int vpt, const Calibration& cal, F&& f,
                         Algorithm algo = Algorithm::oneshot) const
      -> std::optional<decltype(f(std::declval<const detail::ModelInputs&>()))> {
    Problem p;
    p.tokens = r.sms / std::max(1, r.cluster);
    p.hidden = static_cast<int>(r.size);
    p.nranks = nranks;
    p.dtype = DType::bf16;
    p.pattern = pattern;
    LaunchConfig c;
    c.tpb = r.tpb;
    c.cluster = std::max(1, r.cluster);
    c.grid = r.sms;
    c.vecs_per_thread = vpt;
    c.algo = algo;
    detail::ModelInputs in{p, c, spec_, cal};
    if (!detail::derive_inputs(in, KernelResources{64, 0})) return std::nullopt;
    return f(in);
  }

  // The model's token round for one epilogue_round row: the bench's shape (one vector per thread unless
  // `vpt` says otherwise, N = 2) with `pattern`; none where it cannot launch.
  std::optional<detail::RoundParts> bench_round(const MicrobenchRow& r, Pattern pattern, const Calibration& cal,
                                                int vpt = 1) const {
    return with_bench_inputs(r, pattern, 2, vpt, cal,
                             [](const detail::ModelInputs& in) { return detail::oneshot_round(in, 1.0); });
  }

  // The vectors per thread of a body_round row: its shape covers H (the rows carry no vpt column).
  static int body_round_vpt(const MicrobenchRow& r) {
    return std::max(1, static_cast<int>(r.size) / std::max(1, r.tpb * std::max(1, r.cluster) * 8));
  }
  // One body_round row in a derivation note: " BLOCKSxTPB/CLUSTER H SIZE[ vpt V]: MEASURED (model MODEL);".
  static std::string body_round_row_note(const MicrobenchRow& r, int vpt, double model) {
    return fmt(" %d", r.sms) + fmt("x%d/", r.tpb) + fmt("%d", std::max(1, r.cluster)) + fmt(" H %.0f", r.size) +
           (vpt > 1 ? fmt(" vpt %d", vpt) : std::string()) + fmt(": %.0f (model %.0f);", r.value, model);
  }

  // How many distinct x values the (x, y) points hold (a line needs two).
  static size_t distinct_x(const std::vector<std::pair<double, double>>& xy) {
    std::set<double> distinct;
    for (const auto& point : xy) distinct.insert(point.first);
    return distinct.size();
  }

  // The model's token round of a one-shot body for one body_round row (ar_res_rms, `nranks` ranks), ns;
  // none where it cannot launch.
  std::optional<double> bench_body_round_ns(const MicrobenchRow& r, ModelDesign design, int nranks,
                                            const Calibration& cal, Pattern pattern = Pattern::ar_res_rms) const {
    return with_bench_inputs(r, pattern, nranks, body_round_vpt(r), cal,
                             [design](const detail::ModelInputs& in) {
                               return detail::oneshot_body_round_ns(in, design, 1.0);
                             });
  }

  // The rows of an epilogue_round variant that a fused kernel's round is derived from: the slowest
  // block's interval (`VARIANT_slowest`: a kernel ends with its last block, and over a full partition
  // that block's round is 2-4 % longer than block 0's, H200 emulated, 2026-12-02), else block 0's
  // (microbenchmarks of an arlab before those rows, noted once per constant).
  std::vector<const MicrobenchRow*> round_rows(const std::string& variant, const char* constant) {
    auto got = pick_rows("epilogue_round", variant + "_slowest", "ns_per_round");
    if (!got.empty()) return got;
    got = pick_rows("epilogue_round", variant, "ns_per_round");
    if (!got.empty())
      out_.notes.push_back(std::string(constant) + ": from block 0's rounds (epilogue_round " + variant +
                           "; no _slowest rows: microbenchmarks of an arlab before them)");
    return got;
  }

  // The kernel's own RMSNorm round run in isolation (epilogue_round) against the model's parts of
  // that round with every other constant already derived: the median of the difference over the
  // bench's configurations. Needs the other constants, so it comes last.
  void round_overhead() {
    // On the emulated node both partitions run their rounds at once: the _busy variant measures that.
    auto got = round_rows(emulated_ ? "bf16_ar_res_rms_busy" : "bf16_ar_res_rms", "round_overhead_ns");
    if (got.empty()) got = round_rows("bf16_ar_res_rms", "round_overhead_ns");
    if (got.empty()) {
      for (const char* name : {"round_overhead_ns", "round_overhead_ns_per_warp"})
        out_.notes.push_back(std::string(name) + " = 0: no epilogue_round rows (microbenchmarks of an arlab before "
                             "the bench): the round is its modelled parts alone");
      return;
    }
    std::vector<std::pair<double, double>> diff;  // (warps, measured - parts)
    std::string per;
    Calibration cal = out_.calibration;
    cal.round_overhead_ns = 0;
    cal.round_overhead_ns_per_warp = 0;
    for (const MicrobenchRow* r : got) {
      const std::optional<detail::RoundParts> round = bench_round(*r, Pattern::ar_res_rms, cal);
      if (!round) continue;
      const double parts = round->parts();
      diff.emplace_back(std::ceil(r->tpb / 32.0), r->value - parts);
      per += fmt(" %d/", r->tpb) + fmt("%d:", std::max(1, r->cluster)) + fmt(" %.0f", r->value) +
             fmt(" - %.0f;", parts);
    }
    if (diff.empty()) fail("no epilogue_round row has a launchable shape");
    const Line l = line_of(diff, "epilogue_round over warps");
    set("round_overhead_ns", std::max(0.0, l.intercept),
        "intercept over warps of the measured round minus its modelled parts (tpb/cluster: measured - parts "
        "ns):" + per);
    set("round_overhead_ns_per_warp", std::max(0.0, l.slope), "slope per warp of the same line");
    idle_warps(cal);
  }

  // Warps that hold no vector (epilogue_round bf16_ar_res_rms_idle: half of each cluster's threads idle)
  // against the line of the full rounds measured the same way (bf16_ar_res_rms, no partner): in the one
  // configuration whose busiest block has idle warps (1024 threads, H 4096), what they add beyond the
  // line at the warps that hold a vector, as a fraction of the line's slope (0: nothing, 1: as much as
  // a warp that holds one); every idle row is then printed beside the round the model gives it (the
  // others check the cluster terms over the warps that hold a vector: whole blocks of the cluster idle).
  // `cal` holds every derived constant but the round overhead. Microbenchmarks from before the variant
  // keep the prior (1: every warp counts).
  void idle_warps(const Calibration& cal) {
    const bool slowest = !pick_rows("epilogue_round", "bf16_ar_res_rms_idle_slowest", "ns_per_round").empty();
    const std::string suffix = slowest ? "_slowest" : "";  // both sides measured the same way
    const auto idle = pick_rows("epilogue_round", "bf16_ar_res_rms_idle" + suffix, "ns_per_round");
    const auto full = pick_rows("epilogue_round", "bf16_ar_res_rms" + suffix, "ns_per_round");
    if (idle.empty() || full.size() < 2) {
      out_.notes.push_back(fmt("round_overhead_idle_warp_fraction = %.4g",
                               out_.calibration.round_overhead_idle_warp_fraction) +
                           ": prior kept (no epilogue_round bf16_ar_res_rms_idle rows: microbenchmarks of an arlab "
                           "before that variant)");
      return;
    }
    std::vector<std::pair<double, double>> diff;  // the full rounds without a partner: (warps, measured - parts)
    for (const MicrobenchRow* r : full)
      if (const auto round = bench_round(*r, Pattern::ar_res_rms, cal))
        diff.emplace_back(std::ceil(r->tpb / 32.0), r->value - round->parts());
    if (diff.size() < 2) fail("fewer than two epilogue_round bf16_ar_res_rms rows have a launchable shape");
    const Line line = line_of(diff, "epilogue_round bf16_ar_res_rms over warps");
    std::vector<double> fractions;
    std::string per;
    for (const MicrobenchRow* r : idle) {
      const auto round = bench_round(*r, Pattern::ar_res_rms, cal);
      if (!round || line.slope <= 0) continue;
      const int warps = static_cast<int>(std::ceil(r->tpb / 32.0));
      const int active = static_cast<int>(std::ceil(std::min(r->tpb, static_cast<int>(r->size) / 8) / 32.0));
      const double extra = r->value - round->parts() - (line.intercept + line.slope * active);
      if (warps > active) {
        fractions.push_back(extra / (line.slope * (warps - active)));
        per += fmt(" %d/", r->tpb) + fmt("%d:", std::max(1, r->cluster)) +
               fmt(" %.0f ns beyond the line at %d of ", extra, active) + fmt("%d warps;", warps);
      }
    }
    if (fractions.empty()) {
      out_.notes.push_back("round_overhead_idle_warp_fraction: prior kept (no idle row with idle warps in its "
                           "busiest block)");
    } else {
      set("round_overhead_idle_warp_fraction", std::clamp(median_of(fractions), 0.0, 1.0),
          "idle warps' share of the per-warp round overhead (epilogue_round bf16_ar_res_rms_idle against the line "
          "of bf16_ar_res_rms, both without a partner; tpb/cluster:" + per + ")");
    }
    // The check: each idle row beside the model's round (the line of the rows without a partner).
    Calibration with = cal;
    with.round_overhead_ns = line.intercept;
    with.round_overhead_ns_per_warp = line.slope;
    with.round_overhead_idle_warp_fraction = out_.calibration.round_overhead_idle_warp_fraction;
    std::string check;
    for (const MicrobenchRow* r : idle)
      if (const auto round = bench_round(*r, Pattern::ar_res_rms, with))
        check += fmt(" %d/", r->tpb) + fmt("%d", std::max(1, r->cluster)) +
                 fmt(" measured %.0f ns, model %.0f ns;", r->value, round->total());
    out_.notes.push_back("check, epilogue_round bf16_ar_res_rms_idle (H " + fmt("%.0f", idle.front()->size) +
                         ", half of each cluster's threads idle) against the model's round:" + check);
  }

  // Record (no constant reads it): one partition's streaming rate while EVERY partition streams the same
  // kind (bandwidth read/write/copy_allbusy, tpb 1024, per node N), times N for the GPU, beside the rate
  // the model gives the GPU when all N partitions stream (hbm_efficiency x the GPU's datasheet): the
  // fused kernels' HBM-bound phases at TP4 and TP8 are predicted short, and their push and clear phases
  // mostly write (docs/model.md, "HBM-bound phases at TP4 and TP8").
  void record_hbm_allbusy() {
    if (!emulated_ || rows_.empty()) return;
    const double gpu_datasheet = spec_.hbm_gbps * std::max(1, rows_.front().nranks);
    for (const int n : {2, 4, 8, 16}) {
      std::string parts;
      for (const char* kind : {"read", "write", "copy"}) {
        std::vector<double> v;
        for (const MicrobenchRow* r : pick_rows("bandwidth", std::string(kind) + "_allbusy", "gbps",
                                                [n](const MicrobenchRow& r) { return r.nranks == n && r.tpb == 1024; }))
          v.push_back(r->value);
        if (v.empty()) continue;
        const double one = median_of(v);
        parts += std::string(parts.empty() ? "" : ", ") + kind + fmt(" %.4g GB/s", one) +
                 fmt(" (the GPU %.4g)", one * n);
      }
      if (parts.empty()) continue;
      const double efficiency = out_.calibration.hbm_efficiency;
      out_.notes.push_back(fmt("record, bandwidth *_allbusy at N = %d", n) +
                           " (no constant reads it): one partition while every partition streams the same kind: " +
                           parts + fmt("; the model's GPU rate with every partition streaming: hbm_efficiency %.4g",
                                       efficiency) +
                           fmt(" x %.0f GB/s", gpu_datasheet) + fmt(" = %.4g GB/s", efficiency * gpu_datasheet));
    }
  }

  // hbm_rows_fraction_{128,256,512}b_n{2,4,8} (model_terms.h hbm_rows_fraction): at N ranks of the emulated
  // node, the rows bench while every partition streams the same kind, at the H whose packed rows are aligned
  // to that many bytes (6848, 6784, 6912: tpb = H / 8): per kind the median of the packed rows' rate over
  // the median of the same rows padded to 4 KB, then the mean of the read and write ratios (the fused
  // kernels' HBM phases both read and write). A real node, or a microbenchmark file without those rows,
  // keeps the prior 1.
  static constexpr int kRowsBf16Vector = 8;  // the rows bench: bf16 elements per 16-byte vector, tpb = H / 8

  // The rows bench's medians at N ranks for one kind ("read", "write") and load ("" alone, "_allbusy"):
  // tpb -> (packed, padded to 4 KB) median gbps, NaN where that half has no rows.
  std::map<int, std::pair<double, double>> rows_rate_medians(const std::string& kind, const std::string& busy, int n) {
    std::map<int, std::pair<double, double>> by_tpb;
    for (const bool padded : {false, true}) {
      std::map<int, std::vector<double>> v;
      const std::string variant = "rows_" + kind + (padded ? "_pitch4k" : "") + busy;
      for (const MicrobenchRow* r :
           pick_rows("bandwidth", variant, "gbps", [n](const MicrobenchRow& r) { return r.nranks == n; }))
        v[r->tpb].push_back(r->value);
      for (const auto& [tpb, values] : v) {
        auto& slot = by_tpb.try_emplace(tpb, std::make_pair(std::nan(""), std::nan(""))).first->second;
        (padded ? slot.second : slot.first) = median_of(values);
      }
    }
    return by_tpb;
  }

  void hbm_rows_fractions() {
    const std::pair<int, int> aligned_h[] = {{128, 6848}, {256, 6784}, {512, 6912}};
    for (const auto& [align, hidden] : aligned_h)
      for (const int n : {2, 4, 8}) {
        const std::string name = fmt("hbm_rows_fraction_%db", align) + fmt("_n%d", n);
        if (!emulated_) {
          keep_prior(name, "a real node: every GPU streams its own HBM");
          continue;
        }
        const int tpb = hidden / kRowsBf16Vector;
        std::string how;
        double sum = 0;
        int kinds = 0;
        for (const char* kind : {"read", "write"}) {
          const auto by_tpb = rows_rate_medians(kind, "_allbusy", n);
          const auto at = by_tpb.find(tpb);
          if (at == by_tpb.end()) continue;
          const auto [packed, padded] = at->second;
          if (!(packed > 0 && padded > 0)) continue;  // NaN: a half without rows
          sum += packed / padded;
          ++kinds;
          how += std::string(how.empty() ? "" : ", ") + kind + fmt(" %.4g", packed) + fmt(" / %.4g GB/s", padded);
        }
        if (kinds < 2) {
          keep_prior(name, fmt("no rows_read and rows_write _allbusy rows, packed and padded, at H %d", hidden) +
                               fmt(" and N = %d", n));
          continue;
        }
        set(name, sum / kinds,
            fmt("mean over reads and writes of packed / padded (4 KB) rows, every partition streaming (bandwidth "
                "rows_*_allbusy at H %d, medians): ",
                hidden) +
                how);
      }
  }

  // Record: one partition streaming the fused kernels' row layout (bandwidth rows_read / rows_write, one
  // vector per thread, tpb = H / 8), the rows packed or padded to a 4 KB pitch, alone and (emulated node)
  // while every partition streams the same kind: at TP8 the HBM-bound rows are short where H leaves rows
  // aligned to 128 bytes and a partial last warp (docs/model.md, "HBM-bound phases at TP4 and TP8"); packed
  // against padded at the same H tells which of the two costs the rate. The rows alone set nothing; the
  // _allbusy ones at H 6848, 6784 and 6912 set hbm_rows_fraction_* (hbm_rows_fractions above).
  void record_hbm_rows() {
    for (const int n : {1, 2, 4, 8, 16}) {
      std::string parts;
      for (const char* busy : {"", "_allbusy"})
        for (const char* kind : {"write", "read"}) {
          const auto by_tpb = rows_rate_medians(kind, busy, n);
          if (by_tpb.empty()) continue;
          std::string line;
          for (const auto& [tpb, rates] : by_tpb) {
            const int hidden = tpb * kRowsBf16Vector;
            const long long row_bytes = 2LL * hidden;
            const long long align = row_bytes & -row_bytes;  // the largest power of two dividing the pitch
            line += fmt("; H %d (", hidden) + fmt("%lld-B rows", align) +
                    (tpb % spec_.warp_size != 0 ? ", a partial warp" : "") + fmt(") %.4g", rates.first) +
                    fmt(" / %.4g GB/s", rates.second);
          }
          parts += std::string(parts.empty() ? "" : "; ") + kind + (*busy ? " while every partition streams" : " alone") +
                   ":" + line.substr(1);
        }
      if (parts.empty()) continue;
      out_.notes.push_back(fmt("record, bandwidth rows at N = %d", n) +
                           " (the _allbusy rows at 128, 256 and 512-B rows set hbm_rows_fraction_*): one partition "
                           "streaming rows of H bf16 elements, one vector per thread (tpb = H / 8), packed / padded "
                           "to a 4 KB pitch: " +
                           parts);
    }
  }

  // Records, no constants (notes "record, ..."): the body_round rows that no constant reads yet, each
  // against the model's round they are to be judged by, so that one `arlab save-calibration` says what a
  // new run measured. Nothing is noted where a microbenchmark file has no such rows.
  //
  // The `ar` pattern's round of each body at N = 4 and 8 (variants {body}_ar_n{N}_slowest, since session
  // 28; the N = 2 rows set ar_round_line_ns_n2 since session 37) and the NVFP4 round at N = 2 (variants
  // {body}_fp4_n2_slowest, since session 29) beside the ar_res_rms rounds of the same body and N: per vector
  // a thread holds, the median of (measured - the model's round of that shape, body, N and pattern). The
  // model prices the `ar` round's own part at N = 4 and 8 with one constant (ar_round_ns), the ar_res_rms
  // round's growth with N with the further-round lines
  // (docs/model.md, "Where the `ar` pattern is off by N"); the NVFP4 round's own part with the epilogue_round
  // constants and, at N = 2, the FP8 rows' further-round line (docs/model.md, "The quantizing patterns'
  // rounds").
  void record_pattern_rounds() {
    const struct {
      const char* tag;   // in the variant: {body}{tag}_n{N}_slowest
      const char* name;  // in the note
      Pattern pattern;
    } kinds[] = {{"_ar", "ar", Pattern::ar}, {"_fp4", "NVFP4", Pattern::ar_res_rms_fp4}};
    for (const auto& kind : kinds)
      for (const ModelDesign design : {ModelDesign::reference, ModelDesign::lean})
        for (const int n : {2, 4, 8}) {
          if (kind.pattern == Pattern::ar && n == 2) continue;  // a constant reads it (ar_round_line)
          const std::string body = design == ModelDesign::lean ? "lean" : "reference";
          const std::string n_text = "_n" + std::to_string(n) + "_slowest";
          const auto beyond = [&](const std::string& variant, Pattern pattern, std::string* per) {
            std::vector<double> v;
            for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round")) {
              const auto model = bench_body_round_ns(*r, design, n, out_.calibration, pattern);
              if (!model) continue;
              const int vpt = body_round_vpt(*r);
              v.push_back((r->value - *model) / vpt);
              if (per)
                *per += body_round_row_note(*r, vpt, *model);
            }
            return v;
          };
          std::string per;
          const std::string variant = body + kind.tag + n_text;
          const std::vector<double> own = beyond(variant, kind.pattern, &per);
          if (own.empty()) continue;
          const std::vector<double> rms = beyond(body + n_text, Pattern::ar_res_rms, nullptr);
          out_.notes.push_back(
              "record, body_round " + variant + " (no constant reads it): the " + kind.name + fmt(" round at N = %d", n) +
              " takes " + fmt("%.0f ns per vector beyond the model's ", median_of(own)) + kind.name +
              fmt(" round (median over %zu rows)", own.size()) +
              (rms.empty() ? std::string("; no ar_res_rms rows of this run to set beside it")
                           : fmt("; the ar_res_rms round %.0f ns beyond the model's", median_of(rms)) +
                                 fmt(" (%zu rows)", rms.size())) +
              " (blocks x tpb/cluster, H: measured (the model's round), ns):" + per);
        }
  }

  // The one-shot bodies' path from launch to the first store, alone (launch prologue_0 / prologue_2 /
  // prologue_2_wait, since session 58): each row's duration beyond the store_1 row of the same grid and tpb,
  // median per variant, beside what the model's prologue term prices for a body without the pushed exchange
  // (l2_latency_ns: one L2 hit). The phase stamps measured 0.6-1.5 us for the same path inside the fused
  // bodies (docs/model.md, "Session 58"); no constant reads these rows yet.
  void record_prologue_path() {
    std::map<std::pair<int, int>, double> store_1;
    for (const auto* r : pick_rows("launch", "store_1", "duration_us", [](const MicrobenchRow& r) { return r.cluster <= 1; }))
      store_1[{static_cast<int>(r->size), r->tpb}] = r->value;
    std::string parts;
    for (const char* variant : {"prologue_0", "prologue_2", "prologue_2_wait"}) {
      std::vector<double> extra;
      for (const auto* r : pick_rows("launch", variant, "duration_us", [](const MicrobenchRow& r) { return r.cluster <= 1; })) {
        const auto it = store_1.find({static_cast<int>(r->size), r->tpb});
        if (it != store_1.end()) extra.push_back((r->value - it->second) * 1e3);
      }
      if (extra.empty()) continue;
      parts += fmt("; %s ", variant) + fmt("%.0f ns (", median_of(extra)) +
               fmt("%.0f to ", *std::min_element(extra.begin(), extra.end())) +
               fmt("%.0f ns over ", *std::max_element(extra.begin(), extra.end())) + fmt("%zu rows)", extra.size());
    }
    if (parts.empty()) return;
    out_.notes.push_back("record, launch prologue_* (no constant reads them): the path from launch to the first store "
                         "beyond a kernel that only stores (store_1 of the same grid and tpb), median (range): " +
                         parts.substr(2) +
                         fmt("; the model's prologue term prices one L2 hit, l2_latency_ns = %.0f ns",
                             out_.calibration.l2_latency_ns));
  }

  // The lean two-shot body's owner and reader rounds at N = 2, 4, 8 (variants lean2_owner_n{N}_slowest,
  // lean2_reader_n{N}_slowest, since session 27) against the round the lean two-shot model prices every
  // round of that body as: the lean one-shot round at N (model/twoshot_model.cpp); the reader's also
  // against the lean one-shot round at N = 2, whose poll is one slot as a reader's is (docs/model.md,
  // "Where the lean two-shot body is off at a few tokens per rank"). Per vector, medians.
  void record_lean2_rounds() {
    for (const int n : {2, 4, 8})
      for (const char* kind : {"owner", "reader"}) {
        const std::string variant = std::string("lean2_") + kind + "_n" + std::to_string(n) + "_slowest";
        std::vector<double> at_n, at_2;
        std::string per;
        for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round")) {
          const auto model_n = bench_body_round_ns(*r, ModelDesign::lean, n, out_.calibration);
          const auto model_2 = bench_body_round_ns(*r, ModelDesign::lean, 2, out_.calibration);
          if (!model_n || !model_2) continue;
          const int vpt = body_round_vpt(*r);
          at_n.push_back((r->value - *model_n) / vpt);
          at_2.push_back((r->value - *model_2) / vpt);
          per += fmt(" %d", r->sms) + fmt("x%d/", r->tpb) + fmt("%d", std::max(1, r->cluster)) +
                 fmt(" H %.0f", r->size) + (vpt > 1 ? fmt(" vpt %d", vpt) : std::string()) +
                 fmt(": %.0f (model at N %.0f, at N = 2 ", r->value, *model_n) + fmt("%.0f);", *model_2);
        }
        if (at_n.empty()) continue;
        // Bench against bench: the lean one-shot round the same run measured at the same shape (an owner's at
        // N, a reader's at N = 2, whose poll is one slot as a reader's is).
        const std::string base = std::string("lean_n") + (std::string(kind) == "owner" ? std::to_string(n) : "2") +
                                 "_slowest";
        const std::vector<double> beside = same_run_differences(variant, base);
        out_.notes.push_back("record, body_round " + variant + " (no constant reads it): per vector, " +
                             fmt("%.0f ns beyond the model's lean one-shot round at N = %d", median_of(at_n), n) +
                             fmt(" and %.0f ns beyond it at N = 2 (medians over ", median_of(at_2)) +
                             fmt("%zu rows)", at_n.size()) +
                             (beside.empty() ? std::string("; no body_round ") + base + " rows of the same runs"
                                             : fmt("; %.0f ns beyond the measured ", median_of(beside)) + base +
                                                   fmt(" round of the same run and shape (median over %zu pairs)",
                                                       beside.size())) +
                             " (blocks x tpb/cluster, H: measured (the model's rounds), ns):" + per);
      }
  }

  // The row of `rows` with r's shape (blocks, tpb, cluster, size) from r's run (date_utc: one process), so
  // that a difference of the two is taken within one process; none when the run has no such row.
  static const MicrobenchRow* same_run_and_shape(const std::vector<const MicrobenchRow*>& rows, const MicrobenchRow& r) {
    for (const MicrobenchRow* o : rows)
      if (o->sms == r.sms && o->tpb == r.tpb && o->cluster == r.cluster && o->size == r.size && o->date_utc == r.date_utc)
        return o;
    return nullptr;
  }

  // Per row of body_round `variant` with a row of `base` from the same run and shape: (variant - base) / vpt, ns.
  std::vector<double> same_run_differences(const std::string& variant, const std::string& base) {
    const std::vector<const MicrobenchRow*> bases = pick_rows("body_round", base, "ns_per_round");
    std::vector<double> out;
    for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round"))
      if (const MicrobenchRow* b = same_run_and_shape(bases, *r)) out.push_back((r->value - b->value) / body_round_vpt(*r));
    return out;
  }

  // The line over the warps that hold a vector of body_round `variant` (rows with every partition running the
  // round, since session 42) minus `model_ns`, the model's round for a row's inputs (N = the row's node N, or `n`
  // where it is not 0), into the constants `intercept` and `slope`; the priors where the rows span fewer than two
  // warp counts. `what` names the model's round in the note.
  void allbusy_round_line(const std::string& variant, int n, const std::function<double(const detail::ModelInputs&)>& model_ns,
                          const std::string& intercept, const std::string& slope, const std::string& what) {
    std::vector<std::pair<double, double>> diff;  // (vector warps, measured - the model's round)
    std::string per;
    const auto rows = pick_rows("body_round", variant, "ns_per_round");
    for (const MicrobenchRow* r : rows) {
      const auto got = with_bench_inputs(
          *r, Pattern::ar_res_rms, n > 0 ? n : r->nranks, body_round_vpt(*r), out_.calibration,
          [&model_ns](const detail::ModelInputs& in) { return std::pair<double, double>{in.active_warps, model_ns(in)}; },
          Algorithm::twoshot);
      if (!got) continue;
      diff.emplace_back(got->first, r->value - got->second);
      per += fmt(" N %d", r->nranks) + fmt(" %dx", r->sms) + fmt("%d/", r->tpb) + fmt("%d", std::max(1, r->cluster)) +
             fmt(" H %.0f:", r->size) + fmt(" %.0f", r->value) + fmt(" (model %.0f);", got->second);
    }
    std::set<double> warps;
    for (const auto& d : diff) warps.insert(d.first);
    if (warps.size() < 2) {
      const std::string why = rows.empty() ? "no body_round " + variant + " rows (microbenchmarks of an arlab before "
                                             "session 42, or of a node of another N)"
                                           : variant + " rows at fewer than two warp counts";
      keep_prior(intercept, why);
      keep_prior(slope, why);
      return;
    }
    const Line l = line_of(diff, "body_round " + variant + " over warps");
    set(intercept, l.intercept,
        fmt("intercept over vector warps of body_round %s (%zu rows, every partition running the round) minus ",
            variant.c_str(), diff.size()) +
            what + " (N, blocks x tpb/cluster, H: measured (the model's round) ns):" + per);
    set(slope, l.slope, "slope per vector warp of the same line");
  }

  // The lean two-shot body's reader and owner rounds with every partition running them (body_round
  // lean2_reader_n{N} / lean2_owner_n{N}_allbusy_slowest at the node's N; since session 42) against the model's
  // round of that kind and shape (model_terms.h twoshot_lean_round_ns, without these lines): per kind and N, the
  // line over the warps that hold a vector of the difference sets lean2_{kind}_round_ns_n{N} and _per_warp_n{N}
  // (docs/model.md, "The lean two-shot's reader and owner rounds"). A reader's round does not grow with N, an
  // owner's does (it polls N - 1 slots and pushes its sum to N - 1 peers), while the model prices both as the
  // lean one-shot round at N.
  void lean2_round_lines() {
    // Each line is fitted against the model's round without these lines. A reader's (owner's) round at N = 2, 4
    // or 8 reads only its own kind's line of that N (model_terms.h line_at_ranks), so fitting them in turn, each
    // set as soon as it is fitted, gives the same as fitting all against the priors set here.
    for (const char* kind : {"reader", "owner"})
      for (const int n : {2, 4, 8}) {
        set_constant(out_.calibration, fmt("lean2_%s_round_ns_n", kind) + std::to_string(n), 0.0);
        set_constant(out_.calibration, fmt("lean2_%s_round_ns_per_warp_n", kind) + std::to_string(n), 0.0);
      }
    for (const char* kind : {"reader", "owner"})
      for (const int n : {2, 4, 8}) {
        const bool owner = kind[0] == 'o';
        const std::string nn = "_n" + std::to_string(n);
        allbusy_round_line(std::string("lean2_") + kind + nn + "_allbusy_slowest", n,
                           [owner](const detail::ModelInputs& in) { return detail::twoshot_lean_round_ns(in, 1.0, owner); },
                           fmt("lean2_%s_round_ns", kind) + nn, fmt("lean2_%s_round_ns_per_warp", kind) + nn,
                           fmt("the model's %s round", kind));
      }
  }

  // The reference two-shot body's own epilogue round with every partition running it (body_round
  // reference2_epilogue_allbusy_slowest, ar_res_rms, the node's N; since session 42) against the model's round
  // of that shape with the one-shot round's overhead: the line over the warps that hold a vector of the
  // difference sets twoshot_round_delta_ns (intercept) and _per_warp (slope). The one-shot round's overhead is
  // fitted on rows with the partner busy, so the two-shot's is too (the rows of rank 0's partition alone,
  // reference2_epilogue_n2_slowest, give the H200's fused two-shot rows a bias of -4 to -13 %: docs/model.md,
  // "The two-shot epilogue's own round"). Before the further-round median, which is then taken against the
  // round with the line in.
  void twoshot_round_delta() {
    out_.calibration.twoshot_round_delta_ns = out_.calibration.twoshot_round_delta_ns_per_warp = 0;  // the priors
    allbusy_round_line("reference2_epilogue_allbusy_slowest", 0,
                       [](const detail::ModelInputs& in) { return detail::twoshot_epilogue_round_ns(in, 1.0); },
                       "twoshot_round_delta_ns", "twoshot_round_delta_ns_per_warp",
                       "the model's round with the one-shot round's overhead");
  }

  // The reference two-shot body's epilogue round (variants reference2_epilogue_n2_slowest, ar_res_rms, and
  // reference2_epilogue_ar_n2_slowest, ar; since session 28) against the model's epilogue round of that
  // shape (model/twoshot_model.cpp): the median of the difference per round (the ar one since session 36,
  // per vector before). The ar one sets twoshot_ar_further_round_ns_n2 (since session 33), the ar_res_rms one
  // twoshot_further_round_ns_n2 (since session 36; a record before).
  void record_twoshot_epilogue_rounds() {
    for (const Pattern pattern : {Pattern::ar_res_rms, Pattern::ar}) {
      const std::string variant =
          std::string("reference2_epilogue") + (pattern == Pattern::ar ? "_ar" : "") + "_n2_slowest";
      std::vector<double> beyond;
      std::string per;
      for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round")) {
        const int vpt = body_round_vpt(*r);
        const auto model = with_bench_inputs(
            *r, pattern, 2, vpt, out_.calibration,
            [](const detail::ModelInputs& in) { return detail::twoshot_epilogue_round_ns(in, 1.0); }, Algorithm::twoshot);
        if (!model) continue;
        beyond.push_back(r->value - *model);
        per += body_round_row_note(*r, vpt, *model);
      }
      // model/twoshot_model.cpp: a call's epilogue rounds after its first, at N = 2, where they are measured.
      const char* constant = pattern == Pattern::ar ? "twoshot_ar_further_round_ns_n2" : "twoshot_further_round_ns_n2";
      if (beyond.empty()) {
        keep_prior(constant, "no body_round " + variant + " rows");
      } else {
        set(constant, median_of(beyond),
            fmt("median over %zu rows of body_round ", beyond.size()) + variant + " (the reference two-shot's " +
                to_string(pattern) +
                " epilogue round) minus the model's round of that shape, per round (blocks x tpb/cluster, H: "
                "measured (the model's round), ns):" + per);
      }
    }
  }

  // The N = 2 body rounds at 2 and 4 blocks per SM (body_round {variant}_bps2 / _bps4, since session 54; every
  // other body_round row runs one block per SM) beside the same shape at one block per SM of the same run (the
  // _bps1 rows of the same pass since session 55, else {variant}_slowest), each
  // against the model's round at that many blocks per SM (a one-shot round with its further-round line, the
  // two-shot rounds as model/twoshot_model.cpp prices them): per row, the growth measured minus the model's,
  // over x = (blocks per SM - 1) x the block's warps that hold a vector x the vectors a thread holds; the
  // least-squares slope through 0 sets shared_sm_round_ns_per_warp_vector (the bodies with a residual) and
  // shared_sm_ar_round_ns_per_warp_vector (the `ar` rounds). The model's lines over warps, fitted at one block
  // per SM and taken at the warps of every block on the SM, price 8-21 % of growth where the rows measure 16-26 %
  // (medians per body, an H100, session 55; docs/model.md, "Session 55"). After every other constant: the model's
  // rounds are those of the finished calibration, this term 0. The N = 4 and 8 bodies' rows (since session 55) are
  // records: the slope they would give beside these constants, which the model takes at every N.
  void shared_sm_rounds() {
    using RoundOf = std::function<double(const detail::ModelInputs&, double)>;
    const auto oneshot = [](ModelDesign design) -> RoundOf {
      return [design](const detail::ModelInputs& in, double k) { return detail::oneshot_body_further_round_ns(in, design, k); };
    };
    const RoundOf owner = [](const detail::ModelInputs& in, double k) { return detail::twoshot_lean_round_ns(in, k, true); };
    const RoundOf reader = [](const detail::ModelInputs& in, double k) { return detail::twoshot_lean_round_ns(in, k, false); };
    const RoundOf epilogue = [](const detail::ModelInputs& in, double k) { return detail::twoshot_epilogue_round_ns(in, k); };
    struct Body {
      std::string base;  // the body_round variant at one block per SM
      Algorithm algo;
      RoundOf model;
    };
    struct Fit {
      const char* constant;
      Pattern pattern;
      std::vector<Body> bodies;
    };
    // The bodies of the fits at n ranks (the reference two-shot's epilogue is measured at N = 2 only).
    const auto fits_at = [&](int n) {
      const std::string nn = "_n" + std::to_string(n);
      std::vector<Body> norm = {{"reference" + nn, Algorithm::oneshot, oneshot(ModelDesign::reference)},
                                {"lean" + nn, Algorithm::oneshot, oneshot(ModelDesign::lean)}};
      if (n == 2) norm.push_back({"reference2_epilogue_n2", Algorithm::twoshot, epilogue});
      norm.push_back({"lean2_owner" + nn, Algorithm::twoshot, owner});
      norm.push_back({"lean2_reader" + nn, Algorithm::twoshot, reader});
      return std::vector<Fit>{
          {"shared_sm_round_ns_per_warp_vector", Pattern::ar_res_rms, norm},
          {"shared_sm_ar_round_ns_per_warp_vector", Pattern::ar,
           {{"reference_ar" + nn, Algorithm::oneshot, oneshot(ModelDesign::reference)},
            {"lean_ar" + nn, Algorithm::oneshot, oneshot(ModelDesign::lean)}}}};
    };
    struct Sums {
      double xy = 0.0, xx = 0.0;
      size_t count = 0;
      std::string per;
    };
    // Over the rows of `fit` at n ranks, against the model's rounds with calibration `cal`: the sums of the
    // least-squares slope through 0 of the excess growth over x, and the note's rows.
    const auto collect = [&](const Fit& fit, int n, const Calibration& cal) {
      Sums sums;
      for (const Body& body : fit.bodies) {
        // The base: the _bps1 rows of the same pass (since session 55), else the body's own rows of the same run.
        std::vector<const MicrobenchRow*> ones = pick_rows("body_round", body.base + "_bps1_slowest", "ns_per_round");
        if (ones.empty()) ones = pick_rows("body_round", body.base + "_slowest", "ns_per_round");
        std::string rows;
        std::vector<double> measured_growth, model_growth;
        for (const int k : {2, 4}) {
          const std::string variant = body.base + fmt("_bps%d", k) + "_slowest";
          for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round")) {
            const MicrobenchRow* one = nullptr;
            for (const MicrobenchRow* o : ones)
              if (o->tpb == r->tpb && o->cluster == r->cluster && o->size == r->size && o->date_utc == r->date_utc &&
                  o->sms * k == r->sms)
                one = o;
            if (one == nullptr) continue;
            const int vpt = body_round_vpt(*r);
            const auto at = [&](const MicrobenchRow& row, double blocks_per_sm) {
              return with_bench_inputs(
                  row, fit.pattern, n, vpt, cal,
                  [&](const detail::ModelInputs& in) {
                    return std::pair<double, double>{body.model(in, blocks_per_sm),
                                                     (blocks_per_sm - 1.0) * in.active_warps * in.vecs_used};
                  },
                  body.algo);
            };
            const auto model_one = at(*one, 1.0), model_k = at(*r, k);
            if (!model_one || !model_k) continue;
            const double excess = (r->value - one->value) - (model_k->first - model_one->first);
            measured_growth.push_back(r->value / one->value - 1.0);
            model_growth.push_back(model_k->first / model_one->first - 1.0);
            sums.xy += model_k->second * excess;
            sums.xx += model_k->second * model_k->second;
            ++sums.count;
            rows += fmt(" %dx", r->sms) + fmt("%d/", r->tpb) + fmt("%d", std::max(1, r->cluster)) +
                    fmt(" H %.0f", r->size) + (vpt > 1 ? fmt(" vpt %d", vpt) : std::string()) +
                    fmt(": %.0f", one->value) + fmt(" -> %.0f", r->value) + fmt(" (model %.0f", model_one->first) +
                    fmt(" -> %.0f);", model_k->first);
          }
        }
        if (!rows.empty())
          sums.per += " [" + body.base + fmt(": the round grows %+.1f %%", 100.0 * median_of(measured_growth)) +
                      fmt(", the model's %+.1f %%", 100.0 * median_of(model_growth)) +
                      fmt(" (medians over %zu rows)]", measured_growth.size()) + rows;
      }
      return sums;
    };
    for (const Fit& fit : fits_at(2)) set_constant(out_.calibration, fit.constant, 0.0);
    const Calibration without_term = out_.calibration;  // the model's rounds the fits are taken against
    for (const Fit& fit : fits_at(2)) {
      const Sums sums = collect(fit, 2, without_term);
      if (sums.count == 0 || sums.xx <= 0.0) {
        keep_prior(fit.constant, "no body_round _bps2 / _bps4 rows with their one-block-per-SM rows of the same run "
                                 "(microbenchmarks of an arlab before session 54, or files that hold only one of the two)");
        continue;
      }
      set(fit.constant, sums.xy / sums.xx,
          fmt("least-squares slope through 0 over %zu rows of body_round _bps2 / _bps4 of what the round at 2 or 4 "
              "blocks per SM grows beyond the same shape at one block per SM of the same run, minus the model's "
              "growth, over (blocks per SM - 1) x warps x vectors per thread (blocks x tpb/cluster, H: measured at "
              "one block per SM -> at k (the model's round at one -> at k, without this term), ns):",
              sums.count) +
              sums.per);
    }
    // Records (since session 55): the same rows of the N = 4 and 8 bodies, the slope they would give, beside the
    // N = 2 constant the model takes at every N.
    for (const int n : {4, 8})
      for (const Fit& fit : fits_at(n)) {
        const Sums sums = collect(fit, n, without_term);
        if (sums.count == 0 || sums.xx <= 0.0) continue;  // runs before session 55: nothing to note
        out_.notes.push_back(
            fmt("record, body_round _bps2 / _bps4 at N = %d (no constant reads them): ", n) +
            fmt("their rows give %.1f ns per warp-vector", sums.xy / sums.xx) +
            fmt(" (%zu rows) where the model takes ", sums.count) + fit.constant +
            fmt(" = %.1f ns, fitted at N = 2", get_constant(out_.calibration, fit.constant)) +
            " (blocks x tpb/cluster, H: measured at one block per SM -> at k (the model's round at one -> at k, "
            "without the term), ns):" + sums.per);
      }
  }

  // Not a constant: the cluster placement the cluster_placement bench saw (a grid of one block per SM
  // of the partition, blocks that may share an SM) beside the model's capacity at one block per SM
  // (model::max_active_clusters; docs/model.md, "Where clusters land"), as one note.
  void placement_check() {
    capacity_check("shared", "sms_used", "check, cluster_placement: no rows (microbenchmarks of an arlab before the bench)",
                   "check, cluster_placement (a grid of one block per SM; SMs used): ", false);
  }

  // The same bench's `several` rows (since session 38: grids of k = 2, 4 and 8 blocks per SM, the blocks that
  // started in the first wave) beside the model's capacity at k blocks per SM (docs/model.md, "Where clusters
  // land at several blocks per SM"), as one note.
  void several_placement_check() {
    capacity_check("several", "resident_blocks",
                   "check, cluster_placement several: no rows (microbenchmarks of an arlab before session 38)",
                   "check, cluster_placement several (grids of several blocks per SM; blocks resident at once): ", true);
  }

  // One note on the cluster_placement rows of `variant` / `metric` over the spec's SMs: each row's value (SMs
  // or blocks) beside min(grid, the model's clusters at k blocks per SM x cluster), k = 1, or grid / SMs
  // where `per_block_layer` (the `several` grids are k x the SMs), "agrees" or "DISAGREES".
  void capacity_check(const char* variant, const char* metric, const char* no_rows, const char* title,
                      bool per_block_layer) {
    const auto rows = pick_rows("cluster_placement", variant, metric);
    if (rows.empty()) {
      out_.notes.push_back(no_rows);
      return;
    }
    std::string text;
    bool agree = true;
    for (const MicrobenchRow* r : rows) {
      if (r->sms != spec_.sm_count || r->sms < 1) continue;
      const int cluster = std::max(1, r->cluster);
      const int blocks_per_sm = per_block_layer ? static_cast<int>(std::llround(r->size / r->sms)) : 1;
      const long long model =
          std::min(static_cast<long long>(r->size),
                   static_cast<long long>(max_active_clusters(spec_, cluster, blocks_per_sm)) * cluster);
      // Capacity comes in whole clusters: where blocks resident at once are counted (`several`), a count less
      // than one cluster from the model's is a block that started late, not a cluster the partition could not
      // hold (the first run, on an H100: 511 / 495 / 463 of the model's 512 / 496 / 464 at 8 blocks per SM in
      // clusters of 2 / 4 / 8, exact at 2 and 4 blocks per SM; data/h100/README.md, session 39). SMs used
      // (one block per SM) must match exactly.
      const long long measured = std::llround(r->value);
      agree = agree && (per_block_layer ? std::llabs(measured - model) < cluster : measured == model);
      text += (per_block_layer ? fmt(" %d blocks per SM,", blocks_per_sm) : std::string()) +
              fmt(" clusters of %d:", cluster) + fmt(per_block_layer ? " %.0f blocks" : " %.0f SMs", r->value) +
              fmt(" (model %lld);", model);
    }
    if (text.empty()) text = fmt(" no rows over the spec's %d SMs", spec_.sm_count);
    out_.notes.push_back(std::string(title) + (agree ? "agrees with" : "DISAGREES with") +
                         " the model's cluster capacity" +
                         (per_block_layer ? " (to less than one cluster: a block that starts late is not counted)" : "") +
                         ":" + text);
  }

  // The NVFP4, ar and (since session 29) FP8 patterns' rounds of the same bench (variants bf16_ar_res_rms_fp4,
  // bf16_ar and bf16_ar_res_rms_fp8; FP8 as NVFP4; since session 50 the NVFP4 round at an odd tpb,
  // bf16_ar_res_rms_fp4_odd, as NVFP4 beyond the even round)
  // against the model's whole round for that pattern and shape, with every other constant derived
  // (the RMSNorm round overhead included). NVFP4: a line of the difference over the warps of the block
  // (every warp of the bench holds a vector; the median and no slope where the rows have one block
  // width). ar: the median of the difference (its rows grow over warps too, 329 to 1165 ns from 4 to 32
  // warps on the emulated H200, but that line predicts the fused ar rows worse than the median, and the
  // line of the partner-idle rows helps TP2 and hurts TP4 and TP8: docs/model.md "The NVFP4 round over
  // warps" and "The `ar` round from the rows with the partner idle"). Microbenchmark files from before
  // these variants keep the constants at 0, with a note.
  void pattern_rounds() {
    const struct {
      const char* name;
      const char* per_warp;  // the slope's constant; none: the median
      const char* variant;
      Pattern pattern;
    } kinds[] = {{"nvfp4_round_ns", "nvfp4_round_ns_per_warp", "bf16_ar_res_rms_fp4", Pattern::ar_res_rms_fp4},
                 {"ar_round_ns", nullptr, "bf16_ar", Pattern::ar},
                 {"fp8_round_ns", "fp8_round_ns_per_warp", "bf16_ar_res_rms_fp8", Pattern::ar_res_rms_fp8},
                 // Since session 50: the NVFP4 round at an odd tpb against the model's round of that shape
                 // with nvfp4_odd_round_ns still 0 (the even round, nvfp4_round_ns derived just above).
                 {"nvfp4_odd_round_ns", "nvfp4_odd_round_ns_per_warp", "bf16_ar_res_rms_fp4_odd",
                  Pattern::ar_res_rms_fp4}};
    for (const auto& kind : kinds) {
      const std::string busy = std::string(kind.variant) + "_busy";
      auto got = round_rows(emulated_ ? busy : kind.variant, kind.name);
      if (got.empty()) got = round_rows(kind.variant, kind.name);
      if (got.empty()) {
        for (const char* name : {kind.name, kind.per_warp})
          if (name != nullptr)
            out_.notes.push_back(std::string(name) + " = 0: no epilogue_round " + kind.variant +
                                 " rows (microbenchmarks of an arlab before that variant): the round is its "
                                 "modelled parts alone");
        continue;
      }
      std::vector<std::pair<double, double>> diff;  // (warps, measured - model)
      std::string per;
      for (const MicrobenchRow* r : got) {
        // its own constants are still 0 in out_.calibration here
        const std::optional<detail::RoundParts> round = bench_round(*r, kind.pattern, out_.calibration);
        if (!round) continue;
        const double modelled = round->total();
        diff.emplace_back(std::ceil(r->tpb / 32.0), r->value - modelled);
        per += fmt(" %d/", r->tpb) + fmt("%d:", std::max(1, r->cluster)) + fmt(" %.0f", r->value) +
               fmt(" - %.0f;", modelled);
      }
      if (diff.empty()) fail(std::string("no epilogue_round ") + kind.variant + " row has a launchable shape");
      const bool one_width =
          std::all_of(diff.begin(), diff.end(), [&](const auto& d) { return d.first == diff.front().first; });
      if (kind.per_warp == nullptr || one_width) {
        std::vector<double> y;
        for (const auto& d : diff) y.push_back(d.second);
        set(kind.name, std::max(0.0, median_of(y)),
            std::string("median of the measured round minus the model's round (tpb/cluster: measured - model ns):") +
                per);
        if (kind.per_warp != nullptr) set(kind.per_warp, 0.0, "no slope: the rows have one block width");
        continue;
      }
      const Line l = line_of(diff, std::string("epilogue_round ") + kind.variant + " over warps");
      set(kind.name, std::max(0.0, l.intercept),
          std::string("intercept over warps of the measured round minus the model's round (tpb/cluster: measured - "
                      "model ns):") +
              per);
      set(kind.per_warp, std::max(0.0, l.slope), "slope per warp of the same line");
    }
  }

  // A round where every thread holds 2 or 4 vectors (epilogue_round VARIANT_vpt2 / _vpt4) against the
  // model's round of that shape with every other constant derived: the median over the rows of (measured -
  // model) / (vpt - 1), what each vector beyond a thread's first adds that the round's parts (the further
  // loads, vector ops, gamma loads) leave out. One constant per pattern kind: the RMSNorm round's
  // (bf16_ar_res_rms_vpt*, new on 2026-12-03), the ar round's (bf16_ar_vpt*, since 7232ac1, 2026-12-04; its
  // model round includes ar_round_ns once) and the NVFP4 round's (bf16_ar_res_rms_fp4_vpt*, since session
  // 27; its model round includes the NVFP4 round's own part once and the RMSNorm constant above per further
  // vector, so it is derived after both). Older microbenchmarks keep the prior, 0.
  void vector_rounds() {
    vector_round("bf16_ar_res_rms", Pattern::ar_res_rms, "round_ns_per_extra_vector", "2026-12-03");
    vector_round("bf16_ar", Pattern::ar, "ar_round_ns_per_extra_vector", "2026-12-04");
    vector_round("bf16_ar_res_rms_fp4", Pattern::ar_res_rms_fp4, "nvfp4_round_ns_per_extra_vector",
                 "2026-12-04 (session 27)");
  }

  void vector_round(const std::string& base, Pattern pattern, const char* constant, const char* since) {
    std::vector<double> per_vector;
    std::string per;
    for (const int vpt : {2, 4}) {
      const std::string variant = base + "_vpt" + std::to_string(vpt);
      auto got = pick_rows("epilogue_round", (emulated_ ? variant + "_busy" : variant) + "_slowest", "ns_per_round");
      if (got.empty()) got = pick_rows("epilogue_round", variant + "_slowest", "ns_per_round");
      for (const MicrobenchRow* r : got) {
        const std::optional<detail::RoundParts> round = bench_round(*r, pattern, out_.calibration, vpt);
        if (!round) continue;
        const double modelled = round->total();
        per_vector.push_back((r->value - modelled) / (vpt - 1));
        per += fmt(" %d/", r->tpb) + fmt("%d/", std::max(1, r->cluster)) + fmt("%d:", vpt) +
               fmt(" (%.0f", r->value) + fmt(" - %.0f)", modelled) + fmt(" / %d;", vpt - 1);
      }
    }
    if (per_vector.empty()) {
      keep_prior(constant, "no epilogue_round " + base + "_vpt2 / _vpt4 rows: microbenchmarks of an arlab before " +
                               since);
      return;
    }
    set(constant, std::max(0.0, median_of(per_vector)),
        "median over the rounds of 2 and 4 vectors per thread of (measured - the model's round) / (vpt - 1) "
        "(tpb/cluster/vpt: (measured - model ns) / (vpt - 1)):" + per);
    // Since session 51 the same rounds on blocks of 16-32 warps (VARIANT_vpt2_wide / _vpt4_wide): a record, each
    // row against the model's round with the constant just derived in it.
    std::string wide;
    for (const int vpt : {2, 4}) {
      const std::string variant = base + "_vpt" + std::to_string(vpt) + "_wide";
      auto got = pick_rows("epilogue_round", (emulated_ ? variant + "_busy" : variant) + "_slowest", "ns_per_round");
      if (got.empty()) got = pick_rows("epilogue_round", variant + "_slowest", "ns_per_round");
      for (const MicrobenchRow* r : got) {
        const std::optional<detail::RoundParts> round = bench_round(*r, pattern, out_.calibration, vpt);
        if (!round) continue;
        wide += fmt(" %d/", r->tpb) + fmt("%d/", std::max(1, r->cluster)) + fmt("%d", vpt) +
                fmt(" (%d warps):", (r->tpb + 31) / 32) + fmt(" %.0f", r->value) + fmt(" - %.0f", round->total()) +
                fmt(" = %+.0f ns;", r->value - round->total());
      }
    }
    if (!wide.empty())
      out_.notes.push_back("record, epilogue_round " + base + "_vpt2_wide / _vpt4_wide (no constant reads them): the "
                           "round on 16-32 warps, measured - the model's round with " + constant +
                           " in it (tpb/cluster/vpt):" + wide);
  }

  // What a one-shot token round after a call's first takes beyond the model's round of the body (body_round
  // reference_n*_slowest / lean_n*_slowest: the body alone on rank 0's partition, its data in place, 8
  // rounds per cluster; after body_rounds, whose constant is part of lean's round; since session 52 with the
  // _wide rows, several vectors per thread on 16-32 warps): per row, measured - the model's round of that
  // shape at N, a least-squares fit per N = 2, 4, 8 over w, the block's warps (one block per SM, every warp
  // holding a vector), and v - 1, the vectors per thread beyond the first:
  //   [lean_]further_round_ns_nN + _per_warp_nN x w + (_per_extra_vector_nN + _per_extra_vector_per_warp_nN x w)
  //   x (v - 1).
  // The model adds it to every round after a call's first. Until session 52 it was a line over w per vector,
  // multiplied by v: its slope, set by the one-vector rows of 16-32 warps (negative: the model's round is long
  // there), was then taken once per vector, and a further round of 2-4 vectors on 16-32 warps came out 10-25 %
  // short against the _wide rows (docs/model.md, "Session 52"). Older microbenchmarks keep the priors, 0: with
  // rows of one vector per thread only, the line; without the _wide rows, no per-warp part per vector.
  void further_rounds(ModelDesign design) {
    const std::string prefix = design == ModelDesign::lean ? "lean_" : "";
    for (const int n : {2, 4, 8}) further_round_fit(design, n, prefix);
  }

  void further_round_fit(ModelDesign design, int n, const std::string& prefix) {
    const std::string nn = "_n" + std::to_string(n);
    const std::string intercept = prefix + "further_round_ns" + nn, slope = prefix + "further_round_ns_per_warp" + nn,
                      per_vector = prefix + "further_round_ns_per_extra_vector" + nn,
                      per_vector_warp = prefix + "further_round_ns_per_extra_vector_per_warp" + nn;
    const std::string body = design == ModelDesign::lean ? "lean" : "reference";
    const std::string variant = body + nn + "_slowest";
    std::vector<std::array<double, 3>> points;  // (warps, vpt - 1, measured - model)
    std::string per;
    std::vector<const MicrobenchRow*> rows = pick_rows("body_round", variant, "ns_per_round");
    for (const MicrobenchRow* r : pick_rows("body_round", body + nn + "_wide_slowest", "ns_per_round")) rows.push_back(r);
    for (const MicrobenchRow* r : rows) {
      const auto model = bench_body_round_ns(*r, design, n, out_.calibration, Pattern::ar_res_rms);
      if (!model) continue;
      const int vpt = body_round_vpt(*r);
      points.push_back({static_cast<double>((r->tpb + 31) / 32), static_cast<double>(vpt - 1), r->value - *model});
      per += body_round_row_note(*r, vpt, *model);
    }
    std::set<double> warps, vectors, several_warps;
    for (const auto& point : points) {
      warps.insert(point[0]);
      vectors.insert(point[1]);
      if (point[1] > 0) several_warps.insert(point[0]);
    }
    const std::vector<std::string> names = {intercept, slope, per_vector, per_vector_warp};
    if (warps.size() < 2) {
      const std::string why = "no body_round " + variant + " rows at two or more block sizes: microbenchmarks of "
                              "an arlab before 2026-12-03";
      for (const std::string& name : names) keep_prior(name, why);
      return;
    }
    // The features in use: 1, warps, and where the rows hold several vectors per thread, vpt - 1 and, where
    // those rows span two or more block sizes (the _wide rows, since session 52), (vpt - 1) x warps; one term
    // fewer where the rows leave the fit singular (as few distinct shapes as terms).
    size_t k = vectors.size() < 2 ? 2 : (several_warps.size() < 2 ? 3 : 4);
    std::vector<double> y;
    for (const auto& point : points) y.push_back(point[2]);
    std::vector<double> c;
    for (;; --k) {
      std::vector<std::vector<double>> features;
      for (const auto& [w, z, excess] : points) {
        const std::vector<double> all = {1.0, w, z, z * w};
        features.emplace_back(all.begin(), all.begin() + static_cast<long>(k));
      }
      try {
        c = fit_least_squares(features, y, intercept);
        break;
      } catch (const InvalidArgument& e) {
        if (k == 2) throw DeriveError(e.what(), last_, true);
      }
    }
    set(intercept, c[0],
        fmt("intercept of the least-squares fit (%zu rows) of what the ", points.size()) + body +
            fmt(" round alone takes at N = %d beyond the model's round, per round, over the block's warps", n) +
            (k > 2 ? ", the vectors per thread beyond the first" : "") + (k > 3 ? " and their product" : "") +
            " (blocks x tpb/cluster, H: measured (the model's round), ns):" + per);
    set(slope, c[1], fmt("per warp of the block, of that fit (N = %d)", n));
    if (k > 2)
      set(per_vector, c[2], fmt("per vector a thread holds beyond its first, of that fit (N = %d)", n));
    else
      keep_prior(per_vector, "no body_round " + variant + " rows of more than one vector per thread");
    if (k > 3)
      set(per_vector_warp, c[3], fmt("per vector beyond the first and warp of the block, of that fit (N = %d)", n));
    else
      keep_prior(per_vector_warp, "no body_round " + body + nn + "_wide_slowest rows (several vectors per thread at "
                                  "two or more block sizes, shapes enough for four terms): microbenchmarks of an "
                                  "arlab before session 52");
  }

  // The same for a quantizing pattern (body_round {body}_fp8_n{N}_slowest, the ar_res_rms_fp8 epilogue: N = 8
  // since 2026-12-04, N = 2 and 4 since session 29), beyond the ar_res_rms line of that N just derived: per
  // row, (measured - the model's ar_res_rms_fp8 round of that shape) / vpt - that line at the block's warps,
  // a least-squares line over the warps. Older microbenchmarks keep the priors, 0 (the quantizing patterns
  // as ar_res_rms).
  void quant_further_rounds(ModelDesign design) {
    const std::string prefix = design == ModelDesign::lean ? "lean_" : "";
    const Calibration& cal = out_.calibration;
    for (const int n : {2, 4, 8}) {
      const std::string nn = "_n" + std::to_string(n);
      const double a = get_constant(cal, prefix + "further_round_ns" + nn);
      const double b = get_constant(cal, prefix + "further_round_ns_per_warp" + nn);
      const double c = get_constant(cal, prefix + "further_round_ns_per_extra_vector" + nn);
      const double d = get_constant(cal, prefix + "further_round_ns_per_extra_vector_per_warp" + nn);
      // The ar_res_rms further round of that N, per vector.
      const auto ar_further = [a, b, c, d](double warps, int vpt) {
        return (a + b * warps + (c + d * warps) * (vpt - 1)) / vpt;
      };
      quant_round_line(design, n, ar_further, prefix + "quant_further_round_ns" + nn,
                       prefix + "quant_further_round_ns_per_warp" + nn, n == 8 ? "2026-12-04" : "session 29 (2026-12-05)");
    }
  }

  // The `ar` pattern's round of each body at N = 2 (body_round {body}_ar_n2_slowest, since session 28), against
  // the model's `ar` round of that shape with these constants at 0: a least-squares line over the block's warps
  // of (measured - model) for the rows of one vector per thread, [lean_]ar_round_line_ns_n2 + _per_warp_n2 x
  // warps, added once to every one-shot `ar` round at N = 2, the first included, in place of the ar_res_rms
  // further-round line; and the median over the rows of 2 and 4 vectors per thread of (measured - model - the
  // line at their warps) / (vpt - 1), [lean_]ar_round_ns_per_further_vector_n2, added per further vector (since
  // session 54; before, one line over every row of (measured - model) / vpt, added per vector). At N = 4 and 8
  // the rows stay records (docs/model.md, "The `ar` round at N = 2"). Older microbenchmarks keep the priors, 0.
  void ar_round_line(ModelDesign design) {
    const std::string prefix = design == ModelDesign::lean ? "lean_" : "";
    const std::string body = design == ModelDesign::lean ? "lean" : "reference";
    const std::string variant = body + "_ar_n2_slowest";
    const std::string intercept = prefix + "ar_round_line_ns_n2", slope = prefix + "ar_round_line_ns_per_warp_n2",
                      per_vector = prefix + "ar_round_ns_per_further_vector_n2";
    Calibration cal = out_.calibration;
    for (double Calibration::*c : {&Calibration::ar_round_line_ns_n2, &Calibration::ar_round_line_ns_per_warp_n2,
                                   &Calibration::ar_round_ns_per_further_vector_n2, &Calibration::lean_ar_round_line_ns_n2,
                                   &Calibration::lean_ar_round_line_ns_per_warp_n2,
                                   &Calibration::lean_ar_round_ns_per_further_vector_n2})
      cal.*c = 0.0;
    struct Point {
      double warps;
      int vpt;
      double beyond;  // measured - model, ns
    };
    std::vector<Point> points;
    std::vector<std::pair<double, double>> xy;  // the rows of one vector per thread
    std::string per;
    for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round")) {
      const auto model = bench_body_round_ns(*r, design, 2, cal, Pattern::ar);
      if (!model) continue;
      const int vpt = body_round_vpt(*r);
      const double warps = (r->tpb + 31) / 32;
      points.push_back({warps, vpt, r->value - *model});
      if (vpt == 1) xy.emplace_back(warps, r->value - *model);
      per += body_round_row_note(*r, vpt, *model);
    }
    if (distinct_x(xy) < 2) {
      const std::string why = "no body_round " + variant + " rows of one vector per thread at two or more block "
                              "sizes: microbenchmarks of an arlab before session 28 (2026-12-05)";
      for (const std::string& name : {intercept, slope, per_vector}) keep_prior(name, why);
      return;
    }
    const Line l = line_of(xy, intercept);
    set(intercept, l.intercept,
        fmt("intercept of the least-squares line over the block's warps (%zu rows of one vector per thread) of what "
            "the ",
            xy.size()) +
            body + " round with the ar epilogue alone takes at N = 2 beyond the model's round (blocks x tpb/cluster, H: "
                   "measured (the model's round), ns):" + per);
    set(slope, l.slope, "slope of that line (N = 2)");
    std::vector<double> further;
    std::string per_further;
    for (const Point& point : points) {
      if (point.vpt < 2) continue;
      further.push_back((point.beyond - (l.intercept + l.slope * point.warps)) / (point.vpt - 1));
      per_further += fmt(" %.0f warps", point.warps) + fmt(" vpt %d:", point.vpt) + fmt(" %+.0f;", further.back());
    }
    if (further.empty()) {
      keep_prior(per_vector, "no body_round " + variant + " rows of 2 or 4 vectors per thread");
      return;
    }
    set(per_vector, median_of(further),
        fmt("median over the %zu rows of 2 and 4 vectors per thread of (measured - the model's round - the line at "
            "their warps) / (vpt - 1), ns:",
            further.size()) + per_further);
  }

  // One line of the quantizing rounds above: over the body_round rows of `design` at `n` ranks with the
  // ar_res_rms_fp8 epilogue (variant {body}_fp8_n{n}_slowest), ((measured - the model's round of that shape,
  // body, N and pattern) / vpt - `beyond` per vector at the block's warps and vpt, where given) against the
  // block's warps, least squares, into `intercept` and `slope`; the priors where the rows span fewer than two
  // block sizes (microbenchmarks of an arlab before `since`).
  void quant_round_line(ModelDesign design, int n, const std::function<double(double, int)>& beyond,
                        const std::string& intercept, const std::string& slope, const std::string& since) {
    const Pattern pattern = Pattern::ar_res_rms_fp8;
    const std::string body = design == ModelDesign::lean ? "lean" : "reference";
    const std::string variant = body + "_fp8_n" + std::to_string(n) + "_slowest";
    std::vector<std::pair<double, double>> xy;
    std::string per;
    for (const MicrobenchRow* r : pick_rows("body_round", variant, "ns_per_round")) {
      const auto model = bench_body_round_ns(*r, design, n, out_.calibration, pattern);
      if (!model) continue;
      const int vpt = body_round_vpt(*r);
      const double warps = (r->tpb + 31) / 32;
      xy.emplace_back(warps, (r->value - *model) / vpt - (beyond ? beyond(warps, vpt) : 0.0));
      per += body_round_row_note(*r, vpt, *model);
    }
    if (distinct_x(xy) < 2) {
      const std::string why = "no body_round " + variant + " rows at two or more block sizes: microbenchmarks of "
                              "an arlab before " + since;
      keep_prior(intercept, why);
      keep_prior(slope, why);
      return;
    }
    const Line l = line_of(xy, intercept);
    set(intercept, l.intercept,
        fmt("intercept of the least-squares line over the block's warps (%zu rows) of what the ", xy.size()) + body +
            " round with the " + std::string(to_string(pattern)) + " epilogue " +
            fmt("alone takes at N = %d beyond the model's round, per vector per thread", n) +
            (beyond ? ", less the ar_res_rms further round's share per vector" : "") +
            " (blocks x tpb/cluster, H: measured (the model's round), ns):" + per);
    set(slope, l.slope, fmt("slope of that line (N = %d)", n));
  }

  // The one-shot token round of each body at N = 2, 4 and 8 ranks (body_round, new on 2026-12-03; the
  // slowest block's rows) against the model's round of the same body, shape and N, every other constant
  // derived. The reference round's growth with N is the model's `ranks` term's (the exchange bench polls
  // every slot as the reference does), so what the model misses is how much more the lean round grows
  // from N = 2 than the reference's of the same shape, beyond what the model's lean round already adds
  // (its wait for the own vector at N >= 4): per shape and N,
  //   ((lean_N - lean_2) - (model lean_N - model lean_2) - ((ref_N - ref_2) - (model ref_N - model ref_2)))
  //     / ((N - 2) x vectors per thread),
  // the median over the shapes and N = 4, 8 (the model adds it per rank beyond 2 and per vector).
  // Older microbenchmarks keep the prior, 0.
  void body_rounds() {
    const auto rows_of = [&](const char* body, int n) {
      return pick_rows("body_round", std::string(body) + "_n" + std::to_string(n) + "_slowest", "ns_per_round");
    };
    // Every difference below is taken within one process (same_run_and_shape).
    const auto lean_2 = rows_of("lean", 2), ref_2 = rows_of("reference", 2);
    std::vector<std::pair<double, double>> per_rank;  // (the block's warps, per rank and vector)
    std::string per;
    for (const int n : {4, 8}) {
      const auto ref_n = rows_of("reference", n);
      for (const MicrobenchRow* ln : rows_of("lean", n)) {
        const MicrobenchRow* l2 = same_run_and_shape(lean_2, *ln);
        const MicrobenchRow* rn = same_run_and_shape(ref_n, *ln);
        const MicrobenchRow* r2 = same_run_and_shape(ref_2, *ln);
        if (!l2 || !rn || !r2) continue;
        const auto model = [&](const MicrobenchRow& r, ModelDesign d, int ranks) {
          return bench_body_round_ns(r, d, ranks, out_.calibration);
        };
        const auto ml_n = model(*ln, ModelDesign::lean, n), ml_2 = model(*l2, ModelDesign::lean, 2);
        const auto mr_n = model(*rn, ModelDesign::reference, n), mr_2 = model(*r2, ModelDesign::reference, 2);
        if (!ml_n || !ml_2 || !mr_n || !mr_2) continue;
        const double lean_growth = (ln->value - l2->value) - (*ml_n - *ml_2);
        const double ref_growth = (rn->value - r2->value) - (*mr_n - *mr_2);
        const int vpt = body_round_vpt(*ln);
        per_rank.emplace_back((ln->tpb + 31) / 32, (lean_growth - ref_growth) / ((n - 2) * vpt));
        per += fmt(" %d", ln->sms) + fmt("x%d/", ln->tpb) + fmt("%d", std::max(1, ln->cluster)) +
               fmt(" H %.0f", ln->size) + (vpt > 1 ? fmt(" vpt %d", vpt) : std::string()) + fmt(" N=%d:", n) +
               fmt(" lean %.0f", ln->value - l2->value) +
               fmt(" (model %.0f)", *ml_n - *ml_2) + fmt(", reference %.0f", rn->value - r2->value) +
               fmt(" (model %.0f);", *mr_n - *mr_2);
      }
    }
    if (per_rank.empty()) {
      for (const char* name : {"lean_round_ns_per_extra_rank", "lean_round_ns_per_extra_rank_per_warp"})
        keep_prior(name, "no body_round lean_n2 / _n4 / _n8 and reference_n2 / _n4 / _n8 rows of one shape: "
                         "microbenchmarks of an arlab before 2026-12-03");
      return;
    }
    // Since session 51 a line over the block's warps (one block per SM in the bench, every warp holding a
    // vector): on an H100 the per-rank cost grows from about 55 ns at 4 warps to about 165 ns at 32
    // (docs/model.md, "Session 51"). One block width: the median, as before.
    std::set<double> widths;
    for (const auto& point : per_rank) widths.insert(point.first);
    if (widths.size() < 2) {
      std::vector<double> y;
      for (const auto& point : per_rank) y.push_back(point.second);
      set("lean_round_ns_per_extra_rank", std::max(0.0, median_of(y)),
          "median over the shapes and N = 4, 8 of how much more the lean round grows from N = 2 than the "
          "reference's, each less the model's growth, per rank beyond 2 and vector per thread (one block width; "
          "blocks x tpb/cluster, H, N: measured growth from N = 2 (the model's), ns):" + per);
      set("lean_round_ns_per_extra_rank_per_warp", 0.0, "no slope: the rows have one block width");
      return;
    }
    const Line l = line_of(per_rank, "lean_round_ns_per_extra_rank over warps");
    set("lean_round_ns_per_extra_rank", std::max(0.0, l.intercept),
        "intercept of the least-squares line over the block's warps, shapes and N = 4, 8 of how much more the lean "
        "round grows from N = 2 than the reference's, each less the model's growth, per rank beyond 2 and vector "
        "per thread (blocks x tpb/cluster, H, N: measured growth from N = 2 (the model's), ns):" + per);
    set("lean_round_ns_per_extra_rank_per_warp", l.slope, "slope per warp of the same line");
  }

  // What a one-shot round takes beyond its warm round when its polls (and the lean body's re-read of its
  // own vector from x) come from DRAM (body_round *_cold_slowest, new on 2026-12-03 19:00): per body and
  // N = 2, 4, 8, the median over the shapes of (cold - warm) / vectors per thread, each pair from one
  // run. Older microbenchmarks keep the priors, 0 (no term).
  void poll_misses() {
    for (const char* body : {"reference", "lean"}) {
      const std::string prefix = std::string(body) == "lean" ? "lean_poll_miss_ns_n" : "poll_miss_ns_n";
      for (const int n : {2, 4, 8}) {
        const std::string name = prefix + std::to_string(n);
        const std::string variant = std::string(body) + "_n" + std::to_string(n);
        const auto warm = pick_rows("body_round", variant + "_slowest", "ns_per_round");
        std::vector<double> per_vector;
        std::string per;
        for (const MicrobenchRow* c : pick_rows("body_round", variant + "_cold_slowest", "ns_per_round")) {
          const MicrobenchRow* w = same_run_and_shape(warm, *c);
          if (!w) continue;
          const int vpt = body_round_vpt(*c);
          per_vector.push_back((c->value - w->value) / vpt);
          per += fmt(" %dx", c->sms) + fmt("%d/", c->tpb) + fmt("%d", std::max(1, c->cluster)) +
                 fmt(" H %.0f", c->size) + (vpt > 1 ? fmt(" vpt %d", vpt) : std::string()) +
                 fmt(" %.0f;", c->value - w->value);
        }
        if (per_vector.empty()) {
          keep_prior(name, "no body_round " + variant +
                               "_cold rows: microbenchmarks of an arlab before 2026-12-03 19:00");
          continue;
        }
        set(name, std::max(0.0, median_of(per_vector)),
            "median over the shapes of (cold - warm round) / vectors per thread (blocks x tpb/cluster, H: cold - "
            "warm, ns):" + per);
      }
    }
  }

  // How much of a Lamport buffer L2 keeps after B bytes were written elsewhere (body_round
  // *_n4_reuse_slowest, new on 2026-12-03 19:00): per run and body, the round's miss fraction at B is
  // (round(B) - round(0)) / (round(B_max) - round(0)); the fractions of L2 (B / the run's L2, the
  // largest B being kBodyRoundReuseMaxL2s x L2) where it crosses 0.1 (the last time) and 0.9 (the
  // first time), linearly interpolated, averaged over the curves. The model's ramp runs from the first less 1/8 of the span
  // between them to the second plus 1/8 of it (the straight line through the two crossings). Older
  // microbenchmarks keep the priors.
  void l2_reuse() {
    std::vector<double> at10, at90;
    std::string per;
    for (const char* body : {"reference", "lean"}) {
      const auto rows = pick_rows("body_round", std::string(body) + "_n4_reuse_slowest", "ns_per_round");
      std::map<std::string, std::vector<const MicrobenchRow*>> by_run;
      for (const MicrobenchRow* r : rows) by_run[r->date_utc].push_back(r);
      for (auto& [run, curve] : by_run) {
        std::sort(curve.begin(), curve.end(), [](const auto* a, const auto* b) { return a->size < b->size; });
        if (curve.size() < 3 || curve.front()->size != 0) continue;
        const double b_max = curve.back()->size, l2 = b_max / kBodyRoundReuseMaxL2s;
        const double lo = curve.front()->value, hi = curve.back()->value;
        if (!(hi > lo) || !(l2 > 0)) continue;
        // Where the fraction rises through `level` (B / L2): the first such place, or the last one (the
        // 0.1 crossing: a noisy row of a few bytes written must not place it early).
        const auto crossing = [&](double level, bool last) {
          double at = -1.0;
          for (size_t i = 1; i < curve.size(); ++i) {
            const double f0 = (curve[i - 1]->value - lo) / (hi - lo), f1 = (curve[i]->value - lo) / (hi - lo);
            if (f1 >= level && f0 < level) {
              at = (curve[i - 1]->size + (level - f0) / (f1 - f0) * (curve[i]->size - curve[i - 1]->size)) / l2;
              if (!last) break;
            }
          }
          return at;
        };
        const double c10 = crossing(0.1, true), c90 = crossing(0.9, false);
        if (c10 < 0 || c90 < c10) continue;
        at10.push_back(c10);
        at90.push_back(c90);
        per += fmt(" %s", body) + " " + run + fmt(": %.3f", c10) + fmt(" / %.3f;", c90);
      }
    }
    if (at10.empty()) {
      const std::string why = "no body_round *_n4_reuse rows: microbenchmarks of an arlab before 2026-12-03 19:00";
      keep_prior("l2_reuse_miss_start_fraction", why);
      keep_prior("l2_reuse_miss_full_fraction", why);
      return;
    }
    double c10 = 0, c90 = 0;
    for (size_t i = 0; i < at10.size(); ++i) c10 += at10[i] / at10.size(), c90 += at90[i] / at90.size();
    const double span = c90 - c10;
    const std::string how = "crossings of miss fraction 0.1 / 0.9, as fractions of L2 (body, run: 0.1 / 0.9):" + per;
    set("l2_reuse_miss_start_fraction", std::max(0.0, c10 - span / 8),
        "the mean 0.1 crossing less 1/8 of the span; " + how);
    set("l2_reuse_miss_full_fraction", c90 + span / 8, "the mean 0.9 crossing plus 1/8 of the span; " + how);
  }

  double value_of(const std::string& bench, const std::string& variant, const std::string& metric,
                  const Pred& keep = {}) {
    const auto got = need_rows(bench, variant, metric, keep);
    std::vector<double> v;
    for (const auto* r : got) v.push_back(r->value);
    return median_of(v);
  }

  int max_sms() const {
    int m = 0;
    for (const MicrobenchRow& r : rows_)
      if (r.bench == "bandwidth") m = std::max(m, r.sms);
    return m > 0 ? m : spec_.sm_count;
  }

  const std::vector<MicrobenchRow>& rows_;
  const GpuSpec& spec_;
  MicrobenchQuery last_;  // the rows the constant being derived comes from
  bool emulated_ = false;
  DerivedCalibration out_;
};

}  // namespace

namespace {

// The topology and link cells `arlab calibrate` writes (harness/node.h topology(), harness/nvml.h).
const std::vector<std::string> kMicrobenchTopologies = {"emulated", "mpi", "mpi-shared-gpu"};
const std::vector<std::string> kMicrobenchLinks = {"local", "nvlink", "pcie", "unknown"};
// The rank counts of a node `arlab calibrate` runs on (calibrate/calibrate_core.h kMinRanks, kMaxRanks:
// the cross-rank benches need two ranks; 16 partitions of 8 SMs fit a 132-SM GPU).
constexpr int kMicrobenchMinRanks = 2;
constexpr int kMicrobenchMaxRanks = 16;
// The largest block and cluster a bench launches (CUDA: 1024 threads per block; 16 blocks per cluster
// with the non-portable size, sm_90).
constexpr int kMicrobenchMaxTpb = 1024;
constexpr int kMicrobenchMaxCluster = 16;

std::string listed(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// The provenance cells of a row: one run of `arlab calibrate` writes the same in every row.
std::vector<std::pair<const char*, std::string>> provenance_cells(const MicrobenchRow& r) {
  return {{"git_sha", r.git_sha}, {"date_utc", r.date_utc}, {"gpu", r.gpu}, {"topology", r.topology},
          {"link", r.link}, {"nranks", std::to_string(r.nranks)}, {"sm_per_rank", std::to_string(r.sm_per_rank)}};
}

// Per provenance column, the cell most rows hold, and how many do (the odd row out is the bad one).
std::vector<std::pair<std::string, int>> common_provenance(const std::vector<MicrobenchRow>& rows) {
  std::vector<std::map<std::string, int>> counts(provenance_cells(rows.front()).size());
  for (const MicrobenchRow& r : rows) {
    const auto cells = provenance_cells(r);
    for (size_t c = 0; c < cells.size(); ++c) ++counts[c][cells[c].second];
  }
  std::vector<std::pair<std::string, int>> out;
  for (const auto& m : counts)
    out.push_back(*std::max_element(m.begin(), m.end(), [](const auto& a, const auto& b) { return a.second < b.second; }));
  return out;
}

// What is wrong with one microbenchmark row, beside the cells most rows share: (column, what), or an
// empty column.
std::pair<std::string, std::string> microbench_row_problem(const MicrobenchRow& r,
                                                           const std::vector<std::pair<std::string, int>>& common) {
  const std::vector<std::string> known = microbench_names();
  if (std::find(known.begin(), known.end(), r.bench) == known.end())
    return {"bench", "unknown bench '" + cut_for_message(r.bench) + "' (arlab calibrate runs " + listed(known) + ")"};
  const auto cells = provenance_cells(r);
  for (size_t c = 0; c < cells.size(); ++c)
    if (cells[c].second != common[c].first)
      return {cells[c].first, "'" + cut_for_message(cells[c].second) + "' differs from the '" +
                                  cut_for_message(common[c].first) + "' of " + std::to_string(common[c].second) +
                                  " other row(s): a microbench.csv holds one run of `arlab calibrate`"};
  if (std::find(kMicrobenchTopologies.begin(), kMicrobenchTopologies.end(), r.topology) == kMicrobenchTopologies.end())
    return {"topology", "unknown topology '" + cut_for_message(r.topology) + "' (expected " +
                            listed(kMicrobenchTopologies) + ")"};
  if (std::find(kMicrobenchLinks.begin(), kMicrobenchLinks.end(), r.link) == kMicrobenchLinks.end())
    return {"link", "unknown link '" + cut_for_message(r.link) + "' (expected " + listed(kMicrobenchLinks) + ")"};
  if ((r.link == "local") != (r.topology == "emulated"))
    return {"link", "link '" + r.link + "' with topology '" + r.topology +
                        "': the emulated node's peers are local, and only its are (link local <=> topology emulated)"};
  if (r.nranks < kMicrobenchMinRanks || r.nranks > kMicrobenchMaxRanks)
    return {"nranks", "nranks = " + std::to_string(r.nranks) + " is outside [" + std::to_string(kMicrobenchMinRanks) +
                          ", " + std::to_string(kMicrobenchMaxRanks) + "] (the nodes arlab calibrate runs on)"};
  if (r.sm_per_rank < 1) return {"sm_per_rank", "sm_per_rank = " + std::to_string(r.sm_per_rank) + " must be >= 1"};
  if (r.rank < -1 || r.rank >= r.nranks)
    return {"rank", "rank = " + std::to_string(r.rank) + " is outside [-1, " + std::to_string(r.nranks - 1) +
                        "] (-1: a node-wide figure)"};
  if (r.sms < 0) return {"sms", "sms = " + std::to_string(r.sms) + " must be >= 0"};
  if (r.tpb < 0 || r.tpb > kMicrobenchMaxTpb)
    return {"tpb", "tpb = " + std::to_string(r.tpb) + " is outside [0, " + std::to_string(kMicrobenchMaxTpb) + "]"};
  if (r.cluster < 0 || r.cluster > kMicrobenchMaxCluster)
    return {"cluster",
            "cluster = " + std::to_string(r.cluster) + " is outside [0, " + std::to_string(kMicrobenchMaxCluster) + "]"};
  if (r.size < 0) return {"size", "size = " + csv_num(r.size) + " must be >= 0"};
  if (r.reps < 1) return {"reps", "reps = " + std::to_string(r.reps) + " must be >= 1"};
  for (const auto& [column, v] : {std::pair<const char*, double>{"value", r.value}, {"p10", r.p10}, {"p90", r.p90}})
    if (v < 0 || (v != 0 && (v < kMicrobenchMinValue || v > kMicrobenchMaxValue)))
      return {column, std::string(column) + " = " + csv_num(v) + " " + r.metric + " is outside 0 or [" +
                          csv_num(kMicrobenchMinValue) + ", " + csv_num(kMicrobenchMaxValue) +
                          "] (model/calibration_derive.h kMicrobenchMinValue: a measured figure is never so small "
                          "or so large)"};
  return {"", ""};
}

}  // namespace

std::vector<MicrobenchRow> load_microbench(const std::string& path, std::vector<int>* lines) {
  const CsvRows<MicrobenchRow> table = read_rows<MicrobenchRow>(path);
  if (table.rows.empty())
    throw CsvError(path, table.header_line, "bench",
                   "no microbenchmark rows (only the header): `arlab calibrate` writes one per measured point");
  const auto common = common_provenance(table.rows);
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const auto [column, what] = microbench_row_problem(table.rows[i], common);
    if (!column.empty()) throw CsvError(path, table.lines[i], column, what);
  }
  if (lines) *lines = table.lines;
  return table.rows;
}

DerivedCalibration derive_calibration(const std::vector<MicrobenchRow>& rows, const GpuSpec& spec) {
  if (rows.empty()) throw InvalidArgument("derive_calibration: no microbenchmark rows");
  return Deriver(rows, spec).run();
}

}  // namespace arlab::model
