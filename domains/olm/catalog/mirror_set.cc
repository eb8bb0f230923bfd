#include "domains/olm/catalog/mirror_set.h"

#include "base/strings.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/related_images.h"
#include "domains/olm/catalog/semver.h"

namespace recon::olm {
namespace {

// What one subscription resolves to: its catalog, channel and bundles.
struct Resolved {
  const MirrorCatalog* catalog = nullptr;
  std::string package, channel, min_version;
  std::vector<int> bundles;  // indexes into cfg.bundles, path order
};

// The subscription's own catalog first (a log's olm/catalog/<ns>/<name>),
// then every catalog in the order given.
const ModelPackage* FindPackage(const MirrorSubscription& s, const std::vector<MirrorCatalog>& catalogs,
                                const MirrorCatalog** found) {
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& c : catalogs) {
      if (pass == 0 && (s.source.empty() || c.name != recon::StrCat(kCatalogContentPrefix, s.source)))
        continue;
      if (const ModelPackage* p = c.model->FindPackage(s.package)) {
        *found = &c;
        return p;
      }
    }
  }
  return nullptr;
}

absl::StatusOr<Resolved> Resolve(const MirrorSubscription& s, const std::vector<MirrorCatalog>& catalogs) {
  Resolved r;
  const ModelPackage* p = FindPackage(s, catalogs, &r.catalog);
  if (p == nullptr) {
    std::string dirs;
    for (const auto& c : catalogs) recon::StrAppend(&dirs, dirs.empty() ? "" : ", ", c.name);
    return absl::NotFoundError(recon::StrCat(s.where, ": package \"", s.package, "\" not found in ", dirs));
  }
  r.package = s.package;
  r.channel = s.channel.empty() ? p->default_channel : s.channel;
  const Model& model = *r.catalog->model;
  const ModelChannel* ch = model.FindChannel(*p, r.channel);
  if (ch == nullptr) {
    std::string names;
    for (const auto& c : p->channels) recon::StrAppend(&names, names.empty() ? "" : ", ", c.name);
    return absl::NotFoundError(recon::StrCat(s.where, ": package \"", s.package, "\" has no channel \"",
                                             r.channel, "\" (channels: ", names, ")"));
  }
  std::vector<std::string> names;
  if (s.from.empty()) {
    auto head = ChannelHead(*ch);
    if (!head.ok())
      return absl::FailedPreconditionError(recon::StrCat(s.where, ": ", Sv(head.status().message())));
    names.push_back(*head);
  } else {
    auto steps = UpgradePath(model, *p, *ch, s.from);
    if (!steps.ok()) return absl::NotFoundError(recon::StrCat(s.where, ": ", Sv(steps.status().message())));
    names.push_back(s.from);
    for (const auto& st : *steps) names.push_back(st.to);
  }
  const auto& cfg = *r.catalog->cfg;
  for (const auto& n : names) {
    for (size_t i = 0; i < cfg.bundles.size(); ++i) {
      if (cfg.bundles[i].package == s.package && cfg.bundles[i].name == n) {
        r.bundles.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  if (!s.from.empty() && !r.bundles.empty() && cfg.bundles[r.bundles.front()].name == s.from) {
    r.min_version = model.bundles[r.bundles.front()].version_string;
  }
  return r;
}

}  // namespace

absl::StatusOr<MirrorSubscription> MirrorSubscriptionOf(const engine::Json& d, const std::string& where) {
  MirrorSubscription s;
  s.where = where;
  s.package = engine::GetString(d, {"spec", "name"});
  s.channel = engine::GetString(d, {"spec", "channel"});
  s.from = engine::GetString(d, {"status", "installedCSV"});
  if (s.from.empty()) s.from = engine::GetString(d, {"spec", "startingCSV"});
  std::string src = engine::GetString(d, {"spec", "source"});
  if (!src.empty()) {
    std::string src_ns = engine::GetString(d, {"spec", "sourceNamespace"});
    if (src_ns.empty()) src_ns = engine::GetString(d, {"metadata", "namespace"});
    s.source = recon::StrCat(src_ns, "/", src);
  }
  if (s.package.empty())
    return absl::InvalidArgumentError(recon::StrCat(where, ": spec.name (the package) is required"));
  return s;
}

absl::Status ComputeMirrorSet(const std::vector<MirrorSubscription>& subscriptions,
                              const std::vector<MirrorCatalog>& catalogs, MirrorSet* out) {
  for (const auto& s : subscriptions) {
    auto r = Resolve(s, catalogs);
    if (!r.ok()) return r.status();
    const DeclarativeConfig& cfg = *r->catalog->cfg;
    for (int i : r->bundles) {
      BundleImages images = CollectBundleImages(cfg, cfg.bundles[i]);
      if (!images.error.empty()) out->warnings.push_back({images.bundle, images.error});
      for (const auto& u : images.uses)
        if (!u.image.empty()) out->images.push_back(u.image);
    }
    // The lowest version any subscription starts from ("" = the head only).
    auto [it, fresh] = out->channels[r->catalog->name][r->package].try_emplace(r->channel, r->min_version);
    if (!fresh && !r->min_version.empty()) {
      auto a = ParseVersionTolerant(r->min_version), b = ParseVersionTolerant(it->second);
      if (it->second.empty() || (a.ok() && b.ok() && Compare(*a, *b) < 0)) it->second = r->min_version;
    }
  }
  return absl::OkStatus();
}

}  // namespace recon::olm
