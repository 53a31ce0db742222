// The typed CSV reader (common/csv_table.h) on a small schema of every cell type: columns by name,
// optional columns and their defaults, strict cells, the file's shape (BOM, CRLF, blank lines,
// CR-only, quotes), and every error naming file, line and column. Then the real schemas: every
// committed CSV of data/ reads, the four measurement generations with their defaults, and the
// headline rule and kernel mapping of measurement rows (common/measurement_headline.h,
// common/measurement_kernel.h).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/calibration_schema.h"
#include "common/csv.h"
#include "common/csv_table.h"
#include "common/measurement_headline.h"
#include "common/measurement_kernel.h"
#include "common/measurement_schema.h"
#include "common/microbench_schema.h"
#include "common/peers_schema.h"
#include "common/ratio_schema.h"
#include "common/speedup_schema.h"
#include "tests/catch.h"

// A schema of every cell type; `note` and `level` were "added later" (optional, with defaults).
#define TEST_TABLE_COLUMNS(X)                                  \
  X(std::string, name, "a label")                              \
  X(int, count, "an int")                                      \
  X(long long, big, "a long long")                             \
  X(double, value, "a finite double")                          \
  X(DoubleOrNan, maybe, "a double or nan")                     \
  X(std::optional<double>, opt, "empty or a finite double")    \
  X(std::string, note, "a label added later", "none")          \
  X(int, level, "an int added later", "-1")

namespace arlab::test {
ARLAB_CSV_SCHEMA(TEST_TABLE_COLUMNS, TestRow, test_header)
}  // namespace arlab::test

using namespace arlab;
using arlab::test::TestRow;

namespace {

// A file in the system's temporary directory named after this process, removed at scope exit.
struct TempCsv {
  std::string path;
  explicit TempCsv(const std::string& content, const std::string& name = "t.csv")
      : path((std::filesystem::temp_directory_path() /
              ("arlab_csv_table_" + std::to_string(static_cast<long>(::getpid())) + "_" + name))
                 .string()) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  }
  ~TempCsv() { std::remove(path.c_str()); }
};

const std::string kHeader = "name,count,big,value,maybe,opt,note,level\n";
const std::string kRow = "a,3,-9000000000,1.5,nan,,hello,2\n";

// Runs f, expects a CsvError at (line, column), returns its message.
std::string expect_error(const std::function<void()>& f, int line, const std::string& column) {
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

// The message of reading one row whose cell `column` is `text` (the other cells valid).
std::string cell_error(const std::string& column, const std::string& text) {
  std::vector<std::string> cells = csv_split(kRow.substr(0, kRow.size() - 1));
  const std::vector<std::string> names = test::test_header();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == column) cells[i] = text;
  const TempCsv f(kHeader + csv_join(cells) + "\n");
  return expect_error([&] { read_rows<TestRow>(f.path); }, 2, column);
}

const std::string kData = ARLAB_SOURCE_DIR "/data/";

}  // namespace

TEST_CASE("csv table: rows by column name, every cell type, the line of each row") {
  const TempCsv f(kHeader + kRow + "b,0,1,-0.25,2.5,7,,0\n");
  const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.lines == std::vector<int>{2, 3});
  CHECK(t.header_line == 1);
  CHECK(t.defaulted.empty());
  const TestRow& a = t.rows[0];
  CHECK(a.name == "a");
  CHECK(a.count == 3);
  CHECK(a.big == -9000000000LL);
  CHECK(a.value == 1.5);
  CHECK(std::isnan(a.maybe));
  CHECK_FALSE(a.opt.has_value());
  CHECK(a.note == "hello");
  CHECK(a.level == 2);
  const TestRow& b = t.rows[1];
  CHECK(b.note.empty());  // an empty text cell is empty text, not the default
  CHECK(b.opt == 7.0);
  CHECK(b.maybe == 2.5);
  // Written back, the cells are the file's (csv_num round-trips every double).
  CHECK(csv_join(to_cells(b)) == "b,0,1,-0.25,2.5,7,,0");
}

TEST_CASE("csv table: column order is free (columns are read by name)") {
  const TempCsv f("level,opt,maybe,value,big,count,name,note\n2,,nan,1.5,-9000000000,3,a,hello\n");
  const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
  REQUIRE(t.rows.size() == 1);
  CHECK(csv_join(to_cells(t.rows[0])) == kRow.substr(0, kRow.size() - 1));
}

TEST_CASE("csv table: an optional column a file lacks reads as its default") {
  const TempCsv f("name,count,big,value,maybe,opt\na,3,4,1,2,\n");
  const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].note == "none");
  CHECK(t.rows[0].level == -1);
  CHECK(t.defaulted == std::vector<std::string>{"note", "level"});
  CHECK(t.has_column("count"));
  CHECK_FALSE(t.has_column("note"));
}

TEST_CASE("csv table: header errors name the column") {
  {
    const TempCsv f("name,big,value,maybe,opt\na,4,1,2,\n");
    const std::string m = expect_error([&] { read_rows<TestRow>(f.path); }, 1, "count");
    CHECK_THAT(m, Catch::Contains(f.path + ":1: column 'count': header lacks this column") &&
                      Catch::Contains("expected columns name,count,big"));
  }
  {
    const TempCsv f("name,big\na,4\n");  // several missing: the first is named, the others counted
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 1, "count"),
               Catch::Contains("and 3 other required column(s)"));
  }
  {
    const TempCsv f("name,count,big,value,count,maybe,opt\na,3,4,1,3,2,\n");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 1, "count"),
               Catch::Contains("column appears twice in the header (columns 2 and 5)"));
  }
  {
    const std::string text = "name,count,big,value,maybe,opt,extra\na,3,4,1,2,,x\n";
    const TempCsv f(text);
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 1, "extra"), Catch::Contains("unknown column"));
    CsvReadOptions ignore;
    ignore.ignore_unknown_columns = true;
    CHECK(read_rows<TestRow>(f.path, ignore).rows.size() == 1);
  }
  {
    const TempCsv f("");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 1, "name"), Catch::Contains("empty file"));
    CsvReadOptions allow;
    allow.allow_empty_file = true;
    const CsvRows<TestRow> t = read_rows<TestRow>(f.path, allow);
    CHECK(t.rows.empty());
    CHECK(t.header_line == 0);
  }
  {
    const TempCsv f(kHeader);  // a header without rows: no rows (callers decide whether that is an error)
    CHECK(read_rows<TestRow>(f.path).rows.empty());
  }
  CHECK_THAT(expect_error([] { read_rows<TestRow>("/nonexistent_arlab/t.csv"); }, 0, ""),
             Catch::Contains("/nonexistent_arlab/t.csv: cannot open"));
}

TEST_CASE("csv table: a row of the wrong length or a repeated header names file, line and column") {
  {
    const TempCsv f(kHeader + kRow + "a,3,4\n" + kRow);
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 3, "value"),
               Catch::Contains(":3: column 'value': row has 3 cells, fewer than the header's 8"));
    CsvReadOptions skip;
    skip.skip_cut_rows = true;
    const CsvRows<TestRow> t = read_rows<TestRow>(f.path, skip);
    CHECK(t.rows.size() == 2);
    CHECK(t.cut_lines == std::vector<int>{3});
  }
  {
    const TempCsv f(kHeader + "a,3,-9000000000,1.5,nan,,hello,2,surplus\n");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 2, "#9"),
               Catch::Contains("row has 9 cells, more than the header's 8"));
  }
  {
    const TempCsv f(kHeader + kRow + kHeader + kRow);
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 3, "name"), Catch::Contains("repeats the header"));
  }
}

TEST_CASE("csv table: integers are decimal digits with an optional '-', nothing else") {
  CHECK_THAT(cell_error("count", "010"), Catch::Contains("'010' is not an integer: a leading zero is refused"));
  for (const char* bad : {"1e3", "0x10", "+5", " 5", "5 ", "1.0", "", "-", "--1", "twelve", "1,5"}) {
    INFO("'" << bad << "'");
    CHECK_THAT(cell_error("count", bad), Catch::Contains(std::string(bad).empty() ? "empty cell" : "is not an integer"));
  }
  CHECK_THAT(cell_error("count", "-0"), Catch::Contains("'-0' is not an integer"));
  CHECK_THAT(cell_error("count", "2147483648"), Catch::Contains("integer 2147483648 is outside [-2147483648, 2147483647]"));
  CHECK_THAT(cell_error("big", "99999999999999999999"), Catch::Contains("is outside"));
  const TempCsv f(kHeader + "a,-2147483648,0,1,1,,x,0\n");
  const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
  CHECK(t.rows[0].count == std::numeric_limits<int>::min());
  CHECK(t.rows[0].big == 0);
}

TEST_CASE("csv table: doubles are finite numbers; nan only where the schema allows it") {
  CHECK_THAT(cell_error("value", "nan"), Catch::Contains("'nan' is not a finite number"));
  CHECK_THAT(cell_error("value", "inf"), Catch::Contains("'inf' is not a finite number"));
  CHECK_THAT(cell_error("maybe", "inf"), Catch::Contains("'inf' is not a finite number (this column allows nan"));
  CHECK_THAT(cell_error("value", ""), Catch::Contains("empty cell where a number is required"));
  CHECK_THAT(cell_error("maybe", ""), Catch::Contains("empty cell where a number is required"));
  CHECK_THAT(cell_error("value", "1e400"), Catch::Contains("'1e400' is too large for a double"));
  // Finite, but below the smallest normal double: said as such (issue 22), not "not a finite number".
  CHECK_THAT(cell_error("value", "1e-320"), Catch::Contains("'1e-320' is too close to 0 for a double"));
  CHECK_THAT(cell_error("maybe", "-4.9e-324"), Catch::Contains("is too close to 0 for a double"));
  for (const char* bad : {"1.5x", "0x10", "+1", " 1", "1 ", "1e", "1,5", "--1"}) {
    INFO("'" << bad << "'");
    CHECK_THAT(cell_error("value", bad), Catch::Contains("is not a number"));
  }
  CHECK_THAT(cell_error("opt", "nan"), Catch::Contains("'nan' is not a finite number"));
  const TempCsv f(kHeader + "a,1,1,-0,-nan,2.5e-3,x,0\n" + "a,1,1,1e-300,NaN,,x,0\n");
  const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
  CHECK(t.rows[0].value == 0.0);
  CHECK(std::signbit(t.rows[0].value));
  CHECK(std::isnan(t.rows[0].maybe));
  CHECK(t.rows[0].opt == 2.5e-3);
  CHECK(std::isnan(t.rows[1].maybe));
}

TEST_CASE("csv table: a NUL byte is binary data, named where it is") {
  const std::string row = "a,1,1,1,1,,x,0\n";
  {
    const TempCsv f(kHeader + row + std::string("a,1,1,\0,1,,x,0\n", 15));
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 3, "value"),
               Catch::Contains("a NUL byte (binary data, byte") && Catch::Contains("no text CSV file"));
  }
  {
    const TempCsv f(kHeader + std::string("a,\"1\0\",1,1,1,,x,0\n", 18));  // inside a quoted cell too
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 2, "count"), Catch::Contains("a NUL byte"));
  }
  // A file of NULs only (as /dev/zero gives): refused at the first byte, not read whole.
  const TempCsv zeros(std::string(1 << 20, '\0'));
  CHECK_THAT(expect_error([&] { read_rows<TestRow>(zeros.path); }, 1, ""), Catch::Contains("byte 1 of the file"));
}

TEST_CASE("csv table: BOM, CRLF and blank lines are tolerated; CR-only line ends are refused") {
  {
    const TempCsv f("\xEF\xBB\xBF\r\n  \r\n" + std::string("name,count,big,value,maybe,opt\r\n\r\na,1,2,3,4,\r\n\t\r\n"));
    const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
    REQUIRE(t.rows.size() == 1);
    CHECK(t.header_line == 3);
    CHECK(t.lines == std::vector<int>{5});
    CHECK(t.rows[0].maybe == 4.0);
  }
  {
    const TempCsv f("name,count,big,value,maybe,opt\ra,1,2,3,4,\r");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 1, ""),
               Catch::Contains(f.path + ":1: CR-only line ends"));
  }
  {
    const TempCsv f(kHeader + "a,1,2,3\r4,,x,0\n");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 2, "value"), Catch::Contains("CR-only line ends"));
  }
  {
    const TempCsv f(kHeader + "a,1,2,3,4,,x,0");  // the last line without its newline
    CHECK(read_rows<TestRow>(f.path).rows.size() == 1);
  }
}

TEST_CASE("csv table: quoted cells (RFC 4180), and quotes out of place") {
  {
    const TempCsv f(kHeader + "\"a, \"\"b\"\"\nc\",1,2,3,4,,\"\",0\n" + kRow);
    const CsvRows<TestRow> t = read_rows<TestRow>(f.path);
    REQUIRE(t.rows.size() == 2);
    CHECK(t.rows[0].name == "a, \"b\"\nc");
    CHECK(t.rows[0].note.empty());
    CHECK(t.lines == std::vector<int>{2, 4});  // the quoted line break counts
  }
  {
    const TempCsv f(kHeader + kRow + "a,1,\"2,3,4,,x,0\n" + kRow);
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 3, "big"), Catch::Contains("not closed"));
  }
  {
    const TempCsv f(kHeader + "a\"b,1,2,3,4,,x,0\n");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 2, "name"), Catch::Contains("double quote inside"));
  }
  {
    const TempCsv f(kHeader + "\"a\"b,1,2,3,4,,x,0\n");
    CHECK_THAT(expect_error([&] { read_rows<TestRow>(f.path); }, 2, "name"), Catch::Contains("after the closing quote"));
  }
}

TEST_CASE("csv table: a long cell is quoted cut to 80 characters") {
  const std::string m = cell_error("count", std::string(5000, '7') + "x");
  CHECK_THAT(m, Catch::Contains(std::string(80, '7') + "... (5001 characters)"));
  CHECK(m.size() < 400);
}

TEST_CASE("csv table: every committed CSV of data/ reads by its schema") {
  namespace fs = std::filesystem;
  int measurement_files = 0;
  for (const std::string dir : {"h200", "h200/exp"})
    for (const fs::directory_entry& e : fs::directory_iterator(kData + dir)) {
      const std::string path = e.path().string(), name = e.path().filename().string();
      if (e.path().extension() != ".csv" || name == "soak.csv") continue;  // soak.csv: `arlab soak`'s own rows
      INFO(path);
      if (name.find("_ratios") != std::string::npos) CHECK(!read_rows<RatioRow>(path).rows.empty());
      else if (name.find("_summary") != std::string::npos && name.rfind("peers", 0) == 0)
        CHECK(!read_rows<PeersRow>(path).rows.empty());
      else if (name.find("_summary") != std::string::npos) CHECK(!read_rows<SpeedupRow>(path).rows.empty());
      else {
        CHECK(!read_rows<MeasurementRow>(path).rows.empty());
        ++measurement_files;
      }
    }
  CHECK(measurement_files >= 25);
  for (const std::string node : {"h200_nvlink", "h200_emulated", "h100_emulated"}) {
    CHECK(!read_rows<CalibrationRow>(kData + "calibration/" + node + ".csv").rows.empty());
    CHECK(!read_rows<MicrobenchRow>(kData + "calibration/" + node + "_microbench.csv").rows.empty());
  }
}

TEST_CASE("csv table: the five measurement generations read with their defaults") {
  // The provenance columns of session 50 (sf_layout, input_distribution, input_seed): no committed file of an
  // earlier generation has them, so each reads them as not recorded ("").
  const std::vector<std::string> s50 = {"sf_layout", "input_distribution", "input_seed"};
  const auto with_s50 = [&](std::vector<std::string> v) {
    v.insert(v.end(), s50.begin(), s50.end());
    return v;
  };
  // 36 columns (data/h200/issue4_oneshot.csv): before group_id, the CIs, the headline, the clocks ...
  const CsvRows<MeasurementRow> v1 = read_rows<MeasurementRow>(kData + "h200/issue4_oneshot.csv");
  CHECK(v1.defaulted.size() == 25);  // 21 columns, policy_note and the three of session 50
  CHECK(v1.rows[0].headline.empty());
  CHECK(v1.rows[0].rounds == -1);
  CHECK(v1.rows[0].sm_clock_mhz_start == -1);
  CHECK(std::isnan(v1.rows[0].noise_pct));
  CHECK(v1.rows[0].implementation == "fused");
  CHECK(v1.rows[0].kernel_variant == "reference");
  CHECK(v1.rows[0].sf_layout.empty());
  CHECK(v1.rows[0].input_distribution.empty());
  CHECK(v1.rows[0].input_seed.empty());
  // 54 (data/h200/seed_v2_51cd276.csv): before the baselines; 56 (exp CSVs): before kernel variants;
  // 57 (data/h200/seed.csv): before session 50's columns.
  CHECK(read_rows<MeasurementRow>(kData + "h200/seed_v2_51cd276.csv").defaulted ==
        with_s50({"implementation", "allreduce_us_median", "kernel_variant", "policy_note"}));
  CHECK(read_rows<MeasurementRow>(kData + "h200/seed.csv").defaulted == s50);
  CHECK(read_rows<MeasurementRow>(kData + "h200/exp/fusion_emulated.csv").defaulted ==
        with_s50({"kernel_variant", "policy_note"}));
  CHECK(read_rows<MeasurementRow>(kData + "h200/exp/speedup_emulated.csv").defaulted == with_s50({"policy_note"}));
}

TEST_CASE("headline rule: the row's headline column says which figure") {
  MeasurementRow r;
  r.skewfree_us_median = 4.0;
  r.kernel_us_median = 5.0;
  r.headline = "skew_free";
  CHECK(headline_us(r) == 4.0);
  r.headline = "max_over_ranks";
  CHECK(headline_us(r) == 5.0);
  r.headline = "";  // a file before the column: skew-free where recorded
  CHECK(headline_us(r) == 4.0);
  r.skewfree_us_median = std::nan("");
  CHECK(headline_us(r) == 5.0);
  r.headline = "fastest";
  try {
    headline_us(r);
    FAIL("no error");
  } catch (const CsvCellError& e) {
    CHECK(e.column == "headline");
    CHECK_THAT(std::string(e.what()), Catch::Contains("unknown headline 'fastest'"));
  }
  CHECK_THROWS_WITH(at_row("m.csv", 7, [&] { return headline_us(r); }), Catch::Contains("m.csv:7: column 'headline'"));
}

TEST_CASE("row kernel: implementation and kernel_variant cells to what ran") {
  MeasurementRow r;
  r.implementation = "fused";
  r.kernel_variant = "lean";
  CHECK(row_kernel(r) == Impl::lean);
  CHECK(variant_suffix(row_kernel(r)) == "/lean");
  r.kernel_variant = "reference";
  CHECK(row_kernel(r) == Impl::reference);
  CHECK(variant_suffix(row_kernel(r)).empty());
  r.implementation = "nccl";
  CHECK(row_kernel(r) == Impl::nccl);
  CHECK(variant_suffix(row_kernel(r)).empty());
  r.kernel_variant = "lean";  // the baselines run the reference kernels: no row has these labels
  CHECK_THROWS_AS(row_kernel(r), CsvCellError);
  r.kernel_variant = "reference";
  r.implementation = "mpi";
  try {
    row_kernel(r);
    FAIL("no error");
  } catch (const CsvCellError& e) {
    CHECK(e.column == "implementation");
    CHECK_THAT(std::string(e.what()), Catch::Contains("implementation 'mpi'"));
  }
  r.implementation = "fused";
  r.kernel_variant = std::string(1000, 'z');
  CHECK_THROWS_WITH(row_kernel(r), Catch::Contains("(1000 characters)"));
}
