#include "cli/io.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "base/strings.h"
#include "engine/jsonl_reader.h"

namespace recon::cli {
namespace {
int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(recon::StrCat(path, ": cannot open"));
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(recon::StrCat(path, ": read error"));
  return data;
}

absl::StatusOr<std::vector<records::EventRecord>> ReadLog(const std::string& path) {
  auto data = ReadInput(path);
  if (!data.ok()) return data.status();
  engine::JsonlReader reader;
  auto parsed = reader.ParseAll(*data, path);
  if (!parsed.ok()) return parsed.status();
  std::vector<records::EventRecord> records;
  records.reserve(parsed->size());
  for (auto& p : *parsed) records.push_back(std::move(p.event));
  return records;
}

Progress::Progress(std::string label, uint64_t total_bytes, bool quiet)
    : label_(std::move(label)),
      total_(total_bytes),
      tty_(!quiet && isatty(STDERR_FILENO)),
      start_ns_(MonotonicNs()) {}

void Progress::Update(uint64_t bytes, uint64_t items) {
  if (!tty_) return;
  int64_t now = MonotonicNs();
  if (now - start_ns_ < 1'000'000'000) return;  // only work that lasts shows it
  if (now - last_ns_ < 100'000'000) return;     // 10 redraws a second at most
  last_ns_ = now;
  double secs = (now - start_ns_) / 1e9;
  double rate = secs > 0 ? items / secs : 0;
  double mb = bytes / 1e6;
  if (total_ == 0) {
    std::fprintf(stderr, "\r%s: %llu events, %.0f events/s   ", label_.c_str(),
                 static_cast<unsigned long long>(items), rate);
    std::fflush(stderr);
    return;
  }
  double eta = (bytes > 0 && total_ > bytes) ? secs * (total_ - bytes) / bytes : 0;
  std::fprintf(stderr, "\r%s: %.1f/%.1f MB, %llu events, %.0f events/s, ETA %.0fs   ", label_.c_str(), mb,
               total_ / 1e6, static_cast<unsigned long long>(items), rate, eta);
  std::fflush(stderr);
}

void Progress::Done() {
  if (tty_ && last_ns_ != 0) std::fprintf(stderr, "\r\033[K");
}

int Fail(absl::string_view cmd, absl::string_view message) {
  std::fprintf(stderr, "recon %.*s: %.*s\n", static_cast<int>(cmd.size()), cmd.data(),
               static_cast<int>(message.size()), message.data());
  return kExitFailure;
}

int UsageError(absl::string_view cmd, absl::string_view message) {
  std::fprintf(stderr, "recon %.*s: %.*s\n(usage: recon %.*s --help)\n", static_cast<int>(cmd.size()),
               cmd.data(), static_cast<int>(message.size()), message.data(), static_cast<int>(cmd.size()),
               cmd.data());
  return kExitUsage;
}

}  // namespace recon::cli
