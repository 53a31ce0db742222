// `arlab numerics` (experiments/numerics_sweep.h, experiments/numerics.cpp): rows, their order and
// meaning, option errors, and the CSV read back by column name with fast-cpp-csv-parser.
#include <CLI/CLI.hpp>
#include <libfccp/csv.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "common/numerics_schema.h"
#include "experiments/numerics_sweep.h"
#include "cli/commands.h"
#include "tests/catch.h"

using namespace arlab;

namespace {
numerics::SweepConfig tiny_config() {
  numerics::SweepConfig c;
  c.tokens = 8;
  c.hidden = 256;
  c.ranks = {2, 16};
  c.dtypes = {DType::bf16, DType::fp32};
  return c;
}

const NumericsRow& find_row(const std::vector<NumericsRow>& rows, int n, const char* dtype, const char* acc,
                            const char* output) {
  for (const NumericsRow& r : rows)
    if (r.nranks == n && r.dtype == dtype && r.acc == acc && r.output == output) return r;
  FAIL("no row " << n << " " << dtype << " " << acc << " " << output);
  return rows.front();
}
}  // namespace

TEST_CASE("run_sweep: one row per (N, dtype, acc, output), N outermost", "[numerics]") {
  const std::vector<NumericsRow> rows = numerics::run_sweep(tiny_config());
  REQUIRE(rows.size() == 2u * 2 * 2 * 3);
  CHECK(rows.front().nranks == 2);
  CHECK(rows.front().dtype == "bf16");
  CHECK(rows.front().acc == "pairwise");
  CHECK(rows.front().output == "sum");
  CHECK(rows[2].output == "norm_out");
  CHECK(rows.back().nranks == 16);
  CHECK(rows.back().dtype == "fp32");
  CHECK(rows.back().acc == "fp32_acc");
  for (const NumericsRow& r : rows) {
    CHECK(r.elements == 8 * 256);
    CHECK(r.tokens == 8);
    CHECK(r.eps == 1e-5);  // written as the float's shortest text, read back as a double
    CHECK(r.distribution == "normal");
  }
}

TEST_CASE("run_sweep: what the numbers must show", "[numerics]") {
  const std::vector<NumericsRow> rows = numerics::run_sweep(tiny_config());
  for (const char* output : {"sum", "residual_out", "norm_out"}) {
    INFO(output);
    // fp32: both accumulation modes are the same computation.
    for (int n : {2, 16}) {
      const NumericsRow& a = find_row(rows, n, "fp32", "pairwise", output);
      const NumericsRow& b = find_row(rows, n, "fp32", "fp32_acc", output);
      CHECK(a.err_rel_rms == b.err_rel_rms);
      CHECK(a.err_max_ulp == b.err_max_ulp);
    }
    // N = 2: one addition either way, so the modes agree for bf16 too.
    CHECK(find_row(rows, 2, "bf16", "pairwise", output).err_rel_rms ==
          find_row(rows, 2, "bf16", "fp32_acc", output).err_rel_rms);
    // N = 16: 15 roundings instead of one -> clearly larger error for pairwise bf16.
    CHECK(find_row(rows, 16, "bf16", "pairwise", output).err_rel_rms >
          1.5 * find_row(rows, 16, "bf16", "fp32_acc", output).err_rel_rms);
    // bf16 errors are of bf16's size (2^-9 relative per rounding), fp32's far smaller.
    CHECK(find_row(rows, 16, "bf16", "fp32_acc", output).err_rel_rms > 1e-4);
    CHECK(find_row(rows, 16, "fp32", "fp32_acc", output).err_rel_rms < 1e-6);
  }
  // The fp32 sum of 16 bf16 values is exact here, so one rounding gives the correctly rounded sum.
  CHECK(find_row(rows, 16, "bf16", "fp32_acc", "sum").frac_correctly_rounded > 0.999);
  CHECK(find_row(rows, 16, "bf16", "pairwise", "sum").frac_correctly_rounded < 0.9);
}

TEST_CASE("numerics validation names the bad value", "[numerics]") {
  auto message = [](numerics::SweepConfig c) {
    try {
      numerics::validate(c);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  numerics::SweepConfig c = tiny_config();
  c.ranks = {2, 3};
  CHECK(message(c).find("nranks = 3") != std::string::npos);
  c = tiny_config();
  c.ranks = {};
  CHECK(message(c).find("ranks is empty") != std::string::npos);
  c = tiny_config();
  c.dtypes = {DType::fp16, DType::fp16};
  CHECK(message(c).find("fp16 twice") != std::string::npos);
  c = tiny_config();
  c.hidden = 100;
  CHECK(message(c).find("hidden = 100") != std::string::npos);
  CHECK(numerics::shortest_float_text(1e-5f) == "1e-05");
  CHECK(numerics::shortest_float_text(0.1f) == "0.1");
  CHECK(numerics::shortest_float_text(1.0f / 3.0f) == "0.33333334");  // 8 digits suffice here
}

TEST_CASE("arlab numerics: bad options fail before any work; a run writes a CSV readable by column name",
          "[numerics][cli]") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "arlab_test_numerics";
  std::filesystem::remove_all(dir);
  const std::string csv = (dir / "sub" / "numerics.csv").string();
  auto parse = [&](const std::string& args) {
    CLI::App app;
    cli::add_numerics_command(app);
    app.parse("numerics " + args + " --out " + csv, false);
  };
  // (string search by hand: Catch2 v2 and v3 name their substring matchers differently)
  auto error_of = [&](const std::string& args) {
    try {
      parse(args);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string("(no InvalidArgument thrown)");
  };
  CHECK(error_of("--ranks 2,3").find("nranks = 3") != std::string::npos);
  CHECK(error_of("--dtypes bf16,bf8").find("'bf8'") != std::string::npos);
  CHECK(error_of("--distribution cauchy").find("'cauchy'") != std::string::npos);
  CHECK(error_of("--acc pairwise,kahan").find("'kahan'") != std::string::npos);
  CHECK(error_of("--hidden 100").find("hidden = 100") != std::string::npos);
  CHECK_THROWS_AS(parse("--seed -5"), CLI::ValidationError);
  CHECK_FALSE(std::filesystem::exists(csv));  // nothing written by a failed run

  parse("--ranks 4 --dtypes fp16 --tokens 4 --hidden 64 --seed 7 --distribution uniform");
  parse("--ranks 4 --dtypes fp16 --tokens 4 --hidden 64 --seed 7 --distribution uniform");  // appends
  io::CSVReader<8> in(csv);
  in.read_header(io::ignore_extra_column, "experiment", "seed", "distribution", "nranks", "dtype", "acc", "output",
                 "err_rel_rms");
  std::string experiment, distribution, dtype, acc, output;
  unsigned long long seed = 0;
  int nranks = 0;
  double rel_rms = 0.0;
  int rows = 0;
  while (in.read_row(experiment, seed, distribution, nranks, dtype, acc, output, rel_rms)) {
    ++rows;
    CHECK(experiment == "numerics");
    CHECK(seed == 7);
    CHECK(distribution == "uniform");
    CHECK(nranks == 4);
    CHECK(dtype == "fp16");
    CHECK(rel_rms > 0.0);
  }
  CHECK(rows == 2 * 2 * 3);  // two runs x (pairwise, fp32_acc) x (sum, residual_out, norm_out)
  std::filesystem::remove_all(dir);
}
