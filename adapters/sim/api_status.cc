#include "adapters/sim/api_status.h"

namespace recon::sim {

using engine::Json;

std::string ReasonFor(int status) {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "InternalError";
  }
}

Json StatusJson(int code, std::string_view reason, std::string_view message, const Json& details) {
  Json s = {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", Json::object()},
            {"status", "Failure"},
            {"message", std::string(message)},
            {"reason", std::string(reason)}};
  if (!details.is_null()) s["details"] = details;
  s["code"] = code;
  return s;
}

HttpAnswer StatusAnswer(int code, std::string_view reason, std::string_view message, const Json& details) {
  return JsonAnswer(code, StatusJson(code, reason, message, details));
}

}  // namespace recon::sim
