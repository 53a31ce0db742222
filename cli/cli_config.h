// The explicit launch-configuration options (`--tpb --cluster --grid --vpt`) every `arlab`
// subcommand that takes one shares (run, predict): one set of names, defaults and help texts, one
// conversion into an explicit shape and from a shape into a LaunchConfig.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "common/launch_config.h"
#include "common/problem.h"
#include "model/legality.h"

namespace arlab::cli {

struct ExplicitConfigOptions {
  int tpb = 0, cluster = 0, grid = 0, vpt = 0;  // 0 = not given
  bool any_given() const { return tpb != 0 || cluster != 0 || grid != 0 || vpt != 0; }
};

// One explicit configuration tpb/cluster/grid[/vpt] (vpt 0 = the required one).
struct ExplicitShape {
  int tpb = 0, cluster = 1, grid = 0, vpt = 0;
};

inline void add_explicit_config_options(CLI::App* app, ExplicitConfigOptions& o) {
  app->add_option("--tpb", o.tpb, "explicit policy: threads per block");
  app->add_option("--cluster", o.cluster, "explicit policy: cluster size (1, 2, 4, 8; default 1)");
  app->add_option("--grid", o.grid, "explicit policy: blocks in the grid");
  app->add_option("--vpt", o.vpt, "explicit policy: 16-byte vectors per thread (default: the required one)");
}

// The shape the options give (cluster 1 unless given). Throws InvalidArgument unless --tpb and
// --grid are given and --cluster, --vpt are >= 0.
inline ExplicitShape explicit_shape(const ExplicitConfigOptions& o) {
  if (o.tpb <= 0 || o.grid <= 0)
    throw InvalidArgument("--policy explicit needs --tpb and --grid (and optionally --cluster, --vpt)");
  if (o.cluster < 0 || o.vpt < 0)
    throw InvalidArgument("--cluster = " + std::to_string(o.cluster) + " and --vpt = " + std::to_string(o.vpt) +
                          " must be >= 0 (0: default)");
  return ExplicitShape{o.tpb, o.cluster > 0 ? o.cluster : 1, o.grid, o.vpt};
}

// The configuration of shape e for problem p (the required vectors per thread unless given).
inline LaunchConfig explicit_config(const ExplicitShape& e, const Problem& p) {
  LaunchConfig c;
  c.tpb = e.tpb;
  c.cluster = e.cluster;
  c.grid = e.grid;
  c.vecs_per_thread = e.vpt > 0 ? e.vpt : model::required_vecs_per_thread(p, c.tpb, c.cluster);
  c.algo = p.algo;
  return c;
}

}  // namespace arlab::cli
