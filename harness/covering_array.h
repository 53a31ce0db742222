// Pairwise (all-pairs) covering arrays for test matrices: rows of parameter-value indices such that
// every pair of values of any two parameters that can appear together in an allowed row does appear
// in some row. Deterministic greedy construction: each new row is the allowed full combination that
// covers the most still-uncovered pairs (the first such in lexicographic order), until no allowed
// row covers a new pair. Exact with respect to the constraint (it scores complete rows), so it is
// meant for small spaces: the full product is enumerated once. Pure C++, unit-tested on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace arlab::harness {

using CoverRow = std::vector<int>;  // value index per parameter

struct PairwiseCover {
  std::vector<CoverRow> rows;
  // Pairs (i, a, j, b) with i < j that no allowed row contains (excluded by the constraint).
  struct Pair {
    int param_a, value_a, param_b, value_b;
  };
  std::vector<Pair> infeasible;
};

// Largest full product pairwise_cover enumerates (keeps it an exact, fast construction).
constexpr std::int64_t kMaxCoverProduct = 4'000'000;

// levels[i] = number of values of parameter i (>= 1); `allowed` says whether a complete row is
// admissible (nullptr: every row is). Throws InvalidArgument for fewer than 2 parameters, a level
// below 1 or a product above kMaxCoverProduct.
PairwiseCover pairwise_cover(const std::vector<int>& levels, const std::function<bool(const CoverRow&)>& allowed);

// True when every pair of values of any two parameters occurring in some allowed row occurs in
// some row of `rows` (the independent check the tests use).
bool covers_all_feasible_pairs(const std::vector<int>& levels, const std::function<bool(const CoverRow&)>& allowed,
                               const std::vector<CoverRow>& rows);

}  // namespace arlab::harness
