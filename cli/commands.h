// Sub-commands of the `recon` binary. Each returns the process exit code:
// 0 ok, 1 failure (bad input, divergence), 2 usage error.
#ifndef RECON_CLI_COMMANDS_H_
#define RECON_CLI_COMMANDS_H_

namespace recon::cli {

int RunLog(int argc, char** argv);
int RunLogCopy(int argc, char** argv);  // log_copy.cc
int RunBench(int argc, char** argv);
int RunCatalog(int argc, char** argv);
int RunMirrorList(int argc, char** argv);
int RunReplay(int argc, char** argv);
int RunSnapshot(int argc, char** argv);
int RunSim(int argc, char** argv);
int RunExplain(int argc, char** argv);
int RunAgent(int argc, char** argv);
int RunRbac(int argc, char** argv);
int RunSoak(int argc, char** argv);
int RunShadow(int argc, char** argv);

}  // namespace recon::cli

#endif  // RECON_CLI_COMMANDS_H_
