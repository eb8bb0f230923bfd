// Fuzzes the Secret redactor (runtime/redact.h) on Secret bodies as a
// cluster could send them: never a crash; the result is a JSON object;
// redacting it again changes nothing; and every `data`/`stringData` value
// left is a marker or a docker config (base64 or JSON) whose leaves are.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "absl/strings/escaping.h"
#include "engine/json.h"
#include "runtime/redact.h"

namespace {

using recon::engine::Json;
using recon::runtime::Redactor;

bool LeavesRedacted(const Json& j) {
  if (j.is_object() || j.is_array()) {
    for (const auto& c : j)
      if (!LeavesRedacted(c)) return false;
    return true;
  }
  return j.is_null() || (j.is_string() && Redactor::IsRedacted(j.get_ref<const std::string&>()));
}

bool ValueRedacted(const std::string& key, const Json& v, bool base64) {
  if (!v.is_string()) return LeavesRedacted(v);
  const std::string& s = v.get_ref<const std::string&>();
  if (Redactor::IsRedacted(s)) return true;
  if (key != ".dockerconfigjson" && key != ".dockercfg") return false;
  std::string text = s;
  if (base64 && !absl::Base64Unescape(s, &text)) return false;
  auto parsed = recon::engine::ParseJson(text);
  return parsed.ok() && parsed->is_object() && LeavesRedacted(*parsed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto* redactor = new Redactor(std::string(32, 'k'));
  recon::records::EventRecord e;
  e.type = recon::records::EventType::kModified;
  e.object = {"", "v1", "Secret", "ns", "name", "", "1"};
  e.body.assign(reinterpret_cast<const char*>(data), size);
  if (!redactor->Redact(e).ok()) abort();
  std::string once = e.body;
  if (!redactor->Redact(e).ok() || e.body != once) abort();
  auto body = recon::engine::ParseJson(once);
  if (!body.ok()) {
    // Only an input that was empty (nothing to redact) may stay unparseable.
    if (size != 0) abort();
    return 0;
  }
  if (!body->is_object()) abort();
  for (const char* field : {"data", "stringData"}) {
    auto it = body->find(field);
    if (it == body->end()) continue;
    if (!it->is_object()) {
      if (!LeavesRedacted(*it)) abort();
      continue;
    }
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      // An already-redacted docker config is kept as given; others must be.
      if (!ValueRedacted(kv.key(), kv.value(), std::string_view(field) == "data")) abort();
    }
  }
  return 0;
}
