#include "adapters/k8s/warnings.h"

#include <cctype>

#include "engine/json.h"

namespace recon::k8s {
namespace {

void SkipSpace(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

// A quoted-string at the front of `s` (backslash escapes one character),
// consumed; false if there is none.
bool QuotedString(std::string_view& s, std::string* out) {
  if (s.empty() || s.front() != '"') return false;
  std::string text;
  for (size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      text.push_back(s[++i]);
    } else if (s[i] == '"') {
      s.remove_prefix(i + 1);
      *out = std::move(text);
      return true;
    } else {
      text.push_back(s[i]);
    }
  }
  return false;
}

// One header's value: `warning-value *( "," warning-value )`.
void ParseValue(std::string_view s, std::vector<std::string>* out) {
  for (;;) {
    SkipSpace(s);
    if (s.size() < 3 || !std::isdigit(static_cast<unsigned char>(s[0])) ||
        !std::isdigit(static_cast<unsigned char>(s[1])) || !std::isdigit(static_cast<unsigned char>(s[2])))
      return;
    const bool ours = s.substr(0, 3) == "299";
    s.remove_prefix(3);
    if (s.empty() || s.front() != ' ') return;
    SkipSpace(s);
    size_t agent = s.find_first_of(" \t");  // warn-agent: a token or host[:port]
    if (agent == std::string_view::npos || agent == 0) return;
    s.remove_prefix(agent);
    SkipSpace(s);
    std::string text;
    if (!QuotedString(s, &text)) return;
    SkipSpace(s);
    std::string date;
    if (!s.empty() && s.front() == '"' && !QuotedString(s, &date)) return;
    if (ours) out->push_back(std::move(text));
    SkipSpace(s);
    if (s.empty() || s.front() != ',') return;
    s.remove_prefix(1);
  }
}

}  // namespace

std::vector<std::string> ServerWarnings(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<std::string> out;
  for (const auto& [name, value] : headers)
    if (name == "warning") ParseValue(value, &out);
  return out;
}

std::string WarningsJson(const std::vector<std::string>& warnings) {
  if (warnings.empty()) return std::string();
  engine::Json a = engine::Json::array();
  for (const std::string& w : warnings) a.push_back(w);
  return engine::Dump(a);
}

}  // namespace recon::k8s
