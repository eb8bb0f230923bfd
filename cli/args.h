// Minimal sub-command argument parsing: "--flag value", "--flag=value",
// boolean "--flag", repeatable flags, and positionals.
#ifndef RECON_CLI_ARGS_H_
#define RECON_CLI_ARGS_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace recon::cli {

class Args {
 public:
  // `value_flags` take a value; `bool_flags` do not. Anything else starting
  // with "--" is an error naming the flag as typed. Errors are usage errors
  // (exit 2). "-o" is "--output", "-h" is "--help".
  static absl::StatusOr<Args> Parse(int argc, char** argv, const std::set<std::string>& value_flags,
                                    const std::set<std::string>& bool_flags);

  bool Has(const std::string& flag) const { return values_.contains(flag); }
  std::optional<std::string> Get(const std::string& flag) const;
  std::string GetOr(const std::string& flag, const std::string& fallback) const;
  std::vector<std::string> GetAll(const std::string& flag) const;
  absl::StatusOr<uint64_t> GetUint(const std::string& flag, uint64_t fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  // The flag as the user last typed it ("-o" for "output"), for messages.
  std::string Spelled(const std::string& flag) const;

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
  std::map<std::string, std::string> spelled_;
};

// How a sub-command starts: its flags parsed (a bad one is a usage error
// naming it, exit 2) and --help answered with `usage` on stdout (exit 0).
// Returns the arguments, or nullopt with *exit_code set, to be returned.
std::optional<Args> ParseCommand(std::string_view cmd, std::string_view usage, int argc, char** argv,
                                 const std::set<std::string>& value_flags,
                                 const std::set<std::string>& bool_flags, int* exit_code);

// `usage` on stderr, for arguments that do not fit it; returns 2.
int UsageMismatch(std::string_view usage);

}  // namespace recon::cli

#endif  // RECON_CLI_ARGS_H_
