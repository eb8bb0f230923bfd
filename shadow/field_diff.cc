#include "shadow/field_diff.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "base/strings.h"
#include "engine/time_format.h"

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
bool IsBookkeepingKey(std::string_view key) { return key == "uid" || key == "resourceVersion"; }

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

class Differ {
 public:
  Differ(const DiffRules& rules, std::string_view kind, std::vector<FieldDiff>* out)
      : rules_(rules), kind_(kind), out_(out) {}

  // Every field of `predicted` holds in `observed` (null: absent).
  void Subset(const Json& predicted, const Json* observed, const std::string& path, bool skip_time_keys) {
    if (predicted.is_object()) {
      if (observed == nullptr || !observed->is_object()) {
        if (predicted.empty()) return;
        Add(path, engine::Dump(predicted), observed == nullptr ? std::string(kAbsent) : engine::Dump(*observed));
        return;
      }
      for (auto it = predicted.begin(); it != predicted.end(); ++it) {
        if (IsBookkeepingKey(it.key()) || (skip_time_keys && IsTimestampKey(it.key()))) continue;
        auto found = observed->find(it.key());
        Subset(it.value(), found == observed->end() ? nullptr : &*found, Join(path, it.key()), skip_time_keys);
      }
      return;
    }
    if (predicted.is_array() && observed != nullptr && observed->is_array() &&
        predicted.size() == observed->size() && Unordered(path)) {
      std::vector<std::string> a, b;
      for (const Json& e : predicted) a.push_back(engine::Dump(e));
      for (const Json& e : *observed) b.push_back(engine::Dump(e));
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a != b) Add(path, engine::Dump(predicted), engine::Dump(*observed));
      return;
    }
    if (predicted.is_array() && observed != nullptr && observed->is_array() &&
        predicted.size() == observed->size()) {
      // Same length: element by element, so the path names the element.
      for (size_t i = 0; i < predicted.size(); ++i)
        Subset(predicted[i], &(*observed)[i], recon::StrCat(path, "[", i, "]"), skip_time_keys);
      return;
    }
    bool absent = observed == nullptr || observed->is_null();
    if (predicted.is_null()) {
      if (!absent) Add(path, std::string(kAbsent), engine::Dump(*observed));
      return;
    }
    if (predicted.is_string() && IsRfc3339Time(predicted.get_ref<const std::string&>())) return;
    if (EmbeddedObjects(predicted, observed, path, skip_time_keys)) return;
    if (absent) {
      Add(path, engine::Dump(predicted), std::string(kAbsent));
    } else if (*observed != predicted && !SameGeneratedName(predicted, *observed) && !Opaque(path)) {
      Add(path, engine::Dump(predicted), engine::Dump(*observed));
    }
  }

  // A condition compared whole: status, reason and (unless free text)
  // message; one the prediction leaves out must be absent or empty.
  void Condition(const Json& c, const Json& observed, const std::string& path, std::string_view kind) {
    std::string type = engine::GetString(c, {"type"});
    for (const char* f : {"status", "reason", "message"}) {
      if (std::string_view(f) == "message" && FreeText(kind, type)) continue;
      const Json* pf = Find(c, f);
      if (pf != nullptr && pf->is_string() && pf->get_ref<const std::string&>().empty()) pf = nullptr;
      const Json* of = Find(observed, f);
      std::string field_path = recon::StrCat(path, ".", f);
      if (pf != nullptr) {
        Subset(*pf, of, field_path, true);
      } else if (of != nullptr && !of->is_null() && !(of->is_string() && of->get_ref<const std::string&>().empty())) {
        Add(field_path, std::string(kAbsent), engine::Dump(*of));
      }
    }
  }

 private:
  // A string holding a JSON object (an InstallPlan step's manifest)
  // compares as the object: the operator's client serializes it in its own
  // field order, with zero values of its own (Go's `creationTimestamp:
  // null`, `resources: {}`), which are fields the observed side has
  // besides. False if either is not such a string.
  bool EmbeddedObjects(const Json& predicted, const Json* observed, const std::string& path, bool skip_time_keys) {
    auto object_in = [](const Json* j) -> std::optional<Json> {
      if (j == nullptr || !j->is_string() || !j->get_ref<const std::string&>().starts_with("{")) return std::nullopt;
      auto parsed = engine::ParseJson(j->get_ref<const std::string&>());
      if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
      return *std::move(parsed);
    };
    std::optional<Json> p = object_in(&predicted), o = object_in(observed);
    if (!p || !o) return false;
    Subset(*p, &*o, path, skip_time_keys);
    return true;
  }

  void Add(std::string path, std::string predicted, std::string observed) {
    out_->push_back({std::move(path), std::move(predicted), std::move(observed)});
  }

  bool SameGeneratedName(const Json& predicted, const Json& observed) const {
    if (rules_.generated == nullptr || !predicted.is_string() || !observed.is_string()) return false;
    const auto& p = predicted.get_ref<const std::string&>();
    auto g = rules_.generated->find(p);
    if (g == rules_.generated->end()) return false;
    const auto& o = observed.get_ref<const std::string&>();
    if (rules_.aliases != nullptr) {
      auto a = rules_.aliases->find(p);
      if (a != rules_.aliases->end()) return a->second == o;
    }
    return o.size() > g->second.size() && o.starts_with(g->second);
  }

  bool FreeText(std::string_view kind, std::string_view type) const {
    for (const auto& f : rules_.free_text) {
      if (f == "*" || f == recon::StrCat(kind, "/*") || f == recon::StrCat(kind, "/", type)) return true;
    }
    return false;
  }

  bool Opaque(std::string_view path) const {
    for (const auto& u : rules_.opaque)
      if (u == recon::StrCat(kind_, "/", path)) return true;
    return false;
  }

  bool Unordered(std::string_view path) const {
    for (const auto& u : rules_.unordered)
      if (u == recon::StrCat(kind_, "/", path)) return true;
    return false;
  }

  const DiffRules& rules_;
  std::string kind_;
  std::vector<FieldDiff>* out_;
};

}  // namespace

bool IsRfc3339Time(std::string_view s) {
  // 2026-11-21T10:00:00Z at the least; the parser decides the rest.
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't')) return false;
  return engine::ParseRfc3339(s).ok();
}

std::vector<FieldDiff> DiffSpec(const Json& predicted, const Json& observed, const DiffRules& rules) {
  std::vector<FieldDiff> out;
  if (!predicted.is_object()) return out;
  Differ d(rules, engine::GetString(predicted, {"kind"}), &out);
  for (auto it = predicted.begin(); it != predicted.end(); ++it) {
    const std::string& key = it.key();
    if (key == "apiVersion" || key == "kind" || key == "metadata" || key == "status") continue;
    d.Subset(it.value(), Find(observed, key), key, false);
  }
  const Json* meta = Find(predicted, "metadata");
  const Json* observed_meta = Find(observed, "metadata");
  for (std::string_view key : {"labels", "annotations"}) {
    const Json* p = meta == nullptr ? nullptr : Find(*meta, key);
    if (p == nullptr) continue;
    d.Subset(*p, observed_meta == nullptr ? nullptr : Find(*observed_meta, key), recon::StrCat("metadata.", key),
             false);
  }
  return out;
}

std::vector<FieldDiff> DiffStatus(const Json& predicted, const Json& observed, const DiffRules& rules) {
  std::vector<FieldDiff> out;
  const Json* p = Find(predicted, "status");
  if (p == nullptr || !p->is_object()) return out;
  std::string kind = engine::GetString(predicted, {"kind"});
  Differ d(rules, kind, &out);
  const Json* o = Find(observed, "status");
  for (auto it = p->begin(); it != p->end(); ++it) {
    const std::string& key = it.key();
    if (IsTimestampKey(key)) continue;
    const Json* observed_value = o == nullptr ? nullptr : Find(*o, key);
    // Conditions keyed by type (most kinds); a list whose entries have no
    // type is a history (a CSV's phases), compared entry by entry.
    bool typed = it.value().is_array();
    for (const auto& c : typed ? it.value() : Json::array()) typed &= c.is_object() && c.contains("type");
    if (key != "conditions" || !typed) {
      d.Subset(it.value(), observed_value, Join("status", key), true);
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
      d.Condition(c, *oc, path, kind);
    }
    // A status write replaces the status: an observed condition the
    // prediction leaves out is one the write removes.
    for (const auto& oc : observed_value != nullptr && observed_value->is_array() ? *observed_value : Json::array()) {
      std::string type = engine::GetString(oc, {"type"});
      if (ConditionOfType(&it.value(), type) != nullptr) continue;
      Json brief = Json::object();
      for (const char* f : {"type", "status", "reason"})
        if (oc.contains(f)) brief[f] = oc[f];
      out.push_back({recon::StrCat("status.conditions[type=", type, "]"), std::string(kAbsent), engine::Dump(brief)});
    }
  }
  return out;
}

}  // namespace recon::shadow
