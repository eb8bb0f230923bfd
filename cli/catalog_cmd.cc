// recon catalog: OLM file-based catalogs — validate, render, list channels
// and bundles, explain upgrade paths, draw upgrade graphs.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/catalog_dir.h"
#include "cli/commands.h"
#include "cli/io.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "domains/olm/catalog/node.h"
#include "domains/olm/catalog/related_images.h"
#include "domains/olm/catalog/render.h"
#include "io/disk_file_source.h"
#include "io/thread_pool_executor.h"

namespace recon::cli {
namespace {

struct SubCommand {
  const char* name;
  const char* synopsis;  // after "recon catalog NAME "
  const char* help;
};

// One entry per sub-command: `catalog --help` prints them all,
// `catalog NAME --help` only its own.
constexpr SubCommand kSubCommands[] = {
    {"validate", "DIR...", "load + convert + validate; the error tree on stderr, exit 1 on errors"},
    {"render", "DIR [-o json|yaml]", "normalized FBC (json: one blob per line)"},
    {"channels", "DIR [-o table|json]", "package, channel, head"},
    {"bundles", "DIR [-o table|json]", "package, channel, bundle, version, replaces, skips, skipRange"},
    {"upgrade-path", "DIR --package P [--channel C] --from BUNDLE",
     "the steps OLM takes to the channel head, each with why"},
    {"graph", "DIR --package P [-o dot|mermaid]",
     "the upgrade graph as picture source (dot -Tsvg renders it)"},
    {"related-images", "DIR [--package P] [--check]",
     "every bundle's images: bundle image, relatedImages, RELATED_IMAGE_* env of its CSV deployments;\n"
     "--check lists what a disconnected install cannot mirror reliably (tag refs, env images missing\n"
     "from relatedImages) and exits 1 if anything is found"},
};

std::string UsageText() {
  std::string out = "usage: recon catalog <command> [options]\n";
  for (const auto& c : kSubCommands) {
    StrAppend(&out, "  ", c.name, " ", c.synopsis, "\n");
    std::string help = c.help;
    for (size_t pos = 0; pos < help.size();) {
      size_t nl = help.find('\n', pos);
      if (nl == std::string::npos) nl = help.size();
      StrAppend(&out, "      ", help.substr(pos, nl - pos), "\n");
      pos = nl + 1;
    }
  }
  return out;
}

std::string SubUsageText(const SubCommand& c) {
  return StrCat("usage: recon catalog ", c.name, " ", c.synopsis, "\n", c.help, "\n");
}

const SubCommand* FindSubCommand(std::string_view name) {
  for (const auto& c : kSubCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// A usage error: the message and the sub-command's own usage; exit 2.
int Usage(const std::string& cmd, std::string_view msg) {
  const SubCommand* sub = FindSubCommand(cmd);
  std::fprintf(stderr, "recon catalog%s%s: %.*s\n%s", cmd.empty() ? "" : " ", cmd.c_str(),
               static_cast<int>(msg.size()), msg.data(),
               sub ? SubUsageText(*sub).c_str() : UsageText().c_str());
  return 2;
}

using Loaded = cli::LoadedCatalog;

absl::StatusOr<std::unique_ptr<Loaded>> Load(const std::string& dir, bool keep_payloads) {
  return cli::LoadCatalogDir(dir, keep_payloads);
}

void WarnIfInvalid(const Loaded& l, const std::string& dir) {
  if (!l.errors.Empty()) {
    std::fprintf(stderr, "warning: %s has %zu validation errors (see `recon catalog validate`)\n",
                 dir.c_str(), l.errors.Count());
  }
}

std::string Json(std::string_view s) {
  std::string out;
  olm::AppendJsonString(&out, s);
  return out;
}

void PrintTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line.append(width[i] - r[i].size() + 2, ' ');
    }
    std::printf("%s\n", line.c_str());
  }
}

int Validate(const Args& args) {
  if (args.positionals().empty()) return Usage("validate", "needs at least one DIR");
  int rc = 0;
  for (const auto& dir : args.positionals()) {
    auto l = Load(dir, false);
    if (!l.ok()) {
      std::fprintf(stderr, "%s: load failed:\n%s\n", dir.c_str(),
                   std::string(Sv(l.status().message())).c_str());
      rc = 1;
      continue;
    }
    const auto& m = (*l)->model;
    size_t channels = 0;
    for (const auto& p : m.packages) channels += p.channels.size();
    if (!(*l)->errors.Empty()) {
      std::fprintf(stderr, "%s: %zu errors\n%s\n", dir.c_str(), (*l)->errors.Count(),
                   (*l)->errors.Render().c_str());
      rc = 1;
    } else {
      std::printf("%s: valid (%zu packages, %zu channels, %zu bundles)\n", dir.c_str(), m.packages.size(),
                  channels, (*l)->cfg.bundles.size());
    }
  }
  return rc;
}

int Render(const Args& args) {
  if (args.positionals().size() != 1) return Usage("render", "needs exactly one DIR");
  std::string fmt = args.GetOr("output", "json");
  if (fmt != "json" && fmt != "yaml")
    return Usage("render", StrCat(args.Spelled("output"), " must be json or yaml"));
  io::DiskFileSource source(args.positionals()[0]);
  io::ThreadPoolExecutor pool(2);
  olm::LoadOptions opts;
  opts.executor = &pool;
  auto cfg = olm::LoadCatalog(source, opts);
  if (!cfg.ok()) return Fail("catalog render", cfg.status().message());
  auto out = fmt == "json" ? olm::RenderJson(*cfg) : olm::RenderYaml(*cfg);
  if (!out.ok()) return Fail("catalog render", out.status().message());
  std::fwrite(out->data(), 1, out->size(), stdout);
  return 0;
}

int Channels(const Args& args) {
  if (args.positionals().size() != 1) return Usage("channels", "needs exactly one DIR");
  std::string fmt = args.GetOr("output", "table");
  if (fmt != "table" && fmt != "json")
    return Usage("channels", StrCat(args.Spelled("output"), " must be table or json"));
  auto l = Load(args.positionals()[0], false);
  if (!l.ok()) return Fail("catalog channels", l.status().message());
  WarnIfInvalid(**l, args.positionals()[0]);
  std::vector<std::vector<std::string>> rows{{"PACKAGE", "CHANNEL", "HEAD"}};
  for (const auto& p : (*l)->model.packages) {
    for (const auto& c : p.channels) {
      auto head = olm::ChannelHead(c);
      std::string h = head.ok() ? *head : StrCat("(", Sv(head.status().message()), ")");
      if (fmt == "json") {
        std::printf("{\"package\":%s,\"channel\":%s,\"default\":%s,\"head\":%s%s}\n", Json(p.name).c_str(),
                    Json(c.name).c_str(), c.name == p.default_channel ? "true" : "false",
                    head.ok() ? Json(*head).c_str() : "null",
                    head.ok() ? "" : StrCat(",\"error\":", Json(Sv(head.status().message()))).c_str());
      } else {
        rows.push_back({p.name, c.name + (c.name == p.default_channel ? " *" : ""), h});
      }
    }
  }
  if (fmt == "table") PrintTable(rows);
  return 0;
}

int Bundles(const Args& args) {
  if (args.positionals().size() != 1) return Usage("bundles", "needs exactly one DIR");
  std::string fmt = args.GetOr("output", "table");
  if (fmt != "table" && fmt != "json")
    return Usage("bundles", StrCat(args.Spelled("output"), " must be table or json"));
  auto l = Load(args.positionals()[0], false);
  if (!l.ok()) return Fail("catalog bundles", l.status().message());
  WarnIfInvalid(**l, args.positionals()[0]);
  const auto& m = (*l)->model;
  std::vector<std::vector<std::string>> rows{
      {"PACKAGE", "CHANNEL", "BUNDLE", "VERSION", "REPLACES", "SKIPS", "SKIPRANGE"}};
  for (const auto& p : m.packages) {
    for (const auto& c : p.channels) {
      for (const auto& b : c.bundles) {
        std::string version = b.bundle >= 0 ? m.bundles[b.bundle].version_string : "";
        std::string skips, skips_json = "[";
        for (size_t i = 0; i < b.skips.size(); ++i) {
          StrAppend(&skips, i ? "," : "", b.skips[i]);
          StrAppend(&skips_json, i ? "," : "", Json(b.skips[i]));
        }
        skips_json += "]";
        if (fmt == "json") {
          std::printf(
              "{\"package\":%s,\"channel\":%s,\"bundle\":%s,\"version\":%s,\"replaces\":%s,\"skips\":%s,"
              "\"skipRange\":%s}\n",
              Json(p.name).c_str(), Json(c.name).c_str(), Json(b.name).c_str(), Json(version).c_str(),
              Json(b.replaces).c_str(), skips_json.c_str(), Json(b.skip_range).c_str());
        } else {
          rows.push_back({p.name, c.name, b.name, version, b.replaces, skips, b.skip_range});
        }
      }
    }
  }
  if (fmt == "table") PrintTable(rows);
  return 0;
}

int UpgradePath(const Args& args) {
  if (args.positionals().size() != 1) return Usage("upgrade-path", "needs exactly one DIR");
  auto pkg = args.Get("package");
  auto from = args.Get("from");
  if (!pkg || !from) return Usage("upgrade-path", "--package and --from are required");
  auto l = Load(args.positionals()[0], false);
  if (!l.ok()) return Fail("catalog upgrade-path", l.status().message());
  const auto& m = (*l)->model;
  const olm::ModelPackage* p = m.FindPackage(*pkg);
  if (!p) return Fail("catalog upgrade-path", StrCat("package ", olm::GoQuote(*pkg), " not found"));
  std::string ch = args.GetOr("channel", p->default_channel);
  const olm::ModelChannel* c = m.FindChannel(*p, ch);
  if (!c)
    return Fail("catalog upgrade-path",
                StrCat("package ", olm::GoQuote(*pkg), ", channel ", olm::GoQuote(ch), " not found"));
  auto steps = olm::UpgradePath(m, *p, *c, *from);
  if (!steps.ok()) return Fail("catalog upgrade-path", steps.status().message());
  if (steps->empty()) {
    std::printf("%s is the head of channel %s\n", from->c_str(), ch.c_str());
    return 0;
  }
  int n = 1;
  for (const auto& s : *steps) {
    std::string why(olm::EdgeKindName(s.why));
    if (s.why == olm::EdgeKind::kReplaces) why = StrCat(s.to, " replaces ", s.from);
    if (s.why == olm::EdgeKind::kSkips) why = StrCat(s.to, " skips ", s.from);
    if (s.why == olm::EdgeKind::kSkipRange)
      why = StrCat(s.from, "'s version is in ", s.to, "'s skipRange \"", s.detail, "\"");
    std::printf("%d. %s -> %s  (%s)\n", n++, s.from.c_str(), s.to.c_str(), why.c_str());
  }
  return 0;
}

int Graph(const Args& args) {
  if (args.positionals().size() != 1) return Usage("graph", "needs exactly one DIR");
  auto pkg = args.Get("package");
  if (!pkg) return Usage("graph", "--package is required");
  std::string fmt = args.GetOr("output", "dot");
  if (fmt != "dot" && fmt != "mermaid")
    return Usage("graph", StrCat(args.Spelled("output"), " must be dot or mermaid"));
  auto l = Load(args.positionals()[0], false);
  if (!l.ok()) return Fail("catalog graph", l.status().message());
  const olm::ModelPackage* p = (*l)->model.FindPackage(*pkg);
  if (!p) return Fail("catalog graph", StrCat("package ", olm::GoQuote(*pkg), " not found"));
  std::string out = fmt == "dot" ? olm::GraphDot((*l)->model, *p) : olm::GraphMermaid((*l)->model, *p);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RelatedImages(const Args& args) {
  if (args.positionals().size() != 1) return Usage("related-images", "needs exactly one DIR");
  auto pkg = args.Get("package");
  bool check = args.Has("check");
  auto l = Load(args.positionals()[0], /*keep_payloads=*/true);
  if (!l.ok()) return Fail("catalog related-images", l.status().message());
  if (pkg && !(*l)->model.FindPackage(*pkg))
    return Fail("catalog related-images", StrCat("package ", olm::GoQuote(*pkg), " not found"));
  size_t bundles = 0, refs = 0, tags = 0, unlisted = 0, other = 0;
  std::set<std::string> flagged_bundles;
  for (const auto& b : (*l)->cfg.bundles) {
    if (pkg && b.package != *pkg) continue;
    olm::BundleImages images = olm::CollectBundleImages((*l)->cfg, b);
    ++bundles;
    refs += images.uses.size();
    if (!check) {
      for (const auto& u : images.uses)
        std::printf("%s\t%s\t%s\t%s\n", b.package.c_str(), b.name.c_str(), u.image.c_str(), u.source.c_str());
      if (!images.error.empty())
        std::fprintf(stderr, "warning: %s: %s (RELATED_IMAGE_* env not read)\n", b.name.c_str(),
                     images.error.c_str());
      continue;
    }
    for (const auto& f : olm::CheckBundleImages(images)) {
      flagged_bundles.insert(f.bundle);
      if (f.problem == "tag reference, no digest") {
        ++tags;
      } else if (f.problem == "not listed in relatedImages") {
        ++unlisted;
      } else {
        ++other;
      }
      std::printf("%s %s: %s (%s): %s\n", f.package.c_str(), f.bundle.c_str(), f.image.c_str(),
                  f.source.c_str(), f.problem.c_str());
    }
  }
  if (!check) return 0;
  size_t findings = tags + unlisted + other;
  // The findings went to stdout: flushed first, so the summary on stderr
  // comes after them, not inside a buffered line, when both are a terminal.
  std::fflush(stdout);
  std::fprintf(
      findings ? stderr : stdout,
      "checked %zu bundles, %zu image references: %zu findings in %zu bundles (%zu tag references, %zu "
      "env images not in relatedImages, %zu other)\n",
      bundles, refs, findings, flagged_bundles.size(), tags, unlisted, other);
  return findings ? 1 : 0;
}

}  // namespace

int RunCatalog(int argc, char** argv) {
  if (argc < 1) {
    std::fputs(UsageText().c_str(), stderr);
    return 2;
  }
  std::string cmd = argv[0];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(UsageText().c_str(), stdout);
    return 0;
  }
  const SubCommand* sub = FindSubCommand(cmd);
  if (sub == nullptr) return Usage("", StrCat("unknown command \"", cmd, "\""));
  auto args = Args::Parse(argc - 1, argv + 1, {"output", "package", "channel", "from"}, {"check"});
  if (!args.ok()) return Usage(cmd, Sv(args.status().message()));
  if (args->Has("help")) {
    std::fputs(SubUsageText(*sub).c_str(), stdout);
    return 0;
  }
  if (cmd == "validate") return Validate(*args);
  if (cmd == "render") return Render(*args);
  if (cmd == "channels") return Channels(*args);
  if (cmd == "bundles") return Bundles(*args);
  if (cmd == "upgrade-path") return UpgradePath(*args);
  if (cmd == "graph") return Graph(*args);
  if (cmd == "related-images") return RelatedImages(*args);
  return Usage("", StrCat("unknown command \"", cmd, "\""));
}

}  // namespace recon::cli
