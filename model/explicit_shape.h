// An explicit launch configuration as a user gives it (tpb/cluster/grid[/vpt], `arlab run --config`,
// `--policy explicit`, the experiments' explicit sweeps) and its conversion into a LaunchConfig for
// one problem. Pure C++.
#pragma once

#include <string>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/legality.h"

namespace arlab::model {

// One explicit configuration tpb/cluster/grid[/vpt] (vpt 0 = the required one).
struct ExplicitShape {
  int tpb = 0, cluster = 1, grid = 0, vpt = 0;
};

// The configuration of shape e for problem p (the required vectors per thread unless given).
// Throws InvalidArgument naming tpb and cluster when no vectors-per-thread the kernels take (1, 2,
// 4) lets tpb x cluster threads cover a token.
inline LaunchConfig explicit_config(const ExplicitShape& e, const Problem& p) {
  LaunchConfig c;
  c.tpb = e.tpb;
  c.cluster = e.cluster;
  c.grid = e.grid;
  c.vecs_per_thread = e.vpt > 0 ? e.vpt : model::required_vecs_per_thread(p, c.tpb, c.cluster);
  c.algo = p.algo;
  constexpr long long kMaxVecsPerThread = 4;  // the kernels' largest vectors-per-thread (model/legality.h rule 2)
  if (e.vpt == 0 && c.vecs_per_thread > kMaxVecsPerThread) {
    const long long vectors = threads_per_token(p);
    throw InvalidArgument("--tpb " + std::to_string(e.tpb) + " x --cluster " + std::to_string(e.cluster) + " = " +
                          std::to_string(e.tpb * e.cluster) + " threads cover the " + std::to_string(vectors) +
                          " 16-byte vectors of a token (H = " + std::to_string(p.hidden) + ", " + to_string(p.dtype) +
                          ") only with " + std::to_string(c.vecs_per_thread) +
                          " vectors per thread, and the kernels take at most " + std::to_string(kMaxVecsPerThread) +
                          ": tpb x cluster must be >= " +
                          std::to_string((vectors + kMaxVecsPerThread - 1) / kMaxVecsPerThread));
  }
  return c;
}

// "tpb/cluster/grid[/vpt]" -> an explicit shape (vpt 0 = the required one); throws InvalidArgument
// naming the text when it is not 3 or 4 decimal integers with tpb, cluster, grid >= 1 and vpt >= 0.
ExplicitShape parse_explicit_shape(const std::string& text);

// "tpb/cluster/grid/vpt": the text parse_explicit_shape reads back.
std::string explicit_shape_text(const LaunchConfig& c);

}  // namespace arlab::model
