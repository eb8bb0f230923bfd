// The declarative config: FBC blobs as loaded, before model conversion
// (operator-registry's declcfg). Nothing here is validated yet.
#ifndef RECON_DOMAINS_OLM_CATALOG_DECLCFG_H_
#define RECON_DOMAINS_OLM_CATALOG_DECLCFG_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "domains/olm/catalog/node.h"

namespace recon::olm {

// Where a blob came from: file (relative path), its 0-based blob index in
// that file, and its 1-based line (0 for JSON files).
struct Location {
  uint32_t file = 0;
  uint32_t blob = 0;
  uint32_t line = 0;
};

struct Property {
  std::string type;
  // Compact JSON of the value. Empty when the value is a payload span.
  std::string value;
  // olm.bundle.object / olm.csv.metadata values are kept unparsed (or
  // dropped: then `dropped` is set and the span is meaningless).
  bool is_span = false;
  bool dropped = false;
  Span span;
};

struct Package {
  std::string name, default_channel, description;
  std::string icon_data, icon_mediatype;  // base64 as written
  bool has_icon = false;
  std::vector<Property> properties;
  Location loc;
};

struct ChannelEntry {
  std::string name, replaces, skip_range;
  std::vector<std::string> skips;
};

struct Channel {
  std::string name, package;
  std::vector<ChannelEntry> entries;
  std::vector<Property> properties;
  Location loc;
};

struct RelatedImage {
  std::string name, image;
};

// An olm.package property's value, read at load time (the model needs it
// for every bundle; re-parsing JSON later would cost more than the graph).
struct PackageProperty {
  std::string package_name, version, release;
  std::string error;  // the value did not parse as an object of strings
};

struct Bundle {
  std::string name, package, image;
  std::vector<Property> properties;
  std::vector<RelatedImage> related_images;
  std::vector<PackageProperty> package_props;
  bool has_objects = false;  // at least one olm.bundle.object property
  Location loc;
};

struct DeprecationEntry {
  std::string schema, name, message;
};

struct Deprecation {
  std::string package;
  std::vector<DeprecationEntry> entries;
  Location loc;
};

// A blob with an unknown schema: kept (compact JSON), ignored by the model.
struct Other {
  std::string schema, package, name, json;
  Location loc;
};

struct DeclarativeConfig {
  std::vector<std::string> files;  // relative paths, index = Location::file
  // File contents, kept only when payload spans must stay readable.
  std::vector<std::shared_ptr<const std::string>> contents;
  std::vector<Package> packages;
  std::vector<Channel> channels;
  std::vector<Bundle> bundles;
  std::vector<Deprecation> deprecations;
  std::vector<Other> others;

  // "path" or "path: blob N (line L)" for messages.
  std::string Where(const Location& loc) const;
  // The raw bytes of a span, or empty if contents were dropped.
  std::string_view SpanText(const Span& s) const;
};

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_DECLCFG_H_
