// Runs the real `recon` binary from a test and captures what it printed.
#ifndef RECON_TESTS_CLI_RUN_RECON_H_
#define RECON_TESTS_CLI_RUN_RECON_H_

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "base/strings.h"
#include "tests/store/test_util.h"

namespace recon::cli::testing {

struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The binary under test; $RECON_TEST_BINARY runs the same tests against
// another build (e.g. the one before a fix, to see a new test fail first).
inline std::string ReconBinary() {
  const char* other = std::getenv("RECON_TEST_BINARY");
  return other != nullptr && *other != '\0' ? other : RECON_BINARY;
}

// `recon <args>` (args are shell words; paths in tests have no spaces), its
// output kept in files under `tmp`.
inline RunResult RunRecon(store::testing::TempDir& tmp, const std::string& args) {
  const std::string out = tmp.Sub("stdout"), err = tmp.Sub("stderr");
  const std::string cmd = recon::StrCat(ReconBinary(), " ", args, " >", out, " 2>", err, " </dev/null");
  int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

// `recon log stat --json` of a store, without the on-disk size (RocksDB
// changes it merely by opening): equal before and after means unchanged.
// Empty when the command failed.
inline std::string StoreStat(store::testing::TempDir& tmp, const std::string& store) {
  RunResult r = RunRecon(tmp, recon::StrCat("log stat --json --store ", store));
  if (r.code != 0) return "";
  return std::regex_replace(r.out, std::regex(R"("disk_bytes":\d+,)"), "");
}

}  // namespace recon::cli::testing

#endif  // RECON_TESTS_CLI_RUN_RECON_H_
