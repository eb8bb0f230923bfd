#include "runtime/metrics.h"

#include <cmath>
#include <cstdio>

#include "base/strings.h"

namespace recon::runtime {
namespace {

std::string Num(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return recon::StrCat(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}

}  // namespace

std::string FormatLabels(const Labels& labels, const std::string& extra_key, const std::string& extra_value) {
  if (labels.empty() && extra_key.empty()) return "";
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : labels) {
    recon::StrAppend(&out, first ? "" : ",", k, "=\"", Escape(v), "\"");
    first = false;
  }
  if (!extra_key.empty()) recon::StrAppend(&out, first ? "" : ",", extra_key, "=\"", extra_value, "\"");
  return out + "}";
}

void Metrics::Declare(const std::string& name, const std::string& type, const std::string& help,
                      std::vector<double> buckets) {
  std::lock_guard<std::mutex> l(mu_);
  auto& f = families_[name];
  f.type = type;
  f.help = help;
  f.buckets = std::move(buckets);
}

void Metrics::Add(const std::string& name, const Labels& labels, double delta) {
  std::lock_guard<std::mutex> l(mu_);
  families_[name].values[labels] += delta;
}

void Metrics::Set(const std::string& name, const Labels& labels, double value) {
  std::lock_guard<std::mutex> l(mu_);
  families_[name].values[labels] = value;
}

void Metrics::Observe(const std::string& name, const Labels& labels, double value) {
  std::lock_guard<std::mutex> l(mu_);
  auto& f = families_[name];
  auto& h = f.histograms[labels];
  if (h.counts.size() != f.buckets.size()) h.counts.assign(f.buckets.size(), 0);
  for (size_t i = 0; i < f.buckets.size(); ++i) {
    if (value <= f.buckets[i]) {
      h.counts[i]++;
      break;
    }
  }
  h.count++;
  h.sum += value;
}

void Metrics::ClearFamily(const std::string& name) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = families_.find(name);
  if (it != families_.end()) it->second.values.clear();
}

double Metrics::Value(const std::string& name, const Labels& labels) const {
  std::lock_guard<std::mutex> l(mu_);
  auto f = families_.find(name);
  if (f == families_.end()) return 0;
  auto v = f->second.values.find(labels);
  return v == f->second.values.end() ? 0 : v->second;
}

std::string Metrics::Render() const {
  std::lock_guard<std::mutex> l(mu_);
  std::string out;
  for (const auto& [name, f] : families_) {
    if (f.type.empty()) continue;  // used but never declared: not exposed
    recon::StrAppend(&out, "# HELP ", name, " ", f.help, "\n# TYPE ", name, " ", f.type, "\n");
    if (f.type == "histogram") {
      for (const auto& [labels, h] : f.histograms) {
        uint64_t cumulative = 0;
        for (size_t i = 0; i < f.buckets.size(); ++i) {
          cumulative += h.counts[i];
          recon::StrAppend(&out, name, "_bucket", FormatLabels(labels, "le", Num(f.buckets[i])), " ",
                           cumulative, "\n");
        }
        recon::StrAppend(&out, name, "_bucket", FormatLabels(labels, "le", "+Inf"), " ", h.count, "\n");
        recon::StrAppend(&out, name, "_sum", FormatLabels(labels), " ", Num(h.sum), "\n");
        recon::StrAppend(&out, name, "_count", FormatLabels(labels), " ", h.count, "\n");
      }
    } else {
      for (const auto& [labels, v] : f.values)
        recon::StrAppend(&out, name, FormatLabels(labels), " ", Num(v), "\n");
    }
  }
  return out;
}

}  // namespace recon::runtime
