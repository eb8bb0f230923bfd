// The text and JSON forms of a shadow report (shadow/report.h).
#include <cstdio>

#include "base/strings.h"
#include "engine/time_format.h"
#include "shadow/report.h"

namespace recon::shadow {
namespace {

using engine::Json;

constexpr Result kCounted[] = {Result::kMatch,   Result::kDiffers,    Result::kMissed, Result::kUnpredicted,
                               Result::kPending, Result::kSuperseded};

std::string Duration(int64_t ns) {
  constexpr int64_t kSecond = 1'000'000'000;
  if (ns % (60 * kSecond) == 0) return recon::StrCat(ns / (60 * kSecond), "m");
  if (ns % kSecond == 0) return recon::StrCat(ns / kSecond, "s");
  return recon::StrCat(ns / 1'000'000, "ms");
}

std::string Subject(const Finding& f) {
  std::string out =
      recon::StrCat(f.object.kind, " ", f.object.ns.empty() ? "" : f.object.ns + "/", f.object.name);
  if (!f.predicted_name.empty()) recon::StrAppend(&out, " (recon's ", f.predicted_name, ")");
  return out;
}

}  // namespace

std::string RenderText(const Report& report) {
  std::string out = recon::StrCat("shadow report: ", report.events, " events, window ",
                                  Duration(report.options.window_ns));
  if (report.audit) recon::StrAppend(&out, ", judged on the audit log (", report.audit_writes, " writes)");
  if (report.reordered > 0)
    recon::StrAppend(&out, ", ", report.reordered,
                     " writes that only reorder a list built from a map not judged");
  out += "\n";
  auto counts = report.Counts();
  if (counts.empty()) {
    out += "no predictions and no writes by the configured field managers\n";
    return out;
  }
  char line[160];
  std::snprintf(line, sizeof(line), "%-14s %7s %8s %7s %12s %8s %11s\n", "domain", "match", "differs", "missed",
                "unpredicted", "pending", "superseded");
  out += line;
  for (const auto& [domain, c] : counts) {
    std::snprintf(
        line, sizeof(line), "%-14s %7llu %8llu %7llu %12llu %8llu %11llu\n", domain.c_str(),
        static_cast<unsigned long long>(c.at("match")), static_cast<unsigned long long>(c.at("differs")),
        static_cast<unsigned long long>(c.at("missed")), static_cast<unsigned long long>(c.at("unpredicted")),
        static_cast<unsigned long long>(c.at("pending")), static_cast<unsigned long long>(c.at("superseded")));
    out += line;
  }
  for (const auto& f : report.findings) {
    if (f.result == Result::kMatch) continue;
    std::string head =
        recon::StrCat(ResultName(f.result), "  seq ", f.cause, " ", engine::FormatRfc3339(f.time_ns), " ",
                      f.domain, " ", f.verb, " ", Subject(f));
    switch (f.result) {
      case Result::kDiffers:
        recon::StrAppend(&out, head, " (action ", f.action, "):\n");
        for (const auto& d : f.diffs)
          recon::StrAppend(&out, "    ", d.path, ": predicted ", d.predicted, ", observed ", d.observed,
                           "\n");
        break;
      case Result::kMissed:
        recon::StrAppend(&out, head, " (action ", f.action, "): nothing within ",
                         Duration(report.options.window_ns), "\n");
        break;
      case Result::kUnpredicted:
        recon::StrAppend(&out, head, " by ", f.manager, ": no prediction",
                         f.detail.empty() ? "" : recon::StrCat(" (", f.detail, ")"), "\n");
        break;
      case Result::kSuperseded:
        recon::StrAppend(&out, head, " (action ", f.action, "): a later prediction took its place\n");
        break;
      default:
        recon::StrAppend(&out, head, " (action ", f.action, "): window still open at the end of the log\n");
        break;
    }
  }
  return out;
}

std::string RenderJson(const Report& report) {
  Json out = Json::object();
  out["window"] = Duration(report.options.window_ns);
  out["events"] = report.events;
  if (report.reordered > 0) out["reordered"] = report.reordered;
  if (report.audit) out["audit_writes"] = report.audit_writes;
  Json counts = Json::object();
  for (const auto& [domain, c] : report.Counts()) {
    Json d = Json::object();
    for (Result r : kCounted) d[std::string(ResultName(r))] = c.at(std::string(ResultName(r)));
    counts[domain] = std::move(d);
  }
  out["counts"] = std::move(counts);
  Json findings = Json::array();
  for (const auto& f : report.findings) {
    Json j = Json::object();
    j["result"] = std::string(ResultName(f.result));
    j["domain"] = f.domain;
    j["verb"] = f.verb;
    j["object"] = {{"group", f.object.group},
                   {"kind", f.object.kind},
                   {"namespace", f.object.ns},
                   {"name", f.object.name}};
    if (!f.action.empty()) j["action"] = f.action;
    j["cause"] = f.cause;
    j["time"] = engine::FormatRfc3339(f.time_ns);
    if (f.decided != 0) j["decided"] = f.decided;
    if (!f.manager.empty()) j["manager"] = f.manager;
    if (!f.predicted_name.empty()) j["predicted_name"] = f.predicted_name;
    if (!f.audit_id.empty()) j["audit_id"] = f.audit_id;
    if (!f.detail.empty()) j["detail"] = f.detail;
    if (!f.diffs.empty()) {
      Json diffs = Json::array();
      for (const auto& d : f.diffs)
        diffs.push_back({{"path", d.path}, {"predicted", d.predicted}, {"observed", d.observed}});
      j["diffs"] = std::move(diffs);
    }
    findings.push_back(std::move(j));
  }
  out["findings"] = std::move(findings);
  return engine::Dump(out) + "\n";
}

}  // namespace recon::shadow
