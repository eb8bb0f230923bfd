// metadata.managedFields as kube-apiserver writes them for non-apply
// writes: one entry per (manager, operation, apiVersion, subresource),
// whose fieldsV1 is the set of fields that manager's requests changed
// (f:/k:/v: notation). A write moves the fields it changed to its manager's
// entry (taken from every other entry, as a forced update does), removes
// the fields it removed from every entry, and stamps the entry's time only
// when it changed a field. What differs from the real server:
// adapters/sim/README.md, "Field managers".
#ifndef RECON_ADAPTERS_SIM_MANAGED_FIELDS_H_
#define RECON_ADAPTERS_SIM_MANAGED_FIELDS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "crd/schema.h"
#include "engine/json.h"

namespace recon::sim {

// The manager a request writes as: `field_manager` (the fieldManager query
// parameter) when set, else the User-Agent up to its first '/', without
// non-printable characters, cut at 128 bytes (kube-apiserver's
// prefixFromUserAgent). InvalidArgument (the real 422 message, naming
// `options_kind`: CreateOptions, UpdateOptions, PatchOptions) for a
// fieldManager longer than 128 bytes or with a non-printable character.
absl::StatusOr<std::string> RequestFieldManager(std::string_view field_manager, std::string_view user_agent,
                                                std::string_view options_kind);

struct FieldManagerWrite {
  std::string manager;
  std::string subresource;  // "" or "status"
  std::string time;         // RFC 3339, seconds (the sim's virtual clock)
  // The type's status is a subresource: a main-resource write never owns
  // status fields (the strategy resets them), a status write owns only them.
  bool status_subresource = true;
  const crd::SchemaNode* schema = nullptr;  // the CRD's schema, for list types; null for built-ins
};

// Sets `next.metadata.managedFields` for a write of `next` over `live`
// (null for a create). The entries it starts from are `next`'s own when it
// carries a non-empty list and this is not a subresource write (a client may
// set them; one that echoes what it read changes nothing), else `live`'s.
void TrackManagedFields(const engine::Json* live, engine::Json& next, const FieldManagerWrite& write);

}  // namespace recon::sim

#endif  // RECON_ADAPTERS_SIM_MANAGED_FIELDS_H_
