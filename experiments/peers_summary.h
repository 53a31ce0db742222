// `arlab exp peers`'s summary (its table row's summary step): from the experiment's measurement rows
// and its in-group ratio rows (NAME_ratios.csv: every member over the group's first, FlashInfer at
// its own configuration), one common/peers_schema.h row per (problem, member); the printed table and
// the geometric means of the speedup over FlashInfer per (N, member). Pure C++ (no GPU).
#pragma once

#include <string>
#include <vector>

#include "common/peers_schema.h"

namespace arlab::exp {

// The policy label of FlashInfer at its own configuration in a peers case (the group's first member).
constexpr const char* kFlashinferMember = "flashinfer/flashinfer";
// arlab's best in a peers case: the model policy choosing body, algorithm and launch shape.
constexpr const char* kBestMember = "model/auto";

// Where the summary of measurement CSV X.csv is: X_summary.csv (its ratios: exp::ratios_path_of).
std::string peers_summary_path(const std::string& measurement_csv);

// One row per (case, member other than FlashInfer) of experiment "peers" in `measurement_csv`,
// paired with FlashInfer's row of the same group (cases without it are left out); speedup CIs from
// the ratio rows of the same group (NaN where the ratio file lacks them). Throws CsvError naming
// file, line and column for a bad row.
std::vector<PeersRow> peers_rows(const std::string& measurement_csv);

// The printed table (one line per row) and one line per (link, N, member): the geometric mean of
// the speedup over FlashInfer, its minimum and maximum, over the problems where both passed the gate.
std::string peers_report(const std::vector<PeersRow>& rows);

}  // namespace arlab::exp
