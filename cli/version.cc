// Compiled into the recon executable only (not recon_cli): the generated
// header changes with every commit, and only this file and the binary
// should be rebuilt for it, not every test program that links recon_cli.
#include "cli/version.h"

#include <capnp/common.h>
#include <curl/curl.h>
#include <rocksdb/version.h>
#include <simdjson.h>
#include <uv.h>
#ifdef RECON_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

#include "absl/base/config.h"
#include "base/strings.h"
#include "cli/version_info.h"  // generated: RECON_VERSION, RECON_GIT_DESCRIBE, RECON_GIT_COMMIT
#include "nlohmann/json.hpp"
#include "spdlog/version.h"

#define RECON_STRINGIFY_(x) #x
#define RECON_STRINGIFY(x) RECON_STRINGIFY_(x)

namespace recon::cli {

std::string VersionText() {
  std::string out = recon::StrCat("recon ", RECON_VERSION, "\n", "commit ", RECON_GIT_COMMIT);
  if (std::string_view(RECON_GIT_DESCRIBE) != RECON_GIT_COMMIT)
    recon::StrAppend(&out, " (", RECON_GIT_DESCRIBE, ")");
  out += "\nbuilt with:\n";
  recon::StrAppend(&out, "  RocksDB      ", ROCKSDB_MAJOR, ".", ROCKSDB_MINOR, ".", ROCKSDB_PATCH, "\n");
  recon::StrAppend(&out, "  Cap'n Proto  ", CAPNP_VERSION_MAJOR, ".", CAPNP_VERSION_MINOR, ".",
                   CAPNP_VERSION_MICRO, "\n");
  // libuv and libcurl are shared libraries: the version loaded at run time.
  recon::StrAppend(&out, "  libuv        ", uv_version_string(), "\n");
  recon::StrAppend(&out, "  libcurl      ", curl_version_info(CURLVERSION_NOW)->version, "\n");
  recon::StrAppend(&out, "  simdjson     ", RECON_STRINGIFY(SIMDJSON_VERSION), "\n");
  recon::StrAppend(&out, "  spdlog       ", SPDLOG_VER_MAJOR, ".", SPDLOG_VER_MINOR, ".", SPDLOG_VER_PATCH,
                   "\n");
#ifdef ABSL_LTS_RELEASE_VERSION
  recon::StrAppend(&out, "  abseil       LTS ", ABSL_LTS_RELEASE_VERSION, ".", ABSL_LTS_RELEASE_PATCH_LEVEL,
                   "\n");
#else
  out += "  abseil       (no LTS version macro: a live-at-head build)\n";
#endif
  recon::StrAppend(&out, "  nlohmann     ", NLOHMANN_JSON_VERSION_MAJOR, ".", NLOHMANN_JSON_VERSION_MINOR,
                   ".", NLOHMANN_JSON_VERSION_PATCH, "\n");
#ifdef RECON_JEMALLOC
  // The allocator: the version linked in (a shared library, like libuv).
  const char* je = nullptr;
  size_t len = sizeof(je);
  if (mallctl("version", &je, &len, nullptr, 0) == 0 && je != nullptr)
    recon::StrAppend(&out, "  jemalloc     ", je, "\n");
#else
  out += "  allocator    the C library's (built without jemalloc)\n";
#endif
  return out;
}

}  // namespace recon::cli
