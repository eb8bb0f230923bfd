// Helpers shared by the store tests (and the crash child).
#ifndef RECON_TESTS_STORE_TEST_UTIL_H_
#define RECON_TESTS_STORE_TEST_UTIL_H_

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/strings.h"
#include "records/record.h"

namespace recon::store::testing {

// A fresh directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "recon-store-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(std::string_view name) const { return recon::StrCat(path_, "/", name); }

 private:
  std::string path_;
};

// An Added ConfigMap whose body carries `marker` (so tests can find its bytes).
inline records::EventRecord ConfigMapEvent(std::string_view name, std::string_view marker,
                                           int64_t time_ns = 0,
                                           records::EventType type = records::EventType::kAdded) {
  records::EventRecord e;
  e.time_ns = time_ns;
  e.type = type;
  e.object.version = "v1";
  e.object.kind = "ConfigMap";
  e.object.ns = "default";
  e.object.name = std::string(name);
  e.body = recon::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                         R"(","namespace":"default"},"data":{"marker":")", marker, R"("}})");
  return e;
}

// The event the crash child writes at `seq`: a pure function of seq, so the
// parent can recompute every acknowledged record.
inline records::EventRecord CrashEventForSeq(uint64_t seq) {
  std::string marker = recon::StrCat("crash-", seq, "-");
  // Sizes vary (64..~2 KiB) so records straddle WAL blocks in different ways.
  marker.append(64 + (seq * 7919) % 2000, static_cast<char>('a' + seq % 26));
  records::EventRecord e =
      ConfigMapEvent(recon::StrCat("cm-", seq), marker, static_cast<int64_t>(seq) * 1000,
                     seq % 2 ? records::EventType::kAdded : records::EventType::kModified);
  e.object.resource_version = recon::StrCat(seq);
  return e;
}

}  // namespace recon::store::testing

#endif  // RECON_TESTS_STORE_TEST_UTIL_H_
