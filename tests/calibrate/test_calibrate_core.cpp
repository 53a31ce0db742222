// CPU tests of the pure parts of `arlab calibrate` (calibrate/calibrate_core.h): option checks,
// --quick's repetition cap, output preparation (directory created, another schema refused), one
// point's median / p10 / p90, and the provenance columns.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/calibrate_core.h"
#include "common/csv.h"
#include "common/microbench_schema.h"
#include "common/problem.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::calibrate;

namespace {

bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }

// The message of the InvalidArgument `f` throws ("" when it throws none).
template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

// A fresh scratch directory under the system's temporary directory, removed at the end.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    std::string pattern = (std::filesystem::temp_directory_path() / "arlab_calibrate_test_XXXXXX").string();
    dir = mkdtemp(pattern.data());
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

}  // namespace

TEST_CASE("calibrate options: the defaults pass, each bad value is refused naming its option") {
  CalibrateOptions o;
  CHECK(refusal([&] { check_calibrate_options(o); }).empty());
  struct Case {
    std::function<void(CalibrateOptions&)> set;
    std::string fragment;
  };
  const std::vector<Case> cases = {
      {[](CalibrateOptions& c) { c.out_dir = ""; }, "--out-dir: empty path"},
      {[](CalibrateOptions& c) { c.ranks = 1; }, "--ranks = 1 must be in [2, 16]"},
      {[](CalibrateOptions& c) { c.ranks = 17; }, "--ranks = 17"},
      {[](CalibrateOptions& c) { c.device = -1; }, "--device = -1"},
      {[](CalibrateOptions& c) { c.sms_per_rank = -8; }, "--sms-per-rank = -8"},
      {[](CalibrateOptions& c) { c.timeout_ms = 0; }, "--timeout-ms = 0"},
      {[](CalibrateOptions& c) { c.timeout_ms = NAN; }, "--timeout-ms"},
      {[](CalibrateOptions& c) { c.timeout_ms = 2e9; }, "--timeout-ms"},
      {[](CalibrateOptions& c) { c.reps = 2; }, "--reps = 2 must be in [3, 1000]"},
      {[](CalibrateOptions& c) { c.reps = 1001; }, "--reps = 1001"},
  };
  for (const Case& c : cases) {
    CalibrateOptions bad;
    c.set(bad);
    const std::string msg = refusal([&] { check_calibrate_options(bad); });
    INFO(c.fragment);
    CHECK(msg.find(c.fragment) != std::string::npos);
  }
}

TEST_CASE("calibrate options: --out-dir naming a file is refused; a missing one is created") {
  Scratch s;
  const std::string file = (s.dir / "plain_file").string();
  std::ofstream(file) << "x\n";
  CalibrateOptions o;
  o.out_dir = file;
  CHECK(refusal([&] { check_calibrate_options(o); }).find("is not a directory") != std::string::npos);
  o.out_dir = (s.dir / "a" / "b").string();
  CHECK(refusal([&] { prepare_outputs(o); }).empty());
  CHECK(std::filesystem::is_directory(o.out_dir));
  const CalibrateOutputs out = calibrate_outputs(o.out_dir);
  CHECK(out.microbench_csv == (s.dir / "a" / "b" / "microbench.csv").string());
  CHECK(out.calibration_csv == (s.dir / "a" / "b" / "calibration.csv").string());
  // An existing microbench.csv of another schema is never replaced.
  std::ofstream(out.microbench_csv) << "tokens,hidden\n1,2\n";
  CHECK(refusal([&] { prepare_outputs(o); }).find("holds another schema") != std::string::npos);
  // One of ours is.
  std::ofstream(out.microbench_csv) << csv_join(microbench_header()) << "\n";
  CHECK(refusal([&] { prepare_outputs(o); }).empty());
}

TEST_CASE("calibrate options: --quick caps the repetitions, the echo names every option") {
  CalibrateOptions o;
  o.reps = 20;
  CHECK(effective_reps(o) == 20);
  o.quick = true;
  CHECK(effective_reps(o) == kQuickReps);
  o.reps = 3;
  CHECK(effective_reps(o) == 3);
  o.sms_per_rank = 32;
  o.ranks = 4;
  o.ranks_given = true;
  const std::string text = describe(o);
  for (const char* part : {"out-dir out/calibrate", "4 ranks", "device 0", "SMs per rank 32", "3 repetitions",
                           "(quick)", "timeout 2000 ms"})
    CHECK(text.find(part) != std::string::npos);
}

TEST_CASE("make_point: median, p10 and p90 of the samples, the key's columns") {
  const PointKey key{"chase", "hbm", 1, 1, 0, 1073741824.0, "bytes", "latency_ns"};
  // 1..11: median 6, p10 2, p90 10 (linear interpolation between order statistics).
  std::vector<double> v;
  for (int i = 11; i >= 1; --i) v.push_back(i);
  const MicrobenchRow r = make_point(key, v);
  CHECK(r.bench == "chase");
  CHECK(r.variant == "hbm");
  CHECK(r.metric == "latency_ns");
  CHECK(r.size_unit == "bytes");
  CHECK(r.sms == 1);
  CHECK(r.cluster == 0);
  CHECK(r.rank == 0);
  CHECK(r.reps == 11);
  CHECK(near(r.value, 6));
  CHECK(near(r.p10, 2));
  CHECK(near(r.p90, 10));
  CHECK(near(r.size, 1073741824.0));
  // Even count: the median is the mean of the middle two.
  CHECK(near(make_point(key, {1, 2, 3, 10}).value, 2.5));
  PointKey blank = key;
  blank.variant = "";
  CHECK(make_point(blank, {1}).variant == "-");
  CHECK(refusal([&] { make_point(key, {}); }).find("no samples") != std::string::npos);
  CHECK(refusal([&] { make_point(key, {1, INFINITY}); }).find("not finite") != std::string::npos);
}

TEST_CASE("fill_provenance sets the shared columns of every row and leaves the bench columns") {
  std::vector<MicrobenchRow> rows(2);
  rows[0].bench = "launch";
  rows[0].value = 2.5;
  rows[1].bench = "ping_pong";
  rows[1].rank = -1;
  const Provenance p{"abc1234", "2025-01-02T03:04:05Z", "NVIDIA H200", "emulated", "local", 2, 64};
  fill_provenance(rows, p);
  for (const MicrobenchRow& r : rows) {
    CHECK(r.git_sha == "abc1234");
    CHECK(r.date_utc == "2025-01-02T03:04:05Z");
    CHECK(r.gpu == "NVIDIA H200");
    CHECK(r.topology == "emulated");
    CHECK(r.link == "local");
    CHECK(r.nranks == 2);
    CHECK(r.sm_per_rank == 64);
  }
  CHECK(rows[0].bench == "launch");
  CHECK(rows[0].value == 2.5);
  CHECK(rows[1].rank == -1);
  // The CSV row has one cell per header column, provenance first.
  const std::vector<std::string> cells = to_cells(rows[0]);
  CHECK(cells.size() == microbench_header().size());
  CHECK(cells[0] == "abc1234");
  const std::string src = calibration_source(p, "out/calibrate/microbench.csv");
  for (const char* part : {"out/calibrate/microbench.csv", "NVIDIA H200", "emulated", "local", "abc1234",
                           "2025-01-02T03:04:05Z"})
    CHECK(src.find(part) != std::string::npos);
}
