// A small Prometheus registry: counters, gauges and histograms with
// labels, rendered in the text exposition format (families and series in
// sorted order, so the output is stable).
#ifndef RECON_ENGINE_METRICS_H_
#define RECON_ENGINE_METRICS_H_

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace recon::engine {

using Labels = std::map<std::string, std::string>;

class Metrics {
 public:
  // Declares a family (type "counter", "gauge" or "histogram") with its help.
  void Declare(const std::string& name, const std::string& type, const std::string& help,
               std::vector<double> buckets = {});
  void Add(const std::string& name, const Labels& labels, double delta = 1);
  void Set(const std::string& name, const Labels& labels, double value);
  void Observe(const std::string& name, const Labels& labels, double value);
  // Removes every series of a gauge family (before re-deriving it).
  void ClearFamily(const std::string& name);
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

std::string FormatLabels(const Labels& labels, const std::string& extra_key = "", const std::string& extra_value = "");

}  // namespace recon::engine

#endif  // RECON_ENGINE_METRICS_H_
