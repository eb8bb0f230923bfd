#include "shadow/field_diff.h"

#include <cctype>

#include "base/strings.h"

namespace recon::shadow {
namespace {

using engine::Json;

std::string Join(std::string_view path, std::string_view key) {
  bool plain = !key.empty();
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) plain = false;
  }
  if (plain) return path.empty() ? std::string(key) : recon::StrCat(path, ".", key);
  return recon::StrCat(path, "[", engine::Dump(Json(std::string(key))), "]");
}

bool IsTimestampKey(std::string_view key) { return key.ends_with("Time") || key.ends_with("Timestamp"); }

// Every field of `predicted` holds in `observed` (null: absent).
void Subset(const Json& predicted, const Json* observed, const std::string& path, bool skip_times,
            std::vector<FieldDiff>* out) {
  if (predicted.is_object()) {
    if (observed == nullptr || !observed->is_object()) {
      if (predicted.empty()) return;
      out->push_back({path, engine::Dump(predicted),
                      observed == nullptr ? std::string(kAbsent) : engine::Dump(*observed)});
      return;
    }
    for (auto it = predicted.begin(); it != predicted.end(); ++it) {
      if (skip_times && IsTimestampKey(it.key())) continue;
      auto found = observed->find(it.key());
      Subset(it.value(), found == observed->end() ? nullptr : &*found, Join(path, it.key()), skip_times, out);
    }
    return;
  }
  if (predicted.is_array() && observed != nullptr && observed->is_array() &&
      predicted.size() == observed->size()) {
    // Same length: element by element, so the path names the element.
    for (size_t i = 0; i < predicted.size(); ++i)
      Subset(predicted[i], &(*observed)[i], recon::StrCat(path, "[", i, "]"), skip_times, out);
    return;
  }
  bool absent = observed == nullptr || observed->is_null();
  if (predicted.is_null()) {
    if (!absent) out->push_back({path, std::string(kAbsent), engine::Dump(*observed)});
    return;
  }
  if (absent) {
    out->push_back({path, engine::Dump(predicted), std::string(kAbsent)});
  } else if (*observed != predicted) {
    out->push_back({path, engine::Dump(predicted), engine::Dump(*observed)});
  }
}

const Json* Find(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(std::string(key));
  return it == j.end() ? nullptr : &*it;
}

const Json* ConditionOfType(const Json* conditions, const std::string& type) {
  if (conditions == nullptr || !conditions->is_array()) return nullptr;
  for (const auto& c : *conditions) {
    if (engine::GetString(c, {"type"}) == type) return &c;
  }
  return nullptr;
}

}  // namespace

std::vector<FieldDiff> DiffSpec(const Json& predicted, const Json& observed) {
  std::vector<FieldDiff> out;
  if (!predicted.is_object()) return out;
  for (auto it = predicted.begin(); it != predicted.end(); ++it) {
    const std::string& key = it.key();
    if (key == "apiVersion" || key == "kind" || key == "metadata" || key == "status") continue;
    Subset(it.value(), Find(observed, key), key, false, &out);
  }
  const Json* meta = Find(predicted, "metadata");
  const Json* observed_meta = Find(observed, "metadata");
  for (std::string_view key : {"labels", "annotations"}) {
    const Json* p = meta == nullptr ? nullptr : Find(*meta, key);
    if (p == nullptr) continue;
    Subset(*p, observed_meta == nullptr ? nullptr : Find(*observed_meta, key),
           recon::StrCat("metadata.", key), false, &out);
  }
  return out;
}

std::vector<FieldDiff> DiffStatus(const Json& predicted, const Json& observed) {
  std::vector<FieldDiff> out;
  const Json* p = Find(predicted, "status");
  if (p == nullptr || !p->is_object()) return out;
  const Json* o = Find(observed, "status");
  for (auto it = p->begin(); it != p->end(); ++it) {
    const std::string& key = it.key();
    if (IsTimestampKey(key)) continue;
    const Json* observed_value = o == nullptr ? nullptr : Find(*o, key);
    if (key != "conditions" || !it.value().is_array()) {
      Subset(it.value(), observed_value, Join("status", key), true, &out);
      continue;
    }
    for (const auto& c : it.value()) {
      std::string type = engine::GetString(c, {"type"});
      std::string path = recon::StrCat("status.conditions[type=", type, "]");
      const Json* oc = ConditionOfType(observed_value, type);
      if (oc == nullptr) {
        Json brief = Json::object();
        for (const char* f : {"type", "status", "reason"})
          if (c.contains(f)) brief[f] = c[f];
        out.push_back({path, engine::Dump(brief), std::string(kAbsent)});
        continue;
      }
      for (const char* f : {"status", "reason"}) {
        const Json* pf = Find(c, f);
        if (pf == nullptr) continue;
        Subset(*pf, Find(*oc, f), recon::StrCat(path, ".", f), true, &out);
      }
    }
  }
  return out;
}

}  // namespace recon::shadow
