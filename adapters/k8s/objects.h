// Reading what the API server sends: object identities, list pages,
// Status error bodies. Bodies are kept as the text the server sent.
#ifndef RECON_ADAPTERS_K8S_OBJECTS_H_
#define RECON_ADAPTERS_K8S_OBJECTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/resource.h"
#include "records/record.h"

namespace recon::k8s {

// Types the adapter writes that no domain declares: the leader Lease, and
// the imagestreamimports importImage actions are created under.
inline const engine::ResourceType kLeaseType{"coordination.k8s.io", "v1", "Lease", "leases", true, false, {}};
inline const engine::ResourceType kImageStreamImportType{
    "image.openshift.io", "v1", "ImageStreamImport", "imagestreamimports", true, false, {}};

// Identity (apiVersion, kind, metadata namespace/name/uid/resourceVersion)
// of an object's JSON text.
absl::StatusOr<records::ObjectIdRecord> ObjectIdOf(std::string_view json);

struct ListedObject {
  records::ObjectIdRecord id;
  std::string body;
};

struct ListPage {
  std::string resource_version;  // the list's metadata.resourceVersion
  std::string continue_token;    // metadata.continue ("" on the last page)
  std::vector<ListedObject> items;
};

// A list response. Items of built-in types come without apiVersion/kind;
// those are added from `type` (at the front) so every body is a whole
// object like a watch event's.
absl::StatusOr<ListPage> ParseListPage(std::string_view json, const engine::ResourceType& type);

// "<Reason>: <message>" of a Status body; "HTTP <code>" plus the body's
// start when it is not a Status.
std::string StatusError(int http_status, std::string_view body);

// Status.code of an ERROR watch event's object (410 for Expired), 0 if none.
int StatusCode(std::string_view status_json);

}  // namespace recon::k8s

#endif  // RECON_ADAPTERS_K8S_OBJECTS_H_
