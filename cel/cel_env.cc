#include "cel/cel_env.h"

namespace recon::cel {

CelEnv& CelEnv::Declare(std::string name, CelType type) {
  for (auto& [n, t] : variables_) {
    if (n == name) {
      t = std::move(type);
      return *this;
    }
  }
  variables_.emplace_back(std::move(name), std::move(type));
  return *this;
}

CelEnv& CelEnv::AddFunction(CelFunction f) {
  functions_.push_back(std::move(f));
  return *this;
}

const CelType* CelEnv::FindVariable(std::string_view name) const {
  for (const auto& [n, t] : variables_)
    if (n == name) return &t;
  return nullptr;
}

std::vector<const CelFunction*> CelEnv::FindFunctions(std::string_view name, bool receiver) const {
  std::vector<const CelFunction*> out;
  for (const auto& f : functions_)
    if (f.name == name && f.receiver == receiver) out.push_back(&f);
  return out;
}

}  // namespace recon::cel
