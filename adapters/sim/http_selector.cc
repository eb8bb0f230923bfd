#include "adapters/sim/http_selector.h"

#include <algorithm>

#include "base/strings.h"

namespace recon::sim {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Splits on commas outside parentheses.
std::vector<std::string_view> SplitTerms(std::string_view text) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      if (std::string_view t = Trim(text.substr(start, i - start)); !t.empty()) out.push_back(t);
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      --depth;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<Selector> Selector::ParseLabels(std::string_view text) {
  Selector s;
  for (std::string_view t : SplitTerms(text)) {
    Term term;
    if (size_t ne = t.find("!="); ne != std::string_view::npos) {
      term = {std::string(Trim(t.substr(0, ne))), Op::kNe, {std::string(Trim(t.substr(ne + 2)))}};
    } else if (size_t eq = t.find('='); eq != std::string_view::npos) {
      size_t vstart = eq + 1 < t.size() && t[eq + 1] == '=' ? eq + 2 : eq + 1;
      term = {std::string(Trim(t.substr(0, eq))), Op::kEq, {std::string(Trim(t.substr(vstart)))}};
    } else if (size_t paren = t.find('('); paren != std::string_view::npos) {
      std::string_view head = Trim(t.substr(0, paren));
      size_t sp = head.rfind(' ');
      if (sp == std::string_view::npos || t.back() != ')') {
        return absl::InvalidArgumentError(recon::StrCat("labelSelector: bad term \"", t, "\""));
      }
      std::string_view op = head.substr(sp + 1);
      if (op != "in" && op != "notin") {
        return absl::InvalidArgumentError(
            recon::StrCat("labelSelector: \"", t, "\": expected in or notin, got \"", op, "\""));
      }
      term.key = std::string(Trim(head.substr(0, sp)));
      term.op = op == "in" ? Op::kIn : Op::kNotIn;
      std::string_view list = t.substr(paren + 1, t.size() - paren - 2);
      size_t start = 0;
      for (size_t i = 0; i <= list.size(); ++i) {
        if (i == list.size() || list[i] == ',') {
          term.values.emplace_back(Trim(list.substr(start, i - start)));
          start = i + 1;
        }
      }
    } else if (t.front() == '!') {
      term = {std::string(Trim(t.substr(1))), Op::kNotExists, {}};
    } else {
      term = {std::string(t), Op::kExists, {}};
    }
    if (term.key.empty() || term.key.find(' ') != std::string::npos) {
      return absl::InvalidArgumentError(recon::StrCat("labelSelector: bad key in \"", t, "\""));
    }
    s.terms_.push_back(std::move(term));
  }
  return s;
}

absl::StatusOr<Selector> Selector::ParseFields(std::string_view text) {
  Selector s;
  s.fields_ = true;
  for (std::string_view t : SplitTerms(text)) {
    Term term;
    size_t ne = t.find("!=");
    size_t eq = t.find('=');
    if (ne != std::string_view::npos) {
      term = {std::string(Trim(t.substr(0, ne))), Op::kNe, {std::string(Trim(t.substr(ne + 2)))}};
    } else if (eq != std::string_view::npos) {
      size_t vstart = eq + 1 < t.size() && t[eq + 1] == '=' ? eq + 2 : eq + 1;
      term = {std::string(Trim(t.substr(0, eq))), Op::kEq, {std::string(Trim(t.substr(vstart)))}};
    } else {
      return absl::InvalidArgumentError(recon::StrCat("fieldSelector: \"", t, "\": expected field=value"));
    }
    if (term.key != "metadata.name" && term.key != "metadata.namespace") {
      return absl::InvalidArgumentError(recon::StrCat("fieldSelector: field label not supported: ", term.key,
                                                      " (metadata.name and metadata.namespace are)"));
    }
    s.terms_.push_back(std::move(term));
  }
  return s;
}

bool Selector::Matches(const engine::Json& object) const {
  const engine::Json& labels = engine::Path(object, {"metadata", "labels"});
  for (const Term& t : terms_) {
    bool has = false;
    std::string value;
    if (fields_) {
      has = true;
      value = engine::GetString(object, {"metadata", t.key == "metadata.name" ? "name" : "namespace"});
    } else if (labels.is_object()) {
      auto it = labels.find(t.key);
      if (it != labels.end() && it->is_string()) {
        has = true;
        value = it->get<std::string>();
      }
    }
    bool in = std::find(t.values.begin(), t.values.end(), value) != t.values.end();
    switch (t.op) {
      case Op::kEq:
        if (!has || value != t.values[0]) return false;
        break;
      case Op::kNe:
        if (has && value == t.values[0]) return false;
        break;
      case Op::kIn:
        if (!has || !in) return false;
        break;
      case Op::kNotIn:
        if (has && in) return false;
        break;
      case Op::kExists:
        if (!has) return false;
        break;
      case Op::kNotExists:
        if (has) return false;
        break;
    }
  }
  return true;
}

}  // namespace recon::sim
