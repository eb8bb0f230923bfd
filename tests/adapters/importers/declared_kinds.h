// The kinds the importer tests treat as declared by some domain.
#ifndef RECON_TESTS_ADAPTERS_IMPORTERS_DECLARED_KINDS_H_
#define RECON_TESTS_ADAPTERS_IMPORTERS_DECLARED_KINDS_H_

#include "adapters/importers/import.h"

namespace recon::adapters::importers::testing {

inline KindFilter Declared() {
  KindFilter f;
  f.types.push_back({.group = "image.openshift.io",
                     .version = "v1",
                     .kind = "ImageStream",
                     .plural = "imagestreams",
                     .short_names = {}});
  f.types.push_back({.group = "samples.operator.openshift.io",
                     .version = "v1",
                     .kind = "Config",
                     .plural = "configs",
                     .namespaced = false,
                     .status_subresource = true,
                     .short_names = {}});
  f.types.push_back({.group = "config.openshift.io",
                     .version = "v1",
                     .kind = "ClusterOperator",
                     .plural = "clusteroperators",
                     .namespaced = false,
                     .status_subresource = true,
                     .short_names = {}});
  f.types.push_back(
      {.group = "", .version = "v1", .kind = "ConfigMap", .plural = "configmaps", .short_names = {}});
  f.types.push_back({.group = "",
                     .version = "v1",
                     .kind = "Namespace",
                     .plural = "namespaces",
                     .namespaced = false,
                     .short_names = {}});
  return f;
}

}  // namespace recon::adapters::importers::testing

#endif  // RECON_TESTS_ADAPTERS_IMPORTERS_DECLARED_KINDS_H_
