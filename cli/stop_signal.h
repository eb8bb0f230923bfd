// SIGINT/SIGTERM before (and after) the agent's event loop owns them: a
// handler that only records the request, so a signal during start-up
// (reading inputs, opening the store) ends the agent with exit 0 instead of
// killing it; the runtime reads the flag once its own handlers are in.
#ifndef RECON_CLI_STOP_SIGNAL_H_
#define RECON_CLI_STOP_SIGNAL_H_

namespace recon::cli {

// Installs the recording handler for SIGINT and SIGTERM (idempotent; call
// again after the runtime's loop gave the signals back).
void InstallStopHandler();
// True once SIGINT or SIGTERM arrived while the handler was installed.
bool StopRequested();

}  // namespace recon::cli

#endif  // RECON_CLI_STOP_SIGNAL_H_
