#include "domains/disconnected/operator_env.h"

#include "base/strings.h"
#include "domains/disconnected/names.h"

namespace recon::disconnected {

std::string ExpandEnvRefs(std::string_view value, const std::map<std::string, std::string>& defined) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c != '$' || i + 1 == value.size()) {
      out += c;
      continue;
    }
    char next = value[i + 1];
    if (next == '$') {
      out += '$';
      ++i;
      continue;
    }
    if (next == '(') {
      size_t close = value.find(')', i + 2);
      if (close != std::string_view::npos) {
        std::string name(value.substr(i + 2, close - i - 2));
        auto it = defined.find(name);
        if (it != defined.end()) {
          out += it->second;
        } else {
          out.append(value.substr(i, close - i + 1));
        }
        i = close;
        continue;
      }
    }
    out += c;
  }
  return out;
}

namespace {

bool FromDeployment(const engine::World& world, const EnvSource& src, OperatorEnv& env) {
  if (src.deployment_name.empty()) return false;
  const engine::Object* d = world.Get(kAppsGroup, kDeploymentKind, src.deployment_ns, src.deployment_name);
  if (d == nullptr) return false;
  const engine::Json& containers = engine::Path(d->json(), {"spec", "template", "spec", "containers"});
  if (!containers.is_array()) return false;
  for (const engine::Json& c : containers) {
    if (engine::GetString(c, {"name"}) != src.container) continue;
    env.source = recon::StrCat("Deployment ", src.deployment_ns, "/", src.deployment_name, " container ",
                               src.container);
    const engine::Json& list = engine::Path(c, {"env"});
    if (!list.is_array()) return true;
    for (const engine::Json& e : list) {
      std::string name = engine::GetString(e, {"name"});
      if (name.empty()) continue;
      const engine::Json& v = engine::Path(e, {"value"});
      if (v.is_string()) {
        env.vars[name] = ExpandEnvRefs(v.get<std::string>(), env.vars);
      } else if (!engine::Path(e, {"valueFrom"}).is_null()) {
        // Resolved by the kubelet at pod start; not visible in the object.
        env.unresolved.push_back(recon::StrCat(name, ": valueFrom is not resolved (treated as unset)"));
        env.vars.erase(name);
      } else {
        env.vars[name] = "";  // an entry without value is set to ""
      }
    }
    return true;
  }
  return false;
}

}  // namespace

OperatorEnv ResolveOperatorEnv(const engine::World& world, const EnvSource& src) {
  OperatorEnv env;
  if (FromDeployment(world, src, env)) return env;
  if (!src.deployment_name.empty()) {
    env.waiting = recon::StrCat("the operator Deployment ", src.deployment_ns, "/", src.deployment_name,
                                " (disconnected.operatorDeployment) is not observed");
    return env;
  }
  if (world.facts().empty()) {
    env.waiting = "no Cluster facts seen yet (the operator environment is the operatorEnv fact)";
    return env;
  }
  const engine::Json& fact = engine::Path(world.facts(), {kEnvFact});
  if (!fact.is_object()) return env;
  env.source = recon::StrCat("Cluster facts ", kEnvFact);
  for (auto it = fact.begin(); it != fact.end(); ++it) {
    if (it.value().is_string()) {
      env.vars[it.key()] = it.value().get<std::string>();
    } else {
      env.unresolved.push_back(recon::StrCat(it.key(), ": not a string (treated as unset)"));
    }
  }
  return env;
}

ImageChoice ChooseImage(const OperatorEnv& env, std::string_view var, std::string_view fallback) {
  ImageChoice c;
  c.var = std::string(var);
  c.fallback = std::string(fallback);
  auto it = env.vars.find(c.var);
  if (it != env.vars.end()) {
    c.image = it->second;
    c.from_env = true;
  } else {
    c.image = c.fallback;
  }
  return c;
}

std::string ImageChoice::Why(const OperatorEnv& env) const {
  if (from_env) return recon::StrCat(var, " in ", env.source);
  if (env.source.empty()) return recon::StrCat("fallback: no operator environment observed");
  return recon::StrCat("fallback: ", var, " unset in ", env.source);
}

}  // namespace recon::disconnected
