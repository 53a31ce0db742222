// Implementation of harness/covering_array.h.
#include "harness/covering_array.h"

#include <string>

#include "common/problem.h"

namespace arlab::harness {
namespace {

// Flat index of the pair (i, a, j, b), i < j, in a table of all pairs.
struct PairIndex {
  std::vector<int> levels;
  std::vector<std::vector<std::int64_t>> base;  // base[i][j]: first index of pairs of (i, j)
  std::int64_t total = 0;
  explicit PairIndex(const std::vector<int>& lv)
      : levels(lv), base(lv.size(), std::vector<std::int64_t>(lv.size(), 0)) {
    for (size_t i = 0; i < lv.size(); ++i)
      for (size_t j = i + 1; j < lv.size(); ++j) {
        base[i][j] = total;
        total += static_cast<std::int64_t>(lv[i]) * lv[j];
      }
  }
  std::int64_t at(size_t i, int a, size_t j, int b) const {
    return base[i][j] + static_cast<std::int64_t>(a) * levels[j] + b;
  }
};

void check_levels(const std::vector<int>& levels) {
  if (levels.size() < 2)
    throw InvalidArgument("pairwise_cover: " + std::to_string(levels.size()) + " parameters (need at least 2)");
  std::int64_t product = 1;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i] < 1)
      throw InvalidArgument("pairwise_cover: parameter " + std::to_string(i) + " has " + std::to_string(levels[i]) +
                            " values (need at least 1)");
    product *= levels[i];
    if (product > kMaxCoverProduct)
      throw InvalidArgument("pairwise_cover: the full product exceeds " + std::to_string(kMaxCoverProduct) +
                            " rows; split the matrix");
  }
}

// Every allowed complete row, in lexicographic order.
std::vector<CoverRow> allowed_rows(const std::vector<int>& levels,
                                   const std::function<bool(const CoverRow&)>& allowed) {
  std::vector<CoverRow> out;
  CoverRow row(levels.size(), 0);
  for (;;) {
    if (!allowed || allowed(row)) out.push_back(row);
    size_t k = levels.size();
    while (k > 0) {
      --k;
      if (++row[k] < levels[k]) break;
      row[k] = 0;
      if (k == 0) return out;
    }
  }
}

template <typename F>
void for_each_pair(const CoverRow& row, F&& f) {
  for (size_t i = 0; i < row.size(); ++i)
    for (size_t j = i + 1; j < row.size(); ++j) f(i, row[i], j, row[j]);
}

}  // namespace

PairwiseCover pairwise_cover(const std::vector<int>& levels, const std::function<bool(const CoverRow&)>& allowed) {
  check_levels(levels);
  const PairIndex index(levels);
  const std::vector<CoverRow> candidates = allowed_rows(levels, allowed);
  std::vector<char> feasible(static_cast<size_t>(index.total), 0), covered(static_cast<size_t>(index.total), 0);
  for (const CoverRow& r : candidates)
    for_each_pair(r,
                  [&](size_t i, int a, size_t j, int b) { feasible[static_cast<size_t>(index.at(i, a, j, b))] = 1; });

  PairwiseCover result;
  for (;;) {
    int best_gain = 0;
    const CoverRow* best = nullptr;
    for (const CoverRow& r : candidates) {
      int gain = 0;
      for_each_pair(r, [&](size_t i, int a, size_t j, int b) {
        gain += covered[static_cast<size_t>(index.at(i, a, j, b))] ? 0 : 1;
      });
      if (gain > best_gain) {
        best_gain = gain;
        best = &r;
      }
    }
    if (best == nullptr) break;
    for_each_pair(*best,
                  [&](size_t i, int a, size_t j, int b) { covered[static_cast<size_t>(index.at(i, a, j, b))] = 1; });
    result.rows.push_back(*best);
  }
  for (size_t i = 0; i < levels.size(); ++i)
    for (size_t j = i + 1; j < levels.size(); ++j)
      for (int a = 0; a < levels[i]; ++a)
        for (int b = 0; b < levels[j]; ++b)
          if (!feasible[static_cast<size_t>(index.at(i, a, j, b))])
            result.infeasible.push_back({static_cast<int>(i), a, static_cast<int>(j), b});
  return result;
}

bool covers_all_feasible_pairs(const std::vector<int>& levels, const std::function<bool(const CoverRow&)>& allowed,
                               const std::vector<CoverRow>& rows) {
  check_levels(levels);
  const PairIndex index(levels);
  std::vector<char> need(static_cast<size_t>(index.total), 0);
  for (const CoverRow& r : allowed_rows(levels, allowed))
    for_each_pair(r, [&](size_t i, int a, size_t j, int b) { need[static_cast<size_t>(index.at(i, a, j, b))] = 1; });
  for (const CoverRow& r : rows) {
    if (r.size() != levels.size()) return false;
    for_each_pair(r, [&](size_t i, int a, size_t j, int b) { need[static_cast<size_t>(index.at(i, a, j, b))] = 0; });
  }
  for (char c : need)
    if (c) return false;
  return true;
}

}  // namespace arlab::harness
