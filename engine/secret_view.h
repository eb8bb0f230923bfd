// A derived value of a Secret a domain needs and the redaction would hide
// (DomainDescriptor::secret_views). Its own core header so the reducer
// contract does not include the runtime's redactor (runtime/redact.h),
// which computes it from the values before they are replaced.
#ifndef RECON_ENGINE_SECRET_VIEW_H_
#define RECON_ENGINE_SECRET_VIEW_H_

#include <string>
#include <string_view>
#include <vector>

namespace recon::engine {

// Where a redacted Secret's body holds its views: {"reconViews": {name: value}}.
inline constexpr std::string_view kSecretViewsField = "reconViews";

struct SecretView {
  enum class Form {
    // Lowercase hex SHA-256 over "<key>: <bytes>\n" for each of `keys` in
    // sorted order, a missing key as empty bytes: the checksum operators
    // put on a pod template so a rotated Secret rolls its pods (ARO's
    // dynamichelper getHashSecret). It names a value that upstream
    // publishes in the clear; declare it only for high-entropy keys, since
    // an unkeyed hash of a guessable value would reveal it.
    kConfigHash,
    // The YAML document in data[keys[0]] as a JSON tree (engine/yaml_json.h)
    // whose keys all stay and whose scalars are all redacted markers, but
    // those at a `clear` path with an allowed value: the structure a domain
    // edits without seeing a credential (ARO's alertmanager webhook). The
    // markers it copies into a write are put back at dispatch. A document
    // that does not parse gives {"reconError": "..."} naming only the line.
    kYamlTree,
  };
  // A scalar left in clear: its path from the document's root ("*" matches
  // every key and every element), and the values it may show in clear
  // (empty: any value; otherwise any other value is redacted).
  struct Clear {
    std::vector<std::string> path;
    std::vector<std::string> values = {};
  };
  std::string ns, name;  // the Secret
  std::string view;      // its name under kSecretViewsField
  Form form = Form::kConfigHash;
  std::vector<std::string> keys;  // of `data`
  std::vector<Clear> clear = {};  // kYamlTree
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_SECRET_VIEW_H_
