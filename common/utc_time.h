// The wall-clock time a row was measured or a run started, as every CSV records it (date_utc).
#pragma once

#include <ctime>
#include <string>

namespace arlab {

// Now, in UTC, ISO 8601 to the second: "2026-01-31T12:34:56Z".
inline std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];  // the 20 characters above and the terminator
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace arlab
