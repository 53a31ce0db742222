// Tidy-CSV writing shared by every arlab writer. Schemas themselves are defined once each, as
// X-macro column lists (see common/measurement_schema.h) that ARLAB_CSV_SCHEMA turns into a header,
// a typed row and its cells; readers use fast-cpp-csv-parser with the same names, and plots/ read
// columns by name.
#pragma once

#include <charconv>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace arlab {

// Quote a cell only when it needs it (RFC 4180).
inline std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

inline std::string csv_join(const std::vector<std::string>& cells) {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i) line += ',';
    line += csv_cell(cells[i]);
  }
  return line;
}

// Appends rows to a CSV file. A new or empty file gets the header; an existing file must carry the
// same header, otherwise the writer refuses (rows of two schemas never mix, nothing is overwritten).
class CsvAppender {
 public:
  CsvAppender(const std::string& path, const std::vector<std::string>& header) : path_(path) {
    std::string existing;
    {
      std::ifstream in(path);
      if (in) std::getline(in, existing);
    }
    const std::string want = csv_join(header);
    if (!existing.empty() && existing != want)
      throw std::runtime_error("CSV file " + path + " has a different header; refusing to append.\n  found:    " +
                               existing + "\n  expected: " + want);
    out_.open(path, std::ios::app);
    if (!out_) throw std::runtime_error("cannot open CSV file " + path + " for appending");
    if (existing.empty()) out_ << want << '\n';
    ncols_ = header.size();
  }
  void append(const std::vector<std::string>& cells) {
    if (cells.size() != ncols_)
      throw std::logic_error("CSV row for " + path_ + " has " + std::to_string(cells.size()) + " cells, header has " +
                             std::to_string(ncols_));
    out_ << csv_join(cells) << '\n';
    out_.flush();
    if (!out_) throw std::runtime_error("write to CSV file " + path_ + " failed");
  }

 private:
  std::string path_;
  std::ofstream out_;
  size_t ncols_ = 0;
};

// Shortest text that reads back as exactly the same double (std::to_chars' round-trip form).
inline std::string csv_num(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

// The text of one typed cell, as every X-macro schema writes it.
inline std::string csv_cell_of(const std::string& v) { return v; }
inline std::string csv_cell_of(int v) { return std::to_string(v); }
inline std::string csv_cell_of(long long v) { return std::to_string(v); }
inline std::string csv_cell_of(unsigned long long v) { return std::to_string(v); }
inline std::string csv_cell_of(double v) { return csv_num(v); }
inline std::string csv_cell_of(const std::optional<double>& v) { return v ? csv_num(*v) : std::string(); }

}  // namespace arlab

// From an X-macro column list COLUMNS(X), X(type, name, description), defines in the enclosing
// namespace:  std::vector<std::string> HEADER();        the column names, in order
//             struct ROW { type name{}; ... };          one row, fields named and typed by the list
//             std::vector<std::string> to_cells(const ROW&);   its cells (csv_cell_of), in order
#define ARLAB_CSV_HEADER_CELL(type, name, description) h.emplace_back(#name);
#define ARLAB_CSV_ROW_FIELD(type, name, description) type name{};
#define ARLAB_CSV_ROW_CELL(type, name, description) c.push_back(::arlab::csv_cell_of(r.name));
#define ARLAB_CSV_SCHEMA(COLUMNS, ROW, HEADER)               \
  inline std::vector<std::string> HEADER() {                 \
    std::vector<std::string> h;                              \
    COLUMNS(ARLAB_CSV_HEADER_CELL)                           \
    return h;                                                \
  }                                                          \
  struct ROW {                                               \
    COLUMNS(ARLAB_CSV_ROW_FIELD)                             \
  };                                                         \
  inline std::vector<std::string> to_cells(const ROW& r) {   \
    std::vector<std::string> c;                              \
    COLUMNS(ARLAB_CSV_ROW_CELL)                              \
    return c;                                                \
  }
