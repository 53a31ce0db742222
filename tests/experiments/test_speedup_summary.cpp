// experiments/speedup_summary.h: the speedup rows, the floor and the goal's figures from a small
// measurement CSV written here, and every committed summary regenerated from its measurement CSV
// (CPU only).
#include <algorithm>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/measurement_schema.h"
#include "experiments/speedup_summary.h"
#include "model/calibration.h"
#include "model/gpu_spec.h"
#include "tests/catch.h"

using namespace arlab;

namespace {

MeasurementRow speedup_row(int tokens, const std::string& policy, const std::string& variant, double skew_free_us) {
  MeasurementRow r;
  r.experiment = "speedup/N=2 H=8192 T=" + std::to_string(tokens) + " bf16 ar_res_rms pairwise oneshot";
  r.git_sha = "abc";
  r.gpu = "NVIDIA H200";
  r.topology = "emulated";
  r.link = "local";
  r.nranks = 2;
  r.dtype = "bf16";
  r.pattern = "ar_res_rms";
  r.algo = "oneshot";
  r.acc = "pairwise";
  r.tokens = tokens;
  r.hidden = 8192;
  r.policy = policy;
  r.tpb = 256;
  r.cluster = 1;
  r.grid = 64;
  r.vecs_per_thread = 4;
  r.skewfree_us_median = skew_free_us;
  r.kernel_us_median = skew_free_us + 0.5;
  r.noise_pct = 0.4;
  r.predicted_us = skew_free_us * 1.1;
  r.check = "pass";
  r.implementation = "fused";
  r.kernel_variant = variant;
  return r;
}

std::string write_csv(const std::vector<MeasurementRow>& rows) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("arlab_speedup_" + std::to_string(::getpid()) + ".csv")).string();
  std::ofstream out(path);
  out << csv_join(measurement_header()) << '\n';
  for (const MeasurementRow& r : rows) out << csv_join(to_cells(r)) << '\n';
  return path;
}

}  // namespace

TEST_CASE("speedup summary: arlab's best (model/auto) and the peer beside the variant, told apart from model/lean") {
  MeasurementRow lean_pick = speedup_row(1, "model", "lean", 4.0);
  lean_pick.policy_note = "searched 126 legal candidates (one-shot only: tokens < ranks; kernel lean)";
  MeasurementRow best = speedup_row(1, "model", "reference", 3.2);  // model/auto chose the reference
  best.policy_note = "searched 252 legal candidates (one-shot only: tokens < ranks; kernel reference, lean)";
  best.cluster = 8;
  best.grid = 8;
  best.vecs_per_thread = 1;
  MeasurementRow peer = speedup_row(1, "flashinfer", "flashinfer", 3.6);
  peer.implementation = "flashinfer-0.7.2";
  std::vector<MeasurementRow> rows = {speedup_row(1, "trtllm", "reference", 4.0), speedup_row(1, "trtllm", "lean", 4.4),
                                      lean_pick, best, peer,
                                      // a problem measured without the two members (earlier runs)
                                      speedup_row(128, "trtllm", "reference", 12.0),
                                      speedup_row(128, "trtllm", "lean", 10.0), speedup_row(128, "model", "lean", 8.0)};
  const std::string path = write_csv(rows);
  const model::GpuSpec spec = model::sm_partition(model::gpu_preset("h200_sxm"), 2);
  const std::vector<SpeedupRow> out = exp::speedup_rows(path, spec, model::default_calibration());
  std::filesystem::remove(path);
  REQUIRE(out.size() == 2);
  // The lean row is model/lean's (4.0 us), not overwritten by model/auto's pick (3.2 us).
  CHECK(out[0].variant_model_us == Approx(4.0));
  CHECK(out[0].best_us == Approx(3.2));
  CHECK(out[0].best_config == "256/8/8/1/oneshot/reference");
  CHECK(out[0].speedup_best == Approx(4.0 / 3.2));
  CHECK(out[0].peer_us == Approx(3.6));
  CHECK(out[0].best_over_peer == Approx(3.6 / 3.2));
  CHECK(out[0].check == "pass");
  CHECK(std::isnan(out[1].best_us));
  CHECK(std::isnan(out[1].best_over_peer));
  CHECK(out[1].best_config.empty());
  const exp::SpeedupGoal g = exp::speedup_goal(out);
  CHECK(g.problems == 2);
  CHECK(g.best_problems == 1);
  CHECK(g.peer_problems == 1);
  CHECK(g.geomean_over_peer == Approx(3.6 / 3.2));
  CHECK(exp::speedup_report(out).find("GOAL best (model/auto) on local TP2") != std::string::npos);
  // A failing peer row fails the problem's check.
  rows[4].check = "fail";
  const std::string path2 = write_csv(rows);
  const std::vector<SpeedupRow> failed = exp::speedup_rows(path2, spec, model::default_calibration());
  std::filesystem::remove(path2);
  CHECK(failed[0].check == "fail");
}

TEST_CASE("speedup summary: one row per problem and variant, ratios of the headline, the floor, the goal") {
  std::vector<MeasurementRow> rows = {speedup_row(1, "trtllm", "reference", 5.0),
                                      speedup_row(1, "trtllm", "lean", 4.5),
                                      speedup_row(1, "model", "lean", 4.0),
                                      speedup_row(128, "trtllm", "reference", 12.0),
                                      speedup_row(128, "trtllm", "lean", 10.0),
                                      speedup_row(128, "model", "lean", 8.0),
                                      // incomplete problem (no model row): left out
                                      speedup_row(256, "trtllm", "reference", 20.0),
                                      speedup_row(256, "trtllm", "lean", 18.0)};
  rows[5].check = "fail";
  MeasurementRow other = speedup_row(1, "trtllm", "reference", 1.0);
  other.experiment = "seed/N=2 H=8192 T=1 bf16 ar_res_rms pairwise oneshot";  // another experiment: ignored
  rows.push_back(other);
  const std::string path = write_csv(rows);
  const model::GpuSpec spec = model::sm_partition(model::gpu_preset("h200_sxm"), 2);
  const model::Calibration cal = model::default_calibration();
  const std::vector<SpeedupRow> out = exp::speedup_rows(path, spec, cal);
  std::filesystem::remove(path);
  REQUIRE(out.size() == 2);
  CHECK(out[0].tokens == 1);
  // The problem's columns come from the reference row (common/node_problem_columns.h).
  CHECK(out[0].gpu == "NVIDIA H200");
  CHECK(out[0].topology == "emulated");
  CHECK(out[0].link == "local");
  CHECK(out[0].nranks == 2);
  CHECK(out[0].hidden == 8192);
  CHECK(out[0].variant == "lean");
  CHECK(out[0].speedup == Approx(5.0 / 4.0));
  CHECK(out[0].speedup_design == Approx(5.0 / 4.5));
  CHECK(out[0].check == "pass");
  CHECK(out[0].variant_model_config == "256/1/64/4");
  CHECK(out[1].check == "fail");
  // Local link: no floor.
  CHECK(out[1].floor_kind == "none");
  CHECK(std::isnan(out[1].floor_us));
  CHECK(std::isnan(out[1].variant_over_floor));
  const exp::SpeedupGoal g = exp::speedup_goal(out);
  CHECK(g.problems == 2);
  CHECK(g.geomean == Approx(std::sqrt(1.25 * 1.5)));
  CHECK(g.min_speedup == Approx(1.25));
  CHECK(g.max_over_floor_at_128 == 0.0);
  CHECK(exp::speedup_report(out).find("GOAL lean on local TP2") != std::string::npos);
  CHECK(exp::speedup_report(out).find("no link floor") != std::string::npos);
  // The same emulated rows with an NVLink spec (as `--merge`, which has no device, passes): still no
  // floor -- the rows' own link decides.
  model::GpuSpec nv = model::gpu_preset("h200_sxm");
  nv.link = model::LinkKind::nvlink;
  const std::string path_local = write_csv(rows);
  const std::vector<SpeedupRow> still_local = exp::speedup_rows(path_local, nv, cal);
  std::filesystem::remove(path_local);
  REQUIRE(still_local.size() == 2);
  CHECK(still_local[1].floor_kind == "none");
  // The rows measured over NVLink (a real node): the link floor and the distance to it.
  for (MeasurementRow& r : rows)
    if (r.experiment.rfind("speedup/", 0) == 0) {
      r.link = "nvlink";
      r.topology = "mpi";
    }
  const std::string path2 = write_csv(rows);
  const std::vector<SpeedupRow> linked = exp::speedup_rows(path2, nv, cal);
  std::filesystem::remove(path2);
  REQUIRE(linked.size() == 2);
  CHECK(linked[1].floor_kind == "link");
  CHECK(linked[1].variant_over_floor == Approx(8.0 / linked[1].floor_us));
  CHECK(exp::speedup_goal(linked).max_over_floor_at_128 == Approx(linked[1].variant_over_floor));
  CHECK(exp::speedup_summary_path("a/speedup.csv") == "a/speedup_summary.csv");
}

TEST_CASE("speedup summary: the NVLink floor is (N-1) S one way at the calibrated link rate") {
  model::GpuSpec spec = model::gpu_preset("h200_sxm");
  spec.link = model::LinkKind::nvlink;
  const model::Calibration cal = model::default_calibration();
  const exp::Floor f = exp::speedup_floor(2, 8192, 128, 2, spec, cal);
  CHECK(f.kind == "link");
  CHECK(f.us == Approx(128.0 * 8192 * 2 / (spec.link_gbps * cal.link_efficiency) / 1e3));
  CHECK(exp::speedup_floor(4, 8192, 128, 2, spec, cal).us == Approx(3 * f.us));
}

TEST_CASE("speedup summary: a CSV without kernel_variant is refused by name") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("arlab_speedup_old_" + std::to_string(::getpid()) + ".csv")).string();
  const model::GpuSpec spec = model::gpu_preset("h200_sxm");
  const auto message = [&] {
    try {
      exp::speedup_rows(path, spec, model::default_calibration());
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(no exception)");
  };
  // Not a measurement CSV at all.
  { std::ofstream(path) << "experiment,policy\nspeedup/x,trtllm\n"; }
  CHECK(message().find(path + ":1: column 'git_sha': header lacks this column") != std::string::npos);
  // A measurement CSV written before kernel variants (56 columns, data/h200/exp/fusion_emulated.csv's).
  {
    std::vector<std::string> header = measurement_header();
    header.erase(std::find(header.begin(), header.end(), "kernel_variant"), header.end());
    REQUIRE(header.size() == 56);
    std::ofstream(path) << csv_join(header) << "\n";
  }
  CHECK(message().find(path + ":1: column 'kernel_variant': no column 'kernel_variant'") != std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("speedup summary: a row cut short is refused, naming file and line") {
  std::vector<MeasurementRow> rows = {speedup_row(1, "trtllm", "reference", 5.0)};
  const std::string path = write_csv(rows);
  { std::ofstream(path, std::ios::app) << "speedup/N=2 H=8192 T=1 bf16,abc\n"; }
  const model::GpuSpec spec = model::gpu_preset("h200_sxm");
  CHECK_THROWS_WITH(exp::speedup_rows(path, spec, model::default_calibration()),
                    Catch::Contains(path + ":3: column 'date_utc': row has 2 cells"));
  std::filesystem::remove(path);
}

TEST_CASE("speedup summary: every committed summary regenerates from its measurement CSV, cell by cell") {
  // As `arlab exp speedup` wrote them on the emulated H200 TP2 node (cli/cli_exp.cpp
  // write_speedup_summary): each rank an H200 partition of 64 SMs, the emulated node's calibration
  // (--calibration auto: data/calibration/h200_emulated.csv). The node has no link, so neither shapes a
  // cell here (floor_kind none), but they are what the writer used.
  const std::string data = ARLAB_SOURCE_DIR "/data/";
  const model::GpuSpec partition = model::sm_partition(model::gpu_preset("h200_sxm"), 2);
  const model::Calibration cal = model::load_calibration(data + "calibration/h200_emulated.csv");
  // `arlab exp speedup --merge` has no device: it passes the whole H200 (an NVLink spec); the rows'
  // own link decides the floor, so the emulated rows' summaries come out the same.
  for (const model::GpuSpec& spec : {partition, model::gpu_preset("h200_sxm")})
  for (const std::string process : {"", "_p2", "_p3", "_p4", "_p5", "_p6", "_wide", "_wide2", "_wide3", "_wide3_p2"}) {
    const std::string measurements = data + "h200/exp/speedup_emulated" + process + ".csv";
    const std::string summary = exp::speedup_summary_path(measurements);
    INFO(summary);
    std::string text = csv_join(speedup_header()) + "\n";
    for (const SpeedupRow& r : exp::speedup_rows(measurements, spec, cal)) text += csv_join(to_cells(r)) + "\n";
    std::ifstream committed_in(summary, std::ios::binary);
    std::stringstream committed;
    committed << committed_in.rdbuf();
    // Line by line and cell by cell, so a difference names its place.
    std::stringstream want(committed.str()), got(text);
    std::string want_line, got_line;
    int line = 0;
    const std::vector<std::string> header = speedup_header();
    while (std::getline(want, want_line)) {
      ++line;
      REQUIRE(std::getline(got, got_line));
      const std::vector<std::string> want_cells = csv_split(want_line), got_cells = csv_split(got_line);
      REQUIRE(got_cells.size() == want_cells.size());
      for (size_t c = 0; c < want_cells.size(); ++c) {
        INFO("line " << line << ", column " << (c < header.size() ? header[c] : "?"));
        CHECK(got_cells[c] == want_cells[c]);
      }
    }
    CHECK_FALSE(std::getline(got, got_line));  // no row more than the committed file
    // The header and 14 problems (TP2, H 4096 / 8192, tokens 1-512), or issue 24's 90 (the wide grid;
    // _wide2 and _wide3 with arlab's best and FlashInfer beside them in every problem).
    CHECK(line == (process == "_wide3_p2" ? 71 : process.rfind("_wide", 0) == 0 ? 91 : 15));  // _wide3_p2: TP2 only
    CHECK(text == committed.str());              // byte for byte
  }
  // The run with arlab's best and the peer in every group: both figures in every row.
  for (const std::string run : {"_wide2", "_wide3", "_wide3_p2"})
  for (const SpeedupRow& r : exp::speedup_rows(data + "h200/exp/speedup_emulated" + run + ".csv", partition, cal)) {
    CHECK(std::isfinite(r.best_us));
    CHECK(std::isfinite(r.best_over_peer));
    CHECK(r.check == "pass");
  }
}
