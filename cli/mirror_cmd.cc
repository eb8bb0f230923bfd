// `recon mirror-list`: the images a disconnected cluster needs mirrored for
// a set of subscriptions (every bundle from the installed/starting version
// to the channel head: bundle image, relatedImages, RELATED_IMAGE_* env)
// and the samples inventory (with its registry override); as a sorted list
// or an oc-mirror ImageSetConfiguration. `imagestreamtag-to-image` prints
// the samples operator's ConfigMap data.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "domains/aro/yaml_json.h"
#include "domains/olm/graph.h"
#include "domains/olm/model.h"
#include "domains/olm/related_images.h"
#include "domains/olm/semver.h"
#include "domains/samples/inventory.h"
#include "domains/samples/registry.h"
#include "engine/image_ref.h"
#include "engine/json.h"
#include "io/catalog_dir.h"
#include "store/codec.h"
#include "store/event_store.h"

namespace recon::cli {
namespace {

using engine::Json;

constexpr char kUsage[] =
    "usage: recon mirror-list [SUBSCRIPTIONS.yaml|json] [--package P --channel C [--from CSV]]\n"
    "                         --catalog DIR [--catalog DIR...] | --log LOG.jsonl | --store DIR\n"
    "                         [--samples DIR [--samples-registry HOST]] [--format list|imageset]\n"
    "  --log/--store: a recorded run's olm/catalog/<ns>/<name> Content (the last of each) as catalogs, and\n"
    "  its Subscriptions at the end of the log unless subscriptions are given; a subscription\n"
    "  looks in its own spec.source catalog first.\n"
    "  The images to mirror for a disconnected cluster, sorted and deduplicated: for each\n"
    "  subscription every bundle from its installed CSV (status.installedCSV, else\n"
    "  spec.startingCSV; neither: the head only) to the channel head, with the bundle image,\n"
    "  relatedImages and RELATED_IMAGE_* env of its CSV; plus every DockerImage tag of the\n"
    "  samples imagestreams, rewritten for --samples-registry as the samples operator does.\n"
    "  A tag reference is dropped when the same name:tag appears pinned by digest.\n"
    "  --format imageset prints an oc-mirror ImageSetConfiguration (mirror.operators per\n"
    "  catalog with packages/channels/minVersion; samples images as additionalImages).\n"
    "       recon mirror-list imagestreamtag-to-image --samples DIR\n"
    "  the samples operator's imagestreamtag-to-image ConfigMap data, one \"key image\" a line.\n";

constexpr std::string_view kCatalogContentPrefix = "olm/catalog/";

int Usage(std::string_view msg) {
  std::fprintf(stderr, "recon mirror-list: %.*s\n%s", static_cast<int>(msg.size()), msg.data(), kUsage);
  return 2;
}

struct Sub {
  std::string where;  // "FILE: Subscription ns/name" or "--package P"
  std::string package, channel, from;
  std::string source;  // "<sourceNamespace>/<source>", "" when not given
};

// A Subscription object → what to mirror for it.
absl::StatusOr<Sub> SubFromObject(const Json& d, const std::string& where) {
  Sub s;
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

// Subscription objects from JSON or YAML: one object, a List (items), an
// array, or several YAML documents.
absl::StatusOr<std::vector<Sub>> ReadSubscriptions(const std::string& path) {
  auto text = ReadInput(path);
  if (!text.ok()) return text.status();
  std::vector<Json> docs;
  std::vector<std::string> parts;
  std::string cur;
  for (absl::string_view line : absl::StrSplit(*text, '\n')) {
    if (line == "---" || line.substr(0, 4) == "--- ") {
      parts.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    recon::StrAppend(&cur, Sv(line), "\n");
  }
  parts.push_back(std::move(cur));
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].find_first_not_of(" \t\r\n") == std::string::npos) continue;
    auto doc = aro::ParseYaml(parts[i]);  // YAML is a superset of JSON
    if (!doc.ok())
      return absl::InvalidArgumentError(
          recon::StrCat(path, ": document ", i + 1, ": ", Sv(doc.status().message())));
    std::vector<Json> items;
    if (doc->is_array()) {
      for (auto& e : *doc) items.push_back(e);
    } else if (doc->is_object() && engine::Path(*doc, {"items"}).is_array()) {
      for (auto& e : (*doc)["items"]) items.push_back(e);
    } else {
      items.push_back(*doc);
    }
    for (auto& e : items) docs.push_back(std::move(e));
  }
  std::vector<Sub> out;
  for (size_t i = 0; i < docs.size(); ++i) {
    const Json& d = docs[i];
    std::string kind = engine::GetString(d, {"kind"});
    std::string name = recon::StrCat(engine::GetString(d, {"metadata", "namespace"}), "/",
                                     engine::GetString(d, {"metadata", "name"}));
    if (kind != "Subscription")
      return absl::InvalidArgumentError(recon::StrCat(path, ": object ", i + 1, " (", name, "): kind \"",
                                                      kind, "\", expected Subscription"));
    auto s = SubFromObject(d, recon::StrCat(path, ": Subscription ", name));
    if (!s.ok()) return s.status();
    out.push_back(std::move(*s));
  }
  if (out.empty()) return absl::InvalidArgumentError(recon::StrCat(path, ": no Subscription objects"));
  return out;
}

// What one subscription resolves to: its catalog, channel and bundles.
struct Resolved {
  const io::LoadedCatalog* catalog = nullptr;
  std::string package, channel, min_version;
  std::vector<int> bundles;  // indexes into cfg.bundles, path order
};

absl::StatusOr<Resolved> Resolve(const Sub& s,
                                 const std::vector<std::unique_ptr<io::LoadedCatalog>>& catalogs) {
  Resolved r;
  const olm::ModelPackage* p = nullptr;
  // The subscription's own catalog first (a log's olm/catalog/<ns>/<name>),
  // then every catalog in the order given.
  for (int pass = 0; pass < 2 && p == nullptr; ++pass) {
    for (const auto& c : catalogs) {
      if (pass == 0 && (s.source.empty() || c->dir != recon::StrCat(kCatalogContentPrefix, s.source)))
        continue;
      if ((p = c->model.FindPackage(s.package))) {
        r.catalog = c.get();
        break;
      }
    }
  }
  if (p == nullptr) {
    std::string dirs;
    for (const auto& c : catalogs) recon::StrAppend(&dirs, dirs.empty() ? "" : ", ", c->dir);
    return absl::NotFoundError(recon::StrCat(s.where, ": package \"", s.package, "\" not found in ", dirs));
  }
  r.package = s.package;
  r.channel = s.channel.empty() ? p->default_channel : s.channel;
  const olm::ModelChannel* ch = r.catalog->model.FindChannel(*p, r.channel);
  if (ch == nullptr) {
    std::string names;
    for (const auto& c : p->channels) recon::StrAppend(&names, names.empty() ? "" : ", ", c.name);
    return absl::NotFoundError(recon::StrCat(s.where, ": package \"", s.package, "\" has no channel \"",
                                             r.channel, "\" (channels: ", names, ")"));
  }
  std::vector<std::string> names;
  if (s.from.empty()) {
    auto head = olm::ChannelHead(*ch);
    if (!head.ok())
      return absl::FailedPreconditionError(recon::StrCat(s.where, ": ", Sv(head.status().message())));
    names.push_back(*head);
  } else {
    auto steps = olm::UpgradePath(r.catalog->model, *p, *ch, s.from);
    if (!steps.ok()) return absl::NotFoundError(recon::StrCat(s.where, ": ", Sv(steps.status().message())));
    names.push_back(s.from);
    for (const auto& st : *steps) names.push_back(st.to);
  }
  const auto& cfg = r.catalog->cfg;
  for (const auto& n : names) {
    for (size_t i = 0; i < cfg.bundles.size(); ++i) {
      if (cfg.bundles[i].package == s.package && cfg.bundles[i].name == n) {
        r.bundles.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  if (!s.from.empty() && !r.bundles.empty() && cfg.bundles[r.bundles.front()].name == s.from) {
    r.min_version = r.catalog->model.bundles[r.bundles.front()].version_string;
  }
  return r;
}

// A recorded log: the last content of every olm/catalog/<ns>/<name>, and the
// Subscriptions that exist at its end (in namespace/name order).
struct LogInputs {
  std::vector<std::unique_ptr<io::LoadedCatalog>> catalogs;
  std::vector<Sub> subs;
};

// Every event of a store, Content files filled in from the store.
absl::StatusOr<std::vector<store::EventRecord>> ReadStoreEvents(const std::string& dir) {
  auto st = OpenStore(dir, false);
  if (!st.ok()) return st.status();
  auto it = (*st)->ReadEvents((*st)->FirstSeq(), store::kEndOfLog);
  if (!it.ok()) return it.status();
  std::vector<store::EventRecord> out;
  for (; (*it)->Valid(); (*it)->Next()) {
    auto ev = store::DecodeEvent((*it)->payload());
    if (!ev.ok())
      return absl::DataLossError(recon::StrCat(dir, ": seq ", (*it)->seq(), ": ", Sv(ev.status().message())));
    if (ev->type == store::EventType::kContent && ev->content_files.empty()) {
      auto f = (*st)->GetContent(ev->content_digest);
      if (!f.ok())
        return absl::DataLossError(
            recon::StrCat(dir, ": seq ", (*it)->seq(), ": ", Sv(f.status().message())));
      ev->content_files = std::move(*f);
    }
    out.push_back(std::move(*ev));
  }
  if (!(*it)->status().ok()) return (*it)->status();
  return out;
}

absl::StatusOr<LogInputs> ReadLogInputs(const std::string& path, bool is_store) {
  auto events = is_store ? ReadStoreEvents(path) : ReadLog(path);
  if (!events.ok()) return events.status();
  std::map<std::string, const store::ContentFiles*> by_digest, catalogs;
  std::map<std::string, std::string> subs;  // "ns/name" -> body
  for (const auto& e : *events) {
    if (e.type == store::EventType::kContent) {
      const store::ContentFiles* files = &e.content_files;
      if (files->empty() && by_digest.count(e.content_digest)) files = by_digest[e.content_digest];
      if (!e.content_digest.empty() && !e.content_files.empty())
        by_digest[e.content_digest] = &e.content_files;
      if (e.content_name.rfind(kCatalogContentPrefix, 0) == 0) catalogs[e.content_name] = files;
    } else if (e.object.group == "operators.coreos.com" && e.object.kind == "Subscription") {
      std::string key = recon::StrCat(e.object.ns, "/", e.object.name);
      if (e.type == store::EventType::kDeleted) {
        subs.erase(key);
      } else if (e.type == store::EventType::kAdded || e.type == store::EventType::kModified) {
        subs[key] = e.body;
      }
    }
  }
  LogInputs in;
  for (const auto& [name, files] : catalogs) {
    auto l = io::LoadCatalogFiles(name, *files, /*keep_payloads=*/true);
    if (!l.ok())
      return absl::InvalidArgumentError(recon::StrCat(path, ": ", name, ": ", Sv(l.status().message())));
    in.catalogs.push_back(std::move(*l));
  }
  for (const auto& [key, body] : subs) {
    auto j = engine::ParseJson(body);
    if (!j.ok())
      return absl::InvalidArgumentError(
          recon::StrCat(path, ": Subscription ", key, ": ", Sv(j.status().message())));
    auto s = SubFromObject(*j, recon::StrCat(path, ": Subscription ", key));
    if (!s.ok()) return s.status();
    in.subs.push_back(std::move(*s));
  }
  return in;
}

absl::StatusOr<samples::Inventory> LoadSamples(const std::string& dir) {
  auto files = LoadDirectory(dir);
  if (!files.ok()) return files.status();
  return samples::LoadInventory(*files);
}

// Every DockerImage tag of every imagestream, after the registry override.
std::vector<std::string> SamplesImages(const samples::Inventory& inv, const std::string& registry) {
  std::vector<std::string> out;
  for (const auto& [name, stream] : inv.streams) {
    Json is = stream;
    samples::ApplyRegistryOverride(is, registry);
    const Json& tags = engine::Path(is, {"spec", "tags"});
    if (!tags.is_array()) continue;
    for (const Json& t : tags) {
      if (engine::GetString(t, {"from", "kind"}) != "DockerImage") continue;
      std::string image = engine::GetString(t, {"from", "name"});
      if (!image.empty()) out.push_back(image);
    }
  }
  return out;
}

// Sorted, deduplicated; `name:tag` dropped when `name:tag@digest` is there.
std::vector<std::string> Normalize(const std::vector<std::string>& images) {
  std::set<std::string> all(images.begin(), images.end());
  std::set<std::string> pinned_names;
  for (const auto& i : all) {
    auto ref = engine::ParseImageRef(i);
    if (ref.ok() && ref->pinned() && !ref->tag.empty())
      pinned_names.insert(recon::StrCat(ref->Name(), ":", ref->tag));
  }
  std::vector<std::string> out;
  for (const auto& i : all) {
    auto ref = engine::ParseImageRef(i);
    if (ref.ok() && !ref->pinned() && pinned_names.count(i)) continue;
    out.push_back(i);
  }
  return out;
}

std::string YamlScalar(const std::string& s) {
  engine::Json j = s;
  return engine::Dump(j);  // a JSON string is a valid YAML double-quoted scalar
}

int IstToImage(const Args& args) {
  auto dir = args.Get("samples");
  if (!dir) return Usage("imagestreamtag-to-image: --samples DIR is required");
  if (args.Has("samples-registry"))
    return Usage(
        "imagestreamtag-to-image: the ConfigMap is never registry-rewritten (upstream); drop "
        "--samples-registry");
  auto inv = LoadSamples(*dir);
  if (!inv.ok()) return Fail("mirror-list imagestreamtag-to-image", inv.status().message());
  for (const auto& [k, v] : inv->ist_to_image) std::printf("%s %s\n", k.c_str(), v.c_str());
  return 0;
}

}  // namespace

int RunMirrorList(int argc, char** argv) {
  if (argc >= 1 && (std::string(argv[0]) == "--help" || std::string(argv[0]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  bool ist = argc >= 1 && std::string(argv[0]) == "imagestreamtag-to-image";
  auto args = Args::Parse(
      ist ? argc - 1 : argc, ist ? argv + 1 : argv,
      {"package", "channel", "from", "catalog", "log", "store", "samples", "samples-registry", "format"}, {});
  if (!args.ok()) return Usage(Sv(args.status().message()));
  if (ist) return IstToImage(*args);

  std::string format = args->GetOr("format", "list");
  if (format != "list" && format != "imageset") return Usage("--format must be list or imageset");
  std::vector<Sub> subs;
  if (args->positionals().size() > 1) return Usage("at most one SUBSCRIPTIONS file");
  if (args->positionals().size() == 1) {
    auto s = ReadSubscriptions(args->positionals()[0]);
    if (!s.ok()) return Fail("mirror-list", s.status().message());
    subs = std::move(*s);
  }
  if (args->Has("package")) {
    subs.push_back({recon::StrCat("--package ", *args->Get("package")), *args->Get("package"),
                    args->GetOr("channel", ""), args->GetOr("from", "")});
  } else if (args->Has("channel") || args->Has("from")) {
    return Usage("--channel and --from need --package");
  }
  std::vector<std::unique_ptr<io::LoadedCatalog>> catalogs;
  if (args->Has("log") && args->Has("store")) return Usage("--log and --store: one recorded run at a time");
  if (args->Has("log") || args->Has("store")) {
    bool is_store = args->Has("store");
    auto in = ReadLogInputs(*args->Get(is_store ? "store" : "log"), is_store);
    if (!in.ok()) return Fail("mirror-list", in.status().message());
    // The log's Subscriptions unless some were given explicitly.
    if (subs.empty()) subs = std::move(in->subs);
    for (auto& c : in->catalogs) catalogs.push_back(std::move(c));
  }
  auto catalog_dirs = args->GetAll("catalog");
  if (!subs.empty() && catalog_dirs.empty() && catalogs.empty())
    return Usage(
        "subscriptions need at least one --catalog DIR (or a --log/--store with olm/catalog Content)");
  if (subs.empty() && !args->Has("samples"))
    return Usage("nothing to list: give subscriptions (a file or --package) and/or --samples DIR");
  if (args->Has("samples-registry") && !args->Has("samples"))
    return Usage("--samples-registry needs --samples");

  for (const auto& d : catalog_dirs) {
    auto l = io::LoadCatalogDir(d, /*keep_payloads=*/true);
    if (!l.ok()) return Fail("mirror-list", recon::StrCat("--catalog ", d, ": ", Sv(l.status().message())));
    catalogs.push_back(std::move(*l));
  }
  std::vector<std::string> operator_images;
  // catalog dir → package → channel → min version ("" = head only)
  std::map<std::string, std::map<std::string, std::map<std::string, std::string>>> imageset;
  for (const auto& s : subs) {
    auto r = Resolve(s, catalogs);
    if (!r.ok()) return Fail("mirror-list", r.status().message());
    for (int i : r->bundles) {
      olm::BundleImages images = olm::CollectBundleImages(r->catalog->cfg, r->catalog->cfg.bundles[i]);
      if (!images.error.empty())
        std::fprintf(stderr, "warning: %s: %s (RELATED_IMAGE_* env not read)\n", images.bundle.c_str(),
                     images.error.c_str());
      for (const auto& u : images.uses)
        if (!u.image.empty()) operator_images.push_back(u.image);
    }
    // The lowest version any subscription starts from ("" = the head only).
    auto [it, fresh] = imageset[r->catalog->dir][r->package].try_emplace(r->channel, r->min_version);
    if (!fresh && !r->min_version.empty()) {
      auto a = olm::ParseVersionTolerant(r->min_version), b = olm::ParseVersionTolerant(it->second);
      if (it->second.empty() || (a.ok() && b.ok() && olm::Compare(*a, *b) < 0)) it->second = r->min_version;
    }
  }
  std::vector<std::string> samples_images;
  if (auto dir = args->Get("samples")) {
    auto inv = LoadSamples(*dir);
    if (!inv.ok())
      return Fail("mirror-list", recon::StrCat("--samples ", *dir, ": ", Sv(inv.status().message())));
    samples_images = SamplesImages(*inv, args->GetOr("samples-registry", ""));
  }

  if (format == "list") {
    std::vector<std::string> all = operator_images;
    all.insert(all.end(), samples_images.begin(), samples_images.end());
    for (const auto& i : Normalize(all)) std::printf("%s\n", i.c_str());
    return 0;
  }
  std::string out =
      "kind: ImageSetConfiguration\n"
      "apiVersion: mirror.openshift.io/v1alpha2\n"
      "mirror:\n";
  if (!imageset.empty()) {
    out += "  operators:\n";
    for (const auto& [dir, packages] : imageset) {
      recon::StrAppend(&out, "  - catalog: ", YamlScalar(dir), "\n    packages:\n");
      for (const auto& [pkg, channels] : packages) {
        recon::StrAppend(&out, "    - name: ", YamlScalar(pkg), "\n      channels:\n");
        for (const auto& [ch, min] : channels) {
          recon::StrAppend(&out, "      - name: ", YamlScalar(ch), "\n");
          if (!min.empty()) recon::StrAppend(&out, "        minVersion: ", YamlScalar(min), "\n");
        }
      }
    }
  }
  std::vector<std::string> extra = Normalize(samples_images);
  if (!extra.empty()) {
    out += "  additionalImages:\n";
    for (const auto& i : extra) recon::StrAppend(&out, "  - name: ", YamlScalar(i), "\n");
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace recon::cli
