// The writers that must never damage a file (issue 22): whole-file outputs (common/output_file.h) and
// appends (common/csv.h CsvAppender) through symbolic links, into devices and FIFOs, and under a file
// size limit (a full disk as far as the writer can tell: write(2) fails with EFBIG); and the one rule
// for the text of a number (common/number_text.h) that the CSV reader and the CLI share.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "common/csv.h"
#include "common/number_text.h"
#include "common/output_file.h"
#include "common/output_target.h"
#include "tests/catch.h"

using namespace arlab;
namespace fs = std::filesystem;

namespace {

// A scratch directory of this process, removed with everything in it at scope exit.
struct TempDir {
  fs::path path;
  TempDir() : path(fs::temp_directory_path() / ("arlab_output_files_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string at(const std::string& name) const { return (path / name).string(); }
};

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Runs f with writes beyond `bytes` bytes failing (RLIMIT_FSIZE; SIGXFSZ ignored, as arlab's main
// ignores it), then lifts the limit again.
template <class F>
void with_file_size_limit(rlim_t bytes, F f) {
  struct rlimit old {};
  REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = old;
  limited.rlim_cur = bytes;
  REQUIRE(::setrlimit(RLIMIT_FSIZE, &limited) == 0);
  try {
    f();
  } catch (...) {
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, previous);
    throw;
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
}

const std::vector<std::string> kHeader = {"a", "b", "c"};

}  // namespace

TEST_CASE("outputs: a symbolic link keeps pointing at its target, which is replaced atomically") {
  TempDir d;
  write(d.at("real.csv"), "old\n");
  fs::create_symlink("real.csv", d.at("link.csv"));
  write_file_atomically(d.at("link.csv"), "new\n");
  CHECK(fs::is_symlink(d.at("link.csv")));
  CHECK(contents(d.at("real.csv")) == "new\n");
  // A link whose target does not exist yet: the target is made, the link kept.
  fs::create_symlink("later.csv", d.at("dangling.csv"));
  write_file_atomically(d.at("dangling.csv"), "made\n");
  CHECK(fs::is_symlink(d.at("dangling.csv")));
  CHECK(contents(d.at("later.csv")) == "made\n");
  // A loop is refused, naming it.
  fs::create_symlink("loop_b", d.at("loop_a"));
  fs::create_symlink("loop_a", d.at("loop_b"));
  CHECK_THROWS_WITH(write_file_atomically(d.at("loop_a"), "x"), Catch::Contains("a loop?"));
}

TEST_CASE("outputs: a device or a FIFO is written through, never replaced") {
  TempDir d;
  fs::create_symlink("/dev/null", d.at("null.csv"));
  write_file_atomically(d.at("null.csv"), "a,b,c\n1,2,3\n");
  CHECK(fs::is_symlink(d.at("null.csv")));
  CHECK(fs::is_character_file("/dev/null"));
  CsvAppender(d.at("null.csv"), kHeader).append({"1", "2", "3"});
  CHECK(fs::is_symlink(d.at("null.csv")));
  CHECK(inspect_csv_file("/dev/zero").blank);  // never read (it would never end)

  REQUIRE(::mkfifo(d.at("fifo").c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = contents(d.at("fifo")); });
  write_file_atomically(d.at("fifo"), "through the fifo\n");
  reader.join();
  CHECK(got == "through the fifo\n");
  struct stat st {};
  REQUIRE(::lstat(d.at("fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  const OutputTarget t = resolve_output_target(d.at("fifo"));
  CHECK(t.special());
}

TEST_CASE("outputs: a whole-file write that fails leaves the old file and no temporary file") {
  TempDir d;
  write(d.at("v.csv"), "the old content\n");
  with_file_size_limit(64, [&] {
    CHECK_THROWS_WITH(write_file_atomically(d.at("v.csv"), std::string(1000, 'x')),
                      Catch::Contains("File too large"));
  });
  CHECK(contents(d.at("v.csv")) == "the old content\n");
  for (const auto& e : fs::directory_iterator(d.path))
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("appends: a write that fails restores the file to what it held before the command's rows") {
  TempDir d;
  const std::string before = "a,b,c\n1,2,3";  // no last newline: the appender would add one
  write(d.at("p.csv"), before);
  with_file_size_limit(before.size() + 12, [&] {
    CsvAppender out(d.at("p.csv"), kHeader);
    out.append({"4", "5", "6"});  // fits
    CHECK_THROWS_WITH(out.append({"7", "8", std::string(100, '9')}), Catch::Contains("restored"));
  });
  CHECK(contents(d.at("p.csv")) == before);

  // A file the appender made is removed again; a blank file gets its bytes back.
  with_file_size_limit(4, [&] {
    CHECK_THROWS(CsvAppender(d.at("new.csv"), kHeader).append({"1", "2", "3"}));
  });
  CHECK_FALSE(fs::exists(d.at("new.csv")));
  write(d.at("blank.csv"), " \n\n");
  with_file_size_limit(4, [&] {
    CHECK_THROWS(CsvAppender(d.at("blank.csv"), kHeader).append({"1", "2", "3"}));
  });
  CHECK(contents(d.at("blank.csv")) == " \n\n");

  // Nothing is written before the first row: an appender that never appends leaves no file.
  { CsvAppender unused(d.at("never.csv"), kHeader); }
  CHECK_FALSE(fs::exists(d.at("never.csv")));
}

TEST_CASE("number text: decimal integers only, and reals a double holds") {
  CHECK(integer_text_problem("10", true).empty());
  CHECK(integer_text_problem("-7", true).empty());
  CHECK(integer_text_problem("0", false).empty());
  CHECK_THAT(integer_text_problem("010", true), Catch::Contains("a leading zero is refused (is it octal?"));
  CHECK_THAT(integer_text_problem("-010", true), Catch::Contains("a leading zero"));
  for (const char* bad : {"0x10", "+5", " 5", "1e3", "", "-", "1.0", "5 "})
    CHECK_FALSE(integer_text_problem(bad, true).empty());
  CHECK_THAT(integer_text_problem("-1", false), Catch::Contains("it cannot be negative"));

  CHECK(real_text_problem("1e-5").empty());
  CHECK(real_text_problem("-0").empty());
  CHECK(real_text_problem("2.2250738585072014e-308").empty());
  CHECK_THAT(real_text_problem("1e-320"), Catch::Contains("too close to 0 for a double"));
  CHECK_THAT(real_text_problem("1e999"), Catch::Contains("too large for a double"));
  CHECK_THAT(real_text_problem("0x1p3"), Catch::Contains("is not a number"));
  CHECK_THAT(real_text_problem("nan"), Catch::Contains("not a finite number"));
  CHECK_THAT(real_text_problem("inf"), Catch::Contains("not a finite number"));
  CHECK_THAT(float_text_problem("1e-50"), Catch::Contains("too close to 0 for a float"));
  CHECK_THAT(float_text_problem("1e39"), Catch::Contains("too large for a float"));
  CHECK(float_text_problem("1e-5").empty());
}
