// Reading and writing measurement rows (common/measurement_schema.h) for validate / fit: rows read
// by common/csv_table.h, then checked cell by cell into MeasuredRow.
#include "model/measurements.h"

#include <cmath>
#include <limits>
#include <optional>

#include "common/build_info.h"
#include "common/csv.h"
#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/launch_config.h"
#include "common/measurement_headline.h"
#include "common/measurement_kernel.h"
#include "common/measurement_schema.h"
#include "common/output_file.h"
#include "model/policies.h"

namespace arlab::model {

namespace {
// Registers per thread CUDA allows a kernel (the ISA's register file per thread, every arch since sm_35).
constexpr int kMaxRegistersPerThread = 255;

// A seed as `--seed` takes it: a whole number 0 .. 2^64 - 1 in decimal digits.
bool is_seed_text(const std::string& s) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  return s.size() < 20 || s <= "18446744073709551615";
}

// Parses a label cell with the shared parse_* function (which lists the valid labels); throws
// CsvCellError naming the column. A cell too long to be any label is refused without being echoed whole.
template <class F>
auto label(const char* column, const std::string& text, F parse) -> decltype(parse(std::string())) {
  if (text.size() > kMaxQuotedCellChars)
    throw CsvCellError(column, "'" + cut_for_message(text) + "' is not a valid label");
  try {
    return parse(text);
  } catch (const InvalidArgument& e) {
    throw CsvCellError(column, e.what());
  }
}

// The correctness-gate verdicts a row may carry (common/measurement_schema.h `check`).
bool parse_check(const std::string& s) {
  if (s == "pass") return true;
  if (s == "fail" || s == "skipped") return false;
  throw InvalidArgument("unknown check '" + s + "' (expected pass, fail or skipped)");
}

// A policy label as `arlab run` writes it: a policy name, or "policy/variant" when one run measured
// several kernel variants (`--kernel reference,lean`: "trtllm/lean"). Returns the variant the label
// names, reference when it names none; throws InvalidArgument naming the label otherwise.
struct PolicyLabel {
  Policy policy = Policy::trtllm;
  bool names_variant = false;
  Impl variant = Impl::reference;
};
PolicyLabel parse_policy_label(const std::string& text) {
  PolicyLabel label;
  const size_t slash = text.find('/');
  label.policy = parse_policy(text.substr(0, slash));
  if (slash != std::string::npos) {
    label.names_variant = true;
    label.variant = parse_kernel_body(text.substr(slash + 1));
  }
  return label;
}

// A kernel time: a number in its physical range (common/measurement_headline.h kernel_time_problem).
double kernel_time(const char* column, double us) {
  if (std::isnan(us)) throw CsvCellError(column, "'" + csv_num(us) + "' is not a finite number: the row holds no time");
  const std::string problem = kernel_time_problem(us);
  if (!problem.empty()) throw CsvCellError(column, problem);
  return us;
}

// The column of the measurement file that holds the Problem field a violation names.
const char* column_of(const std::string& problem_field) {
  if (problem_field == "nranks") return "nranks";
  if (problem_field == "hidden") return "hidden";
  if (problem_field == "dtype") return "dtype";
  return "tokens";  // tokens (eps and scale are not read: they keep their valid defaults)
}

// Rows of the one-shot reference body measured before this UTC time ran its earlier, fenced control
// block (the arrival's fence + atomic round trip + fence before the push, gamma loaded after the
// reduction; docs/kernels.md, "The faithful reference"): every committed row up to commit bcd9cd7
// was measured before it, every row of the fence-free kernel after it. ISO 8601 strings compare
// in time order.
constexpr const char* kFenceFreeReferenceSince = "2026-12-01T18:00:00Z";
// Rows of the one-shot reference body measured before this UTC time (the commit time of a160fc2, which
// trimmed the fused kernels' issue time at one token; docs/kernels.md, "The reference at one token: issue
// time") closed with cluster.sync() at cluster > 1; every row after it with the relaxed lifetime barrier
// (kernels/oneshot_kernel.cuh). One committed file holds rows of an older binary measured after it:
// data/h100/issue_time_probe_emulated.csv, the A/B probe of the trim itself (d6ecefd beside a160fc2), whose
// d6ecefd rows are predicted with the relaxed close; no figure of the docs judges the model on that file.
constexpr const char* kRelaxedExitReferenceSince = "2026-12-06T17:58:01Z";

// A row's measurement time as the kernel designs' cuts compare it: ISO 8601 UTC to the second,
// "YYYY-MM-DDTHH:MM:SSZ" (what every arlab CSV writes), so that text order is time order.
bool is_utc_timestamp(const std::string& t) {
  static constexpr char kShape[] = "dddd-dd-ddTdd:dd:ddZ";
  if (t.size() != sizeof(kShape) - 1) return false;
  for (size_t i = 0; i < t.size(); ++i)
    if (kShape[i] == 'd' ? !(t[i] >= '0' && t[i] <= '9') : t[i] != kShape[i]) return false;
  return true;
}

// The measured row of one measurement row as validate / fit need it; nothing for a baseline row or a
// peer's kernel (the model predicts arlab's fused bodies only: rows whose table row has a model
// design). Throws CsvCellError naming the column of a bad cell.
std::optional<MeasuredRow> measured_row(const MeasurementRow& m) {
  const Impl ran = row_kernel(m);
  if (!is_kernel_body(ran) || implementation(ran).model == ModelDesign::not_modelled) return std::nullopt;
  MeasuredRow r;
  r.gpu = m.gpu;
  if (r.gpu.size() > kMaxQuotedCellChars) throw CsvCellError("gpu", "'" + cut_for_message(r.gpu) + "' is not a GPU name");
  r.link = label("link", m.link, parse_link);
  r.sm_per_rank = m.sm_per_rank;
  r.problem.nranks = m.nranks;
  r.problem.dtype = label("dtype", m.dtype, parse_dtype);
  r.problem.pattern = label("pattern", m.pattern, parse_pattern);
  r.problem.algo = label("algo", m.algo, parse_algorithm);
  r.problem.acc = label("acc", m.acc, parse_accumulation);
  r.problem.tokens = m.tokens;
  r.problem.hidden = m.hidden;
  r.policy = m.policy;
  const PolicyLabel policy = label("policy", m.policy, parse_policy_label);  // a known label (the row keeps its text)
  r.config.tpb = m.tpb;
  r.config.cluster = m.cluster;
  r.config.grid = m.grid;
  r.config.vecs_per_thread = m.vecs_per_thread;
  if (m.pdl != 0 && m.pdl != 1) throw CsvCellError("pdl", "pdl = '" + std::to_string(m.pdl) + "' (expected 0 or 1)");
  r.config.pdl = m.pdl == 1;
  r.config.algo = r.problem.algo;
  r.config.impl = ran;
  // The date decides which reference design ran (the cuts below): a cell that is no timestamp would pick one
  // silently. An empty cell is a row with no date (rows a test or a script made): the kernels of this build.
  if (!m.date_utc.empty() && !is_utc_timestamp(m.date_utc))
    throw CsvCellError("date_utc", "'" + cut_for_message(m.date_utc) +
                                       "' is not a UTC time YYYY-MM-DDTHH:MM:SSZ (it decides which kernel design ran)");
  // The provenance cells of session 50 (empty: not recorded) name what the runner did, so a cell that names
  // nothing it can do is refused rather than read as a label.
  if (!m.sf_layout.empty()) {
    label("sf_layout", m.sf_layout, parse_scale_layout);
    if (!has_fp4(r.problem.pattern))
      throw CsvCellError("sf_layout", "'" + m.sf_layout + "' on a row of pattern " + to_string(r.problem.pattern) +
                                          " (only the NVFP4 patterns write scale factors; expected empty)");
  }
  if (!m.input_distribution.empty() && m.input_distribution != "normal" && m.input_distribution != "uniform" &&
      m.input_distribution != "heavy_tailed")
    throw CsvCellError("input_distribution", "'" + cut_for_message(m.input_distribution) +
                                                 "' is not an input distribution (expected normal, uniform or heavy_tailed)");
  if (!m.input_seed.empty() && !is_seed_text(m.input_seed))
    throw CsvCellError("input_seed", "'" + cut_for_message(m.input_seed) +
                                         "' is not a seed (expected a whole number 0 .. 18446744073709551615)");
  const bool dated_reference = ran == Impl::reference && r.config.algo == Algorithm::oneshot && !m.date_utc.empty();
  r.config.fenced_reference = dated_reference && m.date_utc < kFenceFreeReferenceSince;
  r.config.release_exit_reference = dated_reference && m.date_utc < kRelaxedExitReferenceSince;
  if (policy.names_variant && policy.variant != r.config.impl)
    throw CsvCellError("policy", "policy label '" + r.policy + "' names the " + to_string(policy.variant) +
                                     " kernel, the row's kernel_variant is " + to_string(r.config.impl));
  if (!runs_algorithm(r.config.impl, r.config.algo))
    throw CsvCellError("kernel_variant", std::string("kernel_variant ") + to_string(r.config.impl) + " with algo " +
                                             to_string(r.config.algo) + ": " + algorithm_limit(r.config.impl));
  r.resources.regs_per_thread = m.regs;
  r.check_passed = label("check", m.check, parse_check);
  r.max_over_ranks_us = kernel_time("kernel_us_median", m.kernel_us_median);
  if (!std::isnan(m.skewfree_us_median))  // nan: not defined on that node
    r.skewfree_us = kernel_time("skewfree_us_median", m.skewfree_us_median);
  r.kernel_us = headline_us(m);
  if (std::isnan(r.kernel_us))
    throw CsvCellError("skewfree_us_median", "the row's headline is " + m.headline + ", and it has no skew-free median");
  if (r.sm_per_rank < 1) throw CsvCellError("sm_per_rank", "sm_per_rank = " + std::to_string(m.sm_per_rank) + " must be >= 1");
  if (r.resources.regs_per_thread < 0 || r.resources.regs_per_thread > kMaxRegistersPerThread)
    throw CsvCellError("regs", "regs = " + std::to_string(m.regs) + " is outside [0, " +
                                   std::to_string(kMaxRegistersPerThread) + "] registers per thread");
  const ProblemViolation bad = problem_violation(r.problem);
  if (!bad.field.empty()) throw CsvCellError(column_of(bad.field), "invalid problem: " + bad.message);
  return r;
}
}  // namespace

std::vector<MeasuredRow> read_measurements(const std::string& path) {
  const CsvRows<MeasurementRow> table = read_rows<MeasurementRow>(path);
  std::vector<MeasuredRow> rows;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    std::optional<MeasuredRow> r = at_row(path, table.lines[i], [&] { return measured_row(table.rows[i]); });
    if (!r) continue;
    r->line = table.lines[i];
    rows.push_back(std::move(*r));
  }
  return rows;
}

namespace {
MeasurementRow measurement_row(const MeasuredRow& r, const std::string& experiment, const std::string& timing_source) {
  MeasurementRow m;
  m.experiment = experiment;
  m.git_sha = arlab::git_sha();
  m.gpu = r.gpu;
  m.topology = r.link == LinkKind::local ? "emulated" : "p2p";
  m.link = to_string(r.link);
  m.sm_per_rank = r.sm_per_rank;
  m.nranks = r.problem.nranks;
  m.dtype = to_string(r.problem.dtype);
  m.pattern = to_string(r.problem.pattern);
  m.algo = to_string(r.config.algo);
  m.acc = to_string(r.problem.acc);
  m.tokens = r.problem.tokens;
  m.hidden = r.problem.hidden;
  m.policy = r.policy;
  m.tpb = r.config.tpb;
  m.cluster = r.config.cluster;
  m.grid = r.config.grid;
  m.vecs_per_thread = r.config.vecs_per_thread;
  m.pdl = r.config.pdl ? 1 : 0;
  m.regs = r.resources.regs_per_thread;
  m.timing_source = timing_source;
  m.kernel_us_median = r.max_over_ranks_us > 0 ? r.max_over_ranks_us : r.kernel_us;
  m.skewfree_us_median = r.skewfree_us;
  // The headline column names the figure kernel_us is (read back, common/measurement_headline.h gives
  // kernel_us again): the skew-free median when kernel_us is it, else the max over ranks.
  m.headline = r.kernel_us == r.skewfree_us ? kHeadlineSkewFree : kHeadlineMaxOverRanks;
  m.check = r.check_passed ? "pass" : "fail";
  m.implementation = implementation(r.config.impl).csv_implementation;  // the model's rows are fused kernels
  m.allreduce_us_median = std::numeric_limits<double>::quiet_NaN();
  m.kernel_variant = implementation(r.config.impl).csv_kernel_variant;
  return m;
}
}  // namespace

void write_measurements(const std::vector<MeasuredRow>& rows, const std::string& path, const std::string& experiment,
                        const std::string& timing_source) {
  write_csv_file(path, measurement_header(), [&](std::ostream& out) {
    for (const MeasuredRow& r : rows) out << csv_join(to_cells(measurement_row(r, experiment, timing_source))) << '\n';
  });
}

void append_measurements(const std::vector<MeasuredRow>& rows, const std::string& path, const std::string& experiment,
                         const std::string& timing_source) {
  CsvAppender out(path, measurement_header());
  for (const MeasuredRow& r : rows) out.append(to_cells(measurement_row(r, experiment, timing_source)));
}

int rows_with_other_timing_source(const std::string& path, const std::string& timing_source) {
  int n = 0;
  for (const MeasurementRow& r : read_rows<MeasurementRow>(path).rows) n += r.timing_source != timing_source ? 1 : 0;
  return n;
}

GpuSpec spec_for_row(const MeasuredRow& row, const std::string& gpu_override, const std::string& source) {
  // Errors name the row: file:line and column when the rows' file is known.
  auto fail = [&](const std::string& column, const std::string& what) -> GpuSpec {
    if (!source.empty()) throw CsvError(source, row.line, column, what);
    throw InvalidArgument("line " + std::to_string(row.line) + ": " + what);
  };
  const std::string preset = gpu_override.empty() ? preset_for_device_name(row.gpu) : gpu_override;
  if (preset.empty())
    return fail("gpu", "gpu '" + cut_for_message(row.gpu) + "' matches no GPU preset; pass --gpu PRESET");
  GpuSpec whole;
  try {
    whole = gpu_preset(preset);
  } catch (const InvalidArgument& e) {
    return fail("gpu", e.what());
  }
  if (row.sm_per_rank == whole.sm_count) {
    GpuSpec s = whole;
    if (row.link == LinkKind::local) {  // one rank owning the whole GPU, peers local: keep SMs, no link
      s.link = LinkKind::local;
      s.link_gbps = 0;
    }
    return s;
  }
  GpuSpec s;
  try {
    s = sm_partition_with_count(whole, row.sm_per_rank, row.problem.nranks);
  } catch (const InvalidArgument& e) {
    return fail("sm_per_rank", e.what());
  }
  if (row.link == LinkKind::nvlink) {
    s.link = LinkKind::nvlink;
    s.link_gbps = whole.link_gbps;
  }
  return s;
}

const GpuSpec& SpecCache::get(const MeasuredRow& row) {
  const std::string key = row.gpu + "|" + std::to_string(row.sm_per_rank) + "|" + std::to_string(row.problem.nranks) +
                          "|" + to_string(row.link);
  auto it = specs_.find(key);
  if (it == specs_.end()) it = specs_.emplace(key, spec_for_row(row, override_, source_)).first;
  return it->second;
}

std::string problem_key(const MeasuredRow& r) {
  const Problem& p = r.problem;
  return r.gpu + "|" + to_string(r.link) + "|" + std::to_string(r.sm_per_rank) + "|" + std::to_string(p.nranks) + "|" +
         to_string(p.dtype) + "|" + to_string(p.pattern) + "|" + to_string(p.acc) + "|" + to_string(p.algo) + "|" +
         std::to_string(p.tokens) + "|" + std::to_string(p.hidden);
}

}  // namespace arlab::model
