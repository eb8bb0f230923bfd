// A field a domain marks sensitive (Reducer::SensitiveFields). Its own core
// header so the reducer contract does not include the runtime's redactor
// (runtime/redact.h), which applies it.
#ifndef RECON_ENGINE_SENSITIVE_FIELD_H_
#define RECON_ENGINE_SENSITIVE_FIELD_H_

#include <string>
#include <vector>

namespace recon::engine {

// In objects of (group, kind), every scalar at or below `path` is redacted.
struct SensitiveField {
  std::string group;  // "" for the core group
  std::string kind;
  // JSON keys from the object's root, e.g. {"spec", "password"}; "*" matches
  // every key of an object and every element of an array.
  std::vector<std::string> path;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_SENSITIVE_FIELD_H_
