#include "bench/catalog_figures.h"

#include <yaml.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "absl/strings/str_format.h"
#include "domains/olm/catalog/graph.h"
#include "domains/olm/catalog/loader.h"
#include "domains/olm/catalog/model.h"
#include "io/disk_file_source.h"
#include "io/thread_pool_executor.h"

namespace recon::bench {
namespace {

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double StatusMb(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) return std::stod(line.substr(std::string(key).size())) / 1024.0;
  }
  return 0;
}

// libyaml's event parser over every YAML file, nothing built: the floor for
// any libyaml-based loader that parses everything.
double LibyamlEventsMs(const engine::FileSource& src, uint64_t* yaml_bytes) {
  auto files = src.List();
  if (!files.ok()) return 0;
  std::vector<std::string> texts;
  for (const auto& f : *files) {
    std::string t;
    if (!src.Read(f.path, &t).ok()) continue;
    size_t i = t.find_first_not_of(" \t\r\n");
    if (i != std::string::npos && t[i] == '{') continue;
    *yaml_bytes += t.size();
    texts.push_back(std::move(t));
  }
  double start = NowMs();
  for (const auto& t : texts) {
    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, reinterpret_cast<const unsigned char*>(t.data()), t.size());
    for (bool done = false; !done;) {
      yaml_event_t ev;
      if (!yaml_parser_parse(&p, &ev)) break;
      done = ev.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
  }
  return NowMs() - start;
}

}  // namespace

olm::DeclarativeConfig Replicate(const olm::DeclarativeConfig& cfg, int factor) {
  olm::DeclarativeConfig out;
  out.files = cfg.files;
  out.contents = cfg.contents;
  for (int r = 0; r < factor; ++r) {
    std::string suffix = "-r" + std::to_string(r);
    for (auto p : cfg.packages) {
      p.name += suffix;
      out.packages.push_back(std::move(p));
    }
    for (auto c : cfg.channels) {
      c.package += suffix;
      out.channels.push_back(std::move(c));
    }
    for (auto b : cfg.bundles) {
      b.package += suffix;
      for (auto& pp : b.package_props) pp.package_name += suffix;
      out.bundles.push_back(std::move(b));
    }
    for (auto d : cfg.deprecations) {
      d.package += suffix;
      out.deprecations.push_back(std::move(d));
    }
  }
  return out;
}

absl::StatusOr<CatalogFigures> MeasureCatalog(const std::string& dir, int rounds, int scale,
                                              const std::string& scale_dir) {
  CatalogFigures f;
  io::DiskFileSource src(dir);
  auto listed = src.List();
  if (!listed.ok()) return listed.status();
  for (const auto& file : *listed) {
    ++f.files;
    f.bytes += file.size;
  }
  f.base_rss_mb = StatusMb("VmRSS:");
  io::ThreadPoolExecutor pool(2), one_thread(1);
  olm::LoadOptions opts;
  opts.executor = &pool;
  opts.keep_payloads = false;  // validate/graph never read payloads
  f.load_ms = f.validate_ms = f.graph_ms = 1e18;
  for (int r = 0; r < rounds; ++r) {
    double t0 = NowMs();
    auto cfg = olm::LoadCatalog(src, opts);
    if (!cfg.ok()) return cfg.status();
    double t1 = NowMs();
    olm::ErrorNode errors;
    olm::Model m = olm::BuildModel(*cfg, &errors);
    double t2 = NowMs();
    olm::GraphTotals g = olm::BuildAllGraphs(m);
    double t3 = NowMs();
    if (r == 0) f.peak_rss_mb = StatusMb("VmHWM:");
    f.load_ms = std::min(f.load_ms, t1 - t0);
    f.validate_ms = std::min(f.validate_ms, t2 - t1);
    f.graph_ms = std::min(f.graph_ms, t3 - t2);
    f.packages = m.packages.size();
    f.channels = g.channels;
    f.bundles = cfg->bundles.size();
    f.edges = g.edges;
    f.errors = errors.Empty() ? 0 : errors.Count();
  }
  f.load_1thread_ms = f.load_no_cut_ms = 1e18;
  for (int r = 0; r < rounds; ++r) {
    olm::LoadOptions one = opts;
    one.executor = &one_thread;
    double t0 = NowMs();
    auto a = olm::LoadCatalog(src, one);
    double t1 = NowMs();
    olm::LoadOptions full = opts;
    full.excise_payloads = false;
    auto b = olm::LoadCatalog(src, full);
    double t2 = NowMs();
    if (!a.ok()) return a.status();
    if (!b.ok()) return b.status();
    f.load_1thread_ms = std::min(f.load_1thread_ms, t1 - t0);
    f.load_no_cut_ms = std::min(f.load_no_cut_ms, t2 - t1);
  }
  f.libyaml_events_ms = LibyamlEventsMs(src, &f.yaml_bytes);

  if (scale > 0) {
    io::DiskFileSource ssrc(scale_dir.empty() ? dir : scale_dir);
    auto base = olm::LoadCatalog(ssrc, opts);
    if (!base.ok()) return base.status();
    olm::DeclarativeConfig big = Replicate(*base, scale);
    f.scale = static_cast<uint64_t>(scale);
    f.scaled_bundles = big.bundles.size();
    double t0 = NowMs();
    olm::ErrorNode errors;
    olm::Model m = olm::BuildModel(big, &errors);
    double t1 = NowMs();
    olm::GraphTotals g = olm::BuildAllGraphs(m);
    double t2 = NowMs();
    f.scaled_validate_ms = t1 - t0;
    f.scaled_graph_ms = t2 - t1;
    f.scaled_edges = g.edges;
  }
  return f;
}

std::string CatalogFigures::ToJson() const {
  return absl::StrFormat(
      "{\"files\":%d,\"bytes\":%d,\"packages\":%d,\"channels\":%d,\"bundles\":%d,\"edges\":%d,\"errors\":%d,"
      "\"load_ms\":%.2f,\"validate_ms\":%.2f,\"graph_ms\":%.2f,\"peak_rss_mb\":%.1f,\"base_rss_mb\":%.1f,"
      "\"load_1thread_ms\":%.2f,\"load_no_cut_ms\":%.2f,\"libyaml_events_1core_ms\":%.2f,\"yaml_bytes\":%d,"
      "\"scaled\":{\"factor\":%d,\"bundles\":%d,\"edges\":%d,\"validate_ms\":%.2f,\"graph_ms\":%.2f}}",
      files, bytes, packages, channels, bundles, edges, errors, load_ms, validate_ms, graph_ms, peak_rss_mb,
      base_rss_mb, load_1thread_ms, load_no_cut_ms, libyaml_events_ms, yaml_bytes, scale, scaled_bundles,
      scaled_edges, scaled_validate_ms, scaled_graph_ms);
}

}  // namespace recon::bench
