#include "domains/olm/catalog/model.h"

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

namespace {

// BuildModel's steps, in upstream's order (ConvertToModel, then
// Model.Validate), over the packages being built.
class ModelBuilder {
 public:
  ModelBuilder(const DeclarativeConfig& cfg, ErrorNode& root, const ValidateOptions& options)
      : cfg_(cfg), root_(root), options_(options) {
    m_.cfg = &cfg;
    m_.bundles.resize(cfg.bundles.size());
  }

  Model Build() {
    AddPackages();
    AddChannels();
    IndexChannelEntries();
    for (size_t bi = 0; bi < cfg_.bundles.size(); ++bi) AddBundle(bi);
    CheckEntriesAndDefaultChannels();
    for (size_t di = 0; di < cfg_.deprecations.size(); ++di) ApplyDeprecation(di);
    for (auto& [name, pb] : pkgs_) ValidatePackage(name, pb);
    return std::move(m_);
  }

 private:
  struct PkgBuild {
    ModelPackage pkg;
    std::map<std::string, ModelChannel> channels;
    std::set<std::string> last_channel_entries;
    std::set<std::string> bundle_names;
    std::unordered_map<std::string_view, std::vector<ChannelBundle*>> entries;  // name → channel entries
  };
  // A package's error node, created on first use only: a node per bundle
  // would make the bundle step quadratic.
  struct LazyPkgNode {
    ModelBuilder& builder;
    const std::string& name;
    void Add(std::string msg) { builder.PkgNode(name).Add(std::move(msg)); }
  };

  std::string At(const Location& loc) const { return StrCat(" (", cfg_.Where(loc), ")"); }
  ErrorNode& PkgNode(const std::string& p) {
    return root_.Child(StrCat("invalid package ", GoQuote(p)), p.empty() ? std::string(1, '\0') : p);
  }
  ErrorNode& ChannelNode(const std::string& p, const std::string& c) {
    return PkgNode(p).Child(StrCat("invalid channel ", GoQuote(c)), c.empty() ? std::string(1, '\0') : c);
  }

  // 1. Packages.
  void AddPackages() {
    for (const auto& p : cfg_.packages) {
      if (p.name.empty()) {
        root_.Add(StrCat("config contains package with no name", At(p.loc)));
        continue;
      }
      if (pkgs_.contains(p.name)) {
        root_.Add(StrCat("duplicate package ", GoQuote(p.name), At(p.loc)));
        continue;
      }
      if (auto errs = Dns1123LabelErrors(p.name); !errs.empty()) {
        root_.Add(
            StrCat("invalid package name ", GoQuote(p.name), ": [", JoinNames(errs, " "), "]", At(p.loc)));
      }
      PkgBuild& b = pkgs_[p.name];
      b.pkg.name = p.name;
      b.pkg.default_channel = p.default_channel;
      b.pkg.loc = p.loc;
    }
  }

  // 2. Channels.
  void AddChannels() {
    for (const auto& c : cfg_.channels) {
      auto it = pkgs_.find(c.package);
      if (it == pkgs_.end()) {
        root_.Add(
            StrCat("unknown package ", GoQuote(c.package), " for channel ", GoQuote(c.name), At(c.loc)));
        continue;
      }
      if (c.name.empty()) {
        PkgNode(c.package).Add(
            StrCat("package ", GoQuote(c.package), " contains channel with no name", At(c.loc)));
        continue;
      }
      if (it->second.channels.contains(c.name)) {
        PkgNode(c.package).Add(
            StrCat("package ", GoQuote(c.package), " has duplicate channel ", GoQuote(c.name), At(c.loc)));
        continue;
      }
      ModelChannel mc;
      mc.name = c.name;
      mc.loc = c.loc;
      std::set<std::string> seen;
      mc.bundles.reserve(c.entries.size());
      for (const auto& e : c.entries) {
        if (!seen.insert(e.name).second) {
          ChannelNode(c.package, c.name)
              .Add(StrCat("invalid package ", GoQuote(c.package), ", channel ", GoQuote(c.name),
                          ": duplicate entry ", GoQuote(e.name), At(c.loc)));
          continue;
        }
        mc.bundles.push_back({e.name, -1, e.replaces, e.skip_range, e.skips});
      }
      // Upstream quirk: the per-package entry set is overwritten, not merged.
      it->second.last_channel_entries = std::move(seen);
      it->second.channels.emplace(c.name, std::move(mc));
    }
  }

  void IndexChannelEntries() {
    for (auto& [name, pb] : pkgs_) {
      for (auto& [cn, ch] : pb.channels) {
        for (auto& cb : ch.bundles) pb.entries[cb.name].push_back(&cb);
      }
    }
  }

  // 3. Bundles.
  void AddBundle(size_t bi) {
    const Bundle& b = cfg_.bundles[bi];
    ModelBundle& mb = m_.bundles[bi];
    mb.blob = &b;
    if (b.package.empty()) {
      root_.Add(StrCat("package name must be set for bundle ", GoQuote(b.name), At(b.loc)));
      return;
    }
    auto it = pkgs_.find(b.package);
    if (it == pkgs_.end()) {
      root_.Add(StrCat("unknown package ", GoQuote(b.package), " for bundle ", GoQuote(b.name), At(b.loc)));
      return;
    }
    PkgBuild& pb = it->second;
    LazyPkgNode pn{*this, b.package};
    if (!pb.bundle_names.insert(b.name).second) {
      pn.Add(StrCat("package ", GoQuote(b.package), " has duplicate bundle ", GoQuote(b.name), At(b.loc)));
      return;
    }
    for (size_t i = 0; i < b.properties.size(); ++i) {
      const Property& p = b.properties[i];
      if (!p.is_span && p.value.empty()) {
        pn.Add(StrCat("parse properties for bundle ", GoQuote(b.name), ": parse property[", i, "] of type ",
                      GoQuote(p.type), ": unexpected end of JSON input", At(b.loc)));
      }
    }
    ReadPackageProperty(b, mb, pn);
    auto found = pb.entries.find(b.name);
    if (found != pb.entries.end()) {
      for (ChannelBundle* cb : found->second) cb->bundle = static_cast<int>(bi);
    } else {
      pn.Add(StrCat("package ", GoQuote(b.package), ", bundle ", GoQuote(b.name),
                    " not found in any channel entries", At(b.loc)));
    }
    pb.pkg.bundles.push_back(static_cast<int>(bi));
  }

  // The bundle's one olm.package property: its version and release.
  void ReadPackageProperty(const Bundle& b, ModelBundle& mb, LazyPkgNode& pn) {
    if (b.package_props.size() != 1) {
      pn.Add(StrCat("package ", GoQuote(b.package), " bundle ", GoQuote(b.name),
                    " must have exactly 1 \"olm.package\" property, found ", b.package_props.size(),
                    At(b.loc)));
      return;
    }
    const PackageProperty& pp = b.package_props[0];
    if (!pp.error.empty()) {
      pn.Add(StrCat("parse properties for bundle ", GoQuote(b.name), ": ", pp.error, At(b.loc)));
      return;
    }
    if (pp.package_name != b.package) {
      pn.Add(StrCat("package ", GoQuote(b.package), " does not match \"olm.package\" property ",
                    GoQuote(pp.package_name), At(b.loc)));
      return;
    }
    mb.version_string = pp.version;
    auto v = ParseVersion(pp.version);
    if (!v.ok()) {
      pn.Add(StrCat("error parsing bundle ", GoQuote(b.name), " version ", GoQuote(pp.version), ": ",
                    Sv(v.status().message()), At(b.loc)));
    } else {
      mb.version = std::move(*v);
    }
    if (pp.release.empty()) return;
    if (auto st = ParseRelease(pp.release); !st.ok()) {
      pn.Add(StrCat("error parsing bundle ", GoQuote(b.name), " release version ", GoQuote(pp.release), ": ",
                    Sv(st.message()), At(b.loc)));
    } else {
      mb.release = pp.release;
    }
  }

  // 4 + 5. Entries without bundles (last channel only), default channel.
  void CheckEntriesAndDefaultChannels() {
    for (auto& [name, pb] : pkgs_) {
      std::vector<std::string> missing;
      for (const auto& e : pb.last_channel_entries) {
        if (!pb.bundle_names.contains(e)) missing.push_back(e);
      }
      if (!missing.empty()) {
        PkgNode(name).Add(StrCat("no olm.bundle blobs found in package ", GoQuote(name),
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
  }

  // 6. Deprecations.
  void ApplyDeprecation(size_t di) {
    const Deprecation& d = cfg_.deprecations[di];
    if (d.package.empty()) {
      root_.Add(StrCat("package name must be set for deprecation item ", di, At(d.loc)));
      return;
    }
    auto it = pkgs_.find(d.package);
    if (it == pkgs_.end()) {
      root_.Add(StrCat("cannot apply deprecations to an unknown package ", GoQuote(d.package), At(d.loc)));
      return;
    }
    ErrorNode& pn = PkgNode(d.package);
    if (!deprecated_pkgs_.insert(d.package).second) {
      pn.Add(StrCat("expected a maximum of one deprecation per package: ", GoQuote(d.package), At(d.loc)));
      return;
    }
    std::set<std::pair<std::string, std::string>> refs;
    for (size_t ei = 0; ei < d.entries.size(); ++ei) {
      const DeprecationEntry& e = d.entries[ei];
      if (e.schema.empty()) {
        pn.Add(StrCat("schema must be set for deprecation entry [", ei, "] for package ", GoQuote(d.package),
                      At(d.loc)));
        continue;
      }
      if (!refs.insert({e.schema, e.name}).second) {
        pn.Add(StrCat("duplicate deprecation entry ", DeprecationRef(e.schema, e.name), " for package ",
                      GoQuote(d.package), At(d.loc)));
        continue;
      }
      ApplyDeprecationEntry(d, ei, it->second, pn);
    }
  }

  void ApplyDeprecationEntry(const Deprecation& d, size_t ei, PkgBuild& pb, ErrorNode& pn) {
    const DeprecationEntry& e = d.entries[ei];
    if (e.schema == "olm.bundle") {
      if (!pb.bundle_names.contains(e.name)) {
        pn.Add(StrCat("cannot deprecate bundle ", GoQuote(e.name), " for package ", GoQuote(d.package),
                      ": bundle not found", At(d.loc)));
        return;
      }
      for (int bi : pb.pkg.bundles) {
        if (cfg_.bundles[bi].name == e.name) {
          m_.bundles[bi].deprecated = true;
          m_.bundles[bi].deprecation = e.message;
        }
      }
    } else if (e.schema == "olm.channel") {
      auto ch = pb.channels.find(e.name);
      if (ch == pb.channels.end()) {
        pn.Add(StrCat("cannot deprecate channel ", GoQuote(e.name), " for package ", GoQuote(d.package),
                      ": channel not found", At(d.loc)));
        return;
      }
      ch->second.deprecated = true;
      ch->second.deprecation = e.message;
    } else if (e.schema == "olm.package") {
      if (!e.name.empty()) {
        pn.Add(StrCat("package name must be empty for deprecated package ", GoQuote(d.package),
                      " (specified ", GoQuote(e.name), ")", At(d.loc)));
        return;
      }
      pb.pkg.deprecated = true;
      pb.pkg.deprecation = e.message;
    } else {
      pn.Add(StrCat("cannot deprecate object ", DeprecationRef(e.schema, e.name), " referenced by entry ", ei,
                    " for package ", GoQuote(d.package), ": object schema unknown", At(d.loc)));
    }
  }

  // 7. Model validation.
  void ValidatePackage(const std::string& name, PkgBuild& pb) {
    ModelPackage& p = pb.pkg;
    for (auto& [cn, ch] : pb.channels) p.channels.push_back(std::move(ch));
    std::sort(p.bundles.begin(), p.bundles.end(),
              [&](int a, int b) { return cfg_.bundles[a].name < cfg_.bundles[b].name; });
    if (p.default_channel.empty()) PkgNode(name).Add(StrCat("default channel must be set", At(p.loc)));
    if (p.channels.empty()) PkgNode(name).Add(StrCat("package must contain at least one channel", At(p.loc)));
    for (const ModelChannel& ch : p.channels) {
      if (ch.bundles.empty()) {
        ChannelNode(name, ch.name).Add(StrCat("channel must contain at least one bundle", At(ch.loc)));
      } else if (auto st = ValidateReplacesChain(ch); !st.ok()) {
        ChannelNode(name, ch.name).Add(StrCat(Sv(st.message()), At(ch.loc)));
      }
      for (const ChannelBundle& cb : ch.bundles) ValidateChannelBundle(name, ch, cb);
      if (ch.deprecated && ch.deprecation.empty()) {
        ChannelNode(name, ch.name).Add(StrCat("invalid deprecation: message must be set", At(ch.loc)));
      }
    }
    if (options_.duplicate_versions) CheckDuplicateVersions(name, p);
    if (p.deprecated && p.deprecation.empty()) {
      PkgNode(name).Add(StrCat("invalid deprecation: message must be set", At(p.loc)));
    }
    m_.packages.push_back(std::move(p));
  }

  void ValidateChannelBundle(const std::string& name, const ModelChannel& ch, const ChannelBundle& cb) {
    auto bundle_node = [&]() -> ErrorNode& {
      return ChannelNode(name, ch.name).Child(StrCat("invalid bundle ", GoQuote(cb.name)), cb.name);
    };
    std::string where = cb.bundle >= 0 ? At(cfg_.bundles[cb.bundle].loc) : At(ch.loc);
    for (size_t i = 0; i < cb.skips.size(); ++i) {
      if (cb.skips[i].empty()) bundle_node().Add(StrCat("skip[", i, "] is empty", At(ch.loc)));
    }
    if (options_.skip_range_syntax && !cb.skip_range.empty()) {
      if (auto r = ParseRange(cb.skip_range); !r.ok()) {
        bundle_node().Add(
            StrCat("invalid skipRange ", GoQuote(cb.skip_range), ": ", Sv(r.status().message()), At(ch.loc)));
      }
    }
    const Bundle* blob = cb.bundle >= 0 ? &cfg_.bundles[cb.bundle] : nullptr;
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
    if (!blob) return;
    const ModelBundle& mb = m_.bundles[cb.bundle];
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

  void CheckDuplicateVersions(const std::string& name, const ModelPackage& p) {
    std::map<std::string, std::vector<std::string>> by_version;
    for (int bi : p.bundles) {
      const ModelBundle& mb = m_.bundles[bi];
      if (!mb.version) continue;
      std::string vs = mb.version->String();
      if (!mb.release.empty()) StrAppend(&vs, "-", mb.release);
      by_version[vs].push_back(cfg_.bundles[bi].name);
    }
    std::string groups;
    for (auto& [v, names] : by_version) {
      if (names.size() < 2) continue;
      std::sort(names.begin(), names.end());
      StrAppend(&groups, groups.empty() ? "" : " ", "{", v, ": [", JoinNames(names, ", "), "]}");
    }
    if (!groups.empty()) PkgNode(name).Add(StrCat("duplicate versions found in bundles: [", groups, "]"));
  }

  const DeclarativeConfig& cfg_;
  ErrorNode& root_;
  const ValidateOptions& options_;
  Model m_;
  std::map<std::string, PkgBuild> pkgs_;
  std::set<std::string> deprecated_pkgs_;
};

}  // namespace

Model BuildModel(const DeclarativeConfig& cfg, ErrorNode* errors, const ValidateOptions& options) {
  ErrorNode& root = *errors;
  root = ErrorNode{"invalid index", "", {}};
  Model m = ModelBuilder(cfg, root, options).Build();
  root.Prune();
  root.Sort();
  return m;
}

}  // namespace recon::olm
