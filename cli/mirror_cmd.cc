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
#include "cli/catalog_dir.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/store_open.h"
#include "domains/olm/catalog/mirror_set.h"
#include "domains/samples/inventory.h"
#include "domains/samples/registry.h"
#include "engine/image_ref.h"
#include "engine/json.h"
#include "engine/yaml_json.h"
#include "records/codec.h"
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

int Usage(std::string_view msg) {
  std::fprintf(stderr, "recon mirror-list: %.*s\n%s", static_cast<int>(msg.size()), msg.data(), kUsage);
  return 2;
}

// Subscription objects from JSON or YAML: one object, a List (items), an
// array, or several YAML documents.
absl::StatusOr<std::vector<olm::MirrorSubscription>> ReadSubscriptions(const std::string& path) {
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
    auto doc = engine::ParseYaml(parts[i]);  // YAML is a superset of JSON
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
  std::vector<olm::MirrorSubscription> out;
  for (size_t i = 0; i < docs.size(); ++i) {
    const Json& d = docs[i];
    std::string kind = engine::GetString(d, {"kind"});
    std::string name = recon::StrCat(engine::GetString(d, {"metadata", "namespace"}), "/",
                                     engine::GetString(d, {"metadata", "name"}));
    if (kind != "Subscription")
      return absl::InvalidArgumentError(recon::StrCat(path, ": object ", i + 1, " (", name, "): kind \"",
                                                      kind, "\", expected Subscription"));
    auto s = olm::MirrorSubscriptionOf(d, recon::StrCat(path, ": Subscription ", name));
    if (!s.ok()) return s.status();
    out.push_back(std::move(*s));
  }
  if (out.empty()) return absl::InvalidArgumentError(recon::StrCat(path, ": no Subscription objects"));
  return out;
}

// A recorded log: the last content of every olm/catalog/<ns>/<name>, and the
// Subscriptions that exist at its end (in namespace/name order).
struct LogInputs {
  std::vector<std::unique_ptr<cli::LoadedCatalog>> catalogs;
  std::vector<olm::MirrorSubscription> subs;
};

// Every event of a store, Content files filled in from the store.
absl::StatusOr<std::vector<records::EventRecord>> ReadStoreEvents(const std::string& dir,
                                                                  const StoreFlags& flags) {
  auto st = OpenStoreAt(dir, StoreAccess::kRead, "sync", flags);
  if (!st.ok()) return st.status();
  auto it = (*st)->ReadEvents((*st)->FirstSeq(), store::kEndOfLog);
  if (!it.ok()) return it.status();
  std::vector<records::EventRecord> out;
  for (; (*it)->Valid(); (*it)->Next()) {
    auto ev = records::DecodeEvent((*it)->payload());
    if (!ev.ok())
      return absl::DataLossError(recon::StrCat(dir, ": seq ", (*it)->seq(), ": ", Sv(ev.status().message())));
    if (ev->type == records::EventType::kContent && ev->content_files.empty()) {
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

absl::StatusOr<LogInputs> ReadLogInputs(const std::string& path, bool is_store, const StoreFlags& flags) {
  auto events = is_store ? ReadStoreEvents(path, flags) : ReadLog(path);
  if (!events.ok()) return events.status();
  std::map<std::string, const records::ContentFiles*> by_digest, catalogs;
  std::map<std::string, std::string> subs;  // "ns/name" -> body
  for (const auto& e : *events) {
    if (e.type == records::EventType::kContent) {
      const records::ContentFiles* files = &e.content_files;
      if (files->empty() && by_digest.count(e.content_digest)) files = by_digest[e.content_digest];
      if (!e.content_digest.empty() && !e.content_files.empty())
        by_digest[e.content_digest] = &e.content_files;
      if (e.content_name.rfind(olm::kCatalogContentPrefix, 0) == 0) catalogs[e.content_name] = files;
    } else if (e.object.group == "operators.coreos.com" && e.object.kind == "Subscription") {
      std::string key = recon::StrCat(e.object.ns, "/", e.object.name);
      if (e.type == records::EventType::kDeleted) {
        subs.erase(key);
      } else if (e.type == records::EventType::kAdded || e.type == records::EventType::kModified) {
        subs[key] = e.body;
      }
    }
  }
  LogInputs in;
  for (const auto& [name, files] : catalogs) {
    auto l = cli::LoadCatalogFiles(name, *files, /*keep_payloads=*/true);
    if (!l.ok())
      return absl::InvalidArgumentError(recon::StrCat(path, ": ", name, ": ", Sv(l.status().message())));
    in.catalogs.push_back(std::move(*l));
  }
  for (const auto& [key, body] : subs) {
    auto j = engine::ParseJson(body);
    if (!j.ok())
      return absl::InvalidArgumentError(
          recon::StrCat(path, ": Subscription ", key, ": ", Sv(j.status().message())));
    auto s = olm::MirrorSubscriptionOf(*j, recon::StrCat(path, ": Subscription ", key));
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
  std::vector<olm::MirrorSubscription> subs;
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
  std::vector<std::unique_ptr<cli::LoadedCatalog>> catalogs;
  if (args->Has("log") && args->Has("store")) return Usage("--log and --store: one recorded run at a time");
  if (args->Has("log") || args->Has("store")) {
    bool is_store = args->Has("store");
    auto in = ReadLogInputs(*args->Get(is_store ? "store" : "log"), is_store, StoreFlagsFrom(*args));
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
    auto l = cli::LoadCatalogDir(d, /*keep_payloads=*/true);
    if (!l.ok()) return Fail("mirror-list", recon::StrCat("--catalog ", d, ": ", Sv(l.status().message())));
    catalogs.push_back(std::move(*l));
  }
  std::vector<olm::MirrorCatalog> views;
  for (const auto& c : catalogs) views.push_back({c->dir, &c->cfg, &c->model});
  olm::MirrorSet set;
  absl::Status resolved = olm::ComputeMirrorSet(subs, views, &set);
  for (const auto& w : set.warnings)
    std::fprintf(stderr, "warning: %s: %s (RELATED_IMAGE_* env not read)\n", w.bundle.c_str(),
                 w.error.c_str());
  if (!resolved.ok()) return Fail("mirror-list", resolved.message());
  std::vector<std::string> samples_images;
  if (auto dir = args->Get("samples")) {
    auto inv = LoadSamples(*dir);
    if (!inv.ok())
      return Fail("mirror-list", recon::StrCat("--samples ", *dir, ": ", Sv(inv.status().message())));
    samples_images = samples::MirrorImages(*inv, args->GetOr("samples-registry", ""));
  }

  if (format == "list") {
    std::vector<std::string> all = set.images;
    all.insert(all.end(), samples_images.begin(), samples_images.end());
    for (const auto& i : Normalize(all)) std::printf("%s\n", i.c_str());
    return 0;
  }
  std::string out =
      "kind: ImageSetConfiguration\n"
      "apiVersion: mirror.openshift.io/v1alpha2\n"
      "mirror:\n";
  if (!set.channels.empty()) {
    out += "  operators:\n";
    for (const auto& [dir, packages] : set.channels) {
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
