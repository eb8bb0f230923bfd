#include "domains/olm/catalog/ignore.h"

namespace recon::olm {
namespace {

std::vector<std::string> SplitSlash(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  for (;;) {
    size_t e = s.find('/', i);
    out.emplace_back(s.substr(i, e == std::string_view::npos ? std::string_view::npos : e - i));
    if (e == std::string_view::npos) return out;
    i = e + 1;
  }
}

// Matches a character class at p[i] (after '['); sets *next past ']'.
bool MatchClass(std::string_view p, size_t i, unsigned char c, size_t* next, bool* ok) {
  bool negate = false, matched = false;
  if (i < p.size() && p[i] == '^') {
    negate = true;
    ++i;
  }
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    unsigned char lo = static_cast<unsigned char>(p[i]);
    if (lo == '\\') {
      if (++i >= p.size()) return false;
      lo = static_cast<unsigned char>(p[i]);
    }
    unsigned char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      i += 2;
      hi = static_cast<unsigned char>(p[i]);
      if (hi == '\\') {
        if (++i >= p.size()) return false;
        hi = static_cast<unsigned char>(p[i]);
      }
    }
    if (lo <= c && c <= hi) matched = true;
    ++i;
  }
  if (i >= p.size()) return false;  // no closing ']'
  *next = i + 1;
  *ok = matched != negate;
  return true;
}

bool MatchFrom(std::string_view p, size_t pi, std::string_view s, size_t si, bool* bad) {
  while (pi < p.size()) {
    char c = p[pi];
    if (c == '*') {
      while (pi < p.size() && p[pi] == '*') ++pi;
      if (pi == p.size()) return s.find('/', si) == std::string_view::npos;
      for (size_t k = si; k <= s.size(); ++k) {
        if (MatchFrom(p, pi, s, k, bad)) return true;
        if (*bad) return false;
        if (k < s.size() && s[k] == '/') break;
      }
      return false;
    }
    if (si >= s.size()) {
      // Still validate the rest of the pattern like Go does for syntax errors.
      return false;
    }
    if (c == '?') {
      if (s[si] == '/') return false;
      ++pi;
      ++si;
    } else if (c == '[') {
      size_t next = 0;
      bool ok = false;
      if (!MatchClass(p, pi + 1, static_cast<unsigned char>(s[si]), &next, &ok)) {
        *bad = true;
        return false;
      }
      if (!ok || s[si] == '/') return false;
      pi = next;
      ++si;
    } else {
      if (c == '\\') {
        if (++pi >= p.size()) {
          *bad = true;
          return false;
        }
        c = p[pi];
      }
      if (s[si] != c) return false;
      ++pi;
      ++si;
    }
  }
  return si == s.size();
}

}  // namespace

bool GoFilepathMatch(std::string_view pattern, std::string_view name) {
  bool bad = false;
  bool m = MatchFrom(pattern, 0, name, 0, &bad);
  return m && !bad;
}

void IgnoreMatcher::AddFile(std::string_view dir, std::string_view text) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t e = text.find('\n', pos);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(pos, e - pos);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '\r'))
      line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
      line.remove_suffix(1);
    if (!line.empty() && line[0] != '#') AddPattern(dir, line);
    pos = e + 1;
  }
}

void IgnoreMatcher::AddPattern(std::string_view dir, std::string_view p) {
  Pattern pat;
  if (!dir.empty()) pat.domain = SplitSlash(dir);
  std::string s(p);
  if (!s.empty() && s[0] == '!') {
    pat.include = true;
    s.erase(0, 1);
  }
  if (!(s.size() >= 2 && s.compare(s.size() - 2, 2, "\\ ") == 0)) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
  }
  if (!s.empty() && s.back() == '/') {
    pat.dir_only = true;
    s.pop_back();
  }
  pat.glob = s.find('/') != std::string::npos;
  pat.parts = SplitSlash(s);
  patterns_.push_back(std::move(pat));
}

bool IgnoreMatcher::Matches(const Pattern& p, const std::vector<std::string>& full) const {
  if (full.size() <= p.domain.size()) return false;
  for (size_t i = 0; i < p.domain.size(); ++i) {
    if (full[i] != p.domain[i]) return false;
  }
  std::vector<std::string> path(full.begin() + static_cast<long>(p.domain.size()), full.end());
  if (!p.glob) {
    for (size_t i = 0; i < path.size(); ++i) {
      if (!GoFilepathMatch(p.parts[0], path[i])) continue;
      if (p.dir_only && i == path.size() - 1) return false;
      return true;
    }
    return false;
  }
  // go-git globMatch.
  bool matched = false, traverse = false;
  size_t at = 0;
  for (size_t i = 0; i < p.parts.size(); ++i) {
    const std::string& part = p.parts[i];
    if (part.empty()) {
      traverse = false;
      continue;
    }
    if (part == "**") {
      if (i == p.parts.size() - 1) break;
      traverse = true;
      continue;
    }
    if (part.find("**") != std::string::npos) return false;
    if (at >= path.size()) return false;
    if (traverse) {
      traverse = false;
      while (at < path.size()) {
        const std::string& e = path[at++];
        if (GoFilepathMatch(part, e)) {
          matched = true;
          break;
        } else if (at >= path.size()) {
          matched = false;
        }
      }
    } else {
      if (!GoFilepathMatch(part, path[at])) return false;
      matched = true;
      ++at;
    }
  }
  if (matched && p.dir_only && at >= path.size()) matched = false;
  return matched;
}

bool IgnoreMatcher::Ignored(std::string_view path) const {
  auto parts = SplitSlash(path);
  for (size_t n = patterns_.size(); n-- > 0;) {
    if (Matches(patterns_[n], parts)) return !patterns_[n].include;
  }
  return false;
}

}  // namespace recon::olm
