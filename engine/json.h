// The JSON value reducers read and build. nlohmann::ordered_json keeps keys
// in insertion order, so serialization is deterministic and follows the
// order a reducer wrote; parsing goes through simdjson.
#ifndef RECON_ENGINE_JSON_H_
#define RECON_ENGINE_JSON_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace recon::engine {

using Json = nlohmann::ordered_json;

// Parses JSON text (with simdjson) into a Json tree.
absl::StatusOr<Json> ParseJson(std::string_view text);

// Compact serialization ("{"a":1}"), invalid UTF-8 replaced, never throws.
std::string Dump(const Json& j);

// Field access that never throws: null when a step is missing or not an object.
const Json& Path(const Json& j, std::initializer_list<std::string_view> keys);
std::string GetString(const Json& j, std::initializer_list<std::string_view> keys,
                      std::string_view fallback = "");

// The string at `keys` in JSON text, read without building a Json tree
// (for one field of a large body whose parse is not worth keeping);
// nullopt when the text is not JSON or the value is missing or not a string.
std::optional<std::string> PeekString(std::string_view text, std::initializer_list<std::string_view> keys);
// Whether JSON text is an object, without building a tree.
bool IsJsonObject(std::string_view text);

}  // namespace recon::engine

#endif  // RECON_ENGINE_JSON_H_
