#include "domains/olm/resolve/catalog_index.h"

#include <algorithm>

#include "base/strings.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "engine/file_source.h"
#include "engine/json.h"

namespace recon::olm {
namespace {

using engine::Json;

std::string Str(const Json& j, const char* k) {
  if (!j.is_object() || !j.contains(k) || !j[k].is_string()) return "";
  return j[k].get<std::string>();
}

// Provided APIs, labels and dependencies of one bundle, shared by its entries.
struct BundleFacts {
  std::vector<Gvk> provides;
  std::vector<std::string> labels;
  std::vector<Predicate> dependencies;
  std::shared_ptr<const std::vector<PropertyText>> properties;
  std::string dependency_error;
  bool legacy_deprecated = false;
};

BundleFacts ReadBundle(const Bundle& b) {
  BundleFacts f;
  auto all = std::make_shared<std::vector<PropertyText>>();
  for (const Property& p : b.properties) {
    if (p.is_span) continue;
    all->push_back({p.type, p.value});
    if (p.type == "olm.gvk") {
      auto j = engine::ParseJson(p.value);
      if (j.ok()) f.provides.push_back({Str(*j, "group"), Str(*j, "version"), Str(*j, "kind")});
    } else if (p.type == "olm.label") {
      auto j = engine::ParseJson(p.value);
      if (j.ok()) f.labels.push_back(Str(*j, "label"));
    } else if (p.type == "olm.deprecated") {
      f.legacy_deprecated = true;
    } else {
      auto pred = PredicateFromProperty(p.type, p.value);
      if (!pred.ok()) {
        if (f.dependency_error.empty()) f.dependency_error = std::string(Sv(pred.status().message()));
      } else if (*pred) {
        f.dependencies.push_back(std::move(**pred));
      }
    }
  }
  std::sort(f.provides.begin(), f.provides.end());
  f.provides.erase(std::unique(f.provides.begin(), f.provides.end()), f.provides.end());
  f.properties = std::move(all);
  return f;
}

// The first leaf of a validation tree, for a one-line message.
std::string FirstLeaf(const ErrorNode& n) {
  if (n.children.empty()) return n.message;
  std::string prefix = n.sort_name.empty() ? "" : StrCat(n.message, ": ");
  return StrCat(prefix, FirstLeaf(n.children.front()));
}

}  // namespace

std::optional<std::string> Entry::Upgrades(std::string_view n, const Version* v) const {
  if (!replaces.empty() && replaces == n) return StrCat(name, " replaces ", n);
  if (std::find(skips.begin(), skips.end(), n) != skips.end()) return StrCat(name, " skips ", n);
  if (skip_range && v && skip_range->Matches(*v)) {
    return StrCat(n, " (", v->String(), ") is in the skipRange \"", skip_range_text, "\" of ", name);
  }
  return std::nullopt;
}

const CatalogChannel* CatalogPackage::Find(std::string_view channel) const {
  for (const auto& c : channels)
    if (c.name == channel) return &c;
  return nullptr;
}

const CatalogPackage* CatalogIndex::FindPackage(std::string_view name) const {
  auto it = std::lower_bound(packages_.begin(), packages_.end(), name,
                             [](const CatalogPackage& p, std::string_view n) { return p.name < n; });
  return it != packages_.end() && it->name == name ? &*it : nullptr;
}

const std::vector<int>* CatalogIndex::Providers(const Gvk& g) const {
  auto it = providers_.find(g);
  return it == providers_.end() ? nullptr : &it->second;
}

const std::vector<int>* CatalogIndex::OfPackage(std::string_view package) const {
  auto it = by_package_.find(package);
  return it == by_package_.end() ? nullptr : &it->second;
}

absl::StatusOr<std::shared_ptr<const CatalogIndex>> CatalogIndex::Load(
    const std::vector<std::pair<std::string, std::string>>& files) {
  engine::MemoryFileSource source(std::map<std::string, std::string>(files.begin(), files.end()));
  LoadOptions lo;
  lo.keep_payloads = false;
  auto cfg = LoadCatalog(source, lo);
  if (!cfg.ok()) return cfg.status();
  ErrorNode errors;
  Model m = BuildModel(*cfg, &errors);
  if (!errors.Empty()) {
    return absl::InvalidArgumentError(
        StrCat("invalid catalog (", errors.Count(), " errors): ", FirstLeaf(errors.children.front())));
  }
  auto idx = std::make_shared<CatalogIndex>();
  std::vector<std::optional<BundleFacts>> facts(m.bundles.size());
  for (const ModelPackage& mp : m.packages) {
    CatalogPackage cp;
    cp.name = mp.name;
    cp.default_channel = mp.default_channel;
    cp.deprecated = mp.deprecated;
    cp.deprecation = mp.deprecation;
    for (const ModelChannel& mc : mp.channels) {
      CatalogChannel cc;
      cc.name = mc.name;
      cc.deprecated = mc.deprecated;
      cc.deprecation = mc.deprecation;
      size_t base = idx->entries_.size();
      for (const ChannelBundle& cb : mc.bundles) {
        Entry e;
        e.name = cb.name;
        e.package = mp.name;
        e.channel = mc.name;
        e.replaces = cb.replaces;
        e.skips = cb.skips;
        e.skip_range_text = cb.skip_range;
        if (!cb.skip_range.empty()) {
          if (auto r = ParseRange(cb.skip_range); r.ok()) e.skip_range = std::move(*r);
        }
        e.default_channel = mc.name == mp.default_channel;
        if (cb.bundle >= 0) {
          const ModelBundle& mb = m.bundles[cb.bundle];
          e.version = mb.version;
          e.version_text = mb.version_string;
          e.deprecated = mb.deprecated;
          e.deprecation = mb.deprecation;
          e.image = mb.blob->image;
          e.has_objects = mb.blob->has_objects;
          auto& f = facts[cb.bundle];
          if (!f) f = ReadBundle(*mb.blob);
          e.provides = f->provides;
          e.labels = f->labels;
          e.dependencies = f->dependencies;
          e.properties = f->properties;
          e.dependency_error = f->dependency_error;
          e.legacy_deprecated = f->legacy_deprecated;
        }
        cc.all.push_back(static_cast<int>(idx->entries_.size()));
        idx->entries_.push_back(std::move(e));
      }
      auto order = ChannelOrder(mc, mp.name);
      if (order.ok()) {
        for (size_t k = 0; k < order->size(); ++k) {
          int ei = static_cast<int>(base) + (*order)[k];
          idx->entries_[ei].order = static_cast<int>(k);
          cc.order.push_back(ei);
        }
      } else {
        cc.order_error = std::string(Sv(order.status().message()));
      }
      cp.channels.push_back(std::move(cc));
    }
    idx->packages_.push_back(std::move(cp));
  }
  // Rank: default channel first, then package, channel, channel order (§9.4 step 4).
  std::vector<int>& ranked = idx->ranked_;
  for (size_t i = 0; i < idx->entries_.size(); ++i)
    if (idx->entries_[i].order >= 0) ranked.push_back(static_cast<int>(i));
  std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) {
    const Entry &x = idx->entries_[a], &y = idx->entries_[b];
    if (x.default_channel != y.default_channel) return x.default_channel;
    if (x.package != y.package) return x.package < y.package;
    if (x.channel != y.channel) return x.channel < y.channel;
    return x.order < y.order;
  });
  for (size_t r = 0; r < ranked.size(); ++r) {
    Entry& e = idx->entries_[ranked[r]];
    e.rank = static_cast<int>(r);
    for (const Gvk& g : e.provides) idx->providers_[g].push_back(ranked[r]);
    idx->by_package_[e.package].push_back(ranked[r]);
  }
  return std::shared_ptr<const CatalogIndex>(std::move(idx));
}

}  // namespace recon::olm
