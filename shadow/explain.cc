#include "shadow/explain.h"

#include <algorithm>
#include <cstdint>

#include "base/strings.h"

namespace recon::shadow {
namespace {

std::string Duration(int64_t ns) {
  constexpr int64_t kSecond = 1'000'000'000;
  if (ns % (60 * kSecond) == 0) return recon::StrCat(ns / (60 * kSecond), "m");
  if (ns % kSecond == 0) return recon::StrCat(ns / kSecond, "s");
  return recon::StrCat(ns / 1'000'000, "ms");
}

std::string Text(const Finding& f, int64_t window_ns) {
  if (f.result == Result::kUnpredicted)
    return recon::StrCat("shadow: ", f.verb, " by ", f.manager, " — unpredicted: no prediction of ", f.domain,
                         " was open on it");
  std::string head = recon::StrCat("shadow: predicted ", f.verb, " (action ", f.action, ") — ");
  switch (f.result) {
    case Result::kMatch:
      return f.decided <= f.cause ? recon::StrCat(head, "match: already held (seq ", f.decided, ")")
                                  : recon::StrCat(head, "match at seq ", f.decided);
    case Result::kDiffers: {
      std::string out = recon::StrCat(head, "differs within ", Duration(window_ns), ":");
      for (size_t i = 0; i < f.diffs.size(); ++i) {
        const FieldDiff& d = f.diffs[i];
        recon::StrAppend(&out, i == 0 ? " " : "; ", d.path, " predicted ", d.predicted, ", observed ",
                         d.observed);
      }
      return out;
    }
    case Result::kMissed:
      return recon::StrCat(head, "missed: nothing within ", Duration(window_ns));
    case Result::kSuperseded:
      return head + "superseded: a later prediction of the domain on it matched";
    default:
      return head + "pending: the window was still open at the end of the log";
  }
}

}  // namespace

engine::Timeline WithFindings(const engine::Timeline& timeline, const Report& report) {
  std::vector<const Finding*> findings;
  for (const Finding& f : report.findings) findings.push_back(&f);
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding* a, const Finding* b) { return a->cause < b->cause; });
  engine::Timeline out;
  size_t next = 0;
  auto flush = [&](uint64_t up_to) {
    for (; next < findings.size() && findings[next]->cause <= up_to; ++next) {
      const Finding& f = *findings[next];
      std::string subject =
          recon::StrCat(f.object.kind, " ", f.object.ns.empty() ? "" : f.object.ns + "/", f.object.name);
      out.Add(f.cause, f.time_ns, f.domain, std::move(subject), "shadow", Text(f, report.options.window_ns));
    }
  };
  for (const auto& e : timeline.entries()) {
    flush(e.seq == 0 ? 0 : e.seq - 1);
    out.Add(e.seq, e.time_ns, e.domain, e.subject, e.kind, e.text);
  }
  flush(UINT64_MAX);
  return out;
}

}  // namespace recon::shadow
