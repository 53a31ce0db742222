// CsvError construction, strict cell parsing and the translation of fast-cpp-csv-parser exceptions.
#include "model/csv_read.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "common/csv.h"

namespace arlab::model {

namespace {
std::string location(const std::string& file, int line, const std::string& column) {
  // Line 0: the file as a whole (it cannot be opened).
  std::string s = file.empty() ? "line " + std::to_string(line) : file;
  if (line > 0 && !file.empty()) s += ":" + std::to_string(line);
  if (!column.empty()) s += ": column '" + column + "'";
  return s;
}

// Splits one CSV line into cells (RFC 4180 double quotes).
int count_cells(const std::string& line) {
  if (line.empty()) return 0;
  int cells = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) ++cells;
  }
  return cells;
}

std::string nth_line(const std::string& file, int line) {
  std::ifstream in(file);
  std::string s;
  for (int i = 1; i <= line && std::getline(in, s); ++i) {
  }
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}
}  // namespace

CsvError::CsvError(const std::string& f, int l, const std::string& c, const std::string& what)
    : InvalidArgument(location(f, l, c) + ": " + what), file(f), line(l), column(c) {}

double parse_double_cell(const std::string& text, const std::string& file, int line, const std::string& column) {
  if (text.empty()) throw CsvError(file, line, column, "empty cell where a number is required");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0')
    throw CsvError(file, line, column, "'" + cut_for_message(text) + "' is not a number");
  if (errno == ERANGE || !std::isfinite(v))
    throw CsvError(file, line, column, "'" + cut_for_message(text) + "' is not a finite number");
  return v;
}

long long parse_int_cell(const std::string& text, const std::string& file, int line, const std::string& column) {
  if (text.empty()) throw CsvError(file, line, column, "empty cell where an integer is required");
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0')
    throw CsvError(file, line, column, "'" + cut_for_message(text) + "' is not an integer");
  if (errno == ERANGE) throw CsvError(file, line, column, "integer '" + cut_for_message(text) + "' overflows");
  return v;
}

namespace detail {

int cells_in_line(const std::string& file, int line) { return count_cells(nth_line(file, line)); }

std::string header_column_at(const std::string& file, int index) {
  const std::string header = nth_line(file, 1);
  int i = 0;
  std::string cell;
  bool quoted = false;
  for (char c : header) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      if (i == index) return cell;
      ++i;
      cell.clear();
    } else {
      cell += c;
    }
  }
  if (i == index) return cell;
  return "#" + std::to_string(index + 1);
}

void rethrow_fccp(const io::error::base& e, const std::string& file, int line, const std::string& expected) {
  std::string column;
  if (const auto* c = dynamic_cast<const io::error::with_column_name*>(&e)) column = c->column_name;
  if (const auto* l = dynamic_cast<const io::error::with_file_line*>(&e))
    if (l->file_line > 0) line = l->file_line;
  if (dynamic_cast<const io::error::can_not_open_file*>(&e))
    throw CsvError(file, 0, "", std::string("cannot open: ") + e.what());
  if (dynamic_cast<const io::error::header_missing*>(&e)) {
    const std::string first = expected.substr(0, expected.find(','));
    throw CsvError(file, 1, first, "empty file: no header line (expected columns " + expected + ")");
  }
  if (dynamic_cast<const io::error::missing_column_in_header*>(&e))
    throw CsvError(file, 1, column, "header lacks this column (expected columns " + expected + ")");
  if (dynamic_cast<const io::error::duplicated_column_in_header*>(&e))
    throw CsvError(file, 1, column, "column appears twice in the header");
  if (dynamic_cast<const io::error::too_many_columns*>(&e))
    throw CsvError(file, line, header_column_at(file, cells_in_line(file, 1)),
                   "row has " + std::to_string(cells_in_line(file, line)) + " cells, more than the header's " +
                       std::to_string(cells_in_line(file, 1)));
  if (dynamic_cast<const io::error::escaped_string_not_closed*>(&e))
    throw CsvError(file, line, column, "a quoted cell is not closed");
  throw CsvError(file, line, column, e.what());
}

}  // namespace detail
}  // namespace arlab::model
