// A small Prometheus registry: counters, gauges and histograms with
// labels, rendered in the text exposition format (families and series in
// sorted order, so the output is stable).
#ifndef RECON_RUNTIME_METRICS_H_
#define RECON_RUNTIME_METRICS_H_

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/metric_sink.h"

namespace recon::runtime {

using Labels = engine::Labels;

// The agent's Prometheus registry; a domain sees it only as the MetricSink
// its Reducer::ExportMetrics writes to.
class Metrics : public engine::MetricSink {
 public:
  void Declare(const std::string& name, const std::string& type, const std::string& help,
               std::vector<double> buckets = {}) override;
  void Add(const std::string& name, const Labels& labels, double delta = 1) override;
  void Set(const std::string& name, const Labels& labels, double value) override;
  void Observe(const std::string& name, const Labels& labels, double value) override;
  void ClearFamily(const std::string& name) override;
  double Value(const std::string& name, const Labels& labels = {}) const;

  std::string Render() const;

 private:
  struct Histogram {
    std::vector<uint64_t> counts;  // per bucket, not cumulative
    uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    std::string type;
    std::string help;
    std::vector<double> buckets;
    std::map<Labels, double> values;
    std::map<Labels, Histogram> histograms;
  };
  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
};

std::string FormatLabels(const Labels& labels, const std::string& extra_key = "",
                         const std::string& extra_value = "");

}  // namespace recon::runtime

#endif  // RECON_RUNTIME_METRICS_H_
