// The operator's environment as observed: which image each operand gets is
// decided by DFA_BUSYBOX_IMAGE / DFA_SLEEPER_IMAGE there (upstream reads its
// own process environment; recon reads what the log says that environment
// was, never its own).
#ifndef RECON_DOMAINS_DISCONNECTED_OPERATOR_ENV_H_
#define RECON_DOMAINS_DISCONNECTED_OPERATOR_ENV_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/world.h"

namespace recon::disconnected {

// Where to look for the environment besides the Cluster facts.
struct EnvSource {
  std::string deployment_ns, deployment_name;  // empty: facts only
  std::string container = "manager";
};

struct OperatorEnv {
  std::map<std::string, std::string> vars;
  // In words: "Cluster facts operatorEnv", "Deployment ns/name container
  // manager", or "" when no environment was observed.
  std::string source;
  // Entries that could not be read (non-string facts, valueFrom), in words.
  std::vector<std::string> unresolved;
  // Why the environment is not known yet (nothing is synced meanwhile):
  // the configured operator Deployment is not observed (the operator is not
  // running), or no Cluster facts have been seen. Empty: known.
  std::string waiting;

  bool operator==(const OperatorEnv&) const = default;
};

// The operator Deployment's container env when it is configured (awaited
// until observed); else the `operatorEnv` Cluster fact once facts have been
// seen (absent: nothing set, the fallbacks apply).
OperatorEnv ResolveOperatorEnv(const engine::World& world, const EnvSource& source);

// Kubernetes dependent environment variables: $(VAR) is replaced by VAR's
// value when `defined` has it and left as written otherwise; $$ is a $.
std::string ExpandEnvRefs(std::string_view value, const std::map<std::string, std::string>& defined);

// One operand's image: the variable's value when it is set (even empty, as
// upstream's os.LookupEnv), else the hard-coded fallback.
struct ImageChoice {
  std::string image;
  bool from_env = false;
  std::string var, fallback;
  // "DFA_BUSYBOX_IMAGE in Cluster facts operatorEnv" or
  // "fallback: DFA_BUSYBOX_IMAGE unset".
  std::string Why(const OperatorEnv& env) const;
};
ImageChoice ChooseImage(const OperatorEnv& env, std::string_view var, std::string_view fallback);

}  // namespace recon::disconnected

#endif  // RECON_DOMAINS_DISCONNECTED_OPERATOR_ENV_H_
