// Resume, merge and the per-case summary of `arlab exp` over its measurement CSVs
// (experiments/exp_csv.h), every row read by common/csv_table.h.
#include "experiments/exp_csv.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <system_error>

#include "common/csv.h"
#include "common/csv_table.h"
#include "common/fmt.h"
#include "common/measurement_headline.h"
#include "common/measurement_kernel.h"
#include "common/measurement_schema.h"
#include "common/output_file.h"
#include "common/ratio_schema.h"

namespace arlab::exp {

namespace {

// Width of the case-key column of the summary: the longest keys of the committed runs (seed's
// "N=2 H=8192 T=128 bf16 ar_res_rms pairwise oneshot explicit", 58 characters); each variant after
// it starts with two spaces.
constexpr int kKeyColumnWidth = 58;

// KEY of an experiment cell "NAME/KEY" of experiment `name`; false when the cell belongs to none or
// another experiment.
bool case_key_of(const std::string& experiment_cell, const std::string& name, std::string& key) {
  const std::string prefix = name + "/";
  if (experiment_cell.compare(0, prefix.size(), prefix) != 0) return false;
  key = experiment_cell.substr(prefix.size());
  return true;
}

// The cells that say which variant of which case a row measures (merge keeps one row per value). The
// policy note tells the model policy held to one body (model/lean) from model/auto when both pick the
// same configuration of the same body in one group.
std::vector<std::string> duplicate_key(const MeasurementRow& r) {
  return {r.experiment, r.policy,       std::to_string(r.tpb),    std::to_string(r.cluster),
          std::to_string(r.grid),       std::to_string(r.vecs_per_thread), r.algo, std::to_string(r.tokens),
          std::to_string(r.hidden),     std::to_string(r.nranks), r.dtype,   r.pattern,
          r.acc,                        r.implementation,         r.kernel_variant, r.policy_note};
}

// Throws InvalidArgument when `out_path` is one of `inputs`: the same path however spelled (./a.csv,
// dir/../a.csv), even before the output exists, or the same file through a link.
void check_output_is_no_input(const std::vector<std::string>& inputs, const std::string& out_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out_canonical = fs::weakly_canonical(out_path, ec);
  for (const std::string& in : inputs) {
    std::error_code in_ec;
    if (!ec && fs::weakly_canonical(in, in_ec) == out_canonical && !in_ec)
      throw InvalidArgument("merge: the output " + out_path + " is the input " + in +
                            ": refusing to overwrite an input; choose another output path");
  }
  // Same device and inode; an output folder that does not exist yet holds no input.
  if (fs::is_directory(fs::path(out_path).parent_path(), ec) || fs::path(out_path).parent_path().empty())
    check_output_path(out_path, inputs, "merge output");
}

}  // namespace

std::set<std::string> done_case_keys(const std::string& csv_path, const std::string& name) {
  std::set<std::string> keys;
  std::error_code ec;
  if (!std::filesystem::exists(csv_path, ec)) return keys;  // nothing measured yet
  CsvReadOptions options;
  options.allow_empty_file = true;
  options.skip_cut_rows = true;  // a killed run's last row: its case runs again
  std::string key;
  for (const MeasurementRow& r : read_rows<MeasurementRow>(csv_path, options).rows)
    if (case_key_of(r.experiment, name, key)) keys.insert(key);
  return keys;
}

namespace {

// What differs between the merges of measurement rows and of ratio rows: the row type's header, the
// cells a duplicate shares, a check of each row beyond its experiment, and whether inputs without
// any row are an error (a measurement merge with nothing to merge is; a shard may have no ratios).
template <class Row>
struct MergeRules {
  const char* rows_name;   // "rows", "ratios": in messages
  const char* input_kind;  // "CSV", "ratio CSV": in messages
  std::vector<std::string> header;
  std::function<std::vector<std::string>(const Row&)> duplicate_key;
  std::function<void(const std::string& path, int line, const Row&)> check_row;  // may be empty
  bool inputs_need_rows;
};

// The union of `out_path`'s rows (when it exists) and the inputs', in that order, the first of each
// duplicate kept; every row must be a case of experiment `name`. Written atomically in the current
// schema, and only when rows were added; its folder made only then (removed again if the write fails).
template <class Row>
MergeCounts merge_union(const std::vector<std::string>& inputs, const std::string& out_path, const std::string& name,
                        const MergeRules<Row>& rules) {
  if (inputs.empty()) throw InvalidArgument(std::string("merge: no input ") + rules.input_kind + " given");
  check_output_is_no_input(inputs, out_path);
  CsvReadOptions options;
  options.allow_empty_file = true;  // an empty shard CSV holds no rows
  std::set<std::vector<std::string>> seen;
  std::ostringstream rows;
  MergeCounts counts;
  // Adds the rows of one file; `count` is the counter of the rows it contributes.
  const auto take = [&](const std::string& path, long long& count) {
    const CsvRows<Row> table = read_rows<Row>(path, options);
    std::string key;
    for (size_t i = 0; i < table.rows.size(); ++i) {
      const Row& r = table.rows[i];
      if (!case_key_of(r.experiment, name, key))
        throw CsvError(path, table.lines[i], "experiment",
                       "'" + cut_for_message(r.experiment) + "' is no case of experiment " + name + " (expected " +
                           name + "/KEY): refusing to merge " + rules.rows_name + " of another experiment");
      if (rules.check_row) rules.check_row(path, table.lines[i], r);
      if (!seen.insert(rules.duplicate_key(r)).second) {
        ++counts.dropped;
        continue;
      }
      rows << csv_join(to_cells(r)) << '\n';
      ++count;
    }
  };
  std::error_code ec;
  if (std::filesystem::exists(out_path, ec)) take(out_path, counts.kept);
  long long input_rows = 0;
  for (const std::string& in : inputs) {
    if (!std::filesystem::exists(in, ec)) throw InvalidArgument("merge: cannot read input " + in + ": no such file");
    if (std::filesystem::is_directory(in, ec))
      throw InvalidArgument("merge: input " + in + " is a directory; name its shard CSV files (e.g. " + in + "/" +
                            name + ".csv)");
    const long long dropped_before = counts.dropped, added_before = counts.added;
    take(in, counts.added);
    input_rows += (counts.added - added_before) + (counts.dropped - dropped_before);
  }
  if (input_rows == 0 && rules.inputs_need_rows)
    throw InvalidArgument("merge: the input file(s) hold no rows of experiment " + name +
                          " (only a header, or nothing): nothing to merge");
  if (counts.added == 0) return counts;  // every input row is already there: the output stays as it is
  // The output was read above (a file of any generation of the schema) or is absent: replacing it
  // with the current schema loses nothing. Its folder is made now, once every input has been read.
  MadeFolders folder(std::filesystem::path(out_path).parent_path().string());  // removed again if the write fails
  write_file_atomically(out_path, csv_join(rules.header) + "\n" + rows.str());
  folder.keep();
  return counts;
}

}  // namespace

MergeCounts merge_csvs(const std::vector<std::string>& inputs, const std::string& out_path, const std::string& name) {
  MergeRules<MeasurementRow> rules;
  rules.rows_name = "rows";
  rules.input_kind = "CSV";
  rules.header = measurement_header();
  rules.duplicate_key = duplicate_key;
  rules.check_row = [](const std::string& path, int line, const MeasurementRow& r) {
    for (const auto& [column, us] : {std::pair<const char*, double>{"kernel_us_median", r.kernel_us_median},
                                     {"skewfree_us_median", r.skewfree_us_median}})
      if (!std::isnan(us) && !kernel_time_problem(us).empty())  // nan: an untimed row, or no skew-free figure
        throw CsvError(path, line, column, kernel_time_problem(us));
  };
  rules.inputs_need_rows = true;
  return merge_union(inputs, out_path, name, rules);
}

std::string ratios_path_of(const std::string& measurement_csv) {
  const std::filesystem::path p(measurement_csv);
  return (p.parent_path() / (p.stem().string() + "_ratios.csv")).string();
}

MergeCounts merge_ratio_csvs(const std::vector<std::string>& inputs, const std::string& out_path,
                             const std::string& name) {
  MergeRules<RatioRow> rules;
  rules.rows_name = "ratios";
  rules.input_kind = "ratio CSV";
  rules.header = ratio_header();
  // A ratio belongs to the group that measured it.
  rules.duplicate_key = [](const RatioRow& r) {
    return std::vector<std::string>{r.experiment,  r.group_id,    r.numerator,
                                    r.numerator_cfg, r.denominator, r.denominator_cfg};
  };
  rules.inputs_need_rows = false;
  return merge_union(inputs, out_path, name, rules);
}

std::vector<NumericsRow> numerics_rows_missing(const std::string& csv_path, const std::vector<NumericsRow>& rows) {
  const auto key = [](const NumericsRow& r) {
    return std::vector<std::string>{r.experiment, std::to_string(r.seed), r.distribution, std::to_string(r.tokens),
                                    std::to_string(r.hidden), csv_num(r.eps), std::to_string(r.nranks), r.dtype,
                                    r.acc, r.output};
  };
  std::set<std::vector<std::string>> there;
  std::error_code ec;
  if (std::filesystem::exists(csv_path, ec)) {
    CsvReadOptions options;
    options.allow_empty_file = true;
    options.skip_cut_rows = true;  // a killed run's last row: measured again
    for (const NumericsRow& r : read_rows<NumericsRow>(csv_path, options).rows) there.insert(key(r));
  }
  std::vector<NumericsRow> missing;
  for (const NumericsRow& r : rows)
    if (!there.count(key(r))) missing.push_back(r);
  return missing;
}

std::string exp_case_summary(const std::string& csv_path, const std::string& name,
                             const std::vector<std::string>& case_keys) {
  std::error_code ec;
  if (!std::filesystem::exists(csv_path, ec)) return "";
  CsvReadOptions options;
  options.allow_empty_file = true;
  options.skip_cut_rows = true;  // as resume: a killed run's row is measured again, not summarized
  const CsvRows<MeasurementRow> table = read_rows<MeasurementRow>(csv_path, options);
  if (table.header_line == 0) return "";

  std::map<std::string, std::vector<std::pair<std::string, double>>> by_key;  // (label, headline us) per case
  std::map<std::string, int> failed;
  std::string key;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const MeasurementRow& r = table.rows[i];
    if (!case_key_of(r.experiment, name, key)) continue;
    const Impl kernel = at_row(csv_path, table.lines[i], [&] { return row_kernel(r); });
    std::string label = r.policy + variant_suffix(kernel);
    if (label == "explicit")
      label = "explicit " + std::to_string(r.tpb) + "/" + std::to_string(r.cluster) + "/" + std::to_string(r.grid);
    if (label == "model") label += " (" + r.algo + ")";
    by_key[key].emplace_back(label, at_row(csv_path, table.lines[i], [&] { return headline_us(r); }));
    if (r.check == "fail") ++failed[key];
  }

  std::string out = "\n# " + name + ": headline time per variant (us; skew-free median where the node defines it)\n";
  for (const std::string& case_key : case_keys) {
    const auto it = by_key.find(case_key);
    if (it == by_key.end()) continue;
    const auto& variants = it->second;
    std::string text;
    const std::pair<std::string, double>* best_explicit = nullptr;
    for (const auto& v : variants) {
      if (v.first.rfind("explicit", 0) == 0 && variants.size() > kMaxVariantsListed) {
        if (!best_explicit || v.second < best_explicit->second) best_explicit = &v;
        continue;
      }
      text += "  " + v.first + " " + csv_num(v.second);
    }
    if (best_explicit)
      text += "  best of " + std::to_string(variants.size()) + ": " + best_explicit->first + " " +
              csv_num(best_explicit->second);
    const auto f = failed.find(case_key);
    out += fmt("%-*s", kKeyColumnWidth, case_key.c_str()) + text +
           (f != failed.end() ? "  GATE FAILED x" + std::to_string(f->second) : std::string()) + "\n";
  }
  if (!table.cut_lines.empty())
    out += "  (" + std::to_string(table.cut_lines.size()) + " row(s) cut short, as by a killed run, left out: the first at " +
           csv_path + ":" + std::to_string(table.cut_lines.front()) + ")\n";
  return out;
}

}  // namespace arlab::exp
