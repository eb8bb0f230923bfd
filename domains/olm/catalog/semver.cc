#include "domains/olm/catalog/semver.h"

#include <algorithm>

#include "base/strings.h"

namespace recon::olm {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-'; }
bool OnlyDigits(std::string_view s) { return std::all_of(s.begin(), s.end(), IsDigit); }
bool OnlyAlnum(std::string_view s) { return std::all_of(s.begin(), s.end(), IsAlnum); }
bool LeadingZero(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

std::vector<std::string_view> Split(std::string_view s, char sep, size_t max_parts = SIZE_MAX) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < max_parts) {
    size_t i = s.find(sep);
    if (i == std::string_view::npos) break;
    out.push_back(s.substr(0, i));
    s.remove_prefix(i + 1);
  }
  out.push_back(s);
  return out;
}

// strconv.ParseUint(s, 10, 64) with Go's error texts.
absl::StatusOr<uint64_t> ParseUint(std::string_view s) {
  if (s.empty()) return absl::InvalidArgumentError("strconv.ParseUint: parsing \"\": invalid syntax");
  uint64_t v = 0;
  for (char c : s) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) {
      return absl::InvalidArgumentError(
          StrCat("strconv.ParseUint: parsing ", GoQuote(s), ": value out of range"));
    }
    v = v * 10 + d;
  }
  return v;
}

absl::StatusOr<uint64_t> ParseNumber(std::string_view s, std::string_view what) {
  if (!OnlyDigits(s)) {
    return absl::InvalidArgumentError(StrCat("Invalid character(s) found in ", what, " number ", GoQuote(s)));
  }
  if (LeadingZero(s)) {
    std::string cap(what);
    cap[0] = static_cast<char>(cap[0] - 'a' + 'A');
    return absl::InvalidArgumentError(StrCat(cap, " number must not contain leading zeroes ", GoQuote(s)));
  }
  return ParseUint(s);
}

std::string JoinPre(const std::vector<PreId>& pre) {
  std::string out;
  for (size_t i = 0; i < pre.size(); ++i) {
    if (i) out += '.';
    out += pre[i].numeric ? std::to_string(pre[i].num) : pre[i].str;
  }
  return out;
}

}  // namespace

std::string Version::String() const {
  std::string out = StrCat(major, ".", minor, ".", patch);
  if (!pre.empty()) StrAppend(&out, "-", JoinPre(pre));
  for (size_t i = 0; i < build.size(); ++i) StrAppend(&out, i ? "." : "+", build[i]);
  return out;
}

absl::StatusOr<PreId> ParsePreId(std::string_view s) {
  if (s.empty()) return absl::InvalidArgumentError("Prerelease is empty");
  PreId id;
  if (OnlyDigits(s)) {
    if (LeadingZero(s)) {
      return absl::InvalidArgumentError(
          StrCat("Numeric PreRelease version must not contain leading zeroes ", GoQuote(s)));
    }
    auto n = ParseUint(s);
    if (!n.ok()) return n.status();
    id.numeric = true;
    id.num = *n;
  } else if (OnlyAlnum(s)) {
    id.str = std::string(s);
  } else {
    return absl::InvalidArgumentError(StrCat("Invalid character(s) found in prerelease ", GoQuote(s)));
  }
  return id;
}

absl::StatusOr<Version> ParseVersion(std::string_view s) {
  if (s.empty()) return absl::InvalidArgumentError("Version string empty");
  auto parts = Split(s, '.', 3);
  if (parts.size() != 3) return absl::InvalidArgumentError("No Major.Minor.Patch elements found");
  Version v;
  auto major = ParseNumber(parts[0], "major");
  if (!major.ok()) return major.status();
  auto minor = ParseNumber(parts[1], "minor");
  if (!minor.ok()) return minor.status();
  v.major = *major;
  v.minor = *minor;
  std::string_view patch = parts[2];
  std::vector<std::string_view> build, pre;
  if (size_t b = patch.find('+'); b != std::string_view::npos) {
    build = Split(patch.substr(b + 1), '.');
    patch = patch.substr(0, b);
  }
  if (size_t p = patch.find('-'); p != std::string_view::npos) {
    pre = Split(patch.substr(p + 1), '.');
    patch = patch.substr(0, p);
  }
  auto pn = ParseNumber(patch, "patch");
  if (!pn.ok()) return pn.status();
  v.patch = *pn;
  for (auto p : pre) {
    auto id = ParsePreId(p);
    if (!id.ok()) return id.status();
    v.pre.push_back(std::move(*id));
  }
  for (auto b : build) {
    if (b.empty()) return absl::InvalidArgumentError("Build meta data is empty");
    if (!OnlyAlnum(b)) {
      return absl::InvalidArgumentError(StrCat("Invalid character(s) found in build meta data ", GoQuote(b)));
    }
    v.build.emplace_back(b);
  }
  return v;
}

absl::StatusOr<Version> ParseVersionTolerant(std::string_view in) {
  std::string_view s = in;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  if (!s.empty() && s.front() == 'v') s.remove_prefix(1);
  std::vector<std::string> parts;
  for (auto p : Split(s, '.', 3)) parts.emplace_back(p);
  for (auto& p : parts) {
    if (p.size() > 1) {
      size_t i = p.find_first_not_of('0');
      std::string t = i == std::string::npos ? "" : p.substr(i);
      if (t.empty() || !IsDigit(t[0])) t = "0" + t;
      p = t;
    }
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      return absl::InvalidArgumentError("Short version cannot contain PreRelease/Build meta data");
    }
    while (parts.size() < 3) parts.push_back("0");
  }
  return ParseVersion(StrCat(parts[0], ".", parts[1], ".", parts[2]));
}

int ComparePre(const std::vector<PreId>& a, const std::vector<PreId>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const PreId &x = a[i], &y = b[i];
    if (x.numeric && y.numeric) {
      if (x.num != y.num) return x.num < y.num ? -1 : 1;
    } else if (x.numeric != y.numeric) {
      return x.numeric ? -1 : 1;
    } else if (int c = x.str.compare(y.str); c != 0) {
      return c < 0 ? -1 : 1;
    }
  }
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

int Compare(const Version& a, const Version& b) {
  if (a.major != b.major) return a.major < b.major ? -1 : 1;
  if (a.minor != b.minor) return a.minor < b.minor ? -1 : 1;
  if (a.patch != b.patch) return a.patch < b.patch ? -1 : 1;
  if (a.pre.empty() && b.pre.empty()) return 0;
  if (a.pre.empty()) return 1;
  if (b.pre.empty()) return -1;
  return ComparePre(a.pre, b.pre);
}

bool Range::Matches(const Version& v) const {
  for (const auto& group : groups_) {
    bool all = true;
    for (const auto& c : group) {
      int r = Compare(v, c.v);
      bool ok = false;
      switch (c.op) {
        case Op::kEq:
          ok = r == 0;
          break;
        case Op::kNe:
          ok = r != 0;
          break;
        case Op::kGt:
          ok = r > 0;
          break;
        case Op::kGe:
          ok = r >= 0;
          break;
        case Op::kLt:
          ok = r < 0;
          break;
        case Op::kLe:
          ok = r <= 0;
          break;
      }
      if (!ok) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

namespace {

// blang splitAndTrim: a space splits only after a char other than > < =;
// tokens shorter than 2 chars are dropped.
std::vector<std::string> SplitAndTrim(std::string_view s) {
  std::vector<std::string> out;
  size_t last = 0;
  char last_char = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' && last_char != '>' && last_char != '<' && last_char != '=') {
      if (static_cast<int64_t>(last) < static_cast<int64_t>(i) - 1)
        out.emplace_back(s.substr(last, i - last));
      last = i + 1;
    } else if (s[i] != ' ') {
      last_char = s[i];
    }
  }
  if (static_cast<int64_t>(last) < static_cast<int64_t>(s.size()) - 1) out.emplace_back(s.substr(last));
  for (auto& t : out) t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
  return out;
}

absl::Status SplitComparator(std::string_view s, std::string* op, std::string* ver) {
  size_t i = 0;
  while (i < s.size() && !IsDigit(s[i])) ++i;
  if (i == s.size())
    return absl::InvalidArgumentError(StrCat("Could not get version from string: ", GoQuote(s)));
  std::string_view o = s.substr(0, i);
  while (!o.empty() && (o.front() == ' ' || o.front() == '\t')) o.remove_prefix(1);
  while (!o.empty() && (o.back() == ' ' || o.back() == '\t')) o.remove_suffix(1);
  *op = std::string(o);
  *ver = std::string(s.substr(i));
  return absl::OkStatus();
}

// strconv.Atoi on one dot-part, +1; "" on failure (blang ignores the error).
std::string Increment(const std::string& v, size_t index) {
  auto parts = Split(v, '.');
  if (index >= parts.size()) return "";
  std::string_view p = parts[index];
  bool neg = !p.empty() && (p[0] == '-' || p[0] == '+');
  std::string_view digits = neg ? p.substr(1) : p;
  if (digits.empty() || !OnlyDigits(digits) || digits.size() > 18) return "";
  int64_t n = std::stoll(std::string(digits));
  if (!p.empty() && p[0] == '-') n = -n;
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += i == index ? std::to_string(n + 1) : std::string(parts[i]);
  }
  return out;
}

std::string ReplaceFirst(std::string s, std::string_view from, std::string_view to) {
  size_t i = s.find(from);
  if (i != std::string::npos) s.replace(i, from.size(), to);
  return s;
}

}  // namespace

absl::StatusOr<Range> ParseRange(std::string_view s) {
  auto tokens = SplitAndTrim(s);
  std::vector<std::vector<std::string>> ors;
  size_t last = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == "||") {
      if (i == 0) return absl::InvalidArgumentError("First element in range is '||'");
      ors.emplace_back(tokens.begin() + last, tokens.begin() + i);
      last = i + 1;
    }
  }
  if (last == tokens.size()) return absl::InvalidArgumentError("Last element in range is '||'");
  ors.emplace_back(tokens.begin() + last, tokens.end());

  // Wildcard expansion: any token containing 'x' anywhere.
  for (auto& group : ors) {
    std::vector<std::string> expanded;
    for (auto& tok : group) {
      if (tok.find('x') != std::string::npos) {
        std::string op, ver;
        if (auto st = SplitComparator(tok, &op, &ver); !st.ok()) return st;
        auto parts = Split(ver, '.');
        int wildcard = 0;  // 2 = minor wildcard, 3 = patch wildcard
        if (parts.back() == "x" && (parts.size() == 2 || parts.size() == 3))
          wildcard = static_cast<int>(parts.size());
        std::string flat = ReplaceFirst(ReplaceFirst(ver, ".x.x", ".x"), ".x", ".0");
        if (Split(flat, '.').size() == 2) flat += ".0";
        std::string result_op;
        bool increment = false;
        if (op == ">") {
          result_op = ">=";
          increment = true;
        } else if (op == ">=") {
          result_op = ">=";
        } else if (op == "<") {
          result_op = "<";
        } else if (op == "<=") {
          result_op = "<";
          increment = true;
        } else if (op.empty() || op == "=" || op == "==") {
          expanded.push_back(">=" + flat);
          result_op = "<";
          increment = true;
        } else if (op == "!=" || op == "!") {
          expanded.push_back("<" + flat);
          result_op = ">=";
          increment = true;
        }
        std::string result_ver;
        if (increment) {
          if (wildcard == 3) result_ver = Increment(flat, 1);
          if (wildcard == 2) result_ver = Increment(flat, 0);
        } else {
          result_ver = flat;
        }
        tok = result_op + result_ver;
      }
      expanded.push_back(tok);
    }
    group = std::move(expanded);
  }

  Range range;
  for (const auto& group : ors) {
    std::vector<Range::Comparator> and_group;
    for (const auto& tok : group) {
      std::string op, ver;
      if (auto st = SplitComparator(tok, &op, &ver); !st.ok()) return st;
      Range::Op o;
      if (op.empty() || op == "=" || op == "==") {
        o = Range::Op::kEq;
      } else if (op == "!" || op == "!=") {
        o = Range::Op::kNe;
      } else if (op == ">") {
        o = Range::Op::kGt;
      } else if (op == ">=") {
        o = Range::Op::kGe;
      } else if (op == "<") {
        o = Range::Op::kLt;
      } else if (op == "<=") {
        o = Range::Op::kLe;
      } else {
        return absl::InvalidArgumentError(StrCat("Could not parse Range ", GoQuote(tok),
                                                 ": Could not parse comparator ", GoQuote(op), " in ",
                                                 GoQuote(op + ver)));
      }
      auto v = ParseVersion(ver);
      if (!v.ok()) {
        return absl::InvalidArgumentError(StrCat("Could not parse Range ", GoQuote(tok),
                                                 ": Could not parse version ", GoQuote(ver), " in ",
                                                 GoQuote(op + ver), ": ", Sv(v.status().message())));
      }
      and_group.push_back({o, std::move(*v)});
    }
    range.groups_.push_back(std::move(and_group));
  }
  return range;
}

}  // namespace recon::olm
