#include "runtime/secret_table.h"

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"
#include "engine/secret_view.h"
#include "runtime/redact.h"

namespace recon::runtime {

using engine::Dump;
using engine::Json;
using engine::ParseJson;
namespace {

constexpr size_t kMarkerSize = kRedactedPrefix.size() + 64;

bool HasMarker(std::string_view s) { return s.find(kRedactedPrefix) != std::string_view::npos; }

// RFC 6901: unambiguous where keys hold dots ("gcscert.pem").
std::string Pointer(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& step : path) {
    out += '/';
    for (char c : step) {
      if (c == '~') {
        out += "~0";
      } else if (c == '/') {
        out += "~1";
      } else {
        out += c;
      }
    }
  }
  return out.empty() ? "/" : out;
}

// One walk over an action's object.
class Walk {
 public:
  Walk(const SecretTable& table, bool secret) : table_(table), secret_(secret) {}

  bool Tree(Json& v, bool inner) {
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        path_.push_back(it.key());
        bool ok = Tree(it.value(), inner);
        path_.pop_back();
        if (!ok) return false;
      }
      return true;
    }
    if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) {
        path_.push_back(std::to_string(i));
        bool ok = Tree(v[i], inner);
        path_.pop_back();
        if (!ok) return false;
      }
      return true;
    }
    return v.is_string() ? String(v, inner) : true;
  }

  bool changed() const { return changed_; }
  const std::string& missing() const { return missing_; }

 private:
  // A value of a Secret's `data` (base64) or `stringData`, at the top level.
  bool SecretValuePosition(bool inner) const {
    return secret_ && !inner && path_.size() == 2 && (path_[0] == "data" || path_[0] == "stringData");
  }

  bool Missing() {
    missing_ = Pointer(path_);
    return false;
  }

  bool String(Json& v, bool inner) {
    std::string s = v.get<std::string>();
    bool value_position = SecretValuePosition(inner);
    bool base64 = value_position && path_[0] == "data";
    if (Redactor::IsRedacted(s) && s.size() == kMarkerSize) {
      auto found = table_.Find(s);
      if (!found) return Missing();
      if (base64) {
        v = found->form == SecretValue::Form::kBytes ? absl::Base64Escape(Av(found->value)) : found->value;
      } else if (found->form == SecretValue::Form::kJson) {
        auto parsed = ParseJson(found->value);
        v = parsed.ok() ? *parsed : Json(found->value);
      } else {
        v = found->value;
      }
      changed_ = true;
      return true;
    }
    if (value_position) {
      // A whole redacted docker config, copied as the log holds it.
      if (auto found = table_.Find(s)) {
        v = found->value;
        changed_ = true;
        return true;
      }
    }
    // Markers inside the text: JSON (a docker config a reducer rebuilt),
    // base64 of it under `data`, or plain text.
    std::string text = s;
    bool encoded = false;
    if (!HasMarker(text) && base64) {
      std::string plain;
      if (!absl::Base64Unescape(Av(s), &plain) || !HasMarker(plain)) return true;
      text = std::move(plain);
      encoded = true;
    }
    if (!HasMarker(text)) return true;
    auto parsed = ParseJson(text);
    if (parsed.ok() && (parsed->is_object() || parsed->is_array())) {
      Walk inside(table_, false);
      if (!inside.Tree(*parsed, true)) return Missing();
      text = Dump(*parsed);
    } else {
      std::string out;
      size_t at = 0;
      for (size_t pos; (pos = text.find(kRedactedPrefix, at)) != std::string::npos;) {
        auto found = table_.Find(std::string_view(text).substr(pos, kMarkerSize));
        if (!found) return Missing();
        out.append(text, at, pos - at);
        out += found->form == SecretValue::Form::kYamlText ? Dump(Json(found->value)) : found->value;
        at = pos + kMarkerSize;
      }
      out.append(text, at);
      text = std::move(out);
    }
    v = encoded ? absl::Base64Escape(Av(text)) : text;
    changed_ = true;
    return true;
  }

  const SecretTable& table_;
  bool secret_;
  std::vector<std::string> path_;
  bool changed_ = false;
  std::string missing_;
};

}  // namespace

SecretTable::SecretTable(size_t max_sources, size_t max_bytes)
    : max_sources_(max_sources), max_bytes_(max_bytes) {}

void SecretTable::ForgetLocked(const std::string& source) {
  auto it = sources_.find(source);
  if (it == sources_.end()) return;
  for (const auto& key : it->second.keys) {
    auto v = values_.find(key);
    if (v != values_.end() && --v->second.refs <= 0) values_.erase(v);
  }
  bytes_ -= it->second.bytes;
  by_age_.erase(it->second.stamp);
  sources_.erase(it);
}

void SecretTable::Replace(const std::string& source,
                          std::vector<std::pair<std::string, SecretValue>> entries) {
  std::lock_guard<std::mutex> lock(mu_);
  ForgetLocked(source);
  if (entries.empty()) return;
  Source s;
  for (const auto& [key, value] : entries) s.bytes += key.size() + value.value.size();
  // An object larger than the whole table is not kept at all.
  if (max_sources_ == 0 || s.bytes > max_bytes_) return;
  while (!by_age_.empty() && (sources_.size() + 1 > max_sources_ || bytes_ + s.bytes > max_bytes_)) {
    std::string oldest = by_age_.begin()->second;
    ForgetLocked(oldest);
  }
  for (auto& [key, value] : entries) {
    auto [it, inserted] = values_.try_emplace(key);
    // Equal markers stand for equal bytes: the first recording serves.
    if (inserted) it->second.value = std::move(value);
    ++it->second.refs;
    s.keys.push_back(std::move(key));
  }
  s.stamp = next_stamp_++;
  bytes_ += s.bytes;
  by_age_[s.stamp] = source;
  sources_[source] = std::move(s);
}

void SecretTable::Forget(const std::string& source) {
  std::lock_guard<std::mutex> lock(mu_);
  ForgetLocked(source);
}

std::optional<SecretValue> SecretTable::Find(std::string_view redacted) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find(redacted);
  if (it == values_.end()) return std::nullopt;
  return it->second.value;
}

size_t SecretTable::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return values_.size();
}

size_t SecretTable::sources() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sources_.size();
}

size_t SecretTable::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

absl::Status SecretTable::Substitute(records::ActionRecord& action) const {
  // A delete sends only the name and preconditions; timers and probes have
  // no object.
  if (action.body.empty() || action.verb == "delete" || action.verb == "setTimer" || action.verb == "probe") {
    return absl::OkStatus();
  }
  bool secret = action.object.group.empty() && action.object.kind == "Secret";
  // A Secret's `data` may hold base64 of text with markers: always looked at.
  if (!secret && !HasMarker(action.body)) return absl::OkStatus();
  auto body = ParseJson(action.body);
  if (!body.ok()) {
    if (!HasMarker(action.body)) return absl::OkStatus();
    return absl::FailedPreconditionError(
        recon::StrCat(action.verb, " ", action.object.kind, " ", action.object.name,
                      ": the object is not JSON and holds a redacted marker; not sent"));
  }
  Walk walk(*this, secret);
  if (!walk.Tree(*body, false)) {
    const auto& o = action.object;
    return absl::FailedPreconditionError(
        recon::StrCat(action.verb, " ", o.kind, " ", o.ns.empty() ? "" : recon::StrCat(o.ns, "/"), o.name,
                      ": field ", walk.missing(),
                      ": secret value not available in this process; it is re-read from the cluster on the "
                      "next observation"));
  }
  // A Secret view (runtime/secret_views.h) is the log's, never the cluster's.
  bool viewed = secret && body->is_object() && body->erase(std::string(engine::kSecretViewsField)) > 0;
  if (walk.changed() || viewed) action.body = Dump(*body);
  return absl::OkStatus();
}

}  // namespace recon::runtime
