#include "domains/samples/clusteroperator.h"

#include "absl/strings/str_join.h"
#include "base/strings.h"
#include "domains/samples/conditions.h"
#include "domains/samples/names.h"
#include "engine/time_format.h"

namespace recon::samples {
namespace {

bool KnownArch(std::string_view a) {
  return a == "x86_64" || a == "amd64" || a == "arm64" || a == "ppc64le" || a == "s390x";
}

std::string NotManagedMessage(std::string_view version, std::string_view state) {
  return recon::StrCat("Samples installation was previously successful at ", version,
                       " but the samples operator is now ", state);
}

}  // namespace

std::string GoTimeString(std::string_view rfc3339) {
  // "2026-11-21T10:00:00Z" → "2026-11-21 10:00:00 +0000 UTC".
  std::string s(rfc3339);
  if (s.size() < 20) return s;
  if (s.back() == 'Z') s.pop_back();
  s[10] = ' ';
  return recon::StrCat(s, " +0000 UTC");
}

CoDesired ComputeClusterOperator(const Json& spec, Json& status, const CoInputs& in, int64_t now_ns) {
  CoDesired d;
  const std::string status_version = engine::GetString(status, {"version"});
  auto special = [&](std::string_view reason, std::string_view progressing) {
    d.special = true;
    d.conditions = {{"Degraded", "False", std::string(reason), ""},
                    {"Available", "True", std::string(reason), ""},
                    {"Progressing", std::string(progressing), std::string(reason), ""}};
    d.version = status_version;
    return d;
  };
  if (in.deletion) return special("DeletionInProgress", "True");
  const Json& archs = engine::Path(spec, {"architectures"});
  if (archs.is_array() && !archs.empty() &&
      (!archs[0].is_string() || !KnownArch(archs[0].get<std::string>()))) {
    return special("UnsupportHWArchitecture", "False");
  }
  if (in.tbr_unreachable) return special("TermsBasedRegistryUnreacahable", "False");

  const std::string state = engine::GetString(status, {"managementState"});
  const bool not_managed = state == kRemoved || state == kUnmanaged;
  const std::string& v = in.operator_version;

  // Degraded.
  CoCondition degraded{"Degraded", "False", "", ""};
  const Json& conds = engine::Path(status, {"conditions"});
  const size_t count = conds.is_array() ? conds.size() : 0;
  if (count < kConditionTypeCount) {
    // Not fully processed once yet.
  } else if (not_managed) {
    degraded = {"Degraded", "False", recon::StrCat("Currently", state),
                NotManagedMessage(status_version, state)};
  } else if (ConditionFalse(status, kConfigurationValid)) {
    degraded = {"Degraded", "True", "InvalidConfiguration",
                recon::StrCat("Samples installation in error at ", v, ": ",
                              ConditionMessage(status, kConfigurationValid))};
  } else {
    std::string reason, message;
    bool unknown = false;
    for (const Json& c : conds) {
      std::string m = engine::GetString(c, {"message"});
      if (!m.empty()) recon::StrAppend(&message, m, ";");
      if (!unknown && engine::GetString(c, {"status"}) == "Unknown") {
        unknown = true;
        reason = engine::GetString(c, {"reason"});
      }
    }
    if (unknown) degraded = {"Degraded", "True", reason, message};
  }
  d.degraded = degraded.status == "True";

  // Available.
  CoCondition available{"Available", "True", "", ""};
  if (not_managed) {
    available = {"Available", "True", recon::StrCat("Currently", state),
                 NotManagedMessage(status_version, state)};
  } else if (!ConditionTrue(status, kSamplesExist)) {
    // Get-or-create: this read adds SamplesExist (False) to the copy.
    std::string msg = engine::GetString(Condition(status, kSamplesExist, now_ns), {"message"});
    available = {"Available", "False", "SampleUpsertsPending", msg};
  } else {
    available.message =
        recon::StrCat("Samples installation successful at ", status_version.empty() ? v : status_version);
  }

  // Progressing (gets Degraded's reason).
  CoCondition progressing{"Progressing", "False", "", ""};
  if (not_managed) {
    progressing = {"Progressing", "False", recon::StrCat("Currently", state),
                   NotManagedMessage(status_version, state)};
  } else if (!degraded.reason.empty()) {
    progressing = {"Progressing", "True", "",
                   recon::StrCat("Samples installation in error at ", v, ": ", degraded.reason)};
  } else if (ConditionTrue(status, kRemovePending)) {
    progressing = {"Progressing", "True", "", recon::StrCat("Deleting samples at ", v)};
  } else if (available.status == "True") {
    if (ConditionTrue(status, kImportImageErrorsExist)) {
      const Json* c = FindCondition(status, kImportImageErrorsExist);
      progressing = {"Progressing", "False", "FailedImageImports",
                     recon::StrCat("Samples installed at ", status_version,
                                   ", with image import failures for these imagestreams: ",
                                   absl::StrJoin(in.active_configmaps, ","), "; last import attempt ",
                                   GoTimeString(engine::GetString(*c, {"lastUpdateTime"})))};
    } else {
      progressing.message = recon::StrCat("Samples installation successful at ", status_version);
    }
  } else if (ConditionTrue(status, kImageChangesInProgress)) {
    progressing = {"Progressing", "True", "", recon::StrCat("Samples processing to ", v)};
  }
  d.conditions = {degraded, available, progressing};
  d.version = status_version;
  return d;
}

bool MergeClusterOperator(const Json& observed, const CoDesired& desired, int64_t now_ns, Json* out) {
  const std::string now = engine::FormatRfc3339Seconds(now_ns);
  Json conds = Json::array();
  const Json& old = engine::Path(observed, {"conditions"});
  // A CO without conditions is one we just created (a create's status is
  // dropped by the server): its first status write is always made.
  bool modified = !old.is_array() || old.empty();
  if (!modified) {
    conds = old;
  } else {
    // It starts with all three Unknown (upstream's order).
    for (std::string_view t : {"Available", "Progressing", "Degraded"}) {
      Json c = Json::object();
      c["type"] = t;
      c["status"] = "Unknown";
      c["lastTransitionTime"] = now;
      conds.push_back(std::move(c));
    }
  }
  for (const CoCondition& want : desired.conditions) {
    Json* slot = nullptr;
    for (Json& c : conds) {
      if (engine::GetString(c, {"type"}) == want.type) slot = &c;
    }
    Json n = Json::object();
    n["type"] = want.type;
    n["status"] = want.status;
    std::string ltt = now;
    if (slot) {
      if (engine::GetString(*slot, {"status"}) == want.status)
        ltt = engine::GetString(*slot, {"lastTransitionTime"}, now);
      if (engine::GetString(*slot, {"status"}) != want.status ||
          engine::GetString(*slot, {"reason"}) != want.reason ||
          engine::GetString(*slot, {"message"}) != want.message) {
        modified = true;
      }
    } else {
      modified = true;
    }
    n["lastTransitionTime"] = ltt;
    if (!want.reason.empty()) n["reason"] = want.reason;
    if (!want.message.empty()) n["message"] = want.message;
    if (slot) {
      *slot = std::move(n);
    } else {
      conds.push_back(std::move(n));
    }
  }
  Json versions = engine::Path(observed, {"versions"});
  if (!desired.version.empty()) {
    Json want = Json::array({Json{{"name", "operator"}, {"version", desired.version}}});
    if (versions != want) modified = true;
    versions = std::move(want);
  }
  Json status = Json::object();
  status["conditions"] = std::move(conds);
  if (versions.is_array() && !versions.empty()) status["versions"] = std::move(versions);
  Json related = Json::array();
  related.push_back(Json{{"group", kSamplesGroup}, {"resource", "configs"}, {"name", kConfigName}});
  related.push_back(Json{{"group", ""}, {"resource", "namespaces"}, {"name", kOperatorNs}});
  related.push_back(
      Json{{"group", kTemplateGroup}, {"resource", "templates"}, {"namespace", kSamplesNs}, {"name", ""}});
  related.push_back(
      Json{{"group", kImageGroup}, {"resource", "imagestreams"}, {"namespace", kSamplesNs}, {"name", ""}});
  status["relatedObjects"] = std::move(related);
  *out = std::move(status);
  return modified;
}

}  // namespace recon::samples
