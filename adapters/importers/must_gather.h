// An `oc adm must-gather` directory decoded into the Added events of one
// moment (its `timestamp` file): the objects of
//   cluster-scoped-resources/<group>/<resource>/<name>.yaml
//   namespaces/<ns>/<group>/<resource>.yaml          (a List)
//   namespaces/<ns>/<group>/<resource>/<name>.yaml
//   namespaces/<ns>/<ns>.yaml                        (the Namespace)
// with "core" as the core group's directory. DIR may be the image's
// directory or the must-gather.local.* one above it (every image directory
// inside is read). Files of resources no domain declares are skipped unread
// (unless all_kinds). A bad file is an error naming its path and the field
// (or YAML line); nothing is returned then.
#ifndef RECON_ADAPTERS_IMPORTERS_MUST_GATHER_H_
#define RECON_ADAPTERS_IMPORTERS_MUST_GATHER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "adapters/importers/import.h"

namespace recon::adapters::importers {

// `time_ns`: the moment of the events when the directory has no timestamp
// file (or to override it).
absl::StatusOr<ImportResult> DecodeMustGather(const std::string& dir, const KindFilter& filter,
                                              std::optional<int64_t> time_ns = std::nullopt);

// The time in a must-gather `timestamp` file: its last line, as Go prints
// time.Now() ("2026-11-21 10:20:30.123456789 +0000 UTC m=+0.1"), or RFC 3339.
absl::StatusOr<int64_t> ParseMustGatherTimestamp(std::string_view text, std::string_view source);

}  // namespace recon::adapters::importers

#endif  // RECON_ADAPTERS_IMPORTERS_MUST_GATHER_H_
