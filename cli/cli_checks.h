// CLI11 validators shared by the `arlab` subcommands: each refuses an option's text before it is
// converted, with a message that names the value and the valid range (CLI11 prints it as
// "--option: message"). Without them a number too large for its type reads "Could not convert",
// a negative seed silently wraps around, and "010" reads as octal 8. Also the two rules every
// subcommand follows: numbers in decimal (require_decimal_numbers) and every given option used or
// refused (refuse_unused_options).
#pragma once

#include <CLI/CLI.hpp>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/csv.h"
#include "common/number_text.h"
#include "common/problem.h"

namespace arlab::cli {

// A whole number in [lo, hi], written in decimal (common/number_text.h: "010" and "0x10" are refused,
// where CLI11 alone would read them as 8 and 16).
inline CLI::Validator integer_in(long long lo, long long hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        const std::string problem = integer_text_problem(text, lo < 0);
        if (!problem.empty()) {
          if (lo >= 0 && !text.empty() && text[0] == '-' && integer_text_problem(text, true).empty())
            return cut_for_message(text) + " is outside " + range;
          return "'" + cut_for_message(text) + "' " + problem + " (expected one in " + range + ")";
        }
        errno = 0;
        const long long v = std::strtoll(text.c_str(), nullptr, 10);
        if (errno == ERANGE || v < lo || v > hi) return cut_for_message(text) + " is outside " + range;
        return "";
      },
      "INT in " + range);
}

// A whole number in [lo, INT_MAX]: an `int` option with a lower bound.
inline CLI::Validator int_at_least(long long lo) { return integer_in(lo, INT_MAX); }

// Any `int` (the command explains a value it refuses; this only states the type's range).
inline CLI::Validator any_int() { return integer_in(INT_MIN, INT_MAX); }

// An unsigned 64-bit number (seeds): decimal digits only, so "-1" is refused instead of wrapping around.
inline CLI::Validator unsigned_64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::string range = "[0, 18446744073709551615]";
        const std::string problem = integer_text_problem(text, false);
        if (!problem.empty()) return "'" + cut_for_message(text) + "' " + problem + " (expected one in " + range + ")";
        errno = 0;
        std::strtoull(text.c_str(), nullptr, 10);
        if (errno == ERANGE) return cut_for_message(text) + " is outside " + range;
        return "";
      },
      "UINT64 in [0, 18446744073709551615]");
}

// A finite number in [lo, hi] (lo_open: (lo, hi]), written in decimal (common/number_text.h: NaN,
// infinities, hex and values a double cannot hold are refused with the reason).
inline CLI::Validator finite_in(double lo, double hi, bool lo_open = false) {
  const std::string range = std::string(lo_open ? "(" : "[") + csv_num(lo) + ", " + csv_num(hi) + "]";
  return CLI::Validator(
      [lo, hi, lo_open, range](std::string& text) -> std::string {
        const std::string problem = real_text_problem(text);
        if (!problem.empty()) {
          const double v = std::strtod(text.c_str(), nullptr);
          if (std::isnan(v) || std::isinf(v)) return cut_for_message(text) + " is outside " + range + " (finite numbers only)";
          return "'" + cut_for_message(text) + "' " + problem + " (expected a number in " + range + ")";
        }
        const double v = std::strtod(text.c_str(), nullptr);
        if (v < lo || v > hi || (lo_open && v == lo))
          return cut_for_message(text) + " is outside " + range + " (finite numbers only)";
        return "";
      },
      "NUMBER in " + range);
}

// finite_in for a `float` option: also refuses a value a float cannot hold (above 3.4e38, or so close
// to 0 that it would become a subnormal or 0).
inline CLI::Validator float_in(double lo, double hi, bool lo_open = false) {
  CLI::Validator range = finite_in(lo, hi, lo_open);
  return CLI::Validator(
      [range](std::string& text) mutable -> std::string {
        const std::string bad = range(text);
        if (!bad.empty()) return bad;
        const std::string problem = float_text_problem(text);
        return problem.empty() ? "" : "'" + cut_for_message(text) + "' " + problem;
      },
      range.get_description());
}

// Every number option of every subcommand of `app`, checked for its form (common/number_text.h)
// before CLI11 converts it: an integer option (CLI11 type INT or UINT) must be decimal, a real one
// (FLOAT) a finite decimal number a double holds. CLI11 alone reads "010" as 8 and "0x10" as 16
// (strtoll with base 0), "0x1p3" as 8.0, and says only "Could not convert" for text it cannot read.
// Options with their own check (integer_in, finite_in, ...) already say the same, with their range;
// this covers every option, so one without a range check still reads no octal. Called once, after
// every subcommand is registered (cli/main.cpp).
inline void require_decimal_numbers(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* opt : sub->get_options({})) {
      if (opt->get_type_size_max() == 0) continue;  // a flag takes no text
      const std::string type = opt->get_type_name();
      const bool is_unsigned = type.rfind("UINT", 0) == 0;
      const bool is_integer = is_unsigned || type.rfind("INT", 0) == 0;
      const bool is_real = type.rfind("FLOAT", 0) == 0;
      if (is_integer)
        opt->check(CLI::Validator(
            [is_unsigned](std::string& text) -> std::string {
              const std::string problem = integer_text_problem(text, !is_unsigned);
              return problem.empty() ? "" : "'" + cut_for_message(text) + "' " + problem;
            },
            ""));
      if (is_real)
        opt->check(CLI::Validator(
            [](std::string& text) -> std::string {
              const std::string problem = real_text_problem(text);
              return problem.empty() ? "" : "'" + cut_for_message(text) + "' " + problem;
            },
            ""));
    }
    require_decimal_numbers(*sub);
  }
}

// An option's name as a user types it ("--seed", "-t" when it has no long name, a positional's
// name), hidden options included (CLI11's get_name() is empty for those).
inline std::string option_name(const CLI::Option& opt) {
  if (!opt.get_lnames().empty()) return "--" + opt.get_lnames().front();
  if (!opt.get_snames().empty()) return "-" + opt.get_snames().front();
  return opt.get_name(true);
}

// Throws InvalidArgument naming the first option of `sub` that was given (CLI11 count() > 0) but is
// not among `used` (names as a user types them: "--seed", or a positional's name): `why` says why
// this run does not use it ("`arlab exp numerics` runs on the CPU"). Every accepted option is used or
// refused (issue 22), so a given option never silently does nothing.
inline void refuse_unused_options(const CLI::App& sub, const std::vector<std::string>& used, const std::string& why) {
  // A run that uses a few options lists them; one that uses all but a few does not (--help lists all).
  constexpr size_t kMaxListed = 8;
  for (const CLI::Option* opt : sub.get_options({})) {
    if (opt->count() == 0) continue;
    const std::string name = option_name(*opt);
    if (name == "--help") continue;
    bool is_used = false;
    for (const std::string& u : used) is_used = is_used || u == name || opt->check_name(u);
    if (is_used) continue;
    std::string given, list;
    for (const std::string& r : opt->results()) given += (given.empty() ? "" : ",") + r;
    for (const std::string& u : used) list += (list.empty() ? "" : ", ") + u;
    throw InvalidArgument(name + (opt->get_type_size_max() == 0 ? "" : " '" + cut_for_message(given) + "'") + ": " +
                          why + ", which does not use this option" +
                          (used.size() <= kMaxListed ? " (it takes " + (list.empty() ? "none" : list) + ")" : "") +
                          "; drop it");
  }
}

// A path that is not empty: an empty --out or --csv would otherwise silently mean "no output".
inline CLI::Validator non_empty_path() {
  return CLI::Validator([](std::string& text) -> std::string { return text.empty() ? "empty path" : ""; }, "PATH");
}

// The names of every option of `sub` but those in `excluded` (and --help): the options a run uses
// when it uses all but a few.
inline std::vector<std::string> options_except(const CLI::App& sub, const std::vector<std::string>& excluded) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : sub.get_options({})) {
    bool skip = option_name(*opt) == "--help";
    for (const std::string& e : excluded) skip = skip || opt->check_name(e);
    if (!skip) names.push_back(option_name(*opt));
  }
  return names;
}

}  // namespace arlab::cli
