#include "domains/olm/model.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "base/strings.h"

namespace recon::olm {
namespace {

bool IsLabelChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; }
bool IsAlnumLower(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsLabel(std::string_view s) {
  if (s.empty() || !IsAlnumLower(s.front()) || !IsAlnumLower(s.back())) return false;
  return std::all_of(s.begin(), s.end(), IsLabelChar);
}

std::string JoinNames(const std::vector<std::string>& names, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) StrAppend(&out, i ? sep : "", names[i]);
  return out;
}

absl::Status ParseRelease(std::string_view r) {
  if (r.size() > 20) {
    return absl::InvalidArgumentError(
        StrCat("invalid release ", GoQuote(r), ": exceeds maximum length of 20 characters"));
  }
  size_t i = 0, seg = 0;
  for (;;) {
    size_t e = r.find('.', i);
    std::string_view part = r.substr(i, e == std::string_view::npos ? std::string_view::npos : e - i);
    auto id = ParsePreId(part);
    if (!id.ok()) {
      return absl::InvalidArgumentError(
          StrCat("invalid release ", GoQuote(r), ": segment ", seg, ": ", Sv(id.status().message())));
    }
    if (e == std::string_view::npos) return absl::OkStatus();
    i = e + 1;
    ++seg;
  }
}

std::string DeprecationRef(std::string_view schema, std::string_view name) {
  return StrCat("declcfg.PackageScopedReference{Schema:", GoQuote(schema), ", Name:", GoQuote(name), "}");
}

}  // namespace

std::vector<std::string> Dns1123LabelErrors(std::string_view s) {
  std::vector<std::string> errs;
  if (s.size() > 63) errs.push_back("must be no more than 63 characters");
  if (!IsLabel(s)) {
    bool subdomain = !s.empty();
    size_t i = 0;
    while (subdomain && i <= s.size()) {
      size_t e = s.find('.', i);
      if (e == std::string_view::npos) e = s.size();
      if (!IsLabel(s.substr(i, e - i))) subdomain = false;
      i = e + 1;
    }
    if (subdomain) {
      errs.push_back("must not contain dots");
    } else {
      errs.push_back(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
          "start "
          "and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation "
          "is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')");
    }
  }
  return errs;
}

const ModelPackage* Model::FindPackage(std::string_view name) const {
  auto it = std::lower_bound(packages.begin(), packages.end(), name,
                             [](const ModelPackage& p, std::string_view n) { return p.name < n; });
  return it != packages.end() && it->name == name ? &*it : nullptr;
}

const ModelChannel* Model::FindChannel(const ModelPackage& p, std::string_view name) const {
  for (const auto& c : p.channels) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

absl::StatusOr<std::string> ChannelHead(const ModelChannel& c) {
  std::unordered_set<std::string_view> incoming;
  for (const auto& b : c.bundles) {
    if (!b.replaces.empty()) incoming.insert(b.replaces);
    for (const auto& s : b.skips) incoming.insert(s);
  }
  std::vector<std::string> heads;
  for (const auto& b : c.bundles) {
    if (!incoming.contains(b.name)) heads.push_back(b.name);
  }
  if (heads.empty()) return absl::FailedPreconditionError("no channel head found in graph");
  if (heads.size() > 1) {
    std::sort(heads.begin(), heads.end());
    return absl::FailedPreconditionError(
        StrCat("multiple channel heads found in graph: ", JoinNames(heads, ", ")));
  }
  return heads[0];
}

absl::Status ValidateReplacesChain(const ModelChannel& c) {
  auto head = ChannelHead(c);
  if (!head.ok()) return head.status();
  std::unordered_map<std::string_view, const ChannelBundle*> entries;
  std::unordered_set<std::string_view> skipped;
  for (const auto& b : c.bundles) {
    entries.emplace(b.name, &b);
    for (const auto& s : b.skips) skipped.insert(s);
  }
  // walk[k..] is upstream's paths[walk[k]]; first_pos finds k.
  std::vector<std::string_view> walk;
  std::unordered_map<std::string_view, size_t> first_pos;
  std::unordered_set<std::string_view> chain{*head};
  walk.push_back(entries.at(*head)->name);
  first_pos.emplace(walk.back(), 0);
  for (auto it = entries.find(*head); it != entries.end(); it = entries.find(it->second->replaces)) {
    const ChannelBundle* cur = it->second;
    first_pos.emplace(cur->name, walk.size() - 1);
    if (skipped.contains(cur->replaces)) break;
    walk.push_back(cur->replaces);
    if (chain.contains(cur->replaces)) {
      std::vector<std::string> path(walk.begin() + static_cast<long>(first_pos.at(cur->replaces)),
                                    walk.end());
      return absl::FailedPreconditionError(
          StrCat("detected cycle in replaces chain of upgrade graph: ", JoinNames(path, " -> ")));
    }
    chain.insert(cur->replaces);
  }
  std::vector<std::string> stranded;
  for (const auto& b : c.bundles) {
    if (!chain.contains(b.name) && !skipped.contains(b.name)) stranded.push_back(b.name);
  }
  if (!stranded.empty()) {
    std::sort(stranded.begin(), stranded.end());
    return absl::FailedPreconditionError(
        StrCat("channel contains one or more stranded bundles: ", JoinNames(stranded, ", ")));
  }
  return absl::OkStatus();
}

Model BuildModel(const DeclarativeConfig& cfg, ErrorNode* errors, const ValidateOptions& options) {
  Model m;
  m.cfg = &cfg;
  m.bundles.resize(cfg.bundles.size());
  ErrorNode& root = *errors;
  root = ErrorNode{"invalid index", "", {}};
  auto at = [&](const Location& loc) { return StrCat(" (", cfg.Where(loc), ")"); };
  auto pkg_node = [&](const std::string& p) -> ErrorNode& {
    return root.Child(StrCat("invalid package ", GoQuote(p)), p.empty() ? std::string(1, '\0') : p);
  };
  auto ch_node = [&](const std::string& p, const std::string& c) -> ErrorNode& {
    return pkg_node(p).Child(StrCat("invalid channel ", GoQuote(c)), c.empty() ? std::string(1, '\0') : c);
  };

  struct PkgBuild {
    ModelPackage pkg;
    std::map<std::string, ModelChannel> channels;
    std::set<std::string> last_channel_entries;
    std::set<std::string> bundle_names;
    std::unordered_map<std::string_view, std::vector<ChannelBundle*>> entries;  // name → channel entries
  };
  std::map<std::string, PkgBuild> pkgs;

  // 1. Packages.
  for (const auto& p : cfg.packages) {
    if (p.name.empty()) {
      root.Add(StrCat("config contains package with no name", at(p.loc)));
      continue;
    }
    if (pkgs.contains(p.name)) {
      root.Add(StrCat("duplicate package ", GoQuote(p.name), at(p.loc)));
      continue;
    }
    if (auto errs = Dns1123LabelErrors(p.name); !errs.empty()) {
      root.Add(StrCat("invalid package name ", GoQuote(p.name), ": [", JoinNames(errs, " "), "]", at(p.loc)));
    }
    PkgBuild& b = pkgs[p.name];
    b.pkg.name = p.name;
    b.pkg.default_channel = p.default_channel;
    b.pkg.loc = p.loc;
  }

  // 2. Channels.
  for (const auto& c : cfg.channels) {
    auto it = pkgs.find(c.package);
    if (it == pkgs.end()) {
      root.Add(StrCat("unknown package ", GoQuote(c.package), " for channel ", GoQuote(c.name), at(c.loc)));
      continue;
    }
    if (c.name.empty()) {
      pkg_node(c.package).Add(
          StrCat("package ", GoQuote(c.package), " contains channel with no name", at(c.loc)));
      continue;
    }
    if (it->second.channels.contains(c.name)) {
      pkg_node(c.package).Add(
          StrCat("package ", GoQuote(c.package), " has duplicate channel ", GoQuote(c.name), at(c.loc)));
      continue;
    }
    ModelChannel mc;
    mc.name = c.name;
    mc.loc = c.loc;
    std::set<std::string> seen;
    mc.bundles.reserve(c.entries.size());
    for (const auto& e : c.entries) {
      if (!seen.insert(e.name).second) {
        ch_node(c.package, c.name)
            .Add(StrCat("invalid package ", GoQuote(c.package), ", channel ", GoQuote(c.name),
                        ": duplicate entry ", GoQuote(e.name), at(c.loc)));
        continue;
      }
      mc.bundles.push_back({e.name, -1, e.replaces, e.skip_range, e.skips});
    }
    // Upstream quirk: the per-package entry set is overwritten, not merged.
    it->second.last_channel_entries = std::move(seen);
    it->second.channels.emplace(c.name, std::move(mc));
  }

  for (auto& [name, pb] : pkgs) {
    for (auto& [cn, ch] : pb.channels) {
      for (auto& cb : ch.bundles) pb.entries[cb.name].push_back(&cb);
    }
  }

  // 3. Bundles.
  for (size_t bi = 0; bi < cfg.bundles.size(); ++bi) {
    const Bundle& b = cfg.bundles[bi];
    ModelBundle& mb = m.bundles[bi];
    mb.blob = &b;
    if (b.package.empty()) {
      root.Add(StrCat("package name must be set for bundle ", GoQuote(b.name), at(b.loc)));
      continue;
    }
    auto it = pkgs.find(b.package);
    if (it == pkgs.end()) {
      root.Add(StrCat("unknown package ", GoQuote(b.package), " for bundle ", GoQuote(b.name), at(b.loc)));
      continue;
    }
    PkgBuild& pb = it->second;
    // Created on first use only: a node per bundle would make this quadratic.
    struct LazyNode {
      decltype(pkg_node)& make;
      const std::string& name;
      void Add(std::string msg) { make(name).Add(std::move(msg)); }
    } pn{pkg_node, b.package};
    if (!pb.bundle_names.insert(b.name).second) {
      pn.Add(StrCat("package ", GoQuote(b.package), " has duplicate bundle ", GoQuote(b.name), at(b.loc)));
      continue;
    }
    for (size_t i = 0; i < b.properties.size(); ++i) {
      const Property& p = b.properties[i];
      if (!p.is_span && p.value.empty()) {
        pn.Add(StrCat("parse properties for bundle ", GoQuote(b.name), ": parse property[", i, "] of type ",
                      GoQuote(p.type), ": unexpected end of JSON input", at(b.loc)));
      }
    }
    if (b.package_props.size() != 1) {
      pn.Add(StrCat("package ", GoQuote(b.package), " bundle ", GoQuote(b.name),
                    " must have exactly 1 \"olm.package\" property, found ", b.package_props.size(),
                    at(b.loc)));
    } else {
      const PackageProperty& pp = b.package_props[0];
      if (!pp.error.empty()) {
        pn.Add(StrCat("parse properties for bundle ", GoQuote(b.name), ": ", pp.error, at(b.loc)));
      } else if (pp.package_name != b.package) {
        pn.Add(StrCat("package ", GoQuote(b.package), " does not match \"olm.package\" property ",
                      GoQuote(pp.package_name), at(b.loc)));
      } else {
        mb.version_string = pp.version;
        auto v = ParseVersion(pp.version);
        if (!v.ok()) {
          pn.Add(StrCat("error parsing bundle ", GoQuote(b.name), " version ", GoQuote(pp.version), ": ",
                        Sv(v.status().message()), at(b.loc)));
        } else {
          mb.version = std::move(*v);
        }
        if (!pp.release.empty()) {
          if (auto st = ParseRelease(pp.release); !st.ok()) {
            pn.Add(StrCat("error parsing bundle ", GoQuote(b.name), " release version ", GoQuote(pp.release),
                          ": ", Sv(st.message()), at(b.loc)));
          } else {
            mb.release = pp.release;
          }
        }
      }
    }
    auto found = pb.entries.find(b.name);
    if (found != pb.entries.end()) {
      for (ChannelBundle* cb : found->second) cb->bundle = static_cast<int>(bi);
    } else {
      pn.Add(StrCat("package ", GoQuote(b.package), ", bundle ", GoQuote(b.name),
                    " not found in any channel entries", at(b.loc)));
    }
    pb.pkg.bundles.push_back(static_cast<int>(bi));
  }

  // 4 + 5. Entries without bundles (last channel only), default channel.
  for (auto& [name, pb] : pkgs) {
    std::vector<std::string> missing;
    for (const auto& e : pb.last_channel_entries) {
      if (!pb.bundle_names.contains(e)) missing.push_back(e);
    }
    if (!missing.empty()) {
      pkg_node(name).Add(StrCat("no olm.bundle blobs found in package ", GoQuote(name),
                                " for olm.channel entries [", JoinNames(missing, " "), "]"));
    }
    if (!pb.pkg.default_channel.empty() && !pb.channels.contains(pb.pkg.default_channel)) {
      ModelChannel synth;
      synth.name = pb.pkg.default_channel;
      synth.synthesized = true;
      synth.loc = pb.pkg.loc;
      pb.channels.emplace(synth.name, std::move(synth));
    }
  }

  // 6. Deprecations.
  std::set<std::string> deprecated_pkgs;
  for (size_t di = 0; di < cfg.deprecations.size(); ++di) {
    const Deprecation& d = cfg.deprecations[di];
    if (d.package.empty()) {
      root.Add(StrCat("package name must be set for deprecation item ", di, at(d.loc)));
      continue;
    }
    auto it = pkgs.find(d.package);
    if (it == pkgs.end()) {
      root.Add(StrCat("cannot apply deprecations to an unknown package ", GoQuote(d.package), at(d.loc)));
      continue;
    }
    ErrorNode& pn = pkg_node(d.package);
    if (!deprecated_pkgs.insert(d.package).second) {
      pn.Add(StrCat("expected a maximum of one deprecation per package: ", GoQuote(d.package), at(d.loc)));
      continue;
    }
    PkgBuild& pb = it->second;
    std::set<std::pair<std::string, std::string>> refs;
    for (size_t ei = 0; ei < d.entries.size(); ++ei) {
      const DeprecationEntry& e = d.entries[ei];
      if (e.schema.empty()) {
        pn.Add(StrCat("schema must be set for deprecation entry [", ei, "] for package ", GoQuote(d.package),
                      at(d.loc)));
        continue;
      }
      if (!refs.insert({e.schema, e.name}).second) {
        pn.Add(StrCat("duplicate deprecation entry ", DeprecationRef(e.schema, e.name), " for package ",
                      GoQuote(d.package), at(d.loc)));
        continue;
      }
      if (e.schema == "olm.bundle") {
        if (!pb.bundle_names.contains(e.name)) {
          pn.Add(StrCat("cannot deprecate bundle ", GoQuote(e.name), " for package ", GoQuote(d.package),
                        ": bundle not found", at(d.loc)));
          continue;
        }
        for (int bi : pb.pkg.bundles) {
          if (cfg.bundles[bi].name == e.name) {
            m.bundles[bi].deprecated = true;
            m.bundles[bi].deprecation = e.message;
          }
        }
      } else if (e.schema == "olm.channel") {
        auto ch = pb.channels.find(e.name);
        if (ch == pb.channels.end()) {
          pn.Add(StrCat("cannot deprecate channel ", GoQuote(e.name), " for package ", GoQuote(d.package),
                        ": channel not found", at(d.loc)));
          continue;
        }
        ch->second.deprecated = true;
        ch->second.deprecation = e.message;
      } else if (e.schema == "olm.package") {
        if (!e.name.empty()) {
          pn.Add(StrCat("package name must be empty for deprecated package ", GoQuote(d.package),
                        " (specified ", GoQuote(e.name), ")", at(d.loc)));
          continue;
        }
        pb.pkg.deprecated = true;
        pb.pkg.deprecation = e.message;
      } else {
        pn.Add(StrCat("cannot deprecate object ", DeprecationRef(e.schema, e.name), " referenced by entry ",
                      ei, " for package ", GoQuote(d.package), ": object schema unknown", at(d.loc)));
      }
    }
  }

  // 7. Model validation.
  for (auto& [name, pb] : pkgs) {
    ModelPackage& p = pb.pkg;
    for (auto& [cn, ch] : pb.channels) p.channels.push_back(std::move(ch));
    std::sort(p.bundles.begin(), p.bundles.end(),
              [&](int a, int b) { return cfg.bundles[a].name < cfg.bundles[b].name; });
    if (p.default_channel.empty()) pkg_node(name).Add(StrCat("default channel must be set", at(p.loc)));
    if (p.channels.empty())
      pkg_node(name).Add(StrCat("package must contain at least one channel", at(p.loc)));
    for (const ModelChannel& ch : p.channels) {
      if (ch.bundles.empty()) {
        ch_node(name, ch.name).Add(StrCat("channel must contain at least one bundle", at(ch.loc)));
      } else if (auto st = ValidateReplacesChain(ch); !st.ok()) {
        ch_node(name, ch.name).Add(StrCat(Sv(st.message()), at(ch.loc)));
      }
      for (const ChannelBundle& cb : ch.bundles) {
        // name is a structured binding: clang 14 cannot capture it implicitly.
        auto bundle_node = [&, &name = name]() -> ErrorNode& {
          return ch_node(name, ch.name).Child(StrCat("invalid bundle ", GoQuote(cb.name)), cb.name);
        };
        std::string where = cb.bundle >= 0 ? at(cfg.bundles[cb.bundle].loc) : at(ch.loc);
        for (size_t i = 0; i < cb.skips.size(); ++i) {
          if (cb.skips[i].empty()) bundle_node().Add(StrCat("skip[", i, "] is empty", at(ch.loc)));
        }
        if (options.skip_range_syntax && !cb.skip_range.empty()) {
          if (auto r = ParseRange(cb.skip_range); !r.ok()) {
            bundle_node().Add(StrCat("invalid skipRange ", GoQuote(cb.skip_range), ": ",
                                     Sv(r.status().message()), at(ch.loc)));
          }
        }
        const Bundle* blob = cb.bundle >= 0 ? &cfg.bundles[cb.bundle] : nullptr;
        bool prop_error = false;
        if (blob) {
          for (size_t i = 0; i < blob->properties.size(); ++i) {
            const Property& pr = blob->properties[i];
            if (!pr.is_span && pr.value.empty()) {
              bundle_node().Add(StrCat("parse property[", i, "] of type ", GoQuote(pr.type),
                                       ": unexpected end of JSON input", where));
              prop_error = true;
            }
          }
        }
        if (!prop_error && (!blob || blob->package_props.size() != 1)) {
          bundle_node().Add(StrCat("must be exactly one property with type \"olm.package\"", where));
        }
        if (!blob || (blob->image.empty() && !blob->has_objects)) {
          bundle_node().Add(StrCat("bundle image must be set", where));
        }
        if (blob) {
          const ModelBundle& mb = m.bundles[cb.bundle];
          if (mb.deprecated && mb.deprecation.empty()) {
            bundle_node().Add(StrCat("invalid deprecation: message must be set", where));
          }
          if (mb.version && !mb.version->build.empty() && !mb.release.empty()) {
            bundle_node().Add(StrCat("cannot use build metadata in version with a release version", where));
          }
          if (!mb.release.empty() && mb.version) {
            std::string normalized = StrCat(name, "-v", mb.version->String(), "-", mb.release);
            if (normalized != cb.name) {
              bundle_node().Add(StrCat("name ", GoQuote(cb.name), " does not match normalized name ",
                                       GoQuote(normalized), where));
            }
          }
        }
      }
      if (ch.deprecated && ch.deprecation.empty()) {
        ch_node(name, ch.name).Add(StrCat("invalid deprecation: message must be set", at(ch.loc)));
      }
    }
    if (options.duplicate_versions) {
      std::map<std::string, std::vector<std::string>> by_version;
      for (int bi : p.bundles) {
        const ModelBundle& mb = m.bundles[bi];
        if (!mb.version) continue;
        std::string vs = mb.version->String();
        if (!mb.release.empty()) StrAppend(&vs, "-", mb.release);
        by_version[vs].push_back(cfg.bundles[bi].name);
      }
      std::string groups;
      for (auto& [v, names] : by_version) {
        if (names.size() < 2) continue;
        std::sort(names.begin(), names.end());
        StrAppend(&groups, groups.empty() ? "" : " ", "{", v, ": [", JoinNames(names, ", "), "]}");
      }
      if (!groups.empty()) pkg_node(name).Add(StrCat("duplicate versions found in bundles: [", groups, "]"));
    }
    if (p.deprecated && p.deprecation.empty()) {
      pkg_node(name).Add(StrCat("invalid deprecation: message must be set", at(p.loc)));
    }
    m.packages.push_back(std::move(p));
  }
  root.Prune();
  root.Sort();
  return m;
}

}  // namespace recon::olm
