// What the soak reads off the agent's process: whether it still runs, its
// RSS (/proc), and its /metrics endpoint (queue depth, memory gauges), on a
// free loopback port the soak picks for it.
#ifndef RECON_SOAK_SCRAPE_H_
#define RECON_SOAK_SCRAPE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace recon::soak {

// The child has not exited (it is reaped when it has).
bool Alive(pid_t pid);
// VmRSS of the process in kB; 0 when not known.
int64_t RssKb(pid_t pid);
// A loopback port free right now (for the agent's --port).
int FreePort();
// One blocking GET on loopback (the agent's /metrics); empty on any error.
std::string LocalGet(int port, const std::string& path);
// The agent's work queue depth from /metrics; -1 when not known.
int64_t QueueDepth(int port);
// The sum of a gauge family's series in /metrics text, in kB; -1 when the
// family is not there.
int64_t GaugeKb(const std::string& metrics, const std::string& family);

}  // namespace recon::soak

#endif  // RECON_SOAK_SCRAPE_H_
