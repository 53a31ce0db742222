// The CSVs of `arlab exp` (experiments/exp_csv.h): resume (the case keys already measured), merge
// (a union of shards and the existing output, older generations upgraded to the current schema,
// rows of another experiment refused) and the per-case summary printed after a run.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/measurement_schema.h"
#include "common/ratio_schema.h"
#include "experiments/exp_csv.h"
#include "tests/catch.h"

using namespace arlab;

namespace {

// A temporary directory of this test process, removed at the end of the test case.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / ("arlab_test_exp_csv_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// One measurement row (the schema's own cells, so the row fits whatever the header is now).
MeasurementRow measurement_row(const std::string& experiment, const std::string& policy, int tokens, int tpb = 1024) {
  MeasurementRow r;
  r.experiment = experiment;
  r.policy = policy;
  r.tokens = tokens;
  r.hidden = 8192;
  r.nranks = 2;
  r.dtype = "bf16";
  r.pattern = "ar_res_rms";
  r.algo = "oneshot";
  r.acc = "pairwise";
  r.tpb = tpb;
  r.cluster = 1;
  r.grid = 64;
  r.vecs_per_thread = 1;
  r.headline = "skew_free";
  r.kernel_us_median = 12.5;
  r.skewfree_us_median = 12.0;
  r.check = "pass";
  r.implementation = "fused";
  r.kernel_variant = "reference";
  return r;
}

std::string measurement_line(const std::string& experiment, const std::string& policy, int tokens, int tpb = 1024) {
  return csv_join(to_cells(measurement_row(experiment, policy, tokens, tpb)));
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string header_line() { return csv_join(measurement_header()); }

// The header and rows of `text` without the column `drop` (a file of an older generation).
std::string without_column(const std::string& text, const std::string& drop) {
  std::stringstream in(text), out;
  size_t index = 0;
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells = csv_split(line);
    if (header) index = static_cast<size_t>(std::find(cells.begin(), cells.end(), drop) - cells.begin());
    header = false;
    if (index < cells.size()) cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(index));
    out << csv_join(cells) << '\n';
  }
  return out.str();
}

std::string exception_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "(no exception)";
}

}  // namespace

TEST_CASE("exp resume: the case keys already in the CSV") {
  const TempDir dir;
  CHECK(exp::done_case_keys(dir.file("absent.csv"), "tokens").empty());
  write_text(dir.file("empty.csv"), "\n \n");
  CHECK(exp::done_case_keys(dir.file("empty.csv"), "tokens").empty());

  const std::string path = dir.file("tokens.csv");
  write_text(path, header_line() + "\n" + measurement_line("tokens/N=2 H=8192 T=1 a", "trtllm", 1) + "\n\n" +
                       measurement_line("tokens/N=2 H=8192 T=1 a", "legacy", 1) + "\r\n" +
                       measurement_line("tokens/N=2 H=8192 T=2 b", "trtllm", 2) + "\n" +
                       measurement_line("seed/N=2 H=8192 T=4 c", "trtllm", 4) + "\n" +
                       measurement_line("tokens-x/N=2 H=8192 T=8 d", "trtllm", 8) + "\n" +
                       "tokens/N=2 H=8192 T=16 cut,abc\n" +  // a row cut short by a killed run
                       measurement_line("tokens/N=2 H=8192 T=32 e", "trtllm", 32) + "\n");
  CHECK(exp::done_case_keys(path, "tokens") ==
        std::set<std::string>{"N=2 H=8192 T=1 a", "N=2 H=8192 T=2 b", "N=2 H=8192 T=32 e"});
  CHECK(exp::done_case_keys(path, "seed") == std::set<std::string>{"N=2 H=8192 T=4 c"});
  CHECK(exp::done_case_keys(path, "fusion").empty());

  // A file of an older generation (before kernel_variant) resumes too.
  const std::string old = dir.file("old.csv");
  write_text(old, without_column(read_text(path), "kernel_variant"));
  CHECK(exp::done_case_keys(old, "seed") == std::set<std::string>{"N=2 H=8192 T=4 c"});

  // A column this arlab does not know, a file of another schema, a bad cell: refused, naming the file.
  const std::string other = dir.file("other.csv");
  write_text(other, header_line() + ",extra_column\n");
  const std::string message = exception_text([&] { exp::done_case_keys(other, "tokens"); });
  CHECK(message.find(other + ":1: column 'extra_column': unknown column") != std::string::npos);
  write_text(other, "experiment,policy\n");
  CHECK_THROWS_AS(exp::done_case_keys(other, "tokens"), CsvError);
  MeasurementRow bad = measurement_row("tokens/k", "trtllm", 1);
  std::vector<std::string> cells = to_cells(bad);
  cells[15] = "12x";  // tokens
  write_text(other, header_line() + "\n" + csv_join(cells) + "\n");
  CHECK(exception_text([&] { exp::done_case_keys(other, "tokens"); }).find(other + ":2: column 'tokens'") !=
        std::string::npos);
}

TEST_CASE("exp merge: shard CSVs into one, duplicates dropped") {
  const TempDir dir;
  const std::string a = dir.file("a.csv"), b = dir.file("b.csv"), out = dir.file("merged.csv");
  const std::string row1 = measurement_line("tokens/k1", "trtllm", 1);
  const std::string row2 = measurement_line("tokens/k1", "legacy", 1);
  const std::string row3 = measurement_line("tokens/k2", "trtllm", 2);
  const std::string row4 = measurement_line("tokens/k2", "trtllm", 2, 512);  // another tpb: not a duplicate
  write_text(a, header_line() + "\n" + row1 + "\n" + row2 + "\n");
  write_text(b, header_line() + "\n" + measurement_line("tokens/k1", "trtllm", 1) + "\n" + row3 + "\n" + row4 + "\n");
  const exp::MergeCounts c = exp::merge_csvs({a, b}, out, "tokens");
  CHECK(c.kept == 0);
  CHECK(c.added == 4);
  CHECK(c.dropped == 1);
  CHECK(read_text(out) == header_line() + "\n" + row1 + "\n" + row2 + "\n" + row3 + "\n" + row4 + "\n");
  CHECK(exp::done_case_keys(out, "tokens") == std::set<std::string>{"k1", "k2"});

  // A baseline row, and a lean row, beside the fused reference row of the same configuration are no duplicates.
  MeasurementRow fused = measurement_row("tokens/k1", "trtllm", 1), unfused = fused, lean = fused;
  unfused.implementation = "unfused";
  lean.kernel_variant = "lean";
  const std::string c_in = dir.file("c.csv"), with_baseline = dir.file("with_baseline.csv");
  write_text(c_in, header_line() + "\n" + csv_join(to_cells(fused)) + "\n" + csv_join(to_cells(unfused)) + "\n" +
                       csv_join(to_cells(lean)) + "\n" + csv_join(to_cells(fused)) + "\n");
  const exp::MergeCounts d = exp::merge_csvs({c_in}, with_baseline, "tokens");
  CHECK(d.added == 3);
  CHECK(d.dropped == 1);

  // model/lean and model/auto picking the same lean configuration in one group: two members (their
  // policy notes say which), no duplicate.
  MeasurementRow held = measurement_row("tokens/k1", "model", 1), automatic = held;
  held.kernel_variant = automatic.kernel_variant = "lean";
  held.policy_note = "searched 126 legal candidates (one-shot only: tokens < ranks; kernel lean)";
  automatic.policy_note = "searched 252 legal candidates (one-shot only: tokens < ranks; kernel reference, lean)";
  const std::string m_in = dir.file("m.csv"), both = dir.file("both.csv");
  write_text(m_in, header_line() + "\n" + csv_join(to_cells(held)) + "\n" + csv_join(to_cells(automatic)) + "\n");
  const exp::MergeCounts e = exp::merge_csvs({m_in}, both, "tokens");
  CHECK(e.added == 2);
  CHECK(e.dropped == 0);

  CHECK_THROWS_AS(exp::merge_csvs({}, out, "tokens"), InvalidArgument);
  // The output may not be an input, however spelled.
  CHECK_THROWS_AS(exp::merge_csvs({a, b}, a, "tokens"), InvalidArgument);
  CHECK_THROWS_AS(exp::merge_csvs({a, b}, (dir.path / "sub" / ".." / "b.csv").string(), "tokens"), InvalidArgument);
  // A shard with another header is refused, naming it; the output is left as it was.
  const std::string bad = dir.file("bad.csv");
  write_text(bad, "experiment,policy\ntokens/k3,trtllm\n");
  const std::string before = read_text(out);
  CHECK(exception_text([&] { exp::merge_csvs({a, bad}, out, "tokens"); }).find(bad + ":1") != std::string::npos);
  CHECK(read_text(out) == before);
  CHECK(exception_text([&] { exp::merge_csvs({a, dir.file("absent.csv")}, out, "tokens"); }).find("absent.csv") !=
        std::string::npos);
  // A row cut short is refused, naming file and line.
  write_text(bad, header_line() + "\n" + row1 + "\ntokens/k3,trtllm\n");
  CHECK(exception_text([&] { exp::merge_csvs({bad}, out, "tokens"); }).find(bad + ":3: column 'date_utc': row has 2 cells") !=
        std::string::npos);
  CHECK(read_text(out) == before);
}

TEST_CASE("exp merge: the ratio CSVs beside the shards, one row per (group, numerator, denominator)") {
  const TempDir dir;
  const auto ratio = [](const std::string& experiment, const std::string& group, const std::string& numerator,
                        double value) {
    RatioRow r;
    r.experiment = experiment;
    r.git_sha = "0123456789ab";
    r.date_utc = "2026-12-01T00:00:00Z";
    r.group_id = group;
    r.gpu = "NVIDIA H200";
    r.topology = "emulated";
    r.link = "local";
    r.nranks = 2;
    r.dtype = "bf16";
    r.pattern = "ar_res_rms";
    r.tokens = 128;
    r.hidden = 4096;
    r.numerator = numerator;
    r.numerator_cfg = "512/1/16/1/oneshot";
    r.denominator = "flashinfer/flashinfer";
    r.denominator_cfg = "512/1/16/1/oneshot/flashinfer";
    r.figure = "skew_free";
    r.ratio = value;
    r.ci_lo = value * 0.99;
    r.ci_hi = value * 1.01;
    r.rounds = 10;
    return csv_join(to_cells(r));
  };
  const std::string header = csv_join(ratio_header());
  const std::string a = dir.file("a_ratios.csv"), b = dir.file("b_ratios.csv"), out = dir.file("peers_ratios.csv");
  const std::string r1 = ratio("peers/k1", "g1", "trtllm", 1.25), r2 = ratio("peers/k1", "g1", "vllm", 1.5);
  const std::string r3 = ratio("peers/k1", "g2", "trtllm", 1.3);  // the same case measured again: another group
  write_text(a, header + "\n" + r1 + "\n" + r2 + "\n");
  write_text(b, header + "\n" + ratio("peers/k1", "g1", "trtllm", 1.25) + "\n" + r3 + "\n");
  const exp::MergeCounts c = exp::merge_ratio_csvs({a, b}, out, "peers");
  CHECK(c.kept == 0);
  CHECK(c.added == 3);
  CHECK(c.dropped == 1);
  CHECK(read_text(out) == header + "\n" + r1 + "\n" + r2 + "\n" + r3 + "\n");
  CHECK(exp::ratios_path_of(dir.file("x/peers.csv")) == dir.file("x/peers_ratios.csv"));
  // Another experiment's ratio, a measurement CSV, the output as an input: refused, the output as it was.
  const std::string before = read_text(out);
  const std::string other = dir.file("other_ratios.csv");
  write_text(other, header + "\n" + ratio("tokens/k1", "g9", "trtllm", 1.0) + "\n");
  CHECK(exception_text([&] { exp::merge_ratio_csvs({other}, out, "peers"); }).find(other + ":2: column 'experiment'") !=
        std::string::npos);
  write_text(other, header_line() + "\n" + measurement_line("peers/k1", "trtllm", 1) + "\n");
  CHECK_THROWS_AS(exp::merge_ratio_csvs({other}, out, "peers"), CsvError);
  CHECK_THROWS_AS(exp::merge_ratio_csvs({a, out}, out, "peers"), InvalidArgument);
  CHECK_THROWS_AS(exp::merge_ratio_csvs({}, out, "peers"), InvalidArgument);
  CHECK(read_text(out) == before);
}

TEST_CASE("exp merge: a union with the output's rows; rows of another experiment refused") {
  const TempDir dir;
  const std::string out = dir.file("tokens.csv"), shard = dir.file("shard.csv");
  const std::string row1 = measurement_line("tokens/k1", "trtllm", 1);
  const std::string row2 = measurement_line("tokens/k2", "trtllm", 2);
  const std::string row3 = measurement_line("tokens/k3", "trtllm", 3);
  write_text(out, header_line() + "\n" + row1 + "\n" + row2 + "\n");
  write_text(shard, header_line() + "\n" + row2 + "\n" + row3 + "\n");
  const exp::MergeCounts c = exp::merge_csvs({shard}, out, "tokens");
  CHECK(c.kept == 2);
  CHECK(c.added == 1);
  CHECK(c.dropped == 1);
  CHECK(read_text(out) == header_line() + "\n" + row1 + "\n" + row2 + "\n" + row3 + "\n");
  // Merged again: nothing new.
  const exp::MergeCounts again = exp::merge_csvs({shard}, out, "tokens");
  CHECK(again.kept == 3);
  CHECK(again.added == 0);
  CHECK(again.dropped == 2);

  // A row of another experiment (or of none: "tokens" alone), in an input or in the output: refused.
  const std::string before = read_text(out);
  for (const std::string experiment : {"seed/k9", "tokens", "tokens-x/k9"}) {
    INFO(experiment);
    write_text(shard, header_line() + "\n" + row3 + "\n" + measurement_line(experiment, "trtllm", 9) + "\n");
    const std::string m = exception_text([&] { exp::merge_csvs({shard}, out, "tokens"); });
    CHECK(m.find(shard + ":3: column 'experiment'") != std::string::npos);
    CHECK(m.find("is no case of experiment tokens") != std::string::npos);
    CHECK(read_text(out) == before);
  }
  write_text(shard, header_line() + "\n" + row3 + "\n");
  CHECK(exception_text([&] { exp::merge_csvs({shard}, out, "seed"); }).find(out + ":2: column 'experiment'") !=
        std::string::npos);

}

TEST_CASE("exp merge: every committed exp CSV merges, written in the current schema with defaults filled") {
  const TempDir dir;
  const std::string data = ARLAB_SOURCE_DIR "/data/h200/exp/";
  // The `arlab exp` CSVs (the lean_configs*.csv files are `arlab run` sweeps of scripts/lean_configs.sh:
  // experiment "lean-configs" without case keys, which no `arlab exp NAME` merge takes).
  const std::vector<std::pair<std::string, std::string>> files = {
      {"seed", "seed_emulated.csv"},           {"tokens", "tokens_emulated.csv"},
      {"config-space", "config-space_emulated.csv"}, {"crossover", "crossover_emulated.csv"},
      {"fusion", "fusion_emulated.csv"},       {"model-accuracy", "model-accuracy_emulated.csv"},
      {"speedup", "speedup_emulated.csv"},     {"speedup", "speedup_emulated_p2.csv"},
      {"speedup", "speedup_emulated_p3.csv"},  {"speedup", "speedup_emulated_p4.csv"}};
  for (const auto& [name, file] : files) {
    INFO(file);
    const CsvRows<MeasurementRow> in = read_rows<MeasurementRow>(data + file);
    const std::string out = dir.file(file);
    const exp::MergeCounts c = exp::merge_csvs({data + file}, out, name);
    CHECK(c.added == static_cast<long long>(in.rows.size()));
    CHECK(c.dropped == 0);
    const CsvRows<MeasurementRow> merged = read_rows<MeasurementRow>(out);
    CHECK(merged.defaulted.empty());  // every column of the current schema
    REQUIRE(merged.rows.size() == in.rows.size());
    for (size_t i = 0; i < in.rows.size(); ++i) CHECK(to_cells(merged.rows[i]) == to_cells(in.rows[i]));
    if (!in.defaulted.empty()) CHECK(merged.rows[0].kernel_variant == "reference");
  }
  // Two generations in one merge: the 56-column fusion rows and a shard of 57 columns.
  const std::string out = dir.file("fusion.csv");
  write_text(dir.file("new.csv"), header_line() + "\n" + measurement_line("fusion/k", "trtllm", 1) + "\n");
  const exp::MergeCounts both = exp::merge_csvs({data + "fusion_emulated.csv", dir.file("new.csv")}, out, "fusion");
  CHECK(both.added == 235);
  CHECK(exception_text([&] { exp::merge_csvs({data + "lean_configs_emulated.csv"}, dir.file("lean.csv"), "lean-configs"); })
            .find("lean_configs_emulated.csv:2: column 'experiment'") != std::string::npos);
}

TEST_CASE("exp case summary: one line per case, headline times by label") {
  const TempDir dir;
  const std::string path = dir.file("seed.csv");
  CHECK(exp::exp_case_summary(path, "seed", {"k"}).empty());  // no file: no summary
  std::string text = header_line() + "\n";
  const auto add = [&](MeasurementRow r) { text += csv_join(to_cells(r)) + "\n"; };
  MeasurementRow trtllm = measurement_row("seed/A", "trtllm", 1), legacy = measurement_row("seed/A", "legacy", 1);
  legacy.skewfree_us_median = 20.25;
  legacy.check = "fail";
  MeasurementRow lean = trtllm;
  lean.kernel_variant = "lean";
  lean.skewfree_us_median = 9.5;
  MeasurementRow model = measurement_row("seed/B", "model", 1);
  model.algo = "twoshot";
  model.headline = "max_over_ranks";  // the headline column picks the figure: kernel_us_median here
  add(trtllm);
  add(legacy);
  add(lean);
  add(model);
  // Case C: trtllm and seven explicit configurations (more than kMaxVariantsListed variants): the best explicit one.
  add(measurement_row("seed/C", "trtllm", 128));
  for (int i = 0; i < 7; ++i) {
    MeasurementRow e = measurement_row("seed/C", "explicit", 128, 128 * (i + 1));
    e.skewfree_us_median = 30.0 - i;
    add(e);
  }
  add(measurement_row("tokens/A", "trtllm", 1));  // another experiment: not listed
  write_text(path, text + "seed/D,cut\n");        // a row cut short, as by a killed run
  const std::string expected =
      "\n# seed: headline time per variant (us; skew-free median where the node defines it)\n" +
      fmt("%-58s", "A") + "  trtllm 12  legacy 20.25  trtllm/lean 9.5  GATE FAILED x1\n" +
      fmt("%-58s", "C") + "  trtllm 12  best of 8: explicit 896/1/64 24\n" + fmt("%-58s", "B") +
      "  model (twoshot) 12.5\n" + "  (1 row(s) cut short, as by a killed run, left out: the first at " + path +
      ":15)\n";
  CHECK(exp::exp_case_summary(path, "seed", {"A", "C", "B", "not measured"}) == expected);
}
