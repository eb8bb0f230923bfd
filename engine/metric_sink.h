// What a domain's Reducer::ExportMetrics writes its Prometheus series to.
// An interface in the core so the reducer contract does not name the
// runtime's registry (runtime/metrics.h implements it): a domain links no
// runtime code.
#ifndef RECON_ENGINE_METRIC_SINK_H_
#define RECON_ENGINE_METRIC_SINK_H_

#include <map>
#include <string>
#include <vector>

namespace recon::engine {

using Labels = std::map<std::string, std::string>;

class MetricSink {
 public:
  virtual ~MetricSink() = default;
  // Declares a family (type "counter", "gauge" or "histogram") with its help.
  virtual void Declare(const std::string& name, const std::string& type, const std::string& help,
                       std::vector<double> buckets = {}) = 0;
  virtual void Add(const std::string& name, const Labels& labels, double delta = 1) = 0;
  virtual void Set(const std::string& name, const Labels& labels, double value) = 0;
  virtual void Observe(const std::string& name, const Labels& labels, double value) = 0;
  // Removes every series of a gauge family (before re-deriving it).
  virtual void ClearFamily(const std::string& name) = 0;
};

}  // namespace recon::engine

#endif  // RECON_ENGINE_METRIC_SINK_H_
