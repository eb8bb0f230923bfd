// Child processes for the soak and the restart tests: start a program with
// its output appended to a log file, wait for it with a deadline.
#ifndef RECON_SOAK_CHILD_PROCESS_H_
#define RECON_SOAK_CHILD_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace recon::soak {

// fork + execv of args[0]; stdout and stderr appended to `log`. The child
// exits 127 when the program cannot be run.
pid_t SpawnLogged(const std::vector<std::string>& args, const std::string& log);

// The exit code, 128 + the signal, or -1 when the child was still running
// after `seconds` (it is then killed with SIGKILL and reaped).
int WaitExit(pid_t pid, double seconds);

}  // namespace recon::soak

#endif  // RECON_SOAK_CHILD_PROCESS_H_
