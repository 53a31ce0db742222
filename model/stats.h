// Error statistics used to judge the model (docs/model.md): absolute percentage error, median, and
// Spearman rank correlation with ties (average ranks, then Pearson on the ranks).
#pragma once

#include <vector>

namespace arlab::model {

// |predicted - measured| / measured (a fraction; x100 for percent). measured must be > 0.
double abs_pct_error(double predicted, double measured);
double mean(const std::vector<double>& v);    // 0 for an empty vector
double median(std::vector<double> v);         // 0 for an empty vector; mean of the middle two when even
// 1-based ranks, ties get the average of the ranks they span.
std::vector<double> average_ranks(const std::vector<double>& v);
// Spearman's rho; NaN when fewer than 2 values or when either side is constant.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace arlab::model
