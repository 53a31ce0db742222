// The explicit launch-configuration options (`--tpb --cluster --grid --vpt`) every `arlab`
// subcommand that takes one shares (run, predict): one set of names, defaults, help texts and
// checks, one rule for which policies they go with, one conversion into an explicit shape and from
// a shape into a LaunchConfig -- so run and predict refuse the same configurations the same way.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "cli/cli_checks.h"
#include "common/launch_config.h"
#include "common/launch_limits.h"
#include "common/problem.h"
#include "model/explicit_shape.h"
#include "model/legality.h"

namespace arlab::cli {

using model::ExplicitShape;
using model::explicit_config;

struct ExplicitConfigOptions {
  int tpb = 0, cluster = 0, grid = 0, vpt = 0;  // 0 = not given
  bool any_given() const { return tpb != 0 || cluster != 0 || grid != 0 || vpt != 0; }
};

inline void add_explicit_config_options(CLI::App* app, ExplicitConfigOptions& o) {
  app->add_option("--tpb", o.tpb, "explicit policy: threads per block")->check(integer_in(1, kMaxThreadsPerBlock));
  app->add_option("--cluster", o.cluster, "explicit policy: cluster size (1, 2, 4, 8; default 1)")
      ->check(integer_in(1, 8));
  app->add_option("--grid", o.grid, "explicit policy: blocks in the grid")->check(integer_in(1, model::kMaxGridBlocks));
  app->add_option("--vpt", o.vpt, "explicit policy: 16-byte vectors per thread (default: the required one)")
      ->check(integer_in(1, 4));
}

// Throws InvalidArgument when explicit options are given without --policy explicit among the
// policies (`first_policy` is the first one named, for the message): run and predict refuse them
// alike (run measures other configurations beside the policies with --config).
inline void check_explicit_options_have_policy(const ExplicitConfigOptions& o, bool explicit_policy,
                                               const std::string& first_policy) {
  if (o.any_given() && !explicit_policy)
    throw InvalidArgument("--tpb / --cluster / --grid / --vpt need --policy explicit (got --policy " +
                          (first_policy.empty() ? std::string("none") : first_policy) +
                          "); use --config tpb/cluster/grid beside other policies");
}

// The shape the options give (cluster 1 unless given). Throws InvalidArgument naming the option
// unless --tpb and --grid are given, --cluster is 1, 2, 4 or 8 and --vpt 1, 2 or 4.
inline ExplicitShape explicit_shape(const ExplicitConfigOptions& o) {
  if (o.tpb <= 0) throw InvalidArgument("--policy explicit needs --tpb (threads per block, 1 to 1024) and --grid");
  if (o.grid <= 0) throw InvalidArgument("--policy explicit needs --grid (blocks in the grid) and --tpb");
  if (o.cluster != 0 && o.cluster != 1 && o.cluster != 2 && o.cluster != 4 && o.cluster != 8)
    throw InvalidArgument("--cluster = " + std::to_string(o.cluster) + " must be 1, 2, 4 or 8");
  if (o.vpt != 0 && o.vpt != 1 && o.vpt != 2 && o.vpt != 4)
    throw InvalidArgument("--vpt = " + std::to_string(o.vpt) + " must be 1, 2 or 4");
  return ExplicitShape{o.tpb, o.cluster > 0 ? o.cluster : 1, o.grid, o.vpt};
}

}  // namespace arlab::cli
