// experiments/peers_summary.h: the rows against FlashInfer from a small measurement CSV and its ratio
// CSV written here -- the pairing by group, the speedup and its CI (the ratio row inverted), the gate
// columns, the geometric means of the report (CPU only).
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/implementations.h"
#include "common/measurement_headline.h"
#include "common/measurement_schema.h"
#include "common/peers_schema.h"
#include "common/ratio_schema.h"
#include "experiments/exp_csv.h"
#include "experiments/peers_summary.h"
#include "tests/catch.h"

using namespace arlab;

namespace {

MeasurementRow peers_row(const std::string& group, int tokens, const std::string& policy, const std::string& impl,
                         const std::string& variant, double us) {
  MeasurementRow r;
  r.experiment = "peers/N=2 H=4096 T=" + std::to_string(tokens) + " bf16 ar_res_rms pairwise oneshot";
  r.git_sha = "abc";
  r.group_id = group;
  r.gpu = "NVIDIA H200";
  r.topology = "emulated";
  r.link = "local";
  r.nranks = 2;
  r.dtype = "bf16";
  r.pattern = "ar_res_rms";
  r.algo = "oneshot";
  r.acc = "pairwise";
  r.tokens = tokens;
  r.hidden = 4096;
  r.policy = policy;
  r.tpb = 512;
  r.cluster = 1;
  r.grid = tokens;
  r.vecs_per_thread = 1;
  r.headline = kHeadlineSkewFree;
  r.skewfree_us_median = us;
  r.kernel_us_median = us + 0.3;
  r.start_skew_us_median = policy == "flashinfer" ? 0.25 : 0.5;
  r.check = "pass";
  r.norm_max_ulp = policy == "flashinfer" ? 1 : 0;
  r.implementation = impl;
  r.kernel_variant = variant;
  return r;
}

RatioRow ratio(const std::string& group, const std::string& numerator, const std::string& cfg, double v, double lo,
               double hi) {
  RatioRow r;
  r.group_id = group;
  r.numerator = numerator;
  r.numerator_cfg = cfg;
  r.denominator = exp::kFlashinferMember;
  r.ratio = v;
  r.ci_lo = lo;
  r.ci_hi = hi;
  return r;
}

}  // namespace

TEST_CASE("peers summary: every member against FlashInfer of its own group, CIs from the ratio rows") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("arlab_peers_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "peers.csv").string();
  const std::string fi = std::string("flashinfer-") + flashinfer_version();
  const std::vector<MeasurementRow> rows = {
      peers_row("g1", 1, "flashinfer", fi, "flashinfer", 4.0), peers_row("g1", 1, "trtllm", "fused", "reference", 5.0),
      peers_row("g1", 1, "model", "fused", "lean", 3.2),       peers_row("g1", 1, "vllm", "vllm", "reference", 8.0),
      peers_row("g2", 128, "trtllm", "fused", "reference", 9.0),  // a group without FlashInfer: left out
  };
  {
    std::ofstream out(csv);
    out << csv_join(measurement_header()) << '\n';
    for (const MeasurementRow& r : rows) out << csv_join(to_cells(r)) << '\n';
    std::ofstream rt(exp::ratios_path_of(csv));
    rt << csv_join(ratio_header()) << '\n';
    rt << csv_join(to_cells(ratio("g1", "trtllm", "512/1/1/1/oneshot", 1.25, 1.2, 1.3))) << '\n';
    rt << csv_join(to_cells(ratio("g1", "model/lean", "512/1/1/1/oneshot/lean", 0.8, 0.78, 0.82))) << '\n';
  }
  const std::vector<PeersRow> got = exp::peers_rows(csv);
  REQUIRE(got.size() == 3);
  CHECK(got[0].member == "trtllm");
  // The problem's columns come from the member's row (common/node_problem_columns.h).
  CHECK(got[0].gpu == "NVIDIA H200");
  CHECK(got[0].topology == "emulated");
  CHECK(got[0].link == "local");
  CHECK(got[0].nranks == 2);
  CHECK(got[0].hidden == 4096);
  CHECK(got[0].tokens == 1);
  CHECK(got[0].speedup == Approx(4.0 / 5.0));
  CHECK(got[0].speedup_ci_lo == Approx(1.0 / 1.3));
  CHECK(got[0].speedup_ci_hi == Approx(1.0 / 1.2));
  CHECK(got[0].flashinfer_norm_max_ulp == 1);
  CHECK(got[0].flashinfer_config == "512/1/1/1/oneshot/flashinfer");
  CHECK(got[0].flashinfer_implementation == "flashinfer-0.7.2");
  CHECK(got[0].member_max_us == Approx(5.3));
  CHECK(got[0].flashinfer_max_us == Approx(4.3));
  CHECK(got[0].member_start_skew_us == Approx(0.5));
  CHECK(got[0].flashinfer_start_skew_us == Approx(0.25));
  CHECK(got[1].member == "model/auto");  // the model policy picked the lean body: arlab's best
  CHECK(got[1].speedup == Approx(4.0 / 3.2));
  CHECK(got[1].speedup_ci_lo == Approx(1.0 / 0.82));
  CHECK(got[2].member == "vllm");
  CHECK(got[2].implementation == "vllm");
  CHECK(std::isnan(got[2].speedup_ci_lo));  // no ratio row for it
  const std::string report = exp::peers_report(got);
  CHECK(report.find("VS-FLASHINFER local N=2 model/auto       geomean 1.250x over 1 problems (min 1.250x, max 1.250x); median start skew 0.50 us, FlashInfer's 0.25 us") != std::string::npos);
  CHECK(report.find("VS-FLASHINFER local N=2 trtllm           geomean 0.800x") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("peers summary: the committed summary regenerates from the committed measurement and ratio CSVs") {
  // data/h200/exp/peers_emulated*.csv: `arlab exp peers --nranks 2 4 8` on the emulated H200 node
  // (data/h200/README.md), the summary written by `arlab exp peers --merge`.
  const std::string measurements = ARLAB_SOURCE_DIR "/data/h200/exp/peers_emulated.csv";
  const std::string summary = exp::peers_summary_path(measurements);
  std::string text = csv_join(peers_header()) + "\n";
  const std::vector<PeersRow> rows = exp::peers_rows(measurements);
  for (const PeersRow& r : rows) text += csv_join(to_cells(r)) + "\n";
  std::ifstream committed_in(summary, std::ios::binary);
  std::stringstream committed;
  committed << committed_in.rdbuf();
  CHECK(text == committed.str());
  // 216 problems (TP 2/4/8 x 6 H x 12 token counts), each trtllm and model/auto, vLLM where exact;
  // every member and FlashInfer passed the gate, and every ratio row was found (a CI on each).
  CHECK(rows.size() == 2 * 216 + 134);
  for (const PeersRow& r : rows) {
    INFO(r.nranks << " " << r.hidden << " " << r.tokens << " " << r.member);
    CHECK(r.check == "pass");
    CHECK(r.flashinfer_check == "pass");
    // The CI bounds are inverted ratio bounds: equal to the speedup where a bound is the median itself.
    CHECK(r.speedup_ci_lo <= r.speedup * (1 + 1e-12));
    CHECK(r.speedup <= r.speedup_ci_hi * (1 + 1e-12));
  }
}

