// The explicit launch-configuration options (`--tpb --cluster --grid --vpt`) every `arlab`
// subcommand that takes one shares (run, predict): one set of names, defaults and help texts, one
// conversion into a LaunchConfig.
#pragma once

#include <CLI/CLI.hpp>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/legality.h"

namespace arlab::cli {

struct ExplicitConfigOptions {
  int tpb = 0, cluster = 0, grid = 0, vpt = 0;  // 0 = not given
  bool any_given() const { return tpb != 0 || cluster != 0 || grid != 0 || vpt != 0; }
};

inline void add_explicit_config_options(CLI::App* app, ExplicitConfigOptions& o) {
  app->add_option("--tpb", o.tpb, "explicit policy: threads per block");
  app->add_option("--cluster", o.cluster, "explicit policy: cluster size (1, 2, 4, 8; default 1)");
  app->add_option("--grid", o.grid, "explicit policy: blocks in the grid");
  app->add_option("--vpt", o.vpt, "explicit policy: 16-byte vectors per thread (default: the required one)");
}

// The explicit configuration for problem p (cluster 1 and the required vectors per thread unless
// given). Throws InvalidArgument unless --tpb and --grid are given.
inline LaunchConfig explicit_config(const ExplicitConfigOptions& o, const Problem& p) {
  if (o.tpb <= 0 || o.grid <= 0)
    throw InvalidArgument("--policy explicit needs --tpb and --grid (and optionally --cluster, --vpt)");
  LaunchConfig c;
  c.tpb = o.tpb;
  c.cluster = o.cluster > 0 ? o.cluster : 1;
  c.grid = o.grid;
  c.vecs_per_thread = o.vpt > 0 ? o.vpt : model::required_vecs_per_thread(p, c.tpb, c.cluster);
  c.algo = p.algo;
  return c;
}

}  // namespace arlab::cli
