// Parsing and printing explicit launch configurations (model/explicit_shape.h).
#include "model/explicit_shape.h"

#include <charconv>
#include <system_error>
#include <vector>

namespace arlab::model {

namespace {

// A decimal integer with an optional leading '-', nothing else (no '+', no spaces, no other base);
// false when it is not one or overflows int.
bool parse_decimal_int(const std::string& text, int& out) {
  const size_t digits_from = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() == digits_from || text.find_first_not_of("0123456789", digits_from) != std::string::npos)
    return false;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), out);
  return err == std::errc() && end == text.data() + text.size();
}

}  // namespace

ExplicitShape parse_explicit_shape(const std::string& text) {
  std::vector<int> v;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t slash = text.find('/', pos);
    const std::string part = text.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    int x = 0;
    if (!parse_decimal_int(part, x))
      throw InvalidArgument("--config '" + text + "': '" + part +
                            "' is not a decimal integer (expected tpb/cluster/grid[/vpt])");
    v.push_back(x);
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  if (v.size() < 3 || v.size() > 4)
    throw InvalidArgument("--config '" + text + "' has " + std::to_string(v.size()) +
                          " fields (expected tpb/cluster/grid[/vpt])");
  ExplicitShape e;
  e.tpb = v[0];
  e.cluster = v[1];
  e.grid = v[2];
  e.vpt = v.size() == 4 ? v[3] : 0;
  if (e.tpb < 1 || e.cluster < 1 || e.grid < 1 || e.vpt < 0)
    throw InvalidArgument("--config '" + text + "': tpb, cluster and grid must be >= 1 and vpt >= 0");
  return e;
}

std::string explicit_shape_text(const LaunchConfig& c) {
  return std::to_string(c.tpb) + "/" + std::to_string(c.cluster) + "/" + std::to_string(c.grid) + "/" +
         std::to_string(c.vecs_per_thread);
}

}  // namespace arlab::model
