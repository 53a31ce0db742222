// Calibration CSV round trip and error reporting, measurement CSV reading, statistics, validation
// (errors, Spearman, regret) and the fit's recovery of known constants from model-generated rows.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unistd.h>

#include "common/csv.h"
#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/output_file.h"
#include "common/validation_schema.h"
#include "model/calibration.h"
#include "model/calibration_derive.h"
#include "model/fit.h"
#include "model/measurements.h"
#include "model/model_terms.h"
#include "model/stats.h"
#include "model/synthetic.h"
#include "model/validate.h"
#include "tests/catch.h"

using namespace arlab;
using namespace arlab::model;

namespace {
// A file in the system's temporary directory (never the source tree), named after this process so
// concurrent runs do not collide, removed at scope exit.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& name, const std::string& content = "")
      : path((std::filesystem::temp_directory_path() /
              ("arlab_test_" + std::to_string(static_cast<long>(getpid())) + "_" + name))
                 .string()) {
    std::ofstream(path, std::ios::trunc) << content;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

// Runs f, expects a CsvError at (line, column), returns its message.
template <class F>
std::string expect_csv_error(F f, int line, const std::string& column) {
  try {
    f();
  } catch (const CsvError& e) {
    CHECK(e.line == line);
    CHECK(e.column == column);
    return e.what();
  }
  FAIL("no CsvError thrown");
  return "";
}

Calibration scaled_truth() {
  // Known constants: every fitted constant moved away from its default by a different factor.
  Calibration t = default_calibration();
  const double factors[] = {1.25, 0.8, 1.2, 0.85, 1.3, 0.9, 1.15, 0.75};
  const auto names = default_fit_parameters();
  for (size_t i = 0; i < names.size(); ++i) set_constant(t, names[i], get_constant(t, names[i]) * factors[i % 8]);
  return t;
}
}  // namespace

TEST_CASE("calibration: the committed default CSV equals default_calibration()", "[calibration]") {
  const Calibration c = load_calibration(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/default.csv");
  const Calibration d = default_calibration();
  for (const auto& info : calibration_constants()) {
    INFO(info.name);
    CHECK(get_constant(c, info.name) == get_constant(d, info.name));
  }
}

TEST_CASE("calibration: save / load round-trips exactly", "[calibration]") {
  Calibration c = default_calibration();
  // Values with long decimal expansions, each inside its constant's physical range.
  const auto infos = calibration_constants();
  double fraction = 0;
  for (const auto& info : infos)
    set_constant(c, info.name,
                 info.min_value + (info.max_value - info.min_value) * (fraction += 1.0 / (infos.size() + 1.0)));
  TempFile f("roundtrip.csv");
  save_calibration(c, f.path, "test");
  const Calibration back = load_calibration(f.path);
  for (const auto& info : calibration_constants()) CHECK(get_constant(back, info.name) == get_constant(c, info.name));
  // A partial file overrides only what it names.
  TempFile partial("partial.csv", "name,value,unit,source\nl2_latency_ns,123.5,ns,test\n");
  const Calibration p = load_calibration(partial.path);
  CHECK(p.l2_latency_ns == 123.5);
  CHECK(p.dram_latency_ns == default_calibration().dram_latency_ns);
}

TEST_CASE("calibration: malformed CSV names file, line and column", "[calibration][errors]") {
  {
    TempFile f("empty.csv", "");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 1, "name");
    CHECK_THAT(m, Catch::Contains(f.path) && Catch::Contains("empty file"));
  }
  {
    TempFile f("nocol.csv", "name,unit,source\nl2_latency_ns,ns,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 1, "value");
    CHECK_THAT(m, Catch::Contains(f.path + ":1"));
  }
  {
    TempFile f("nonnum.csv", "name,value,unit,source\nl2_latency_ns,250,ns,x\ndram_latency_ns,abc,ns,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 3, "value");
    CHECK_THAT(m, Catch::Contains(f.path + ":3") && Catch::Contains("'abc' is not a number"));
  }
  {
    TempFile f("emptycell.csv", "name,value,unit,source\nl2_latency_ns,,ns,x\n");
    expect_csv_error([&] { load_calibration(f.path); }, 2, "value");
  }
  {
    TempFile f("trailing.csv", "name,value,unit,source\nl2_latency_ns,250ns,ns,x\n");
    expect_csv_error([&] { load_calibration(f.path); }, 2, "value");
  }
  {
    TempFile f("unknown.csv", "name,value,unit,source\nwarp_speed,9,ns,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 2, "name");
    CHECK_THAT(m, Catch::Contains("warp_speed") && Catch::Contains("l2_latency_ns"));
  }
  {
    TempFile f("unit.csv", "name,value,unit,source\nl2_latency_ns,0.25,us,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 2, "unit");
    CHECK_THAT(m, Catch::Contains("'ns'"));
  }
  {
    TempFile f("short.csv", "name,value,unit,source\nl2_latency_ns,250,ns,x\ndram_latency_ns,600\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 3, "unit");
    CHECK_THAT(m, Catch::Contains("2 cells"));
  }
  {
    TempFile f("dup.csv", "name,value,unit,source\nl2_latency_ns,250,ns,x\nl2_latency_ns,260,ns,x\n");
    expect_csv_error([&] { load_calibration(f.path); }, 3, "name");
  }
  {
    TempFile f("negative.csv", "name,value,unit,source\nl2_latency_ns,-1,ns,x\n");
    expect_csv_error([&] { load_calibration(f.path); }, 2, "value");
  }
  {
    // Outside the physical range: file, line, constant, value and range are named.
    TempFile f("zero.csv", "name,value,unit,source\nl2_latency_ns,250,ns,x\nhbm_efficiency,0,fraction,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 3, "value");
    CHECK_THAT(m, Catch::Contains(f.path + ":3") && Catch::Contains("hbm_efficiency = 0") &&
                      Catch::Contains("[0.01, 1]"));
  }
  {
    TempFile f("huge.csv", "name,value,unit,source\nbytes_in_flight_per_sm,1e308,bytes,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 2, "value");
    CHECK_THAT(m, Catch::Contains("bytes_in_flight_per_sm = 1e+308") && Catch::Contains("[128, 1048576]"));
  }
  {
    TempFile f("inf.csv", "name,value,unit,source\nl2_latency_ns,inf,ns,x\n");
    expect_csv_error([&] { load_calibration(f.path); }, 2, "value");
  }
  {
    // A long cell is quoted cut to 80 characters.
    TempFile f("long.csv", "name,value,unit,source\n" + std::string(5000, 'z') + ",1,ns,x\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 2, "name");
    CHECK(m.find(std::string(81, 'z')) == std::string::npos);  // the known names it lists, not the whole cell
    CHECK(m.size() < 5000);
    CHECK_THAT(m, Catch::Contains("(5000 characters)"));
  }
  {
    // A header without rows would leave every built-in prior in place unnoticed.
    TempFile f("header_only.csv", "name,value,unit,source\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 1, "name");
    CHECK_THAT(m, Catch::Contains(f.path + ":1") && Catch::Contains("no rows"));
  }
  {
    TempFile f("extra.csv", "name,value,unit,source,comment\nl2_latency_ns,250,ns,x,y\n");
    const std::string m = expect_csv_error([&] { load_calibration(f.path); }, 1, "comment");
    CHECK_THAT(m, Catch::Contains("unknown column"));
  }
  {
    TempFile f("cr_only.csv", "name,value,unit\rl2_latency_ns,250,ns\r");
    CHECK_THROWS_WITH(load_calibration(f.path), Catch::Contains(f.path + ":1: CR-only line ends"));
  }
  CHECK_THROWS_WITH(load_calibration("/nonexistent/calib.csv"), Catch::Contains("/nonexistent/calib.csv"));
}

TEST_CASE("measurements: read by column name; malformed input names file, line and column", "[measurements][errors]") {
  SyntheticOptions so;
  so.rows = 50;
  const auto rows = synthetic_measurements(default_calibration(), so);
  TempFile f("meas.csv");
  write_measurements(rows, f.path, "test", "model");
  const auto back = read_measurements(f.path);
  REQUIRE(back.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(back[i].config == rows[i].config);
    CHECK(back[i].kernel_us == rows[i].kernel_us);  // exact: csv_num round-trips, cells parsed with strtod
    CHECK(back[i].line == static_cast<int>(i) + 2);
    CHECK(problem_key(back[i]) == problem_key(rows[i]));
  }
  // Break one cell at a time in a copy of the file.
  std::ifstream in(f.path);
  std::string header, line1, line2;
  std::getline(in, header);
  std::getline(in, line1);
  std::getline(in, line2);
  auto replace_col = [&](std::string line, const std::string& col, const std::string& value) {
    // Column index from the header.
    int idx = 0;
    size_t pos = 0;
    while (header.substr(pos, header.find(',', pos) - pos) != col) {
      pos = header.find(',', pos) + 1;
      ++idx;
    }
    size_t start = 0;
    for (int i = 0; i < idx; ++i) start = line.find(',', start) + 1;
    const size_t end = line.find(',', start);
    return line.substr(0, start) + value + line.substr(end);
  };
  {
    TempFile g("meas_tokens.csv", header + "\n" + line1 + "\n" + replace_col(line2, "tokens", "12x") + "\n");
    const std::string m = expect_csv_error([&] { read_measurements(g.path); }, 3, "tokens");
    CHECK_THAT(m, Catch::Contains("'12x' is not an integer"));
  }
  {
    TempFile g("meas_time.csv", header + "\n" + replace_col(line1, "kernel_us_median", "fast") + "\n");
    expect_csv_error([&] { read_measurements(g.path); }, 2, "kernel_us_median");
  }
  {
    TempFile g("meas_dtype.csv", header + "\n" + replace_col(line1, "dtype", "int8") + "\n");
    const std::string m = expect_csv_error([&] { read_measurements(g.path); }, 2, "dtype");
    CHECK_THAT(m, Catch::Contains("int8"));
  }
  {
    std::string h = header;
    h.replace(h.find("kernel_us_median"), 16, "kernel_us_mean__");
    TempFile g("meas_missing.csv", h + "\n" + line1 + "\n");
    expect_csv_error([&] { read_measurements(g.path); }, 1, "kernel_us_median");
  }
  {
    TempFile g("meas_empty.csv", "");
    expect_csv_error([&] { read_measurements(g.path); }, 1, "experiment");
  }
}

TEST_CASE("stats: APE, median, ranks with ties, Spearman", "[stats]") {
  CHECK(abs_pct_error(11, 10) == Approx(0.1));
  CHECK(abs_pct_error(9, 10) == Approx(0.1));
  CHECK_THROWS_AS(abs_pct_error(1, 0), InvalidArgument);
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({}) == 0);
  const auto r = average_ranks({10, 20, 20, 5});
  CHECK(r == std::vector<double>{2, 3.5, 3.5, 1});
  CHECK(spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == Approx(1));
  CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == Approx(-1));
  // Ties: ranks (1, 2.5, 2.5, 4) vs (1, 2, 3, 4): 4.5 / sqrt(4.5 * 5).
  CHECK(spearman({1, 2, 2, 3}, {10, 20, 30, 40}) == Approx(4.5 / std::sqrt(22.5)));
  CHECK(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
}

TEST_CASE("validate: exact model rows give zero error, rank 1 and zero model regret", "[validate]") {
  const Calibration truth = scaled_truth();
  SyntheticOptions so;
  so.rows = 400;
  so.gpus = {"h200_sxm", "b200"};
  const auto rows = synthetic_measurements(truth, so);
  const ValidationReport exact = validate_measurements(rows, truth, {});
  CHECK(exact.rows_used == static_cast<int>(rows.size()));
  CHECK(exact.mape < 1e-12);
  CHECK(exact.spearman_all == Approx(1.0));
  CHECK(exact.spearman_per_problem_mean == Approx(1.0));
  const PolicyRegret& model = exact.regrets.back();
  CHECK(model.evaluated == exact.problems);
  CHECK(model.max == 0);
  for (const auto& pr : exact.regrets) {
    CHECK(pr.evaluated + pr.unmeasured + pr.refused <= exact.problems);
    CHECK(pr.mean >= 0);
  }
  // The peer policies' configurations are among the synthetic rows (they are always emitted).
  CHECK(exact.regrets[0].evaluated + exact.regrets[0].refused == exact.problems);
  // With the wrong constants the errors are real.
  const ValidationReport off = validate_measurements(rows, default_calibration(), {});
  CHECK(off.mape > 0.01);
  CHECK(off.median_ape > 0);

  // A policy whose configuration was not measured is counted, not guessed.
  std::vector<MeasuredRow> no_trtllm;
  for (const auto& r : rows)
    if (r.policy != "trtllm" && r.policy != "occupancy") no_trtllm.push_back(r);
  const ValidationReport partial = validate_measurements(no_trtllm, truth, {});
  CHECK(partial.regrets[1].unmeasured > 0);

  // The optional full search counts the problems it finds no legal candidate for (here: one problem
  // whose kernel asks for more shared memory than any SM has), never dropping them silently.
  std::vector<MeasuredRow> few(rows.begin(), rows.begin() + 40);
  for (auto& r : few)
    if (r.problem == few[0].problem && r.gpu == few[0].gpu) r.resources.smem_per_block_bytes = 1 << 20;
  ValidateOptions search;
  search.model_global_search = true;
  const ValidationReport searched = validate_measurements(few, truth, search);
  CHECK(searched.model_global_search_failed >= 1);
  CHECK(searched.model_global_in_measured + searched.model_global_search_failed <= searched.problems);

  // Failed correctness checks are excluded.
  std::vector<MeasuredRow> failed = rows;
  failed[0].check_passed = false;
  CHECK(validate_measurements(failed, truth, {}).rows_failed_check == 1);

  // The per-row CSV has the schema's header and one line per row.
  TempFile out("validation.csv");
  write_validation_csv(rows, exact, out.path);
  std::ifstream in(out.path);
  std::string header;
  std::getline(in, header);
  CHECK(header == csv_join(validation_header()));
  size_t lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  CHECK(lines == rows.size());
}

TEST_CASE("fit recovers known constants from rows generated by the model", "[fit]") {
  const Calibration truth = scaled_truth();
  SyntheticOptions so;
  so.rows = 1500;
  so.seed = 7;
  const auto rows = synthetic_measurements(truth, so);
  const FitReport rep = fit_calibration(rows, default_calibration(), FitOptions{});
  INFO("stop: " << rep.stop_reason << " after " << rep.iterations << " iterations");
  CHECK(rep.test_rows > 0);
  CHECK(rep.train_rows > rep.test_rows);
  CHECK(rep.train_mape_start > 0.02);  // the start really is off
  for (const auto& c : rep.constants) {
    INFO(c.name << ": start " << c.start << ", fitted " << c.fitted << ", truth " << get_constant(truth, c.name));
    CHECK(c.fitted == Approx(get_constant(truth, c.name)).epsilon(1e-4));
  }
  CHECK(rep.test_mape_fitted < 1e-6);
  WARN("fit on " << rep.train_rows << " model-generated rows: held-out MAPE " << 100 * rep.test_mape_start << " % -> "
                 << 100 * rep.test_mape_fitted << " % in " << rep.iterations << " iterations");
}

TEST_CASE("fit with measurement-like noise stays close and generalizes", "[fit]") {
  const Calibration truth = scaled_truth();
  SyntheticOptions so;
  so.rows = 1500;
  so.seed = 11;
  so.noise_sigma = 0.03;
  const auto rows = synthetic_measurements(truth, so);
  const FitReport rep = fit_calibration(rows, default_calibration(), FitOptions{});
  CHECK(rep.test_mape_fitted < rep.test_mape_start);
  CHECK(rep.test_mape_fitted < 0.04);  // ~ the noise level (E|N(0, 0.03)| = 2.4 %)
  WARN("fit with 3 % noise: held-out MAPE " << 100 * rep.test_mape_start << " % -> " << 100 * rep.test_mape_fitted
                                            << " %");
}

TEST_CASE("fit: bad requests are refused", "[fit]") {
  FitOptions o;
  o.parameters = {"no_such_constant"};
  SyntheticOptions so;
  so.rows = 30;
  const auto rows = synthetic_measurements(default_calibration(), so);
  CHECK_THROWS_WITH(fit_calibration(rows, default_calibration(), o), Catch::Contains("no_such_constant"));
  CHECK_THROWS_AS(fit_calibration({}, default_calibration(), FitOptions{}), InvalidArgument);
}

TEST_CASE("fit: the split holds out whole problems, about one in five", "[fit]") {
  SyntheticOptions so;
  so.rows = 3000;
  const auto rows = synthetic_measurements(default_calibration(), so);
  std::map<std::string, bool> held;
  for (const auto& r : rows) {
    const auto [it, inserted] = held.emplace(problem_key(r), is_held_out(r, 5));
    CHECK(it->second == is_held_out(r, 5));  // every row of a problem on the same side
  }
  int out = 0;
  for (const auto& kv : held) out += kv.second;
  const double fraction = static_cast<double>(out) / static_cast<double>(held.size());
  INFO(out << " of " << held.size() << " problems held out");
  CHECK(fraction > 0.08);
  CHECK(fraction < 0.35);
  CHECK_FALSE(is_held_out(rows[0], 1));  // holdout_every <= 1: nothing held out
}

TEST_CASE("calibration: every constant's default lies in its documented range", "[calibration]") {
  for (const auto& info : calibration_constants()) {
    INFO(info.name);
    CHECK(info.min_value <= info.default_value);
    CHECK(info.default_value <= info.max_value);
    CHECK(range_violation(info, info.default_value).empty());
    CHECK_FALSE(range_violation(info, std::nan("")).empty());
  }
  // The committed calibration of the real node still loads.
  CHECK_NOTHROW(load_calibration(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/h200_nvlink.csv"));
  // The writer refuses what the reader would refuse.
  Calibration c = default_calibration();
  c.hbm_efficiency = 0;
  TempFile f("refused.csv");
  CHECK_THROWS_WITH(save_calibration(c, f.path, "test"), Catch::Contains("hbm_efficiency"));
}

TEST_CASE("measurements: labels, ranges and problem errors name the right column", "[measurements][errors]") {
  SyntheticOptions so;
  so.rows = 5;
  TempFile f("meas_src.csv");
  write_measurements(synthetic_measurements(default_calibration(), so), f.path, "test", "model");
  std::ifstream in(f.path);
  std::string header, line1;
  std::getline(in, header);
  std::getline(in, line1);
  const std::vector<std::string> names = csv_split(header);
  auto with = [&](const std::string& col, const std::string& value) {
    std::vector<std::string> cells = csv_split(line1);
    const size_t i = static_cast<size_t>(std::find(names.begin(), names.end(), col) - names.begin());
    REQUIRE(i < cells.size());
    cells[i] = value;
    return header + "\n" + csv_join(cells) + "\n";
  };
  struct Case {
    std::string column, value, fragment;
  };
  const std::vector<Case> cases = {
      {"nranks", "3", "nranks = 3"},         {"hidden", "4097", "hidden = 4097"},
      {"policy", "fastest", "fastest"},      {"check", "maybe", "expected pass, fail or skipped"},
      {"link", "fiber", "fiber"},            {"pdl", "2", "expected 0 or 1"},
      {"regs", "300", "[0, 255]"},           {"kernel_us_median", "1e308", "outside its physical range [0.032, 1e+07] us"},
      {"kernel_us_median", "1e-300", "outside its physical range [0.032, 1e+07] us"},
      {"skewfree_us_median", "0.01", "one 32 ns step of the GPU timer"},
      {"kernel_us_median", "0", "outside"},  {"tokens", "0", "tokens = 0"},
      {"dtype", std::string(200000, 'q'), "(200000 characters)"},
  };
  for (const Case& c : cases) {
    INFO(c.column << " = " << c.value.substr(0, 20));
    TempFile g("meas_case.csv", with(c.column, c.value));
    const std::string m = expect_csv_error([&] { read_measurements(g.path); }, 2, c.column);
    CHECK_THAT(m, Catch::Contains(g.path + ":2") && Catch::Contains(c.fragment));
    CHECK(m.size() < 600);
  }
  {
    // A repeated header (two files concatenated) is reported as such.
    TempFile g("meas_duphdr.csv", header + "\n" + header + "\n" + line1 + "\n");
    const std::string m = expect_csv_error([&] { read_measurements(g.path); }, 2, "experiment");
    CHECK_THAT(m, Catch::Contains("repeats the header"));
  }
  {
    // Blank lines, CRLF line ends and a byte-order mark read like the plain file.
    TempFile g("meas_blank.csv", "\xEF\xBB\xBF\r\n" + header + "\r\n\r\n" + line1 + "\r\n  \r\n");
    const auto rows = read_measurements(g.path);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].line == 4);
  }
}

TEST_CASE("CsvAppender: missing newline, CRLF, BOM and blank lines; a different header is refused", "[csv]") {
  const std::vector<std::string> header = {"a", "b", "c"};
  auto contents = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  {
    TempFile f("app_new.csv");
    CsvAppender(f.path, header).append({"1", "2", "3"});
    CHECK(contents(f.path) == "a,b,c\n1,2,3\n");
  }
  {
    TempFile f("app_nonl.csv", "a,b,c\n1,2,3");
    CsvAppender(f.path, header).append({"4", "5", "6"});
    CHECK(contents(f.path) == "a,b,c\n1,2,3\n4,5,6\n");
  }
  {
    TempFile f("app_crlf.csv", "\xEF\xBB\xBF" "a,b,c\r\n1,2,3\r\n");
    CsvAppender(f.path, header).append({"4", "5", "6"});
    CHECK(contents(f.path) == "\xEF\xBB\xBF" "a,b,c\r\n1,2,3\r\n4,5,6\r\n");
  }
  {
    TempFile f("app_blank.csv", "\n\na,b,c\n1,2,3\n\n");
    CsvAppender(f.path, header).append({"4", "5", "6"});
    CHECK(contents(f.path) == "\n\na,b,c\n1,2,3\n\n4,5,6\n");
  }
  {
    TempFile f("app_onlyblank.csv", "\n \n");
    CsvAppender(f.path, header).append({"4", "5", "6"});
    CHECK(contents(f.path) == "a,b,c\n4,5,6\n");
  }
  {
    const std::string before = "\na,x,c\n1,2,3\n";
    TempFile f("app_other.csv", before);
    CHECK_THROWS_WITH(CsvAppender(f.path, header), Catch::Contains("column 2 is 'x', expected 'b'"));
    CHECK(contents(f.path) == before);
  }
  CHECK(header_difference({"a", "b"}, header) == "2 columns, expected 3 (the first 2 agree)");
  CHECK(header_difference(header, header).empty());
  CHECK(cut_for_message(std::string(100, 'x')) == std::string(80, 'x') + "... (100 characters)");
}

TEST_CASE("whole-file outputs: atomic, never over an input or a file of another schema", "[csv]") {
  TempFile in("out_input.csv", "name,value\n");
  CHECK_THROWS_WITH(check_output_path(in.path, {in.path}, "--out"), Catch::Contains("is the input"));
  CHECK_THROWS_WITH(check_output_path("", {}, "--out"), Catch::Contains("empty path"));
  CHECK_THROWS_WITH(check_output_path("/nonexistent_dir_arlab/x.csv", {}, "--out"), Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(check_output_path(std::filesystem::temp_directory_path().string(), {}, "--out"),
                    Catch::Contains("is a directory"));
  // A hard link to the input is the input.
  TempFile link("out_link.csv");
  std::remove(link.path.c_str());
  std::filesystem::create_hard_link(in.path, link.path);
  CHECK_THROWS_WITH(check_output_path(link.path, {in.path}, "--out"), Catch::Contains("is the input"));

  // A measurement file is not replaced by a calibration; an earlier calibration is.
  SyntheticOptions so;
  so.rows = 5;
  TempFile meas("out_meas.csv");
  write_measurements(synthetic_measurements(default_calibration(), so), meas.path, "test", "model");
  std::ifstream before_in(meas.path);
  const std::string before((std::istreambuf_iterator<char>(before_in)), std::istreambuf_iterator<char>());
  CHECK_THROWS_WITH(save_calibration(default_calibration(), meas.path, "test"), Catch::Contains("another schema"));
  std::ifstream after_in(meas.path);
  CHECK(std::string((std::istreambuf_iterator<char>(after_in)), std::istreambuf_iterator<char>()) == before);
  TempFile cal("out_cal.csv");
  save_calibration(default_calibration(), cal.path, "first");
  CHECK_NOTHROW(save_calibration(default_calibration(), cal.path, "second"));
  CHECK(load_calibration(cal.path).l2_latency_ns == default_calibration().l2_latency_ns);
  // Rows not generated by the model are counted (synthetic output refuses such a file).
  CHECK(rows_with_other_timing_source(meas.path, "model") == 0);
  CHECK(rows_with_other_timing_source(meas.path, "cupti") > 0);
}

TEST_CASE("validate and fit refuse degenerate inputs", "[validate][fit][errors]") {
  SyntheticOptions so;
  so.rows = 400;
  std::vector<MeasuredRow> rows = synthetic_measurements(default_calibration(), so);
  for (size_t i = 0; i < rows.size(); ++i) rows[i].line = static_cast<int>(i) + 2;  // as if read from a file
  const MeasuredRow trained = *std::find_if(rows.begin(), rows.end(), [](const MeasuredRow& r) {
    return !is_held_out(r, FitOptions{}.holdout_every);
  });
  // No usable row: nothing to judge.
  std::vector<MeasuredRow> failed = rows;
  for (auto& r : failed) r.check_passed = false;
  const ValidationReport none = validate_measurements(failed, default_calibration(), {});
  CHECK_THROWS_WITH(require_usable_rows(failed, none, "m.csv"), Catch::Contains("m.csv:2: no usable rows"));
  CHECK_THROWS_WITH(require_usable_rows({}, validate_measurements({}, default_calibration(), {}), "m.csv"),
                    Catch::Contains("m.csv:1: no data rows"));
  CHECK_NOTHROW(require_usable_rows(rows, validate_measurements(rows, default_calibration(), {}), "m.csv"));

  FitOptions o;
  o.source = "m.csv";
  // One row, or the same row many times: fewer distinct points than constants.
  CHECK_THROWS_WITH(fit_calibration({trained}, default_calibration(), o), Catch::Contains("fewer than the 8"));
  CHECK_THROWS_WITH(fit_calibration(std::vector<MeasuredRow>(50, trained), default_calibration(), o),
                    Catch::Contains("1 distinct (problem, configuration) points"));
  CHECK_THROWS_WITH(fit_calibration(failed, default_calibration(), o), Catch::Contains("no usable training rows"));
  for (int holdout : {0, 1, -3}) {
    o.holdout_every = holdout;
    CHECK_THROWS_WITH(fit_calibration(rows, default_calibration(), o), Catch::Contains("holds out nothing"));
  }
  o.holdout_every = 5;
  for (int iterations : {0, -1}) {
    o.max_iterations = iterations;
    CHECK_THROWS_WITH(fit_calibration(rows, default_calibration(), o), Catch::Contains("--max-iter"));
  }
  o.max_iterations = 100;
  o.parameters = {"l2_latency_ns", "l2_latency_ns"};
  CHECK_THROWS_WITH(fit_calibration(rows, default_calibration(), o), Catch::Contains("listed twice"));
  // Synthetic options: non-finite or negative noise.
  SyntheticOptions bad = so;
  bad.noise_sigma = std::nan("");
  CHECK_THROWS_AS(synthetic_measurements(default_calibration(), bad), InvalidArgument);
  bad.noise_sigma = -1;
  CHECK_THROWS_AS(synthetic_measurements(default_calibration(), bad), InvalidArgument);
  bad = so;
  bad.rows = 0;
  CHECK_THROWS_AS(synthetic_measurements(default_calibration(), bad), InvalidArgument);
}

namespace {
size_t count_notes(const DerivedCalibration& d, const std::string& text);
}  // namespace

TEST_CASE("the committed measured calibrations are what their microbenchmark files derive") {
  // data/calibration/README.md: `arlab save-calibration FILE --from-microbench MICROBENCH
  // [--exchange-microbench MICROBENCH_N8 MICROBENCH_GRID MICROBENCH_GRID_RERUN --pushed-microbench
  // MICROBENCH_PUSHED]`.
  for (const std::string node : {"nvlink", "emulated"}) {
    INFO(node);
    const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
    auto rows = load_microbench(dir + "h200_" + node + "_microbench.csv");
    if (node == "emulated") {  // + the exchange rows of a node of 8 ranks (--exchange-microbench)
      const auto more = load_microbench(dir + "h200_emulated_n8_exchange_microbench.csv");
      REQUIRE(!more.empty());
      for (const MicrobenchRow& r : more)
        if (r.bench == "exchange") rows.push_back(r);
      // The cluster_sync pushed rows of the mbarrier exchange replace the main file's (--pushed-microbench).
      const auto pushed = [](const MicrobenchRow& r) { return r.bench == "cluster_sync" && r.variant == "pushed"; };
      const size_t before = rows.size();
      rows.erase(std::remove_if(rows.begin(), rows.end(), pushed), rows.end());
      REQUIRE(rows.size() < before);
      size_t added = 0;
      for (const MicrobenchRow& r : load_microbench(dir + "h200_emulated_pushed_microbench.csv"))
        if (pushed(r)) {
          rows.push_back(r);
          ++added;
        }
      REQUIRE(added == 6);  // clusters 2, 4, 8 x tpb 128, 1024
      // + the exchange all_to_all_grid rows of two TP2 runs (more --exchange-microbench files).
      for (const char* file :
           {"h200_emulated_exchange_grid_microbench.csv", "h200_emulated_exchange_grid_microbench_rerun.csv"}) {
        size_t grid = 0;
        for (const MicrobenchRow& r : load_microbench(dir + file))
          if (r.bench == "exchange") {
            rows.push_back(r);
            ++grid;
          }
        REQUIRE(grid == 12);  // blocks 1, 4, 16, 64 x tpb 128, 512, 1024
      }
      // + the rows of benches and variants added to `arlab calibrate` since (--added-microbench: TP2 runs
      // of 2026-12-03 and -04): launch store_1 / store_8, round_load push_store_few / push_store_1_few, in
      // most epilogue_round bf16_ar_res_rms_vpt2 / _vpt4, in the body_round files body_round; the ar_vpt
      // and fp4_vpt files hold only the epilogue_round bf16_ar_vpt2 / _vpt4 and bf16_ar_res_rms_fp4_vpt2 /
      // _vpt4 rows.
      std::set<std::pair<std::string, std::string>> own;
      for (const MicrobenchRow& r : rows) own.insert({r.bench, r.variant});
      for (const char* file : {"h200_emulated_drain_microbench.csv", "h200_emulated_drain_microbench_rerun.csv",
                               "h200_emulated_vpt_microbench.csv", "h200_emulated_vpt_microbench_rerun.csv",
                               "h200_emulated_ar_vpt_microbench.csv", "h200_emulated_ar_vpt_microbench_rerun.csv",
                               "h200_emulated_fp4_vpt_microbench.csv", "h200_emulated_fp4_vpt_microbench_rerun.csv",
                               "h200_emulated_body_round_microbench.csv",
                               "h200_emulated_body_round_microbench_rerun.csv",
                               "h200_emulated_body_round_vpt_microbench.csv",
                               "h200_emulated_body_round_vpt_microbench_rerun.csv",
                               "h200_emulated_body_round_cold_microbench.csv",
                               "h200_emulated_body_round_cold_microbench_rerun.csv",
                               "h200_emulated_body_round_fp8_microbench.csv",
                               "h200_emulated_body_round_fp8_microbench_rerun.csv",
                               "h200_emulated_body_round_v2_microbench.csv",
                               "h200_emulated_body_round_v2_microbench_rerun.csv",
                               "h200_emulated_body_round_v3_microbench.csv",
                               "h200_emulated_body_round_v3_microbench_rerun.csv",
                               "h200_emulated_s29_microbench.csv", "h200_emulated_s29_microbench_rerun.csv",
                               "h200_emulated_n2_rows_microbench.csv", "h200_emulated_n4_rows_microbench.csv",
                               "h200_emulated_n4_rows_microbench_rerun.csv", "h200_emulated_n8_rows_microbench.csv",
                               "h200_emulated_n8_rows_microbench_rerun.csv", "h200_emulated_s50_odd_microbench.csv"}) {
        size_t drain = 0, vpt = 0, body = 0, rows_bench = 0, odd = 0;
        for (const MicrobenchRow& r : load_microbench(dir + file))
          if (own.count({r.bench, r.variant}) == 0) {
            rows.push_back(r);
            drain += r.bench == "launch";
            vpt += r.variant.find("_vpt") != std::string::npos;
            body += r.bench == "body_round";
            rows_bench += r.bench == "bandwidth" && r.variant.rfind("rows_", 0) == 0;
            odd += r.bench == "epilogue_round" && r.variant.rfind("bf16_ar_res_rms_fp4_odd", 0) == 0;
          }
        const std::string name = file;
        // The session-50 run's NVFP4 odd-tpb rows alone (the epilogue_round rows of its whole `arlab calibrate -n
        // 2` run, h200_emulated_s50_microbench.csv, whose other new variants this calibration does not take):
        // 4 configurations x (alone, busy) x (block 0, slowest, span).
        if (name.find("_s50_odd_") != std::string::npos) {
          REQUIRE(odd == 24u);
          REQUIRE(drain + vpt + body + rows_bench == 0u);
          continue;
        }
        // The session-33 runs (-n 2, 4, 8): their bandwidth rows_* rows alone, 5 H x packed / padded x read /
        // write x alone / _allbusy (hbm_rows_fraction_*).
        if (name.find("_rows_") != std::string::npos) {
          REQUIRE(rows_bench == 40u);
          REQUIRE(drain + vpt + body == 0u);
          continue;
        }
        // The session-29 runs are whole `arlab calibrate -n 2` runs of cc34a4b: every bench and variant the
        // main file lacks, counted apart below.
        if (name.find("_s29_") != std::string::npos) {
          // launch store_1 / store_8 as above; the RMSNorm, ar and NVFP4 vpt rows (3 x 36); every body_round
          // row of the bench as of cc34a4b
          REQUIRE(drain == 12u);
          REQUIRE(vpt == 108u);
          REQUIRE(body == 1458u);
          continue;
        }
        // the body_round rows of their runs only (cold: every body_round row; fp8: the FP8 rows; v2: every
        // body_round row of two runs after the lean N >= 8 change of edad13c)
        const bool cold = name.find("_cold_") != std::string::npos || name.find("_fp8_") != std::string::npos ||
                          name.find("_v2_") != std::string::npos || name.find("_v3_") != std::string::npos;
        // the ar_vpt / fp4_vpt files: the epilogue_round bf16_ar_vpt2 / _vpt4 (bf16_ar_res_rms_fp4_vpt2 / _vpt4)
        // rows of two runs of 2026-12-04 alone
        const bool pattern_vpt =
            name.find("_ar_vpt_") != std::string::npos || name.find("_fp4_vpt_") != std::string::npos;
        REQUIRE(drain == (cold || pattern_vpt ? 0u : 12u));  // store_1, store_8 x tpb 128, 1024 x grids 1, 8, 64
        // 3 configurations x vpt 2, 4 x (alone, busy) x (block 0, slowest, span) in the later runs
        REQUIRE(vpt == (name.find("_drain_") == std::string::npos && !cold ? 36u : 0u));
        // 7 configurations at 16 blocks, 7 / 6 / 4 of them at 64 (N = 2 / 4 / 8: the slots fit a third of
        // L2) x (reference, lean) x (block 0, slowest)
        // + 4 configurations of 2 and 4 vectors per thread at 16 blocks, 4 / 4 / 1 of them at 64, in the last two
        // + the cold runs: the 236 again from DRAM, and 2 bodies x 11 reuse points
        // + the FP8 runs: 11 configurations at 16 blocks and 5 at 64 x (reference, lean) x (block 0, slowest)
        // The lean N = 8 rows (lean_n8*, lean_fp8_n8*) of the files before v2 measured the lean kernel before
        // edad13c and moved to h200_emulated_body_round_lean_n8_before_edad13c.csv (a record): 11 + 5 (16 + 16
        // cold) shapes x (block 0, slowest) fewer. The v2 runs: all of the above, the solo / allbusy rows at N = 2.
        // The lean N = 2 rows (lean_n2*) of every file before v3 measured the lean kernel before 9be347a and
        // moved to h200_emulated_body_round_lean_n2_before_9be347a.csv (a record). The v3 runs: every row.
        REQUIRE(body == (name.find("_v3_") != std::string::npos                ? 638u
                         : name.find("_v2_") != std::string::npos               ? 510u
                         : name.find("_fp8_") != std::string::npos               ? 32u
                         : cold                                                  ? 342u
                         : name.find("_body_round_vpt_") != std::string::npos ? 160u
                         : name.find("_body_round_") != std::string::npos ? 102u
                                                                          : 0u));
      }
    }
    if (node == "emulated") {
      // + the start_skew rows of two TP4 and two TP8 runs (--skew-microbench), for start_spacing_ns_n4 / _n8.
      for (const char* file : {"h200_emulated_n4_drain_microbench.csv", "h200_emulated_n8_drain_microbench.csv",
                               "h200_emulated_n4_skew_microbench_rerun.csv", "h200_emulated_n8_skew_microbench_rerun.csv"}) {
        size_t skew = 0;
        for (const MicrobenchRow& r : load_microbench(dir + file))
          if (r.bench == "start_skew") {
            rows.push_back(r);
            ++skew;
          }
        REQUIRE(skew == 1);
      }
    }
    GpuSpec spec = gpu_preset("h200_sxm");
    if (node == "emulated") spec = sm_partition(spec, 2);
    const DerivedCalibration d = derive_calibration(rows, spec);
    const Calibration committed = load_calibration(dir + "h200_" + node + ".csv");
    for (const auto& info : calibration_constants()) {
      INFO(info.name);
      CHECK(get_constant(committed, info.name) == Approx(get_constant(d.calibration, info.name)).epsilon(1e-12));
    }
    // One note per constant, and on the emulated node (its idle-round rows) the idle rows' check; on the
    // real node (microbenchmarks before the slowest block's rows) that its round overhead is block 0's;
    // on the real node the cluster_placement check, which says its file predates the bench; on both the
    // cluster_placement several check, which says their files predate that variant; on the emulated
    // node the 12 "record, ..." notes of the session-29 runs' body_round rows that no constant reads (ar rounds
    // at N = 4 and 8 and NVFP4 rounds 4 + 2, lean two-shot owner and reader 6; the reference two-shot's
    // epilogue rows set twoshot_ar_further_round_ns_n2 and, since session 36, twoshot_further_round_ns_n2, the
    // ar rows at N = 2 since session 37 ar_round_line_ns_n2) and the 3 of the session-33 runs' rows bench (one
    // per N: 2, 4, 8).
    CHECK(count_notes(d, "record, ") == (node == "emulated" ? 15u : 0u));
    CHECK(count_notes(d, "record, bandwidth rows at N = ") == (node == "emulated" ? 3u : 0u));
    CHECK(d.notes.size() == calibration_constants().size() + 3 + count_notes(d, "record, "));
    CHECK(count_notes(d, "check, cluster_placement several: no rows") == 1);
    // (The emulated node's placement rows came with the drain runs: checked and set nothing.)
    CHECK(count_notes(d, node == "nvlink" ? "check, cluster_placement: no rows"
                                          : "check, cluster_placement (a grid of one block per SM; SMs used): agrees") == 1);
    if (node == "nvlink") CHECK(count_notes(d, "round_overhead_ns: from block 0's rounds") == 1);
  }
}

TEST_CASE("the committed H100 calibration is what its own microbenchmark runs derive, N-dependent rows included") {
  // scripts/derive_calibrations.sh: h100_emulated.csv from one `arlab calibrate -n 2` run on an H100
  // (--from-microbench), the exchange rows of a `-n 8` run (--exchange-microbench), and the start_skew and
  // rows bench rows at 4 and 8 ranks of a `-n 4` and a `-n 8` run (--skew-microbench, --rows-microbench), and
  // the variants only those two runs hold (--added-microbench): session 48's runs of one build, c36b148;
  // session 50's NVFP4 odd-tpb rows; the variants session 52's `-n 2` run adds; session 55's `_bps` rows.
  const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  std::vector<MicrobenchRow> rows = load_microbench(dir + "h100_emulated_s48_n2_microbench.csv");
  REQUIRE(rows.front().gpu.find("H100") != std::string::npos);
  REQUIRE(rows.front().nranks == 2);
  const std::vector<MicrobenchRow> n4 = load_microbench(dir + "h100_emulated_s48_n4_microbench.csv");
  const std::vector<MicrobenchRow> n8 = load_microbench(dir + "h100_emulated_s48_n8_microbench.csv");
  const auto rows_bench = [](const MicrobenchRow& r) { return r.bench == "bandwidth" && r.variant.rfind("rows_", 0) == 0; };
  std::vector<MicrobenchRow> without_rows = rows;
  size_t exchange = 0, skew = 0, rows_added = 0;
  for (const MicrobenchRow& r : n8)
    if (r.bench == "exchange") {
      rows.push_back(r);
      without_rows.push_back(r);
      ++exchange;
    }
  for (const auto* run : {&n4, &n8})
    for (const MicrobenchRow& r : *run) {
      if (r.bench == "start_skew") {
        rows.push_back(r);
        without_rows.push_back(r);
        ++skew;
      }
      if (rows_bench(r)) {
        rows.push_back(r);
        ++rows_added;
      }
    }
  CHECK(exchange > 0);
  CHECK(skew == 2);
  CHECK(rows_added > 0);
  // The `-n 4` and `-n 8` runs again (--added-microbench): the rows of every (bench, variant) that the files
  // above lack (the body_round rounds named by their N: the lean two-shot's owner and reader rounds, the
  // reference two-shot's epilogue at 4 and 8 ranks).
  std::set<std::pair<std::string, std::string>> own;
  for (const MicrobenchRow& r : rows) own.insert({r.bench, r.variant});
  size_t added = 0;
  for (const auto* run : {&n4, &n8})
    for (const MicrobenchRow& r : *run)
      if (own.count({r.bench, r.variant}) == 0) {
        rows.push_back(r);
        ++added;
      }
  CHECK(added > 0);
  // + session 50's NVFP4 odd-tpb rows (the 24 epilogue_round bf16_ar_res_rms_fp4_odd rows of a `-n 2` run of
  // 04cc25d, its other variants not taken): nvfp4_odd_round_ns and its slope.
  size_t odd = 0;
  for (const MicrobenchRow& r : load_microbench(dir + "h100_emulated_s50_odd_microbench.csv")) {
    REQUIRE(r.variant.rfind("bf16_ar_res_rms_fp4_odd", 0) == 0);
    if (own.count({r.bench, r.variant}) == 0) {
      rows.push_back(r);
      ++odd;
    }
  }
  CHECK(odd == 24);
  // + session 52's `-n 2` run (GPU-a635850b, the tree of 2026-12-07): the variants the files above lack, of
  // which the body_round {reference,lean}_n{2,4,8}_wide rows feed the further-round fits (several vectors per
  // thread on 16-32 warps); its epilogue_round *_wide rows are records.
  size_t wide = 0, s52 = 0;
  for (const MicrobenchRow& r : load_microbench(dir + "h100_emulated_s52_n2_microbench.csv"))
    if (own.count({r.bench, r.variant}) == 0) {
      rows.push_back(r);
      ++s52;
      if (r.bench == "body_round" && r.variant.find("_wide") != std::string::npos) ++wide;
    }
  CHECK(wide == 2 * 2 * (3 + 3 + 1));  // block 0 and slowest x two bodies x the shapes that fit L2 at N = 2, 4, 8
  CHECK(s52 > wide);
  // + session 55's extract of a `-n 2` run (GPU-f1816481): the body_round rows at 1, 2 and 4 blocks per SM, which
  // set shared_sm_round_ns_per_warp_vector and its ar twin.
  size_t bps = 0;
  for (const MicrobenchRow& r : load_microbench(dir + "h100_emulated_s55_bps_microbench.csv")) {
    REQUIRE(r.bench == "body_round");
    REQUIRE(r.variant.find("_bps") != std::string::npos);
    if (own.count({r.bench, r.variant}) == 0) {
      rows.push_back(r);
      ++bps;
    }
  }
  CHECK(bps == 364);
  const GpuSpec spec = sm_partition(gpu_preset("h100_sxm"), 2);
  const DerivedCalibration d = derive_calibration(rows, spec);
  const Calibration committed = load_calibration(dir + "h100_emulated.csv");
  for (const auto& info : calibration_constants()) {
    INFO(info.name);
    CHECK(get_constant(committed, info.name) == Approx(get_constant(d.calibration, info.name)).epsilon(1e-12));
  }
  // The rows of 4 and 8 ranks set the fractions at N = 4 and 8 (without them the prior 1 stays), and leave
  // N = 2's, the main run's, as they were.
  const DerivedCalibration bare = derive_calibration(without_rows, spec);
  CHECK(bare.calibration.hbm_rows_fraction_128b_n4 == 1.0);
  CHECK(bare.calibration.hbm_rows_fraction_128b_n8 == 1.0);
  CHECK(d.calibration.hbm_rows_fraction_128b_n4 < 0.99);
  CHECK(d.calibration.hbm_rows_fraction_128b_n8 < 0.99);
  CHECK(d.calibration.hbm_rows_fraction_128b_n2 == bare.calibration.hbm_rows_fraction_128b_n2);
  CHECK(d.calibration.hbm_efficiency == bare.calibration.hbm_efficiency);
  // The _bps rows price the other blocks on an SM: a round with a residual more per warp-vector than an ar round.
  CHECK(d.calibration.shared_sm_round_ns_per_warp_vector > d.calibration.shared_sm_ar_round_ns_per_warp_vector);
  CHECK(d.calibration.shared_sm_ar_round_ns_per_warp_vector > 0.0);
  CHECK(bare.calibration.shared_sm_round_ns_per_warp_vector == 0.0);
}

namespace {
bool is_pattern_round(const MicrobenchRow& r) {
  return r.bench == "epilogue_round" &&
         (r.variant.rfind("bf16_ar_res_rms_fp4", 0) == 0 ||
          (r.variant.rfind("bf16_ar", 0) == 0 && r.variant.rfind("bf16_ar_res_rms", 0) != 0));
}
size_t count_notes(const DerivedCalibration& d, const std::string& text) {
  return std::count_if(d.notes.begin(), d.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
}
}  // namespace

TEST_CASE("derive_calibration: the NVFP4 and ar rounds set their constants, shift with the rows, and are 0 without them") {
  const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  std::vector<MicrobenchRow> base, rounds;
  for (const MicrobenchRow& r : load_microbench(dir + "h200_emulated_microbench.csv"))
    (is_pattern_round(r) ? rounds : base).push_back(r);
  // 2 patterns x 6 configurations x (alone, beside a busy partner) x (block 0, slowest block, span)
  REQUIRE(rounds.size() == 72);
  const GpuSpec spec = sm_partition(gpu_preset("h200_sxm"), 2);

  const DerivedCalibration none = derive_calibration(base, spec);
  CHECK(none.calibration.nvfp4_round_ns == 0.0);
  CHECK(none.calibration.nvfp4_round_ns_per_warp == 0.0);
  CHECK(none.calibration.ar_round_ns == 0.0);
  CHECK(count_notes(none, "nvfp4_round_ns = 0: no epilogue_round") == 1);

  std::vector<MicrobenchRow> rows = base;
  rows.insert(rows.end(), rounds.begin(), rounds.end());
  const DerivedCalibration with = derive_calibration(rows, spec);
  CHECK(with.calibration.nvfp4_round_ns > 100.0);  // an NVFP4 round costs more than its modelled parts
  CHECK(with.calibration.ar_round_ns > 100.0);
  CHECK(with.calibration.nvfp4_round_ns_per_warp > 1.0);  // the committed rows grow with the warps (4 to 32)
  // Every other constant comes from the other rows alone.
  for (const auto& info : calibration_constants()) {
    const std::string name = info.name;
    if (name == "nvfp4_round_ns" || name == "nvfp4_round_ns_per_warp" || name == "ar_round_ns") continue;
    INFO(info.name);
    CHECK(get_constant(with.calibration, info.name) == get_constant(none.calibration, info.name));
  }
  // NVFP4 a line of (measured - model) over warps, ar a median: every NVFP4 round 100 ns longer moves
  // the intercept by 100 ns and not the slope, and leaves ar's alone.
  std::vector<MicrobenchRow> slower = rows;
  for (MicrobenchRow& r : slower)
    if (r.bench == "epilogue_round" && r.variant.rfind("bf16_ar_res_rms_fp4", 0) == 0) r.value += 100.0;
  const DerivedCalibration shifted = derive_calibration(slower, spec);
  CHECK(shifted.calibration.nvfp4_round_ns == Approx(with.calibration.nvfp4_round_ns + 100.0).epsilon(1e-9));
  CHECK(shifted.calibration.nvfp4_round_ns_per_warp ==
        Approx(with.calibration.nvfp4_round_ns_per_warp).epsilon(1e-9));
  CHECK(shifted.calibration.ar_round_ns == Approx(with.calibration.ar_round_ns).epsilon(1e-12));
  // 10 ns more per warp of the block on every NVFP4 row moves the slope by 10 ns and not the intercept.
  std::vector<MicrobenchRow> steeper = rows;
  for (MicrobenchRow& r : steeper)
    if (r.bench == "epilogue_round" && r.variant.rfind("bf16_ar_res_rms_fp4", 0) == 0)
      r.value += 10.0 * std::ceil(r.tpb / 32.0);
  const DerivedCalibration steep = derive_calibration(steeper, spec);
  CHECK(steep.calibration.nvfp4_round_ns_per_warp ==
        Approx(with.calibration.nvfp4_round_ns_per_warp + 10.0).epsilon(1e-9));
  CHECK(steep.calibration.nvfp4_round_ns == Approx(with.calibration.nvfp4_round_ns).epsilon(1e-9));
  // Rows of one block width give no slope: the median, as ar's.
  std::vector<MicrobenchRow> narrow = base;
  for (const MicrobenchRow& r : rounds)
    if (r.tpb == 128) narrow.push_back(r);
  const DerivedCalibration one = derive_calibration(narrow, spec);
  CHECK(one.calibration.nvfp4_round_ns > 100.0);
  CHECK(one.calibration.nvfp4_round_ns_per_warp == 0.0);
}

namespace {
// The committed emulated TP2 microbenchmarks (data/calibration/h200_emulated_microbench.csv), the node
// they were measured on (a 64-SM partition of an H200) and what they derive alone: the set-up of the
// derivation tests that add synthetic rows to them.
struct EmulatedTp2 {
  std::vector<MicrobenchRow> rows;
  GpuSpec spec;
  DerivedCalibration alone;
};
EmulatedTp2 emulated_tp2() {
  EmulatedTp2 e;
  e.rows = load_microbench(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/h200_emulated_microbench.csv");
  e.spec = sm_partition(gpu_preset("h200_sxm"), 2);
  e.alone = derive_calibration(e.rows, e.spec);
  return e;
}
}  // namespace

TEST_CASE("derive_calibration: the push step's slope per store, from push_store_1 and push_store_4; prior without") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(tp2.alone.calibration.push_step_ns_per_warp_store > 0);
  // Rows on exact lines: the two-store step's line, with k ns per warp more per store beyond two.
  constexpr double k = 5.0;
  std::vector<MicrobenchRow> exact = tp2.rows;
  for (MicrobenchRow& r : exact) {
    if (r.bench != "round_load") continue;
    const double warps = std::ceil(r.tpb / 32.0);
    const int stores = r.variant == "push_store" ? 2 : r.variant == "push_store_1" ? 1 : r.variant == "push_store_4" ? 4 : 0;
    if (stores > 0) r.value = 400.0 + (16.0 + k * (stores - 2)) * warps;
    if (r.variant == "push_store_8") r.value = 1e4 * warps;  // left out of the fit (HBM-bound): no effect
  }
  const DerivedCalibration e = derive_calibration(exact, tp2.spec);
  CHECK(e.calibration.push_step_ns == Approx(400.0));
  CHECK(e.calibration.push_step_ns_per_warp == Approx(16.0));
  CHECK(e.calibration.push_step_ns_per_warp_store == Approx(k));
  // Without the variants (an older arlab's microbenchmarks): the prior, and a note that says so.
  std::vector<MicrobenchRow> old;
  for (const MicrobenchRow& r : tp2.rows)
    if (r.variant.rfind("push_store_", 0) != 0) old.push_back(r);
  const DerivedCalibration o = derive_calibration(old, tp2.spec);
  CHECK(o.calibration.push_step_ns_per_warp_store == default_calibration().push_step_ns_per_warp_store);
  CHECK(count_notes(o, "push_step_ns_per_warp_store = 0: prior kept") == 1);
}

TEST_CASE("derive_calibration: the idle warps' share of the round overhead, from the half-idle rounds; prior without") {
  const EmulatedTp2 tp2 = emulated_tp2();
  const double f = tp2.alone.calibration.round_overhead_idle_warp_fraction;
  CHECK(f > 0.0);
  CHECK(f < 1.0);
  CHECK(count_notes(tp2.alone, "check, epilogue_round bf16_ar_res_rms_idle") == 1);
  // Only the 1024-thread idle row (16 of its 32 warps idle) sets it; the others (whole blocks of a
  // cluster idle) are checks.
  std::vector<MicrobenchRow> full;
  for (const MicrobenchRow& r : tp2.rows)
    if (r.bench == "epilogue_round" && r.variant == "bf16_ar_res_rms") full.push_back(r);
  REQUIRE(full.size() == 6);
  const std::string note = *std::find_if(tp2.alone.notes.begin(), tp2.alone.notes.end(), [](const std::string& n) {
    return n.rfind("round_overhead_idle_warp_fraction", 0) == 0;
  });
  std::vector<MicrobenchRow> longer = tp2.rows, others = tp2.rows, block0 = tp2.rows;
  const DerivedCalibration base_d = derive_calibration(tp2.rows, tp2.spec);
  for (MicrobenchRow& r : others)
    if (r.variant == "bf16_ar_res_rms_idle_slowest" && r.tpb != 1024) r.value += 500.0;
  CHECK(derive_calibration(others, tp2.spec).calibration.round_overhead_idle_warp_fraction == Approx(f).epsilon(1e-12));
  // The slowest block's rows set it where they exist: block 0's idle rows then do not.
  for (MicrobenchRow& r : block0)
    if (r.variant == "bf16_ar_res_rms_idle") r.value += 500.0;
  CHECK(derive_calibration(block0, tp2.spec).calibration.round_overhead_idle_warp_fraction == Approx(f).epsilon(1e-12));
  for (MicrobenchRow& r : longer)
    if (r.variant == "bf16_ar_res_rms_idle_slowest" && r.tpb == 1024) r.value += 100.0;
  const double f2 = derive_calibration(longer, tp2.spec).calibration.round_overhead_idle_warp_fraction;
  CHECK(f2 > f);  // a longer idle round: idle warps cost more
  // Every other constant is unmoved.
  for (const auto& info : calibration_constants()) {
    if (std::string(info.name) == "round_overhead_idle_warp_fraction") continue;
    INFO(info.name);
    CHECK(get_constant(derive_calibration(longer, tp2.spec).calibration, info.name) ==
          get_constant(base_d.calibration, info.name));
  }
  CHECK(note.find("1024/1") != std::string::npos);
  // Without the variant: the prior (every warp counts), and a note that says so.
  std::vector<MicrobenchRow> old;
  for (const MicrobenchRow& r : tp2.rows)
    if (r.variant.rfind("bf16_ar_res_rms_idle", 0) != 0) old.push_back(r);
  const DerivedCalibration o = derive_calibration(old, tp2.spec);
  CHECK(o.calibration.round_overhead_idle_warp_fraction == 1.0);
  CHECK(count_notes(o, "round_overhead_idle_warp_fraction = 1: prior kept") == 1);
}

TEST_CASE("derive_calibration: the round constants come from the slowest block's rounds, block 0's without them") {
  const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  const std::vector<MicrobenchRow> rows = load_microbench(dir + "h200_emulated_microbench.csv");
  const GpuSpec spec = sm_partition(gpu_preset("h200_sxm"), 2);
  const auto is_round = [](const MicrobenchRow& r) { return r.bench == "epilogue_round"; };
  const auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  const DerivedCalibration d = derive_calibration(rows, spec);
  const char* const kRoundConstants[] = {"round_overhead_ns", "round_overhead_ns_per_warp", "nvfp4_round_ns",
                                         "nvfp4_round_ns_per_warp", "ar_round_ns"};
  // Block 0's rows (and the span's) no longer matter: 300 ns more on every one moves nothing.
  std::vector<MicrobenchRow> block0_longer = rows;
  for (MicrobenchRow& r : block0_longer)
    if (is_round(r) && !ends_with(r.variant, "_slowest")) r.value += 300.0;
  const DerivedCalibration b = derive_calibration(block0_longer, spec);
  for (const char* name : kRoundConstants) {
    INFO(name);
    CHECK(get_constant(b.calibration, name) == get_constant(d.calibration, name));
  }
  // The slowest block's busy rows (the emulated node's) do: 300 ns more on each moves the overhead's
  // intercept by 300 ns (a line over warps), and the pattern rounds not at all (measured - model, where
  // the model's round grows by the same 300 ns).
  std::vector<MicrobenchRow> slowest_longer = rows;
  for (MicrobenchRow& r : slowest_longer)
    if (is_round(r) && r.variant == "bf16_ar_res_rms_busy_slowest") r.value += 300.0;
  const DerivedCalibration s = derive_calibration(slowest_longer, spec);
  CHECK(s.calibration.round_overhead_ns == Approx(d.calibration.round_overhead_ns + 300.0).epsilon(1e-9));
  CHECK(s.calibration.round_overhead_ns_per_warp == Approx(d.calibration.round_overhead_ns_per_warp).epsilon(1e-9));
  CHECK(count_notes(d, "from block 0's rounds") == 0);
  // Without the _slowest rows (an older arlab's microbenchmarks): block 0's rows, and a note per constant.
  std::vector<MicrobenchRow> old;
  for (const MicrobenchRow& r : rows)
    if (!(is_round(r) && ends_with(r.variant, "_slowest"))) old.push_back(r);
  const DerivedCalibration o = derive_calibration(old, spec);
  CHECK(count_notes(o, "round_overhead_ns: from block 0's rounds") == 1);
  CHECK(count_notes(o, "nvfp4_round_ns: from block 0's rounds") == 1);
  CHECK(count_notes(o, "ar_round_ns: from block 0's rounds") == 1);
  CHECK(o.calibration.round_overhead_ns < d.calibration.round_overhead_ns);  // block 0's rounds are shorter
}

TEST_CASE("derive_calibration: exchange rows of 2, 4 and 8 ranks give the ranks term, 2 ranks alone keep the priors") {
  std::vector<MicrobenchRow> rows = load_microbench(std::string(ARLAB_SOURCE_DIR) +
                                                    "/data/calibration/h200_nvlink_microbench.csv");
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const MicrobenchRow& r) { return r.bench == "exchange"; }),
             rows.end());
  const GpuSpec spec = gpu_preset("h200_sxm");
  const DerivedCalibration none = derive_calibration(rows, spec);
  CHECK(none.calibration.exchange_ns_per_rank == default_calibration().exchange_ns_per_rank);
  CHECK(none.calibration.exchange_ns_per_rank_sq == default_calibration().exchange_ns_per_rank_sq);
  // extra(k) = 150 (k-2) + 12.5 (k-2)^2 ns: 2 ranks 4.000 us, 4 ranks 4.350, 8 ranks 5.350; two block
  // sizes per k whose median is that value.
  const auto exchange_row = [](int k, int tpb, double us) {
    MicrobenchRow r;
    r.bench = "exchange";
    r.variant = "all_to_all";
    r.metric = "skewfree_us";
    r.size_unit = "ranks";
    r.size = k;
    r.tpb = tpb;
    r.sms = 1;
    r.value = r.p10 = r.p90 = us;
    r.reps = 256;
    r.link = "nvlink";
    r.nranks = 8;
    return r;
  };
  std::vector<MicrobenchRow> two = rows;
  for (int tpb : {128, 1024}) two.push_back(exchange_row(2, tpb, tpb == 128 ? 3.9 : 4.1));
  const DerivedCalibration only_two = derive_calibration(two, spec);
  CHECK(only_two.calibration.exchange_ns_per_rank == 0.0);
  std::vector<MicrobenchRow> all = two;
  for (int tpb : {128, 1024}) {
    all.push_back(exchange_row(4, tpb, 4.35 + (tpb == 128 ? -0.1 : 0.1)));
    all.push_back(exchange_row(8, tpb, 5.35 + (tpb == 128 ? -0.2 : 0.2)));
  }
  // A 2-rank node's own rows (faster, no idle ranks) do not enter the 8-rank node's fit.
  MicrobenchRow tp2 = exchange_row(2, 128, 3.0);
  tp2.nranks = 2;
  all.push_back(tp2);
  const DerivedCalibration d = derive_calibration(all, spec);
  CHECK(d.calibration.exchange_ns_per_rank == Approx(150.0).epsilon(1e-9));
  CHECK(d.calibration.exchange_ns_per_rank_sq == Approx(12.5).epsilon(1e-9));
  CHECK(arlab::model::detail::rank_exchange_extra_ns(d.calibration, 2) == 0.0);
  CHECK(arlab::model::detail::rank_exchange_extra_ns(d.calibration, 8) == Approx(1350.0).epsilon(1e-9));
  // Sublinear growth: the square term would be negative, so it is dropped and the line refitted.
  std::vector<MicrobenchRow> flat = two;
  flat.push_back(exchange_row(4, 128, 4.6));
  flat.push_back(exchange_row(8, 128, 5.2));
  const DerivedCalibration f = derive_calibration(flat, spec);
  CHECK(f.calibration.exchange_ns_per_rank_sq == 0.0);
  CHECK(f.calibration.exchange_ns_per_rank == Approx((2 * 600.0 + 6 * 1200.0) / (4 + 36)).epsilon(1e-9));
}

TEST_CASE("derive_calibration: launch store_1 / store_8 rows give the drain, without them the prior stays") {
  const std::vector<MicrobenchRow> rows = load_microbench(std::string(ARLAB_SOURCE_DIR) +
                                                          "/data/calibration/h200_nvlink_microbench.csv");
  const GpuSpec spec = gpu_preset("h200_sxm");
  const DerivedCalibration none = derive_calibration(rows, spec);
  CHECK(none.calibration.exit_store_drain_ns == default_calibration().exit_store_drain_ns);
  CHECK(count_notes(none, "exit_store_drain_ns = 0: prior kept") == 1);
  // Each store row = the plain row of its grid and tpb + 130 ns + tpb x stores x 16 B through the port.
  const double port = none.calibration.sm_l2_bytes_per_cycle * spec.sm_clock_ghz;
  std::vector<MicrobenchRow> with = rows;
  size_t added = 0;
  for (const MicrobenchRow& plain : rows)
    if (plain.bench == "launch" && plain.variant == "plain" && plain.size < spec.sm_count)
      for (int stores : {1, 8}) {
        MicrobenchRow r = plain;
        r.variant = stores == 1 ? "store_1" : "store_8";
        r.value = r.p10 = r.p90 = plain.value + (130.0 + plain.tpb * stores * 16.0 / port) / 1e3;
        with.push_back(r);
        ++added;
      }
  REQUIRE(added >= 4);
  CHECK(derive_calibration(with, spec).calibration.exit_store_drain_ns == Approx(130.0).epsilon(1e-6));
  // Rows at a grid of every SM (where the L2's write rate shows) are left out; so is a row without a
  // plain row of its grid and tpb; stores faster than the port alone give 0, never less.
  std::vector<MicrobenchRow> wide = rows;
  for (MicrobenchRow r : with)
    if (r.variant == "store_1") {
      r.size = spec.sm_count;
      wide.push_back(r);
      r.size = 3;  // no plain row of 3 blocks
      wide.push_back(r);
    }
  CHECK(derive_calibration(wide, spec).calibration.exit_store_drain_ns == default_calibration().exit_store_drain_ns);
  std::vector<MicrobenchRow> fast = rows;
  for (MicrobenchRow r : with)
    if (r.variant == "store_1") {
      r.value = r.p10 = r.p90 = r.value - 1.0;
      fast.push_back(r);
    }
  CHECK(derive_calibration(fast, spec).calibration.exit_store_drain_ns == 0.0);
}

TEST_CASE("derive_calibration: launch prologue_* rows are a record beside store_1 of the same grid and tpb") {
  const std::vector<MicrobenchRow> rows = load_microbench(std::string(ARLAB_SOURCE_DIR) +
                                                          "/data/calibration/h200_nvlink_microbench.csv");
  const GpuSpec spec = gpu_preset("h200_sxm");
  const DerivedCalibration none = derive_calibration(rows, spec);
  CHECK(count_notes(none, "record, launch prologue_*") == 0);
  // store_1 rows at every plain row below the partition, then prologue_0 / prologue_2 / prologue_2_wait rows
  // 300 / 400 / 500 ns beyond them, 100 ns more beside the first store_1 row (the range's top); a prologue row
  // whose grid has no store_1 row is left out.
  std::vector<MicrobenchRow> store_rows;
  for (const MicrobenchRow& plain : rows)
    if (plain.bench == "launch" && plain.variant == "plain" && plain.size < spec.sm_count) {
      MicrobenchRow r = plain;
      r.variant = "store_1";
      r.value = r.p10 = r.p90 = plain.value + 0.2;
      store_rows.push_back(r);
    }
  REQUIRE(store_rows.size() >= 3);
  std::vector<MicrobenchRow> with_store = rows;
  with_store.insert(with_store.end(), store_rows.begin(), store_rows.end());
  std::vector<MicrobenchRow> with = with_store;
  for (size_t i = 0; i < store_rows.size(); ++i) {
    const struct {
      const char* variant;
      double ns;
    } prologue[] = {{"prologue_0", 300.0}, {"prologue_2", 400.0}, {"prologue_2_wait", 500.0}};
    for (const auto& v : prologue) {
      MicrobenchRow r = store_rows[i];
      r.variant = v.variant;
      r.value = r.p10 = r.p90 = store_rows[i].value + (v.ns + (i == 0 ? 100.0 : 0.0)) / 1e3;
      with.push_back(r);
    }
  }
  MicrobenchRow orphan = with.back();
  orphan.size = 3;  // no store_1 row of 3 blocks
  orphan.value = orphan.p10 = orphan.p90 = 100.0;
  with.push_back(orphan);
  const DerivedCalibration d = derive_calibration(with, spec);
  REQUIRE(count_notes(d, "record, launch prologue_*") == 1);
  const std::string note = *std::find_if(d.notes.begin(), d.notes.end(), [](const std::string& n) {
    return n.rfind("record, launch prologue_*", 0) == 0;
  });
  INFO(note);
  const size_t n = store_rows.size();
  CHECK(note.find(fmt("prologue_0 300 ns (300 to 400 ns over %zu rows)", n)) != std::string::npos);
  CHECK(note.find(fmt("prologue_2 400 ns (400 to 500 ns over %zu rows)", n)) != std::string::npos);
  CHECK(note.find(fmt("prologue_2_wait 500 ns (500 to 600 ns over %zu rows)", n)) != std::string::npos);
  CHECK(note.find(fmt("l2_latency_ns = %.0f ns", d.calibration.l2_latency_ns)) != std::string::npos);
  // A record only: every constant is what the same rows without the prologue rows derive.
  const DerivedCalibration only_store = derive_calibration(with_store, spec);
  for (const auto& info : calibration_constants()) {
    INFO(info.name);
    CHECK(get_constant(d.calibration, info.name) == get_constant(only_store.calibration, info.name));
  }
}

namespace {

// A synthetic round-bench row (metric ns_per_round, size H) on `base`'s provenance.
MicrobenchRow round_row(const MicrobenchRow& base, const std::string& bench, const std::string& variant, int hidden,
                        int blocks, int tpb, int cluster, double value) {
  MicrobenchRow r = base;
  r.bench = bench;
  r.variant = variant;
  r.metric = "ns_per_round";
  r.size_unit = "hidden";
  r.size = hidden;
  r.sms = blocks;
  r.tpb = tpb;
  r.cluster = cluster;
  r.value = r.p10 = r.p90 = value;
  return r;
}

// The problem and launch of a round bench's shape: bf16 ar_res_rms, one token per cluster, `nranks` ranks,
// `vpt` vectors per thread.
struct RoundShape {
  Problem p;
  LaunchConfig c;
};
RoundShape round_shape(int hidden, int blocks, int tpb, int cluster, int vpt, int nranks) {
  RoundShape s;
  s.p.tokens = blocks / cluster;
  s.p.hidden = hidden;
  s.p.nranks = nranks;
  s.p.dtype = DType::bf16;
  s.p.pattern = Pattern::ar_res_rms;
  s.c.tpb = tpb;
  s.c.cluster = cluster;
  s.c.grid = blocks;
  s.c.vecs_per_thread = vpt;
  return s;
}

// The model's one-shot token round (ns) of body `design` for a body_round row's shape on 16 blocks (its
// vectors per thread: H / (tpb x cluster x 8)) at N = n with `pattern`, on the TP2 set-up's node and the
// calibration its rows derive alone.
double model_body_round_ns(const EmulatedTp2& tp2, int hidden, int tpb, int cluster, int n, ModelDesign design,
                           Pattern pattern = Pattern::ar_res_rms) {
  RoundShape shape = round_shape(hidden, 16, tpb, cluster, hidden / (tpb * cluster * 8), n);
  shape.p.pattern = pattern;
  model::detail::ModelInputs in{shape.p, shape.c, tp2.spec, tp2.alone.calibration};
  REQUIRE(model::detail::derive_inputs(in, KernelResources{64, 0}));
  return model::detail::oneshot_body_round_ns(in, design, 1.0);
}

// The model's reference two-shot epilogue round (ns) for a body_round row's shape on 16 blocks, N = 2.
double model_twoshot_epilogue_ns(const EmulatedTp2& tp2, int hidden, int tpb, int cluster, Pattern pattern) {
  RoundShape shape = round_shape(hidden, 16, tpb, cluster, hidden / (tpb * cluster * 8), 2);
  shape.p.pattern = pattern;
  shape.c.algo = Algorithm::twoshot;
  model::detail::ModelInputs in{shape.p, shape.c, tp2.spec, tp2.alone.calibration};
  REQUIRE(model::detail::derive_inputs(in, KernelResources{64, 0}));
  return model::detail::twoshot_epilogue_round_ns(in, 1.0);
}

}  // namespace

TEST_CASE("derive_calibration: the bare and relaxed cluster barriers are lines over the block's warps") {
  const std::vector<MicrobenchRow> rows = load_microbench(std::string(ARLAB_SOURCE_DIR) +
                                                          "/data/calibration/h200_nvlink_microbench.csv");
  const GpuSpec spec = gpu_preset("h200_sxm");
  // This file predates the barrier variants: its priors stay.
  const Calibration none = derive_calibration(rows, spec).calibration;
  CHECK(none.bare_cluster_barrier_ns == default_calibration().bare_cluster_barrier_ns);
  CHECK(none.bare_cluster_barrier_ns_per_warp == default_calibration().bare_cluster_barrier_ns_per_warp);
  // Barrier rows at clusters 2, 4, 8 and tpb 128, 1024: 200 ns + 5 ns per warp of the block (relaxed: 40 ns +
  // 1 ns per warp), the cluster size moving them by 3 ns either way.
  std::vector<MicrobenchRow> lines = rows;
  for (const char* variant : {"barrier", "barrier_relaxed"})
    for (int cluster : {2, 4, 8})
      for (int tpb : {128, 1024}) {
        MicrobenchRow r = rows.front();
        r.bench = "cluster_sync";
        r.variant = variant;
        r.metric = "ns_per_op";
        r.sms = 64;
        r.tpb = tpb;
        r.cluster = cluster;
        r.size = 2048;
        r.size_unit = "barriers";
        const double warps = tpb / 32.0;
        r.value = r.p10 = r.p90 = (variant == std::string("barrier") ? 200.0 + 5.0 * warps : 40.0 + 1.0 * warps) +
                                  (cluster == 2 ? -3.0 : cluster == 8 ? 3.0 : 0.0);
        lines.push_back(r);
      }
  const Calibration got = derive_calibration(lines, spec).calibration;
  CHECK(got.bare_cluster_barrier_ns == Approx(200.0));
  CHECK(got.bare_cluster_barrier_ns_per_warp == Approx(5.0));
  CHECK(got.cluster_lifetime_barrier_ns == Approx(40.0));
  CHECK(got.cluster_lifetime_barrier_ns_per_warp == Approx(1.0));
  // Rows of one block size: their median, no slope.
  std::vector<MicrobenchRow> one_width;
  for (const MicrobenchRow& r : lines)
    if (!(r.bench == "cluster_sync" && r.variant == "barrier" && r.tpb != 128)) one_width.push_back(r);
  const Calibration one = derive_calibration(one_width, spec).calibration;
  CHECK(one.bare_cluster_barrier_ns == Approx(200.0 + 5.0 * 4));  // the median of -3, 0, +3
  CHECK(one.bare_cluster_barrier_ns_per_warp == 0.0);
}

TEST_CASE("derive_calibration: the FP8 epilogue_round rows set the FP8 round's line over warps, and nothing else") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(tp2.alone.calibration.fp8_round_ns == 0.0);
  CHECK(tp2.alone.calibration.fp8_round_ns_per_warp == 0.0);
  CHECK(count_notes(tp2.alone, "fp8_round_ns = 0: no epilogue_round bf16_ar_res_rms_fp8 rows") == 1);
  // Rows at the model's FP8 round of their shape (64 blocks, one vector per thread, N = 2) + a + b x warps,
  // the busy partner's slowest block as on the emulated node: the constants are a and b.
  const auto derived = [&](double a, double b) {
    std::vector<MicrobenchRow> more = tp2.rows;
    for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 512, 2},
                                               std::tuple{4096, 512, 1}, std::tuple{8192, 1024, 1}}) {
      RoundShape shape = round_shape(hidden, 64, tpb, cluster, 1, 2);
      shape.p.pattern = Pattern::ar_res_rms_fp8;
      model::detail::ModelInputs in{shape.p, shape.c, tp2.spec, tp2.alone.calibration};
      REQUIRE(model::detail::derive_inputs(in, KernelResources{64, 0}));
      more.push_back(round_row(tp2.rows.front(), "epilogue_round", "bf16_ar_res_rms_fp8_busy_slowest", hidden, 64, tpb,
                               cluster, model::detail::oneshot_round(in, 1.0).total() + a + b * (tpb / 32)));
    }
    return derive_calibration(more, tp2.spec).calibration;
  };
  const Calibration got = derived(250.0, 6.0);
  CHECK(got.fp8_round_ns == Approx(250.0).epsilon(1e-9));
  CHECK(got.fp8_round_ns_per_warp == Approx(6.0).epsilon(1e-9));
  for (const auto& info : calibration_constants()) {
    if (info.name == "fp8_round_ns" || info.name == "fp8_round_ns_per_warp") continue;
    INFO(info.name);
    CHECK(get_constant(got, info.name) == get_constant(tp2.alone.calibration, info.name));
  }
  // Rounds shorter than the model's: 0, never less (as NVFP4's).
  const Calibration below = derived(-200.0, -3.0);
  CHECK(below.fp8_round_ns == 0.0);
  CHECK(below.fp8_round_ns_per_warp == 0.0);
}

TEST_CASE("derive_calibration: epilogue_round vpt rows give the round's cost per further vector, per pattern kind") {
  const EmulatedTp2 tp2 = emulated_tp2();
  using Constant = double Calibration::*;
  const Constant constants[] = {&Calibration::round_ns_per_extra_vector, &Calibration::ar_round_ns_per_extra_vector,
                                &Calibration::nvfp4_round_ns_per_extra_vector};
  for (const Constant c : constants) CHECK(tp2.alone.calibration.*c == 0.0);
  CHECK(count_notes(tp2.alone, "round_ns_per_extra_vector = 0: prior kept (no epilogue_round bf16_ar_res_rms_vpt2") == 1);
  CHECK(count_notes(tp2.alone, "ar_round_ns_per_extra_vector = 0: prior kept (no epilogue_round bf16_ar_vpt2") == 1);
  CHECK(count_notes(tp2.alone,
                    "nvfp4_round_ns_per_extra_vector = 0: prior kept (no epilogue_round bf16_ar_res_rms_fp4_vpt2") == 1);
  // Rows equal to the model's own round of their shape (vpt 2 and 4) plus 300 ns per further vector
  // give 300 ns; rows at the model's round give 0; rows below it give 0, never less. Each pattern
  // kind's rows set only its own constant (the RMSNorm round's, the ar round's, the NVFP4 round's).
  struct Kind {
    std::string base;
    Pattern pattern;
    Constant constant;
  };
  for (const Kind& kind : {Kind{"bf16_ar_res_rms", Pattern::ar_res_rms, constants[0]},
                           Kind{"bf16_ar", Pattern::ar, constants[1]},
                           Kind{"bf16_ar_res_rms_fp4", Pattern::ar_res_rms_fp4, constants[2]}}) {
    INFO(kind.base);
    const auto with_extra = [&](double per_vector_ns) {
      std::vector<MicrobenchRow> more = tp2.rows;
      for (const auto& [hidden, tpb, vpt] : {std::tuple{8192, 512, 2}, std::tuple{8192, 256, 4}}) {
        RoundShape shape = round_shape(hidden, 64, tpb, 1, vpt, 2);
        shape.p.pattern = kind.pattern;
        model::detail::ModelInputs in{shape.p, shape.c, tp2.spec, tp2.alone.calibration};
        REQUIRE(model::detail::derive_inputs(in, KernelResources{64, 0}));
        more.push_back(round_row(tp2.rows.front(), "epilogue_round",
                                 kind.base + "_vpt" + std::to_string(vpt) + "_busy_slowest", hidden, 64, tpb, 1,
                                 model::detail::oneshot_round(in, 1.0).total() + per_vector_ns * (vpt - 1)));
      }
      return derive_calibration(more, tp2.spec).calibration;
    };
    const Calibration plus = with_extra(300.0);
    CHECK(plus.*kind.constant == Approx(300.0).epsilon(1e-9));
    for (const Constant other : constants)
      if (other != kind.constant) CHECK(plus.*other == 0.0);
    CHECK(with_extra(0.0).*kind.constant == Approx(0.0).margin(1e-9));
    CHECK(with_extra(-200.0).*kind.constant == 0.0);
  }
}

TEST_CASE("derive_calibration: body_round rows give the lean round's cost per rank beyond 2") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(tp2.alone.calibration.lean_round_ns_per_extra_rank == 0.0);
  CHECK(count_notes(tp2.alone, "lean_round_ns_per_extra_rank = 0: prior kept") == 1);
  // Rows at the model's round of their body, shape and N, plus an offset per body, plus per rank beyond
  // 2: `ref_ns` for the reference and `ref_ns + lean_ns` x vectors per thread for lean. What the
  // reference grows by is the ranks term's already, so the constant is `lean_ns` (never below 0).
  const auto derived = [&](double ref_ns, double lean_ns) {
    std::vector<MicrobenchRow> more = tp2.rows;
    // (one shape of each of 1, 2 and 4 vectors per thread, H / (tpb x cluster x 8): without the division by
    // them the median would be 2 x lean_ns)
    for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 128, 4},
                                               std::tuple{4096, 128, 1}})
      for (const int n : {2, 4, 8})
        for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean}) {
          const int vpt = hidden / (tpb * cluster * 8);
          const bool lean = body == ModelDesign::lean;
          more.push_back(round_row(tp2.rows.front(), "body_round",
                                   std::string(lean ? "lean" : "reference") + "_n" + std::to_string(n) + "_slowest",
                                   hidden, 16, tpb, cluster,
                                   model_body_round_ns(tp2, hidden, tpb, cluster, n, body) + (lean ? 40.0 : 70.0) +
                                       (n - 2) * (ref_ns + (lean ? lean_ns * vpt : 0.0))));
        }
    return derive_calibration(more, tp2.spec).calibration.lean_round_ns_per_extra_rank;
  };
  CHECK(derived(100.0, 80.0) == Approx(80.0).epsilon(1e-9));
  CHECK(derived(0.0, 80.0) == Approx(80.0).epsilon(1e-9));
  CHECK(derived(150.0, 0.0) == Approx(0.0).margin(1e-9));
  CHECK(derived(100.0, -50.0) == 0.0);
  // Those shapes are all 4-warp blocks: no slope, with a note saying so.
  {
    std::vector<MicrobenchRow> more = tp2.rows;
    for (const int n : {2, 4, 8})
      for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean})
        more.push_back(round_row(tp2.rows.front(), "body_round",
                                 std::string(body == ModelDesign::lean ? "lean" : "reference") + "_n" +
                                     std::to_string(n) + "_slowest",
                                 8192, 16, 128, 8,
                                 model_body_round_ns(tp2, 8192, 128, 8, n, body) +
                                     (n - 2) * (body == ModelDesign::lean ? 80.0 : 0.0)));
    const DerivedCalibration d = derive_calibration(more, tp2.spec);
    CHECK(d.calibration.lean_round_ns_per_extra_rank == Approx(80.0).epsilon(1e-9));
    CHECK(d.calibration.lean_round_ns_per_extra_rank_per_warp == 0.0);
    CHECK(count_notes(d, "lean_round_ns_per_extra_rank_per_warp = 0: no slope: the rows have one block width") == 1);
  }
}

TEST_CASE("derive_calibration: the lean round's cost per rank beyond 2 is a line over the block's warps (session 51)") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(tp2.alone.calibration.lean_round_ns_per_extra_rank_per_warp == 0.0);
  // Lean grows by (N - 2) x vpt x (a + b x warps) beyond the reference, which grows by 60 ns per rank beyond 2:
  // blocks of 4, 8, 16 and 32 warps, 1 and 2 vectors per thread.
  const auto derived = [&](double a, double b) {
    std::vector<MicrobenchRow> more = tp2.rows;
    for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 256, 4},
                                               std::tuple{8192, 512, 1}, std::tuple{8192, 1024, 1}})
      for (const int n : {2, 4, 8})
        for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean}) {
          const int vpt = hidden / (tpb * cluster * 8);
          const bool lean = body == ModelDesign::lean;
          const double warps = tpb / 32;
          more.push_back(round_row(tp2.rows.front(), "body_round",
                                   std::string(lean ? "lean" : "reference") + "_n" + std::to_string(n) + "_slowest",
                                   hidden, 16, tpb, cluster,
                                   model_body_round_ns(tp2, hidden, tpb, cluster, n, body) +
                                       (n - 2) * (60.0 + (lean ? vpt * (a + b * warps) : 0.0))));
        }
    const Calibration got = derive_calibration(more, tp2.spec).calibration;
    return std::pair{got.lean_round_ns_per_extra_rank, got.lean_round_ns_per_extra_rank_per_warp};
  };
  const auto [a, b] = derived(40.0, 4.0);
  CHECK(a == Approx(40.0).epsilon(1e-6));
  CHECK(b == Approx(4.0).epsilon(1e-6));
  // The slope moves alone; a negative intercept is clamped to 0 while the slope stays.
  CHECK(derived(40.0, 1.5).second == Approx(1.5).epsilon(1e-6));
  CHECK(derived(40.0, 1.5).first == Approx(40.0).epsilon(1e-6));
  const auto [a0, b0] = derived(-20.0, 6.0);
  CHECK(a0 == 0.0);
  CHECK(b0 == Approx(6.0).epsilon(1e-6));
}

TEST_CASE("derive_calibration: body_round rows give each body's further-round lines, the FP8 rows the quantizing part") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(tp2.alone.calibration.further_round_ns_n8 == 0.0);
  // the reference's and lean's, for ar_res_rms and (quant_) the quantizing patterns
  CHECK(count_notes(tp2.alone, "further_round_ns_n8 = 0: prior kept") == 4);
  // Rows at the model's round of their body, shape and N plus vpt x (a + b x warps), a line per body and N:
  // the reference -100 / 50 + 2 w / 400 + 10 w at N = 2 / 4 / 8, lean 0 / 100 + 2 w / 450 + 10 w (lean
  // grows less from N = 2 than the reference, so lean_round_ns_per_extra_rank stays 0 and lean's model
  // round is the one the rows were built on). Shapes of 4, 8 and 32 warps, 1, 2 and 4 vectors per thread.
  struct LineAB {
    double a, b;
  };
  const auto line_of = [](bool lean, int n) {
    if (n == 2) return lean ? LineAB{0.0, 0.0} : LineAB{-100.0, 0.0};
    if (n == 4) return lean ? LineAB{100.0, 2.0} : LineAB{50.0, 2.0};
    return lean ? LineAB{450.0, 10.0} : LineAB{400.0, 10.0};
  };
  // What the FP8 rows add beyond that line: the reference 120 - 2 w / 60 + 3 w / 300 - 5 w at N = 2 / 4 / 8,
  // lean 90 + w / -40 / 200 + 4 w.
  const auto quant_of = [](bool lean, int n) {
    if (n == 2) return lean ? LineAB{90.0, 1.0} : LineAB{120.0, -2.0};
    if (n == 4) return lean ? LineAB{-40.0, 0.0} : LineAB{60.0, 3.0};
    return lean ? LineAB{200.0, 4.0} : LineAB{300.0, -5.0};
  };
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 256, 2},
                                             std::tuple{8192, 1024, 1}, std::tuple{4096, 128, 1}})
    for (const int n : {2, 4, 8})
      for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean}) {
        const int vpt = hidden / (tpb * cluster * 8);
        const bool lean = body == ModelDesign::lean;
        const LineAB l = line_of(lean, n);
        const double warps = tpb / 32;
        more.push_back(round_row(tp2.rows.front(), "body_round",
                                 std::string(lean ? "lean" : "reference") + "_n" + std::to_string(n) + "_slowest",
                                 hidden, 16, tpb, cluster,
                                 model_body_round_ns(tp2, hidden, tpb, cluster, n, body) + vpt * (l.a + l.b * warps)));
        // The FP8 epilogue's rows at N: the model's FP8 round + vpt x (the line of N + the FP8 part of N): the
        // quant_ constants are what they add beyond the line.
        const LineAB q = quant_of(lean, n);
        more.push_back(round_row(tp2.rows.front(), "body_round",
                                 std::string(lean ? "lean" : "reference") + "_fp8_n" + std::to_string(n) + "_slowest",
                                 hidden, 16, tpb, cluster,
                                 model_body_round_ns(tp2, hidden, tpb, cluster, n, body, Pattern::ar_res_rms_fp8) +
                                     vpt * (l.a + l.b * warps + q.a + q.b * warps)));
      }
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  const Calibration& got = d.calibration;
  CHECK(got.lean_round_ns_per_extra_rank == 0.0);
  for (const int n : {2, 4, 8})
    for (const bool lean : {false, true}) {
      const std::string name = std::string(lean ? "lean_" : "") + "quant_further_round_ns";
      const std::string nn = "_n" + std::to_string(n);
      INFO(name << nn);
      CHECK(get_constant(got, name + nn) == Approx(quant_of(lean, n).a).margin(1e-6));
      CHECK(get_constant(got, name + "_per_warp" + nn) == Approx(quant_of(lean, n).b).margin(1e-6));
    }
  for (const int n : {2, 4, 8})
    for (const bool lean : {false, true}) {
      const std::string prefix = lean ? "lean_" : "";
      INFO(prefix << "N = " << n);
      CHECK(get_constant(got, prefix + "further_round_ns_n" + std::to_string(n)) ==
            Approx(line_of(lean, n).a).margin(1e-6));
      CHECK(get_constant(got, prefix + "further_round_ns_per_warp_n" + std::to_string(n)) ==
            Approx(line_of(lean, n).b).margin(1e-6));
      // vpt x (a + b w) is a + b w + (a + b w) x (vpt - 1): the per-vector parts are the line again (the rows
      // of several vectors span 4 and 8 warps).
      CHECK(get_constant(got, prefix + "further_round_ns_per_extra_vector_n" + std::to_string(n)) ==
            Approx(line_of(lean, n).a).margin(1e-6));
      CHECK(get_constant(got, prefix + "further_round_ns_per_extra_vector_per_warp_n" + std::to_string(n)) ==
            Approx(line_of(lean, n).b).margin(1e-6));
    }
}

TEST_CASE("derive_calibration: a further round's part per vector beyond the first, over the warps, from the body_round "
          "rows of several vectors and the _wide rows; fewer terms where the rows cannot set them") {
  const EmulatedTp2 tp2 = emulated_tp2();
  // Rows at the model's round + a + b w + (c + d w) (vpt - 1), the reference at N = 2 only (a = 150, b = -25,
  // c = -100, d = 20; the other N and lean have no rows and keep their priors).
  const double a = 150.0, b = -25.0, c = -100.0, d = 20.0;
  struct Shape {
    int hidden, tpb, cluster;
    const char* variant;
  };
  const auto rows_with = [&](const std::vector<Shape>& shapes) {
    std::vector<MicrobenchRow> more = tp2.rows;
    for (const Shape& sh : shapes) {
      const double v = sh.hidden / (sh.tpb * sh.cluster * 8);
      const double w = sh.tpb / 32;
      more.push_back(round_row(tp2.rows.front(), "body_round", sh.variant, sh.hidden, 16, sh.tpb, sh.cluster,
                               model_body_round_ns(tp2, sh.hidden, sh.tpb, sh.cluster, 2, ModelDesign::reference) + a +
                                   b * w + (c + d * w) * (v - 1)));
    }
    return derive_calibration(more, tp2.spec);
  };
  const std::vector<Shape> one_vector = {{8192, 128, 8, "reference_n2_slowest"},
                                         {8192, 256, 4, "reference_n2_slowest"},
                                         {8192, 1024, 1, "reference_n2_slowest"}};
  std::vector<Shape> narrow = one_vector;  // several vectors on 4 warps only
  narrow.push_back({8192, 128, 4, "reference_n2_slowest"});
  narrow.push_back({8192, 128, 2, "reference_n2_slowest"});
  std::vector<Shape> wide = narrow;  // and on 16 and 32 warps (the _wide rows)
  wide.push_back({8192, 512, 1, "reference_n2_wide_slowest"});
  wide.push_back({16384, 1024, 1, "reference_n2_wide_slowest"});
  // Every term from the rows with the _wide ones.
  const DerivedCalibration all = rows_with(wide);
  CHECK(all.calibration.further_round_ns_n2 == Approx(a).margin(1e-6));
  CHECK(all.calibration.further_round_ns_per_warp_n2 == Approx(b).margin(1e-6));
  CHECK(all.calibration.further_round_ns_per_extra_vector_n2 == Approx(c).margin(1e-6));
  CHECK(all.calibration.further_round_ns_per_extra_vector_per_warp_n2 == Approx(d).margin(1e-6));
  CHECK(count_notes(all, "further_round_ns_n2 = 150: intercept of the least-squares fit (7 rows)") == 1);
  CHECK(count_notes(all, "16x1024/1 H 16384 vpt 2:") == 1);  // the _wide rows are in the note
  CHECK(all.calibration.lean_further_round_ns_per_extra_vector_per_warp_n2 == 0.0);
  // Several vectors on one block size: no per-warp part per vector (its prior, 0, with a note); the
  // per-vector constant takes what the rows give at 4 warps.
  const DerivedCalibration at_four = rows_with(narrow);
  CHECK(at_four.calibration.further_round_ns_per_extra_vector_per_warp_n2 == 0.0);
  CHECK(count_notes(at_four, "further_round_ns_per_extra_vector_per_warp_n2 = 0: prior kept (no body_round "
                             "reference_n2_wide_slowest rows") == 1);
  CHECK(at_four.calibration.further_round_ns_per_extra_vector_n2 == Approx(c + d * 4).margin(1e-6));
  CHECK(at_four.calibration.further_round_ns_per_warp_n2 == Approx(b).margin(1e-6));
  // One vector per thread only: the line over the warps, both per-vector constants at their priors.
  const DerivedCalibration line = rows_with(one_vector);
  CHECK(line.calibration.further_round_ns_n2 == Approx(a).margin(1e-6));
  CHECK(line.calibration.further_round_ns_per_warp_n2 == Approx(b).margin(1e-6));
  CHECK(line.calibration.further_round_ns_per_extra_vector_n2 == 0.0);
  CHECK(count_notes(line, "further_round_ns_per_extra_vector_n2 = 0: prior kept (no body_round reference_n2_slowest "
                          "rows of more than one vector per thread)") == 1);
}

TEST_CASE("derive_calibration: the ar round at N = 2, a line over warps per round from the rows of one vector per "
          "thread and a constant per further vector from the rows of 2 and 4 (session 54)") {
  const EmulatedTp2 tp2 = emulated_tp2();
  // Known answers: the reference round -300 + 6 ns per warp beyond the model's, each vector beyond the first
  // +180 ns; lean -250 + 12 ns per warp, +220 ns. Rows of one vector at 4, 8 and 16 warps; of 2 and 4 vectors at
  // 4 and 8 warps.
  struct Shape {
    int hidden, tpb, cluster;
  };
  const Shape shapes[] = {{8192, 128, 8}, {8192, 256, 4}, {4096, 512, 1}, {8192, 128, 4}, {8192, 256, 2}, {4096, 128, 1}};
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const Shape& sh : shapes)
    for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean}) {
      const bool lean = body == ModelDesign::lean;
      const int vpt = sh.hidden / (sh.tpb * sh.cluster * 8);
      const double warps = sh.tpb / 32;
      const double beyond = lean ? -250.0 + 12.0 * warps + (vpt - 1) * 220.0 : -300.0 + 6.0 * warps + (vpt - 1) * 180.0;
      more.push_back(round_row(tp2.rows.front(), "body_round", std::string(lean ? "lean" : "reference") + "_ar_n2_slowest",
                               sh.hidden, 16, sh.tpb, sh.cluster,
                               model_body_round_ns(tp2, sh.hidden, sh.tpb, sh.cluster, 2, body, Pattern::ar) + beyond));
    }
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  CHECK(d.calibration.ar_round_line_ns_n2 == Approx(-300.0).margin(1e-6));
  CHECK(d.calibration.ar_round_line_ns_per_warp_n2 == Approx(6.0).margin(1e-6));
  CHECK(d.calibration.ar_round_ns_per_further_vector_n2 == Approx(180.0).margin(1e-6));
  CHECK(d.calibration.lean_ar_round_line_ns_n2 == Approx(-250.0).margin(1e-6));
  CHECK(d.calibration.lean_ar_round_line_ns_per_warp_n2 == Approx(12.0).margin(1e-6));
  CHECK(d.calibration.lean_ar_round_ns_per_further_vector_n2 == Approx(220.0).margin(1e-6));
  CHECK(count_notes(d, "ar_round_line_ns_n2 = -300: intercept of the least-squares line over the block's warps (3 rows "
                       "of one vector per thread)") == 1);
  CHECK(count_notes(d, "ar_round_ns_per_further_vector_n2 = 180: median over the 3 rows of 2 and 4 vectors per "
                       "thread") == 1);
  // Without rows of 2 and 4 vectors the line is still fitted and the per-vector constant keeps its prior.
  std::vector<MicrobenchRow> one_vector;
  for (const MicrobenchRow& r : more)
    if (r.bench != "body_round" || r.size / (r.tpb * std::max(1, r.cluster) * 8) == 1) one_vector.push_back(r);
  const DerivedCalibration v1 = derive_calibration(one_vector, tp2.spec);
  CHECK(v1.calibration.ar_round_line_ns_n2 == Approx(-300.0).margin(1e-6));
  CHECK(v1.calibration.ar_round_ns_per_further_vector_n2 == 0.0);
  CHECK(count_notes(v1, "ar_round_ns_per_further_vector_n2 = 0: prior kept (no body_round reference_ar_n2_slowest "
                        "rows of 2 or 4 vectors per thread)") == 1);
}

TEST_CASE("derive_calibration: the rounds at 2 and 4 blocks per SM against the same pass at one, per warp-vector of "
          "the other blocks (shared_sm_[ar_]round_ns_per_warp_vector, session 55)") {
  const EmulatedTp2 tp2 = emulated_tp2();
  const int sms = tp2.spec.sm_count;
  // The model's round of a body at k blocks per SM, for a row's shape on k x the partition's SMs.
  const auto model_at = [&](const char* base, int hidden, int tpb, int cluster, int k, int n = 2) {
    RoundShape shape = round_shape(hidden, k * sms, tpb, cluster, hidden / (tpb * cluster * 8), n);
    const std::string b = base;
    shape.p.pattern = b.find("_ar_") != std::string::npos ? Pattern::ar : Pattern::ar_res_rms;
    if (b.find("2_") != std::string::npos) shape.c.algo = Algorithm::twoshot;
    model::detail::ModelInputs in{shape.p, shape.c, tp2.spec, tp2.alone.calibration};
    REQUIRE(model::detail::derive_inputs(in, KernelResources{64, 0}));
    if (b == "reference_n2" || b == "reference_ar_n2" || b == "reference_n4")
      return model::detail::oneshot_body_further_round_ns(in, ModelDesign::reference, k);
    if (b == "lean_n2") return model::detail::oneshot_body_further_round_ns(in, ModelDesign::lean, k);
    if (b == "lean2_owner_n2") return model::detail::twoshot_lean_round_ns(in, k, true);
    return model::detail::twoshot_epilogue_round_ns(in, k);
  };
  // Known answers: 12 ns per warp-vector of the other blocks for the rounds with a residual, 5 for ar. Each base
  // row measures 2000 ns; a row at k measures 2000 + the model's growth + the answer x (k - 1) x warps x vpt.
  struct Shape {
    int hidden, tpb, cluster;
  };
  const Shape shapes[] = {{8192, 128, 8}, {8192, 256, 4}, {8192, 128, 4}};
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const char* base : {"reference_n2", "lean_n2", "lean2_owner_n2", "reference2_epilogue_n2", "reference_ar_n2"})
    for (const Shape& sh : shapes) {
      const double per = std::string(base) == "reference_ar_n2" ? 5.0 : 12.0;
      const int vpt = sh.hidden / (sh.tpb * sh.cluster * 8);
      more.push_back(round_row(tp2.rows.front(), "body_round", std::string(base) + "_bps1_slowest", sh.hidden, sms,
                               sh.tpb, sh.cluster, 2000.0));
      for (const int k : {2, 4})
        more.push_back(round_row(tp2.rows.front(), "body_round", std::string(base) + "_bps" + std::to_string(k) + "_slowest",
                                 sh.hidden, k * sms, sh.tpb, sh.cluster,
                                 2000.0 + model_at(base, sh.hidden, sh.tpb, sh.cluster, k) -
                                     model_at(base, sh.hidden, sh.tpb, sh.cluster, 1) +
                                     per * (k - 1) * (sh.tpb / 32) * vpt));
    }
  // The N = 4 one-shot body at 20 ns per warp-vector: a record beside the N = 2 constant, which it does not move.
  for (const Shape& sh : shapes) {
    const int vpt = sh.hidden / (sh.tpb * sh.cluster * 8);
    more.push_back(round_row(tp2.rows.front(), "body_round", "reference_n4_bps1_slowest", sh.hidden, sms, sh.tpb,
                             sh.cluster, 2000.0));
    for (const int k : {2, 4})
      more.push_back(round_row(tp2.rows.front(), "body_round", "reference_n4_bps" + std::to_string(k) + "_slowest",
                               sh.hidden, k * sms, sh.tpb, sh.cluster,
                               2000.0 + model_at("reference_n4", sh.hidden, sh.tpb, sh.cluster, k, 4) -
                                   model_at("reference_n4", sh.hidden, sh.tpb, sh.cluster, 1, 4) +
                                   20.0 * (k - 1) * (sh.tpb / 32) * vpt));
  }
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  CHECK(count_notes(d, "record, body_round _bps2 / _bps4 at N = 4 (no constant reads them): their rows give 20.0 ns "
                       "per warp-vector (6 rows) where the model takes shared_sm_round_ns_per_warp_vector = 12.0 ns") == 1);
  CHECK(count_notes(d, "record, body_round _bps2 / _bps4 at N = 8") == 0);
  CHECK(d.calibration.shared_sm_round_ns_per_warp_vector == Approx(12.0).epsilon(1e-6));
  CHECK(d.calibration.shared_sm_ar_round_ns_per_warp_vector == Approx(5.0).epsilon(1e-6));
  CHECK(count_notes(d, "shared_sm_round_ns_per_warp_vector = 12: least-squares slope through 0 over 24 rows") == 1);
  CHECK(count_notes(d, "[reference2_epilogue_n2: the round grows +0.0 %, the model's ") == 0);
  CHECK(count_notes(d, "[reference2_epilogue_n2: the round grows ") == 1);
  CHECK(count_notes(d, "(medians over 6 rows)]") == 3);  // the ar fit and the N = 4 record: one body, 3 shapes x k = 2, 4
  // Rows of another run than their base (another date) are not paired: the priors, with a note.
  std::vector<MicrobenchRow> other_run = tp2.rows;
  for (MicrobenchRow r : more)
    if (r.variant.find("_bps") != std::string::npos) {
      if (r.variant.find("_bps1") == std::string::npos) r.date_utc = "2026-01-01T00:00:00Z";
      other_run.push_back(r);
    }
  const DerivedCalibration none = derive_calibration(other_run, tp2.spec);
  CHECK(none.calibration.shared_sm_round_ns_per_warp_vector == 0.0);
  CHECK(count_notes(none, "shared_sm_ar_round_ns_per_warp_vector = 0: prior kept (no body_round _bps2 / _bps4 rows") == 1);
  // The files of today (no _bps rows): the priors.
  CHECK(tp2.alone.calibration.shared_sm_round_ns_per_warp_vector == 0.0);
}

TEST_CASE("derive_calibration: the body_round rows no constant reads yet are recorded in notes, against their model") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(count_notes(tp2.alone, "record, ") == 0);  // files without such rows: nothing recorded
  // The ar rows: the model's ar round of the shape, body and N + vpt x (100 N ns, lean 150 N); the lean
  // two-shot rows: the owner the model's lean one-shot round at N + vpt x 70 ns, the reader the one at N = 2
  // + vpt x (-30 ns); the reference two-shot's epilogue rows (N = 2) below. Shapes of 1, 2 and 4 vectors per
  // thread.
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 256, 2}, std::tuple{4096, 128, 1}})
    for (const int n : {2, 4, 8}) {
      const int vpt = hidden / (tpb * cluster * 8);
      for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean}) {
        const bool lean = body == ModelDesign::lean;
        more.push_back(round_row(tp2.rows.front(), "body_round",
                                 std::string(lean ? "lean" : "reference") + "_ar_n" + std::to_string(n) + "_slowest",
                                 hidden, 16, tpb, cluster,
                                 model_body_round_ns(tp2, hidden, tpb, cluster, n, body, Pattern::ar) +
                                     vpt * (lean ? 150.0 : 100.0) * n));
      }
      if (n == 2)  // the NVFP4 rows: the model's NVFP4 round + vpt x (250 ns, lean 180 ns)
        for (const ModelDesign body : {ModelDesign::reference, ModelDesign::lean}) {
          const bool lean = body == ModelDesign::lean;
          more.push_back(round_row(tp2.rows.front(), "body_round",
                                   std::string(lean ? "lean" : "reference") + "_fp4_n2_slowest", hidden, 16, tpb,
                                   cluster,
                                   model_body_round_ns(tp2, hidden, tpb, cluster, 2, body, Pattern::ar_res_rms_fp4) +
                                       vpt * (lean ? 180.0 : 250.0)));
        }
      if (n == 2)  // the reference two-shot's epilogue: the model's round + vpt x 55 ns; ar: -60 ns at every vpt
        for (const Pattern pattern : {Pattern::ar_res_rms, Pattern::ar})
          more.push_back(round_row(tp2.rows.front(), "body_round",
                                   std::string("reference2_epilogue") + (pattern == Pattern::ar ? "_ar" : "") +
                                       "_n2_slowest",
                                   hidden, 16, tpb, cluster,
                                   model_twoshot_epilogue_ns(tp2, hidden, tpb, cluster, pattern) +
                                       (pattern == Pattern::ar ? -60.0 : vpt * 55.0)));
      more.push_back(round_row(tp2.rows.front(), "body_round", "lean2_owner_n" + std::to_string(n) + "_slowest", hidden,
                               16, tpb, cluster,
                               model_body_round_ns(tp2, hidden, tpb, cluster, n, ModelDesign::lean) + vpt * 70.0));
      more.push_back(round_row(tp2.rows.front(), "body_round", "lean2_reader_n" + std::to_string(n) + "_slowest", hidden,
                               16, tpb, cluster,
                               model_body_round_ns(tp2, hidden, tpb, cluster, 2, ModelDesign::lean) - vpt * 30.0));
    }
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  CHECK(count_notes(d, "record, ") == 12);
  CHECK(count_notes(d, "record, body_round reference_fp4_n2_slowest (no constant reads it): the NVFP4 round at N = 2 "
                       "takes 250 ns per vector beyond the model's NVFP4 round (median over 3 rows); no ar_res_rms "
                       "rows") == 1);
  CHECK(count_notes(d, "record, body_round lean_fp4_n2_slowest (no constant reads it): the NVFP4 round at N = 2 "
                       "takes 180 ns per vector") == 1);
  CHECK(count_notes(d, "_fp4_n4") + count_notes(d, "_fp4_n8") == 0);  // no such rows, no such notes
  // The reference two-shot's epilogue rows set a constant each, per round: ar_res_rms (since session 36) the
  // median of 55, 110 and 220 ns (1, 2 and 4 vectors per thread), ar -60 ns.
  CHECK(count_notes(d, "record, body_round reference2_epilogue_n2_slowest") == 0);
  CHECK(d.calibration.twoshot_further_round_ns_n2 == Approx(110.0).margin(1e-6));
  CHECK(count_notes(d, "twoshot_further_round_ns_n2 = 110: median over 3 rows of body_round "
                       "reference2_epilogue_n2_slowest") == 1);
  CHECK(tp2.alone.calibration.twoshot_further_round_ns_n2 == 0.0);
  // The ar epilogue rows set twoshot_ar_further_round_ns_n2 (since session 33), with their rows in its note; per
  // round since session 36 (per vector, the rows at 2 and 4 vectors per thread would give -30 and -15).
  CHECK(count_notes(d, "record, body_round reference2_epilogue_ar_n2_slowest") == 0);
  CHECK(d.calibration.twoshot_ar_further_round_ns_n2 == Approx(-60.0).margin(1e-6));
  CHECK(count_notes(d, "twoshot_ar_further_round_ns_n2 = -60: median over 3 rows of body_round "
                       "reference2_epilogue_ar_n2_slowest") == 1);
  CHECK(tp2.alone.calibration.twoshot_ar_further_round_ns_n2 == 0.0);
  CHECK(count_notes(tp2.alone, "twoshot_ar_further_round_ns_n2 = 0: prior kept (no body_round "
                               "reference2_epilogue_ar_n2_slowest rows)") == 1);
  // The ar rows at N = 2 are read by the ar round's line and per-vector constant (since session 37; the next
  // test case), not recorded; here their rows of one vector per thread hold one block size only, so the line
  // and the constant keep their priors, and say why. At N = 4 and 8 they stay records.
  CHECK(count_notes(d, "record, body_round reference_ar_n2") + count_notes(d, "record, body_round lean_ar_n2") == 0);
  for (const double value : {d.calibration.ar_round_line_ns_n2, d.calibration.ar_round_line_ns_per_warp_n2,
                             d.calibration.ar_round_ns_per_further_vector_n2, d.calibration.lean_ar_round_line_ns_n2,
                             d.calibration.lean_ar_round_ns_per_further_vector_n2})
    CHECK(value == 0.0);
  CHECK(count_notes(d, "ar_round_line_ns_n2 = 0: prior kept (no body_round reference_ar_n2_slowest rows of one vector "
                       "per thread at two or more block sizes") == 1);
  CHECK(count_notes(d, "lean_ar_round_ns_per_further_vector_n2 = 0: prior kept (no body_round lean_ar_n2_slowest rows "
                       "of one vector per thread at two or more block sizes") == 1);
  CHECK(tp2.alone.calibration.ar_round_line_ns_n2 == 0.0);
  CHECK(count_notes(tp2.alone, "ar_round_line_ns_n2 = 0: prior kept (no body_round reference_ar_n2_slowest rows of "
                               "one vector per thread at two or more block sizes") == 1);
  for (const int n : {2, 4, 8}) {
    INFO("N = " << n);
    const std::string nn = "_n" + std::to_string(n) + "_slowest";
    if (n > 2) {
      CHECK(count_notes(d, "record, body_round reference_ar" + nn + " (no constant reads it): the ar round at N = " +
                               std::to_string(n) + " takes " + std::to_string(100 * n) +
                               " ns per vector beyond the model's ar round (median over 3 rows); no ar_res_rms rows") ==
            1);
      CHECK(count_notes(d, "record, body_round lean_ar" + nn + " (no constant reads it): the ar round at N = " +
                               std::to_string(n) + " takes " + std::to_string(150 * n) + " ns per vector") == 1);
    }
    CHECK(count_notes(d, "record, body_round lean2_owner" + nn + " (no constant reads it): per vector, 70 ns beyond "
                             "the model's lean one-shot round at N = " + std::to_string(n)) == 1);
    const std::string reader = "record, body_round lean2_reader" + nn + " (no constant reads it): per vector, ";
    CHECK(count_notes(d, reader) == 1);
    for (const std::string& note : d.notes)  // the reader against the lean one-shot round at N = 2, whatever N
      if (note.find(reader) != std::string::npos)
        CHECK(note.find(" and -30 ns beyond it at N = 2 (medians over 3 rows); no body_round lean_n2_slowest rows "
                        "of the same runs (") != std::string::npos);
  }
  // Recorded only: every other constant as without those rows.
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    if (info.name == "twoshot_ar_further_round_ns_n2" || info.name == "twoshot_further_round_ns_n2" ||
        info.name.find("ar_round_line_ns") != std::string::npos)
      continue;
    INFO(info.name);
    CHECK(get_constant(d.calibration, info.name) == get_constant(tp2.alone.calibration, info.name));
  }
}

TEST_CASE("derive_calibration: the lean two-shot rounds are also recorded against the one-shot round of the same run") {
  const EmulatedTp2 tp2 = emulated_tp2();
  // lean_n4 / lean_n2 rows of this run at three shapes (1, 2 and 4 vectors per thread), the owner at N = 4
  // 70 ns per vector above lean_n4's, the reader at N = 4 -40 ns per vector from lean_n2's; rows of another
  // run at the same shapes, 5 us longer, must not pair with them.
  std::vector<MicrobenchRow> more = tp2.rows;
  MicrobenchRow other_run = tp2.rows.front();
  other_run.date_utc = "2026-01-01T00:00:00Z";
  for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 256, 2}, std::tuple{4096, 128, 1}}) {
    const int vpt = hidden / (tpb * cluster * 8);
    const double one_shot_n4 = 2000.0 + 10.0 * tpb, one_shot_n2 = 1500.0 + 5.0 * tpb;
    // the other run's rows first: a pairing that ignored the run would find them
    more.push_back(round_row(other_run, "body_round", "lean_n4_slowest", hidden, 16, tpb, cluster, one_shot_n4 + 5000));
    more.push_back(round_row(other_run, "body_round", "lean_n2_slowest", hidden, 16, tpb, cluster, one_shot_n2 + 5000));
    more.push_back(round_row(tp2.rows.front(), "body_round", "lean_n4_slowest", hidden, 16, tpb, cluster, one_shot_n4));
    more.push_back(round_row(tp2.rows.front(), "body_round", "lean_n2_slowest", hidden, 16, tpb, cluster, one_shot_n2));
    more.push_back(round_row(tp2.rows.front(), "body_round", "lean2_owner_n4_slowest", hidden, 16, tpb, cluster,
                             one_shot_n4 + 70.0 * vpt));
    more.push_back(round_row(tp2.rows.front(), "body_round", "lean2_reader_n4_slowest", hidden, 16, tpb, cluster,
                             one_shot_n2 - 40.0 * vpt));
  }
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  CHECK(count_notes(d, "record, body_round lean2_owner_n4_slowest (no constant reads it): ") == 1);
  CHECK(count_notes(d, "; 70 ns beyond the measured lean_n4_slowest round of the same run and shape (median over 3 "
                       "pairs)") == 1);
  CHECK(count_notes(d, "; -40 ns beyond the measured lean_n2_slowest round of the same run and shape (median over 3 "
                       "pairs)") == 1);
  // no such rows, no such records
  CHECK(count_notes(d, "record, body_round lean2_owner_n2") + count_notes(d, "record, body_round lean2_reader_n8") == 0);
}

TEST_CASE("derive_calibration: body_round cold rows give the poll-miss constants, reuse rows the L2 ramp") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(tp2.alone.calibration.poll_miss_ns_n8 == 0.0);
  CHECK(tp2.alone.calibration.lean_poll_miss_ns_n4 == 0.0);
  CHECK(count_notes(tp2.alone, "poll_miss_ns_n2 = 0: prior kept") == 2);  // the reference's and lean's
  CHECK(tp2.alone.calibration.l2_reuse_miss_start_fraction == default_calibration().l2_reuse_miss_start_fraction);
  CHECK(count_notes(tp2.alone, "l2_reuse_miss_full_fraction = 1: prior kept") == 1);
  std::vector<MicrobenchRow> more = tp2.rows;
  // Cold rows = warm rows + (per-body, per-N ns) x vectors per thread, for shapes of 1, 2 and 4 vectors
  // per thread; a cold row without its warm row of the same run is ignored.
  const auto miss = [](bool lean, int n) { return (lean ? 100.0 : 50.0) * n; };
  for (const auto& [hidden, tpb, cluster] : {std::tuple{8192, 128, 8}, std::tuple{8192, 128, 4}, std::tuple{4096, 128, 1}})
    for (const int n : {2, 4, 8})
      for (const bool lean : {false, true}) {
        const int vpt = hidden / (tpb * cluster * 8);
        const std::string v = std::string(lean ? "lean" : "reference") + "_n" + std::to_string(n);
        const double warm = 2000.0 + 10.0 * n + hidden / 100.0;
        more.push_back(round_row(tp2.rows.front(), "body_round", v + "_slowest", hidden, 16, tpb, cluster, warm));
        more.push_back(round_row(tp2.rows.front(), "body_round", v + "_cold_slowest", hidden, 16, tpb, cluster,
                                 warm + miss(lean, n) * vpt));
      }
  MicrobenchRow orphan = round_row(tp2.rows.front(), "body_round", "reference_n8_cold_slowest", 8192, 64, 512, 2, 1e5);
  more.push_back(orphan);
  // Reuse curves: flat to 0.375 L2, then linear to full at 0.875 L2 (largest B = 4 x L2 = 4 x 64 MiB).
  const double l2 = 64.0 * 1024 * 1024;
  for (const char* v : {"reference_n4_reuse_slowest", "lean_n4_reuse_slowest"})
    for (const double f : {0.0, 0.125, 0.25, 0.375, 0.5, 0.75, 1.0, 2.0, 4.0}) {
      MicrobenchRow r = round_row(tp2.rows.front(), "body_round", v, 8192, 16, 128, 4,
                                  2000.0 + 400.0 * std::clamp((f - 0.375) / 0.5, 0.0, 1.0));
      r.size = f * l2;
      r.size_unit = "bytes written between";
      more.push_back(r);
    }
  const Calibration got = derive_calibration(more, tp2.spec).calibration;
  CHECK(got.poll_miss_ns_n2 == Approx(100.0));
  CHECK(got.poll_miss_ns_n4 == Approx(200.0));
  CHECK(got.poll_miss_ns_n8 == Approx(400.0));
  CHECK(got.lean_poll_miss_ns_n2 == Approx(200.0));
  CHECK(got.lean_poll_miss_ns_n8 == Approx(800.0));
  // Miss fractions 0 / 0.25 / 0.75 / 1 at 0.375 / 0.5 / 0.75 / 1.0 x L2: the curve crosses 0.1 at
  // 0.375 + 0.125 x 0.1 / 0.25 = 0.425 and 0.9 at 0.75 + 0.25 x 0.15 / 0.25 = 0.9; the ramp is that
  // widened by 1/8 of the 0.475 span each way.
  CHECK(got.l2_reuse_miss_start_fraction == Approx(0.425 - 0.475 / 8));
  CHECK(got.l2_reuse_miss_full_fraction == Approx(0.9 + 0.475 / 8));
}

TEST_CASE("derive_calibration: body_round's solo and allbusy rows are a record that no constant reads") {
  // The committed allbusy rows (and, so that a future reader could not hide behind their values, the same
  // rows at 100x) leave every constant as the committed rows alone give it.
  const EmulatedTp2 tp2 = emulated_tp2();
  const Calibration& alone = tp2.alone.calibration;
  std::vector<MicrobenchRow> allbusy =
      load_microbench(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/h200_emulated_n2_allbusy_microbench.csv");
  REQUIRE(allbusy.size() >= 8);
  for (const MicrobenchRow& r : allbusy) {
    CHECK(r.bench == "body_round");
    CHECK((r.variant.find("_solo") != std::string::npos || r.variant.find("_allbusy") != std::string::npos));
  }
  for (const double scale : {1.0, 100.0}) {
    std::vector<MicrobenchRow> more = tp2.rows;
    for (MicrobenchRow r : allbusy) {
      r.value *= scale;
      more.push_back(r);
    }
    const Calibration with = derive_calibration(more, tp2.spec).calibration;
    for (const CalibrationConstantInfo& info : calibration_constants()) {
      INFO(info.name << ", allbusy tp2.rows x " << scale);
      CHECK(get_constant(with, info.name) == get_constant(alone, info.name));
    }
  }
}

namespace {
// A bandwidth row of one partition of an emulated node of `nranks` (16 SMs each, 20 repetitions, every
// figure the same value).
MicrobenchRow bandwidth_row(const std::string& variant, int tpb, double gbps, int nranks) {
  MicrobenchRow r;
  r.bench = "bandwidth";
  r.variant = variant;
  r.metric = "gbps";
  r.size_unit = "bytes";
  r.size = 536870912.0;
  r.tpb = tpb;
  r.sms = 16;
  r.value = r.p10 = r.p90 = gbps;
  r.reps = 20;
  r.link = "local";
  r.nranks = nranks;
  return r;
}
}  // namespace

TEST_CASE("derive_calibration: bandwidth *_allbusy rows are a record per N that no constant reads") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(count_notes(tp2.alone, "record, bandwidth *_allbusy") == 0);
  // One partition of an 8-partition node while every partition streams: two repetitions per kind whose
  // median is the value, and a tpb 256 row the record must not read.
  const auto row = [](const std::string& kind, int tpb, double gbps) {
    return bandwidth_row(kind + "_allbusy", tpb, gbps, 8);
  };
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const double d : {-10.0, 10.0}) {
    more.push_back(row("read", 1024, 540.0 + d));
    more.push_back(row("write", 1024, 420.0 + d));
    more.push_back(row("copy", 1024, 480.0 + d));
  }
  more.push_back(row("write", 256, 9999.0));
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    INFO(info.name);
    CHECK(get_constant(d.calibration, info.name) == get_constant(tp2.alone.calibration, info.name));
  }
  REQUIRE(count_notes(d, "record, bandwidth *_allbusy at N = 8") == 1);
  CHECK(count_notes(d, "record, bandwidth *_allbusy at N = 2") == 0);
  const auto note = std::find_if(d.notes.begin(), d.notes.end(), [](const std::string& n) {
    return n.find("record, bandwidth *_allbusy at N = 8") != std::string::npos;
  });
  INFO(*note);
  CHECK(note->find("read 540 GB/s (the GPU 4320)") != std::string::npos);
  CHECK(note->find("write 420 GB/s (the GPU 3360)") != std::string::npos);
  CHECK(note->find("copy 480 GB/s (the GPU 3840)") != std::string::npos);
  // The model's GPU rate: hbm_efficiency x the GPU's datasheet (the 2-partition node's share x 2).
  CHECK(note->find(fmt("= %.4g GB/s", d.calibration.hbm_efficiency * tp2.spec.hbm_gbps * 2)) != std::string::npos);
}

TEST_CASE("derive_calibration: bandwidth rows_* rows are a record per N; without both kinds _allbusy they set nothing") {
  const EmulatedTp2 tp2 = emulated_tp2();
  CHECK(count_notes(tp2.alone, "record, bandwidth rows") == 0);
  // The row layout at an 8-partition node: H 6848 (tpb 856: 128-byte rows, a partial warp) and H 8192 (tpb
  // 1024), packed and padded, alone and beside every partition, two repetitions each (the median is the
  // value); one row of a 4-partition node that must land in its own note.
  const auto row = [](const std::string& variant, int tpb, double gbps, int nranks = 8) {
    return bandwidth_row(variant, tpb, gbps, nranks);
  };
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const double d : {-5.0, 5.0}) {
    more.push_back(row("rows_write", 856, 300.0 + d));
    more.push_back(row("rows_write_pitch4k", 856, 380.0 + d));
    more.push_back(row("rows_write", 1024, 390.0 + d));
    more.push_back(row("rows_write_pitch4k", 1024, 395.0 + d));
    more.push_back(row("rows_write_allbusy", 856, 250.0 + d));
    more.push_back(row("rows_write_pitch4k_allbusy", 856, 330.0 + d));
    more.push_back(row("rows_read", 856, 500.0 + d));
  }
  more.push_back(row("rows_write", 856, 777.0, 4));
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    INFO(info.name);
    CHECK(get_constant(d.calibration, info.name) == get_constant(tp2.alone.calibration, info.name));
  }
  REQUIRE(count_notes(d, "record, bandwidth rows at N = 8") == 1);
  REQUIRE(count_notes(d, "record, bandwidth rows at N = 4") == 1);
  CHECK(count_notes(d, "record, bandwidth rows at N = 2") == 0);
  const auto note_of = [&](const std::string& head) {
    return *std::find_if(d.notes.begin(), d.notes.end(),
                         [&](const std::string& n) { return n.find(head) != std::string::npos; });
  };
  const std::string n8 = note_of("record, bandwidth rows at N = 8");
  INFO(n8);
  CHECK(n8.find("write alone: H 6848 (128-B rows, a partial warp) 300 / 380 GB/s; H 8192 (16384-B rows) 390 / 395 "
                "GB/s") != std::string::npos);
  CHECK(n8.find("write while every partition streams: H 6848 (128-B rows, a partial warp) 250 / 330 GB/s") !=
        std::string::npos);
  // A kind with packed rows only says so (nan for the missing padded figure).
  CHECK(n8.find("read alone: H 6848 (128-B rows, a partial warp) 500 / nan GB/s") != std::string::npos);
  CHECK(n8.find("777") == std::string::npos);
  CHECK(note_of("record, bandwidth rows at N = 4").find("write alone: H 6848 (128-B rows, a partial warp) 777 / nan") !=
        std::string::npos);
}

TEST_CASE("derive_calibration: rows_*_allbusy rows give the HBM rate's fraction per row alignment and N") {
  const EmulatedTp2 tp2 = emulated_tp2();
  // At N = 8: H 6848 (tpb 856, 128-B rows) packed and padded, reads and writes, two repetitions each (the
  // median is the value); H 6784 (tpb 848, 256-B rows) reads only; rows alone (no _allbusy) at N = 4 that
  // no fraction reads; a row of another tpb that must not be read.
  const auto row = [](const std::string& variant, int tpb, double gbps, int nranks = 8) {
    return bandwidth_row(variant, tpb, gbps, nranks);
  };
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const double d : {-5.0, 5.0}) {
    more.push_back(row("rows_read_allbusy", 856, 700.0 + d));
    more.push_back(row("rows_read_pitch4k_allbusy", 856, 760.0 + d));
    more.push_back(row("rows_write_allbusy", 856, 620.0 + d));
    more.push_back(row("rows_write_pitch4k_allbusy", 856, 640.0 + d));
    more.push_back(row("rows_read_allbusy", 848, 720.0 + d));
    more.push_back(row("rows_read_pitch4k_allbusy", 848, 760.0 + d));
    more.push_back(row("rows_read", 856, 900.0 + d, 4));
    more.push_back(row("rows_read_pitch4k", 856, 1000.0 + d, 4));
    more.push_back(row("rows_write", 856, 900.0 + d, 4));
    more.push_back(row("rows_write_pitch4k", 856, 1000.0 + d, 4));
  }
  more.push_back(row("rows_read_allbusy", 1024, 1.0));
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  CHECK(d.calibration.hbm_rows_fraction_128b_n8 == Approx((700.0 / 760.0 + 620.0 / 640.0) / 2));
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    if (info.name == "hbm_rows_fraction_128b_n8") continue;
    INFO(info.name);
    CHECK(get_constant(d.calibration, info.name) == get_constant(tp2.alone.calibration, info.name));
  }
  CHECK(tp2.alone.calibration.hbm_rows_fraction_128b_n8 == 1.0);
  CHECK(count_notes(d, "hbm_rows_fraction_128b_n8 = 0.9449: mean over reads and writes") == 1);
  CHECK(count_notes(d, "read 700 / 760 GB/s, write 620 / 640 GB/s") == 1);
  CHECK(count_notes(d, "hbm_rows_fraction_256b_n8 = 1: prior kept (no rows_read and rows_write _allbusy rows, "
                       "packed and padded, at H 6784 and N = 8)") == 1);
  CHECK(count_notes(d, "hbm_rows_fraction_128b_n4 = 1: prior kept") == 1);
  // A real node keeps the priors, and says why.
  std::vector<MicrobenchRow> real = more;
  for (MicrobenchRow& r : real) r.link = "nvlink";
  GpuSpec real_spec = tp2.spec;
  real_spec.link = LinkKind::nvlink;
  const DerivedCalibration r = derive_calibration(real, real_spec);
  CHECK(r.calibration.hbm_rows_fraction_128b_n8 == 1.0);
  CHECK(count_notes(r, "hbm_rows_fraction_128b_n8 = 1: prior kept (a real node") == 1);
}

TEST_CASE("derive_calibration: exchange all_to_all_grid rows give the grid term, without them the priors stay") {
  std::vector<MicrobenchRow> rows = load_microbench(std::string(ARLAB_SOURCE_DIR) +
                                                    "/data/calibration/h200_nvlink_microbench.csv");
  const GpuSpec spec = gpu_preset("h200_sxm");
  const DerivedCalibration none = derive_calibration(rows, spec);
  CHECK(none.calibration.exchange_grid_ns_per_block == default_calibration().exchange_grid_ns_per_block);
  CHECK(none.calibration.exchange_grid_ns_per_block_warp == default_calibration().exchange_grid_ns_per_block_warp);
  CHECK(count_notes(none, "exchange_grid_ns_per_block = 0: prior kept") == 1);
  // extra(B, W) = 4 (B-1) + 0.25 (B-1) W ns beyond the launch's own launch_per_block_ns (B-1), over
  // one block of 1.5 us, at blocks {1, 4, 16, 64} x tpb {128, 1024}.
  const double per_block_launch_ns = none.calibration.launch_per_block_ns;
  const auto grid_row = [&](int blocks, int tpb) {
    MicrobenchRow r;
    r.bench = "exchange";
    r.variant = "all_to_all_grid";
    r.metric = "skewfree_us";
    r.size_unit = "ranks";
    r.size = 2;
    r.sms = blocks;
    r.tpb = tpb;
    const double extra_ns = (blocks - 1) * (4.0 + 0.25 * (tpb / 32) + per_block_launch_ns);
    r.value = r.p10 = r.p90 = 1.5 + extra_ns / 1e3;
    r.reps = 256;
    r.link = "nvlink";
    r.nranks = 2;
    return r;
  };
  std::vector<MicrobenchRow> with = rows;
  for (int blocks : {1, 4, 16, 64})
    for (int tpb : {128, 1024}) with.push_back(grid_row(blocks, tpb));
  const DerivedCalibration d = derive_calibration(with, spec);
  CHECK(d.calibration.exchange_grid_ns_per_block == Approx(4.0).epsilon(1e-9));
  CHECK(d.calibration.exchange_grid_ns_per_block_warp == Approx(0.25).epsilon(1e-9));
  // Grids of more blocks than the rank's SMs (2 and 4 per SM on a 64-SM partition): the per-block part
  // counts the SMs the blocks occupy, min(B, 64), the warp part every block. Rows made that way give the
  // same constants back; read as if every block had an SM of its own they would not.
  const auto coresident_row = [&](int blocks, int tpb) {
    MicrobenchRow r = grid_row(blocks, tpb);
    r.sm_per_rank = 64;
    const double extra_ns = (std::min(blocks, 64) - 1) * 4.0 + (blocks - 1) * (0.25 * (tpb / 32) + per_block_launch_ns);
    r.value = r.p10 = r.p90 = 1.5 + extra_ns / 1e3;
    return r;
  };
  std::vector<MicrobenchRow> coresident = rows;
  for (int blocks : {1, 4, 16, 64, 128, 256})
    for (int tpb : {128, 512}) coresident.push_back(coresident_row(blocks, tpb));
  const DerivedCalibration co = derive_calibration(coresident, spec);
  CHECK(co.calibration.exchange_grid_ns_per_block == Approx(4.0).epsilon(1e-9));
  CHECK(co.calibration.exchange_grid_ns_per_block_warp == Approx(0.25).epsilon(1e-9));
  CHECK(count_notes(co, "256x512 (on 64 SMs)") == 1);
  // Two partitions in one derivation (an `-n 2` run's 64-SM rows and an `-n 8` run's 16-SM rows, as
  // --exchange-microbench brings them): each partition's rows against its own one-block round and its
  // own S_B give the same constants back, whatever the other partition's one-block round is. Pooled
  // under the smallest partition (the derivation before session 47) they would not.
  const auto partition_row = [&](int blocks, int tpb, int part, double one_block_us) {
    MicrobenchRow r = grid_row(blocks, tpb);
    r.sm_per_rank = part;
    const double extra_ns =
        (std::min(blocks, part) - 1) * 4.0 + (blocks - 1) * (0.25 * (tpb / 32) + per_block_launch_ns);
    r.value = r.p10 = r.p90 = one_block_us + extra_ns / 1e3;
    return r;
  };
  std::vector<MicrobenchRow> two_parts = rows;
  for (int blocks : {1, 4, 16, 64, 128})
    for (int tpb : {128, 512}) {
      two_parts.push_back(partition_row(blocks, tpb, 64, 1.5));
      two_parts.push_back(partition_row(blocks, tpb, 16, 1.9));
    }
  const DerivedCalibration tp = derive_calibration(two_parts, spec);
  CHECK(tp.calibration.exchange_grid_ns_per_block == Approx(4.0).epsilon(1e-9));
  CHECK(tp.calibration.exchange_grid_ns_per_block_warp == Approx(0.25).epsilon(1e-9));
  CHECK(count_notes(tp, "16x128 [64-SM partition]") == 1);
  CHECK(count_notes(tp, "64x512 (on 16 SMs)") == 1);
  // Rows without a one-block round of their size give nothing to measure against: priors.
  std::vector<MicrobenchRow> no_base = rows;
  for (int blocks : {4, 64}) no_base.push_back(grid_row(blocks, 512));
  CHECK(derive_calibration(no_base, spec).calibration.exchange_grid_ns_per_block == 0.0);
  // A grid that does not lengthen the round (extra below the launch's own per block) gives 0, never less.
  std::vector<MicrobenchRow> flat = rows;
  for (int blocks : {1, 16, 64}) {
    MicrobenchRow r = grid_row(1, 256);
    r.sms = blocks;
    flat.push_back(r);
  }
  const DerivedCalibration f = derive_calibration(flat, spec);
  CHECK(f.calibration.exchange_grid_ns_per_block == 0.0);
  CHECK(f.calibration.exchange_grid_ns_per_block_warp == 0.0);
}

TEST_CASE("derive_calibration names the bench a constant is missing") {
  std::vector<MicrobenchRow> rows = load_microbench(std::string(ARLAB_SOURCE_DIR) +
                                                    "/data/calibration/h200_nvlink_microbench.csv");
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const MicrobenchRow& r) { return r.bench == "chase"; }),
             rows.end());
  CHECK_THROWS_WITH(derive_calibration(rows, gpu_preset("h200_sxm")),
                    Catch::Contains("bench chase") && Catch::Contains("variant hbm"));
  CHECK_THROWS_WITH(derive_calibration({}, gpu_preset("h200_sxm")), Catch::Contains("no microbenchmark rows"));
}

TEST_CASE("load_microbench refuses a bench arlab calibrate does not run, and a file without rows") {
  // A misspelt bench would drop its rows, and the constants derived from the others would change.
  std::ifstream in(std::string(ARLAB_SOURCE_DIR) + "/data/calibration/h200_nvlink_microbench.csv");
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  const std::vector<std::string> names = csv_split(header);
  std::vector<std::string> cells = csv_split(second);
  const size_t bench = static_cast<size_t>(std::find(names.begin(), names.end(), "bench") - names.begin());
  REQUIRE(bench < cells.size());
  cells[bench] = "lunch";
  TempFile f("microbench_typo.csv", header + "\n" + first + "\n" + csv_join(cells) + "\n");
  const std::string m = expect_csv_error([&] { load_microbench(f.path); }, 3, "bench");
  CHECK_THAT(m, Catch::Contains("unknown bench 'lunch'") && Catch::Contains("launch, chase"));
  TempFile empty("microbench_empty.csv", header + "\n");
  CHECK_THAT(expect_csv_error([&] { load_microbench(empty.path); }, 1, "bench"),
             Catch::Contains("no microbenchmark rows"));
}

TEST_CASE("derive_calibration: the cluster_placement rows are checked against the model's cluster capacity") {
  const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  std::vector<MicrobenchRow> rows = load_microbench(dir + "h200_emulated_microbench.csv");
  const std::vector<MicrobenchRow> placement = load_microbench(dir + "h200_emulated_n2_placement_microbench.csv");
  REQUIRE(placement.size() == 24);
  rows.insert(rows.end(), placement.begin(), placement.end());
  const GpuSpec spec = sm_partition(gpu_preset("h200_sxm"), 2);
  const DerivedCalibration d = derive_calibration(rows, spec);
  CHECK(count_notes(d, "agrees with the model's cluster capacity: clusters of 1: 64 SMs (model 64); clusters of 2: "
                       "64 SMs (model 64); clusters of 4: 60 SMs (model 60); clusters of 8: 56 SMs (model 56);") == 1);
  // The rows set no constant.
  const DerivedCalibration without = derive_calibration(load_microbench(dir + "h200_emulated_microbench.csv"), spec);
  for (const auto& info : calibration_constants())
    CHECK(get_constant(d.calibration, info.name) == get_constant(without.calibration, info.name));
  // A placement the model does not give is reported.
  for (MicrobenchRow& r : rows)
    if (r.bench == "cluster_placement" && r.variant == "shared" && r.metric == "sms_used" && r.cluster == 8) r.value = 64;
  CHECK(count_notes(derive_calibration(rows, spec), "DISAGREES with the model's cluster capacity") == 1);
}

TEST_CASE("derive_calibration: the cluster_placement several rows are checked against the capacity at k blocks per SM") {
  const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  std::vector<MicrobenchRow> rows = load_microbench(dir + "h200_emulated_microbench.csv");
  const GpuSpec spec = sm_partition(gpu_preset("h200_sxm"), 2);
  CHECK(count_notes(derive_calibration(rows, spec), "check, cluster_placement several: no rows") == 1);
  // What the capacity probe measured on an H100's 64-SM partition at 8 blocks per SM of 128 threads
  // (data/h100/probes/cluster_capacity_emulated.csv), as the bench's `several` rows would hold it, and a grid of
  // 2 blocks per SM in clusters of 4 with every cluster the model's capacity there (31 of 32) resident.
  const auto several_row = [](int blocks_per_sm, int cluster, double resident) {
    MicrobenchRow r;
    r.bench = "cluster_placement";
    r.variant = "several";
    r.metric = "resident_blocks";
    r.size_unit = "blocks";
    r.size = 64.0 * blocks_per_sm;
    r.tpb = 128;
    r.cluster = cluster;
    r.sms = 64;
    r.value = r.p10 = r.p90 = resident;
    r.reps = 5;
    r.link = "local";
    r.nranks = 2;
    return r;
  };
  for (const auto& [cluster, resident] : {std::pair{1, 512.0}, {2, 512.0}, {4, 496.0}, {8, 464.0}})
    rows.push_back(several_row(8, cluster, resident));
  rows.push_back(several_row(2, 4, 124.0));
  CHECK(count_notes(derive_calibration(rows, spec),
                    "check, cluster_placement several (grids of several blocks per SM; blocks resident at once): agrees "
                    "with the model's cluster capacity (to less than one cluster: a block that starts late is not "
                    "counted): 8 blocks per SM, clusters of 1: 512 blocks (model 512); 8 blocks "
                    "per SM, clusters of 2: 512 blocks (model 512); 8 blocks per SM, clusters of 4: 496 blocks (model "
                    "496); 8 blocks per SM, clusters of 8: 464 blocks (model 464); 2 blocks per SM, clusters of 4: 124 "
                    "blocks (model 124);") == 1);
  // One block short of the model in clusters of 8 (the bench's first H100 run: 463 of 464, a late start): agrees;
  // one block short in clusters of 1 is a block the partition did not hold: reported.
  const auto with_value = [&](int cluster, double resident) {
    std::vector<MicrobenchRow> changed = rows;
    for (MicrobenchRow& r : changed)
      if (r.variant == "several" && r.cluster == cluster && r.size == 512) r.value = resident;
    return derive_calibration(changed, spec);
  };
  CHECK(count_notes(with_value(8, 463.0), "blocks resident at once): agrees") == 1);
  CHECK(count_notes(with_value(8, 456.0), "blocks resident at once): DISAGREES") == 1);
  CHECK(count_notes(with_value(1, 511.0), "blocks resident at once): DISAGREES") == 1);
  // Every cluster resident, as the model had it before session 38: reported.
  CHECK(count_notes(with_value(4, 512.0), "blocks resident at once): DISAGREES") == 1);
  // The bench's first run (an H100, session 39) at 2, 4 and 8 ranks agrees with the model at every partition.
  for (const int n : {2, 4, 8}) {
    INFO("h100_emulated_s39_n" << n << "_microbench.csv");
    const std::vector<MicrobenchRow> measured =
        load_microbench(dir + "h100_emulated_s39_n" + std::to_string(n) + "_microbench.csv");
    const DerivedCalibration d = derive_calibration(measured, sm_partition(gpu_preset("h100_sxm"), n));
    CHECK(count_notes(d, "blocks resident at once): agrees") == 1);
    CHECK(count_notes(d, "(a grid of one block per SM; SMs used): agrees") == 1);
  }
}

TEST_CASE("derive_calibration: l2_store_busy_gbps is the median of write_l2_busy at all SMs, tpb 1024; prior without") {
  const EmulatedTp2 tp2 = emulated_tp2();
  // The committed main run predates the L2 bench: no rows, the prior 0 (no term), said in a note.
  CHECK(tp2.alone.calibration.l2_store_busy_gbps == 0.0);
  CHECK(count_notes(tp2.alone, "l2_store_busy_gbps = 0: prior kept") == 1);
  int all_sms = 0;
  for (const MicrobenchRow& r : tp2.rows)
    if (r.bench == "bandwidth") all_sms = std::max(all_sms, r.sms);
  REQUIRE(all_sms > 16);
  std::vector<MicrobenchRow> more = tp2.rows;
  for (const double gbps : {1850.0, 1900.0, 2000.0}) {
    MicrobenchRow r = bandwidth_row("write_l2_busy", 1024, gbps, 2);
    r.sms = all_sms;
    more.push_back(r);
  }
  // Rows the constant must not read: another tpb, fewer SMs, another variant.
  more.push_back(bandwidth_row("write_l2_busy", 256, 9999.0, 2));
  more.push_back(bandwidth_row("write_l2_busy", 1024, 9999.0, 2));  // 16 SMs
  MicrobenchRow copy = bandwidth_row("copy_l2_busy", 1024, 9999.0, 2);
  copy.sms = all_sms;
  more.push_back(copy);
  const DerivedCalibration d = derive_calibration(more, tp2.spec);
  CHECK(d.calibration.l2_store_busy_gbps == Approx(1900.0));
  // Nothing else moves.
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    if (info.name == "l2_store_busy_gbps") continue;
    INFO(info.name);
    CHECK(get_constant(d.calibration, info.name) == get_constant(tp2.alone.calibration, info.name));
  }
}

namespace {
// The H100's main `arlab calibrate -n 2` run (data/calibration/h100_emulated_microbench.csv) and what it derives
// alone: the base that session 42's allbusy rows are added to.
struct H100Main {
  std::string dir;
  GpuSpec spec;
  std::vector<MicrobenchRow> rows;
  DerivedCalibration alone;
};
H100Main h100_main() {
  H100Main h;
  h.dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  h.spec = sm_partition(gpu_preset("h100_sxm"), 2);
  h.rows = load_microbench(h.dir + "h100_emulated_microbench.csv");
  h.alone = derive_calibration(h.rows, h.spec);
  return h;
}
}  // namespace

TEST_CASE("derive_calibration: twoshot_round_delta_ns / _per_warp are the line over warps of the two-shot epilogue "
          "rounds with every partition busy minus the model's round; prior without") {
  const auto [dir, spec, main_rows, alone] = h100_main();
  // The main run predates the allbusy rows: the prior (no delta), said in a note.
  CHECK(alone.calibration.twoshot_round_delta_ns == 0.0);
  CHECK(alone.calibration.twoshot_round_delta_ns_per_warp == 0.0);
  CHECK(count_notes(alone, "twoshot_round_delta_ns = 0: prior kept") == 1);
  // Session 42's rows at N = 2, 4 and 8 (every partition running the round).
  std::vector<MicrobenchRow> busy;
  for (const char* n : {"2", "4", "8"})
    for (const MicrobenchRow& r : load_microbench(dir + "h100_emulated_s42_n" + n + "_microbench.csv"))
      if (r.bench == "body_round" && r.variant == "reference2_epilogue_allbusy_slowest") busy.push_back(r);
  REQUIRE(busy.size() >= 20);
  std::vector<MicrobenchRow> rows = main_rows;
  rows.insert(rows.end(), busy.begin(), busy.end());
  const DerivedCalibration with = derive_calibration(rows, spec);
  // The measured rounds grow less with the warps than the one-shot round's overhead says.
  CHECK(with.calibration.twoshot_round_delta_ns_per_warp < 0.0);
  CHECK(with.calibration.twoshot_round_delta_ns_per_warp > -with.calibration.round_overhead_ns_per_warp);
  // A least-squares line: 10 ns more per warp in every row moves the slope by 10 and nothing else.
  std::vector<MicrobenchRow> steeper = rows;
  for (MicrobenchRow& r : steeper)
    if (r.variant == "reference2_epilogue_allbusy_slowest") r.value += 10.0 * std::ceil(r.tpb / 32.0);
  const DerivedCalibration s = derive_calibration(steeper, spec);
  CHECK(s.calibration.twoshot_round_delta_ns_per_warp ==
        Approx(with.calibration.twoshot_round_delta_ns_per_warp + 10.0).epsilon(1e-9));
  CHECK(s.calibration.twoshot_round_delta_ns == Approx(with.calibration.twoshot_round_delta_ns).margin(1e-6));
  // Only the two constants and the further-round median taken against the round with them move.
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    if (info.name == "twoshot_round_delta_ns" || info.name == "twoshot_round_delta_ns_per_warp" ||
        info.name == "twoshot_further_round_ns_n2")
      continue;
    INFO(info.name);
    CHECK(get_constant(with.calibration, info.name) == get_constant(alone.calibration, info.name));
  }
  // Rows at one warp count only: no line, the prior.
  std::vector<MicrobenchRow> one_shape = main_rows;
  for (const MicrobenchRow& r : busy)
    if (r.tpb == 128) one_shape.push_back(r);
  const DerivedCalibration o = derive_calibration(one_shape, spec);
  CHECK(o.calibration.twoshot_round_delta_ns_per_warp == 0.0);
  CHECK(count_notes(o, "fewer than two warp counts") == 2);
}

TEST_CASE("derive_calibration: the lean two-shot's reader and owner lines per N from the rounds with every partition "
          "busy; prior without") {
  const auto [dir, spec, main_rows, alone] = h100_main();
  const char* const names[] = {"lean2_reader_round_ns_n2", "lean2_reader_round_ns_per_warp_n4",
                               "lean2_owner_round_ns_n8", "lean2_owner_round_ns_per_warp_n8"};
  for (const char* name : names) {
    INFO(name);
    CHECK(get_constant(alone.calibration, name) == 0.0);
    CHECK(count_notes(alone, std::string(name) + " = 0: prior kept") == 1);
  }
  // Session 42's second runs hold the allbusy rows of both kinds at N = 2, 4 and 8.
  std::vector<MicrobenchRow> rows = main_rows;
  for (const char* n : {"2", "4", "8"})
    for (const MicrobenchRow& r : load_microbench(dir + "h100_emulated_s42b_n" + n + "_microbench.csv"))
      if (r.bench == "body_round" && r.variant.rfind("lean2_", 0) == 0 &&
          r.variant.find("_allbusy_slowest") != std::string::npos && r.variant.find("_cold") == std::string::npos)
        rows.push_back(r);
  REQUIRE(rows.size() > main_rows.size() + 60);
  const DerivedCalibration with = derive_calibration(rows, spec);
  // An owner's round grows with N and the warps (it polls N - 1 slots and pushes its sum to N - 1 peers) beyond
  // what the model prices; a reader's grows less with the warps than the model's round does.
  CHECK(with.calibration.lean2_owner_round_ns_per_warp_n8 > with.calibration.lean2_owner_round_ns_per_warp_n4);
  CHECK(with.calibration.lean2_owner_round_ns_per_warp_n8 > 0.0);
  CHECK(with.calibration.lean2_reader_round_ns_per_warp_n8 < 0.0);
  // Least squares: 10 ns more per warp in the N = 4 reader rows moves that slope by 10 and nothing else.
  std::vector<MicrobenchRow> steeper = rows;
  for (MicrobenchRow& r : steeper)
    if (r.variant == "lean2_reader_n4_allbusy_slowest") r.value += 10.0 * std::ceil(r.tpb / 32.0);
  const DerivedCalibration s = derive_calibration(steeper, spec);
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    INFO(info.name);
    const double expected = get_constant(with.calibration, info.name) +
                            (info.name == "lean2_reader_round_ns_per_warp_n4" ? 10.0 : 0.0);
    CHECK(get_constant(s.calibration, info.name) == Approx(expected).margin(1e-6));
  }
  // Nothing outside the twelve lines moves.
  for (const CalibrationConstantInfo& info : calibration_constants()) {
    if (info.name.rfind("lean2_", 0) == 0) continue;
    INFO(info.name);
    CHECK(get_constant(with.calibration, info.name) == get_constant(alone.calibration, info.name));
  }
}

TEST_CASE("derive_calibration: the NVFP4 round at an odd tpb is a line over warps beyond the even round, 0 without its rows") {
  const std::string dir = std::string(ARLAB_SOURCE_DIR) + "/data/calibration/";
  const std::vector<MicrobenchRow> base = load_microbench(dir + "h200_emulated_microbench.csv");
  const GpuSpec spec = sm_partition(gpu_preset("h200_sxm"), 2);
  const DerivedCalibration none = derive_calibration(base, spec);
  CHECK(none.calibration.nvfp4_odd_round_ns == 0.0);
  CHECK(none.calibration.nvfp4_odd_round_ns_per_warp == 0.0);
  CHECK(count_notes(none, "nvfp4_odd_round_ns = 0: no epilogue_round bf16_ar_res_rms_fp4_odd rows") == 1);
  // Synthetic odd rows at the bench's four shapes (tpb, cluster, H): one block per SM of the 64, a round of
  // 4 us plus 150 ns per warp (steeper than the model's even round, so that neither part of the line is
  // clamped at 0), as the emulated node's _busy_slowest rows.
  struct Shape3 {
    int tpb, cluster, hidden;
  };
  const Shape3 shapes[] = {{85, 8, 5440}, {255, 4, 8160}, {339, 2, 5424}, {991, 1, 7928}};
  const auto odd_rows = [&](double intercept, double per_warp) {
    std::vector<MicrobenchRow> rows = base;
    for (const Shape3& s : shapes) {
      MicrobenchRow r = base.front();
      r.bench = "epilogue_round";
      r.variant = "bf16_ar_res_rms_fp4_odd_busy_slowest";
      r.sms = 64 / s.cluster * s.cluster;
      r.tpb = s.tpb;
      r.cluster = s.cluster;
      r.size = s.hidden;
      r.size_unit = "hidden";
      r.metric = "ns_per_round";
      r.value = intercept + per_warp * std::ceil(s.tpb / 32.0);
      rows.push_back(r);
    }
    return derive_calibration(rows, spec);
  };
  const DerivedCalibration with = odd_rows(4000.0, 150.0);
  // The model's even round grows with the warps too, so the line's slope is below 150 ns; what is tested is
  // that the rows move the line exactly as they move.
  CHECK(with.calibration.nvfp4_odd_round_ns > 0.0);
  CHECK(with.calibration.nvfp4_odd_round_ns_per_warp > 0.0);
  CHECK(with.calibration.nvfp4_odd_round_ns_per_warp < 150.0);
  const DerivedCalibration shifted = odd_rows(4100.0, 150.0);
  CHECK(shifted.calibration.nvfp4_odd_round_ns == Approx(with.calibration.nvfp4_odd_round_ns + 100.0).epsilon(1e-9));
  CHECK(shifted.calibration.nvfp4_odd_round_ns_per_warp ==
        Approx(with.calibration.nvfp4_odd_round_ns_per_warp).epsilon(1e-9));
  const DerivedCalibration steep = odd_rows(4000.0, 160.0);
  CHECK(steep.calibration.nvfp4_odd_round_ns_per_warp ==
        Approx(with.calibration.nvfp4_odd_round_ns_per_warp + 10.0).epsilon(1e-9));
  CHECK(steep.calibration.nvfp4_odd_round_ns == Approx(with.calibration.nvfp4_odd_round_ns).epsilon(1e-9));
  // Every other constant comes from the other rows alone.
  for (const auto& info : calibration_constants()) {
    const std::string name = info.name;
    if (name == "nvfp4_odd_round_ns" || name == "nvfp4_odd_round_ns_per_warp") continue;
    INFO(info.name);
    CHECK(get_constant(with.calibration, info.name) == get_constant(none.calibration, info.name));
  }
}
