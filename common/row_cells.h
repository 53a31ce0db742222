// The columns every tidy row schema shares (measurement, prediction, validation): a problem's
// nranks, dtype, pattern, acc, tokens and hidden, and a launch configuration's algo, tpb, cluster,
// grid and vecs_per_thread, filled the same way into whichever typed row carries them.
#pragma once

#include "common/launch_config.h"
#include "common/problem.h"

namespace arlab {

template <typename Row>
void set_problem_cells(Row& row, const Problem& p) {
  row.nranks = p.nranks;
  row.dtype = to_string(p.dtype);
  row.pattern = to_string(p.pattern);
  row.acc = to_string(p.acc);
  row.tokens = p.tokens;
  row.hidden = p.hidden;
}

template <typename Row>
void set_config_cells(Row& row, const LaunchConfig& c) {
  row.algo = to_string(c.algo);
  row.tpb = c.tpb;
  row.cluster = c.cluster;
  row.grid = c.grid;
  row.vecs_per_thread = c.vecs_per_thread;
}

}  // namespace arlab
