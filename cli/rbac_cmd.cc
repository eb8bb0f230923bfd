// recon rbac: the least-privilege RBAC for an agent running the given
// domains, derived from what the domains declare they read and write
// (Reducer::Resources) plus the agent's own leader-election Lease. deploy/
// holds its output for the default domain set; a test keeps them equal.
#include <cstdio>
#include <string>
#include <vector>

#include "base/strings.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/domains.h"
#include "cli/io.h"
#include "cli/rbac.h"

namespace recon::cli {
namespace {

constexpr char kUsage[] =
    "usage: recon rbac [--domains a,b] [--set domain.key=value ...] [--namespace NS] [--name NAME] [--shadow]\n"
    "Prints the ClusterRole, ClusterRoleBinding, Role and RoleBinding (YAML) an agent running\n"
    "these domains needs: exactly the verbs the domains declare on the resources they watch\n"
    "and write, and get/create/update on its own Lease for leader election.\n"
    "  --domains a,b   the domains the agent runs (default: all)\n"
    "  --set k=v       a domain option the agent runs with, where it changes what the domain writes\n"
    "                  (e.g. olm.executePlans=true)\n"
    "  --namespace NS  the agent's namespace (default recon)\n"
    "  --name NAME     the name of the ServiceAccount and the roles (default recon, with --shadow\n"
    "                  recon-shadow)\n"
    "  --shadow        the read-only role of `recon agent --shadow`: only the get/list/watch the\n"
    "                  domains declare; a ClusterRole and its binding, no Role (no Lease, no writes)\n";

}  // namespace

int RunRbac(int argc, char** argv) {
  int code = 0;
  auto args = ParseCommand("rbac", kUsage, argc, argv, {"domains", "set", "namespace", "name"}, {"shadow"},
                           &code);
  if (!args) return code;
  if (!args->positionals().empty()) return UsageMismatch(kUsage);
  auto engine = MakeEngine(args->GetOr("domains", ""), args->GetAll("set"));
  if (!engine.ok()) return UsageError("rbac", engine.status().message());
  RbacOptions options;
  options.shadow = args->Has("shadow");
  options.name = args->GetOr("name", options.shadow ? "recon-shadow" : options.name);
  options.namespace_ = args->GetOr("namespace", options.namespace_);
  std::string yaml = RenderRbac(DomainResources(**engine), options);
  std::fputs(yaml.c_str(), stdout);
  return 0;
}

}  // namespace recon::cli
