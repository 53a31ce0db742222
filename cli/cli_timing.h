// The timing options of every command that measures (`arlab run`, `arlab seed`), defined once:
// noise-based stopping as nvbench does it (--max-noise, --min-iters, --max-iters, --max-time),
// warm-up by time, the batch size, a fixed iteration count for scripted comparisons, and the
// graph-replay figure. Parsed into harness::TimingOptions (harness/timing_stats.h), which is
// validated before any device is touched (an int option's text is checked for the type's range
// first; the values are judged by harness::validate).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_checks.h"
#include "common/problem.h"
#include "harness/timing_stats.h"

namespace arlab::cli {

struct TimingCliOptions {
  double max_noise_pct = 1.0;  // percent
  bool no_timing = false;
  harness::TimingOptions timing;
};

inline void add_timing_options(CLI::App* app, TimingCliOptions& o) {
  harness::TimingOptions& t = o.timing;
  app->add_option("--max-noise", o.max_noise_pct,
                  "stop once the 95 % CI of the headline median is within +- this percent of it")
      ->capture_default_str()
      ->check(finite_in(0, 100, /*lo_open=*/true));  // a percentage (100 itself is refused by timing_options)
  app->add_option("--min-iters", t.stop.min_iters, "timed iterations per configuration before the noise test")
      ->capture_default_str()->check(any_int());
  app->add_option("--min-rounds", t.stop.min_rounds,
                  "interleaved rounds before the noise test (ratios resample whole rounds)")
      ->capture_default_str()->check(any_int());
  app->add_option("--max-iters", t.stop.max_iters, "stop after this many timed iterations per configuration")
      ->capture_default_str()->check(any_int());
  // 1e6 s and 1e9 ms (~11 days): as --timeout-ms, far beyond any run.
  app->add_option("--max-time", t.stop.max_time_s, "stop after this many seconds of timed rounds per configuration")
      ->capture_default_str()
      ->check(finite_in(0, 1e6, /*lo_open=*/true));
  app->add_option("--warmup-ms", t.warmup_ms, "untimed calls of every configuration first, for this long (ms)")
      ->capture_default_str()
      ->check(finite_in(0, 1e9));
  app->add_option("--batch", t.batch, "gated iterations per configuration per round, queued before the first starts")
      ->capture_default_str()->check(any_int());
  app->add_option("-i,--iters", t.fixed_iters, "exactly this many timed iterations (0: noise-based stopping)")
      ->capture_default_str()->check(any_int());
  app->add_flag("--no-timing", o.no_timing, "check only, no timing");
  app->add_flag("--no-host-hold", [&o](std::int64_t) { o.timing.host_hold = false; },
                "diagnostic: enqueue timed batches without the host hold (the host-paced procedure whose start "
                "skew made small-size times bimodal)");
  app->add_option("--graph-calls", t.graph_calls, "calls per captured CUDA graph (0: no graph timing)")
      ->capture_default_str()->check(any_int());
  app->add_option("--graph-reps", t.graph_reps, "timed graph replays")->capture_default_str()->check(any_int());
}

// The names of the options add_timing_options adds (a run that does not time refuses them).
inline std::vector<std::string> timing_option_names() {
  return {"--max-noise", "--min-iters", "--min-rounds", "--max-iters", "--max-time", "--warmup-ms", "--batch",
          "--iters",     "--no-timing", "--no-host-hold", "--graph-calls", "--graph-reps"};
}

// The options as the timing procedure takes them; throws InvalidArgument naming a bad value.
inline harness::TimingOptions timing_options(const TimingCliOptions& o) {
  harness::TimingOptions t = o.timing;
  if (!(o.max_noise_pct > 0 && o.max_noise_pct < 100))
    throw InvalidArgument("--max-noise = " + csv_num(o.max_noise_pct) + " must be in (0, 100) percent");
  t.stop.max_noise = o.max_noise_pct / 100.0;
  harness::validate(t);
  return t;
}

// One line for the configuration echo.
inline std::string describe(const TimingCliOptions& o) {
  const harness::TimingOptions& t = o.timing;
  if (o.no_timing) return "off (--no-timing)";
  std::ostringstream s;
  if (t.fixed_iters > 0)
    s << t.fixed_iters << " iterations (fixed)";
  else
    s << "until the 95 % CI of the median is within +-" << o.max_noise_pct << " % (min " << t.stop.min_iters
      << " iterations and " << t.stop.min_rounds << " rounds, max " << t.stop.max_iters << " iterations, max "
      << t.stop.max_time_s << " s per configuration)";
  s << "; warm-up " << t.warmup_ms << " ms; batches of " << t.batch
    << (t.host_hold ? " behind a host hold" : " WITHOUT the host hold (--no-host-hold)") << "; graph "
    << t.graph_calls << " calls x " << t.graph_reps << " replays";
  return s.str();
}

}  // namespace arlab::cli
