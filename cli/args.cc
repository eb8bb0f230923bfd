#include "cli/args.h"

#include <cstdio>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "cli/io.h"
#include "cli/store_open.h"

namespace recon::cli {

absl::StatusOr<Args> Args::Parse(int argc, char** argv, const std::set<std::string>& value_flags,
                                 const std::set<std::string>& bool_flags) {
  Args args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && a != "-") {
      std::string name = a, value;
      bool has_value = false;
      std::string typed = a.substr(0, a.find('='));
      if (name.rfind("--", 0) != 0) {
        if (name == "-o")
          name = "--output";
        else if (name == "-h")
          name = "--help";
        else
          return absl::InvalidArgumentError(recon::StrCat("unknown option ", a));
      }
      if (auto eq = name.find('='); eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        has_value = true;
      }
      name = name.substr(2);
      if (value_flags.contains(name)) {
        if (!has_value) {
          if (i + 1 >= argc) return absl::InvalidArgumentError(recon::StrCat(typed, " needs a value"));
          value = argv[++i];
        }
        args.values_[name].push_back(value);
        args.spelled_[name] = typed;
      } else if (bool_flags.contains(name) || name == "help") {
        if (has_value) return absl::InvalidArgumentError(recon::StrCat(typed, " takes no value"));
        args.values_[name].push_back("true");
        args.spelled_[name] = typed;
      } else {
        return absl::InvalidArgumentError(recon::StrCat("unknown option ", typed));
      }
    } else {
      args.positionals_.push_back(a);
    }
  }
  return args;
}

std::string Args::Spelled(const std::string& flag) const {
  auto it = spelled_.find(flag);
  return it == spelled_.end() ? recon::StrCat("--", flag) : it->second;
}

std::optional<std::string> Args::Get(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::string Args::GetOr(const std::string& flag, const std::string& fallback) const {
  auto v = Get(flag);
  return v ? *v : fallback;
}

std::vector<std::string> Args::GetAll(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

absl::StatusOr<uint64_t> Args::GetUint(const std::string& flag, uint64_t fallback) const {
  auto v = Get(flag);
  if (!v) return fallback;
  uint64_t n;
  if (!absl::SimpleAtoi(*v, &n)) {
    return absl::InvalidArgumentError(
        recon::StrCat(Spelled(flag), ": expected a non-negative integer, got \"", *v, "\""));
  }
  return n;
}

std::optional<Args> ParseCommand(std::string_view cmd, std::string_view usage, int argc, char** argv,
                                 const std::set<std::string>& value_flags,
                                 const std::set<std::string>& bool_flags, int* exit_code) {
  // Every command that takes --store takes etcd's TLS and credentials too.
  std::set<std::string> values = value_flags;
  if (values.contains("store")) values.insert(EtcdStoreFlags().begin(), EtcdStoreFlags().end());
  auto args = Args::Parse(argc, argv, values, bool_flags);
  if (!args.ok()) {
    *exit_code = UsageError(absl::string_view(cmd.data(), cmd.size()), args.status().message());
    return std::nullopt;
  }
  if (args->Has("help")) {
    std::fwrite(usage.data(), 1, usage.size(), stdout);
    *exit_code = 0;
    return std::nullopt;
  }
  return std::move(*args);
}

int UsageMismatch(std::string_view usage) {
  std::fwrite(usage.data(), 1, usage.size(), stderr);
  return 2;
}

}  // namespace recon::cli
