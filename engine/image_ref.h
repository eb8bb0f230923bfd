// Container image references ("registry/repo/name:tag@sha256:…"), parsed
// the way the distribution reference grammar reads them. Domain-neutral:
// OLM related images, the samples inventory and the mirror list share it.
#ifndef RECON_ENGINE_IMAGE_REF_H_
#define RECON_ENGINE_IMAGE_REF_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace recon::engine {

struct ImageRef {
  std::string registry;  // as written ("quay.io", "localhost:5000"); "docker.io" when implicit
  bool registry_implicit = false;
  std::string repository;  // "fedora/fedora"
  std::string tag;         // "" when absent
  std::string digest;      // "sha256:<hex>", "" when absent

  bool pinned() const { return !digest.empty(); }
  // registry/repository, with the registry only when it was written.
  std::string Name() const;
  // Name()[:tag][@digest]: the reference as written (normalized only where
  // the grammar allows one spelling).
  std::string String() const;
};

// Errors name what is wrong ("empty repository", "digest \"sha256:xy\" is
// not algorithm:hex").
absl::StatusOr<ImageRef> ParseImageRef(std::string_view ref);

}  // namespace recon::engine

#endif  // RECON_ENGINE_IMAGE_REF_H_
