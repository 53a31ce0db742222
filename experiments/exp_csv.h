// The measurement CSVs of `arlab exp NAME` (rows with experiment = "NAME/KEY", common/
// measurement_schema.h), read through the typed reader (common/csv_table.h): the case keys already
// measured (resume), the union of shard CSVs into the experiment's CSV (merge), and the per-case
// summary printed after a run. Pure C++ (no GPU). Files of every committed generation read (columns
// added later take their defaults); merge writes the current schema.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/numerics_schema.h"

namespace arlab::exp {

// The case keys already in a measurement CSV for experiment `name` (rows whose `experiment` cell is
// "NAME/KEY"), so a re-run skips them. A missing, empty or blank file gives the empty set; a file of
// another schema, or with a bad cell, is refused (CsvError naming file, line and column). A row cut
// short (a run killed mid-write) does not count: its case runs again. A case counts as done as soon
// as one of its rows is in the file: the driver should write a case's rows together, after its group.
std::set<std::string> done_case_keys(const std::string& csv_path, const std::string& name);

// Where the ratios of measurement CSV X.csv are: X_ratios.csv beside it.
std::string ratios_path_of(const std::string& measurement_csv);

// What merge_csvs did.
struct MergeCounts {
  long long kept = 0;     // rows `out_path` held before, kept
  long long added = 0;    // rows added from the inputs
  long long dropped = 0;  // rows dropped as duplicates of an earlier one
};

// The union of the rows of experiment `name` in `out_path` (when it exists) and in `inputs` (shard
// CSVs), written to `out_path` in the current schema (its folder made then, when missing) (optional columns an older file lacks get
// their defaults): the rows already in `out_path` first, then each input's in order, keeping the
// first row of each (experiment, policy, tpb, cluster, grid, vecs_per_thread, algo, tokens, hidden,
// nranks, dtype, pattern, acc, implementation, kernel_variant) -- a baseline row and a lean row
// are no duplicates of the reference row at the same configuration. Every file is read strictly
// (CsvError naming file, line and column: a row cut short, a bad cell, another schema), and every row
// must belong to `name`: a row whose experiment cell is not "NAME/KEY" is refused, naming file and
// line. An empty or blank input holds no rows. Refuses (InvalidArgument) an empty input list, an
// input that is a directory, an output that is one of the inputs however spelled or linked, and a
// merge whose inputs hold no row at all (nothing to merge: no header-only file is made). The output
// is written atomically (common/output_file.h), only when rows were added (a merge of duplicates
// leaves it untouched), and is left as it was -- or not made, nor its folder -- on any error.
MergeCounts merge_csvs(const std::vector<std::string>& inputs, const std::string& out_path, const std::string& name);

// The same union for the ratio CSVs (common/ratio_schema.h) beside those shards: `out_path`'s rows
// first, then each input's, keeping the first row of each (experiment, group_id, numerator,
// numerator_cfg, denominator, denominator_cfg) -- a ratio belongs to the group that measured it, so it
// stays paired with that group's measurement rows whichever shard's rows of a case merge_csvs kept.
// The same refusals (another experiment's row, a bad cell, a directory, the output one of the inputs,
// no input); written atomically, only when rows were added.
MergeCounts merge_ratio_csvs(const std::vector<std::string>& inputs, const std::string& out_path,
                             const std::string& name);

// Resume of `arlab exp numerics` (a CPU sweep, one case): the rows of `rows` that `csv_path` (a
// numerics CSV, common/numerics_schema.h) does not hold yet, in order -- a row is there when one of
// the file's rows has the same experiment, seed, distribution, tokens, hidden, eps, nranks, dtype,
// acc and output. A missing, empty or blank file holds none; rows cut short (a killed run's) do not
// count; a bad row is refused (CsvError naming file, line and column).
std::vector<NumericsRow> numerics_rows_missing(const std::string& csv_path, const std::vector<NumericsRow>& rows);


// The summary printed after `arlab exp NAME`: a title line, then one line per case of `case_keys`
// (in that order) that has rows of experiment `name` in `csv_path`: each row's label (policy,
// "/lean" for the lean kernel, "explicit TPB/CLUSTER/GRID" for an explicit configuration, "model
// (ALGO)" for the model's pick) and its headline time (common/measurement_headline.h) in us; a case
// of more than kMaxVariantsListed variants shows its policies and the best explicit configuration;
// "GATE FAILED xN" where N rows failed the correctness gate. Empty when the file is missing, empty
// or blank. Rows cut short (a killed run's) are skipped and counted in a last line; any other bad
// row is refused (CsvError naming file, line and column).
std::string exp_case_summary(const std::string& csv_path, const std::string& name,
                             const std::vector<std::string>& case_keys);

// A case line lists every variant up to this many; a case of more (an explicit sweep: config-space
// cases of up to 24 configurations) shows its policies and the best explicit one, so the line stays
// readable (the rule of the summary `arlab exp` printed before this function).
constexpr size_t kMaxVariantsListed = 6;

}  // namespace arlab::exp
