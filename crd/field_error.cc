#include "crd/field_error.h"

#include <algorithm>
#include <utility>

#include "base/strings.h"
#include "cel/cel_value.h"

namespace recon::crd {
namespace {

std::string WithDetail(std::string body, std::string_view detail) {
  if (!detail.empty()) StrAppend(&body, ": ", detail);
  return body;
}

FieldError Make(std::string_view reason, std::string field, std::string message) {
  return FieldError{std::string(reason), std::move(field), std::move(message)};
}

}  // namespace

std::string GoFloat(double d) { return cel::GoFormatDouble(d); }

std::string GoValue(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "<nil>";
    case Json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case Json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case Json::value_t::number_unsigned:
      return std::to_string(v.get<uint64_t>());
    case Json::value_t::number_float:
      return GoFloat(v.get<double>());
    case Json::value_t::string:
      return GoQuote(v.get_ref<const std::string&>());
    case Json::value_t::array: {
      std::string out = "[]interface {}{";
      for (size_t i = 0; i < v.size(); ++i) StrAppend(&out, i ? ", " : "", GoValue(v[i]));
      return out + "}";
    }
    case Json::value_t::object: {
      // Go's fmt prints map keys sorted.
      std::vector<std::string> keys;
      for (auto it = v.begin(); it != v.end(); ++it) keys.push_back(it.key());
      std::sort(keys.begin(), keys.end());
      std::string out = "map[string]interface {}{";
      for (size_t i = 0; i < keys.size(); ++i)
        StrAppend(&out, i ? ", " : "", GoQuote(keys[i]), ":", GoValue(v[keys[i]]));
      return out + "}";
    }
    default:
      return "<nil>";
  }
}

FieldError Required(std::string field, std::string_view detail) {
  return Make("FieldValueRequired", std::move(field), WithDetail("Required value", detail));
}

FieldError Forbidden(std::string field, std::string_view detail) {
  return Make("FieldValueForbidden", std::move(field), WithDetail("Forbidden", detail));
}

FieldError Invalid(std::string field, const Json& value, std::string_view detail) {
  return Make("FieldValueInvalid", std::move(field),
              WithDetail(StrCat("Invalid value: ", GoValue(value)), detail));
}

FieldError TypeInvalid(std::string field, const Json& value, std::string_view detail) {
  return Make("FieldValueTypeInvalid", std::move(field),
              WithDetail(StrCat("Invalid value: ", GoValue(value)), detail));
}

FieldError NotSupported(std::string field, const Json& value, const std::vector<Json>& supported) {
  std::string list;
  for (size_t i = 0; i < supported.size(); ++i) {
    // apiextensions passes strings as they are and anything else JSON-encoded; field quotes each.
    const Json& s = supported[i];
    StrAppend(&list, i ? ", " : "",
              GoQuote(s.is_string() ? s.get_ref<const std::string&>() : engine::Dump(s)));
  }
  std::string msg = StrCat("Unsupported value: ", GoValue(value));
  if (!supported.empty()) StrAppend(&msg, ": supported values: ", list);
  return Make("FieldValueNotSupported", std::move(field), std::move(msg));
}

FieldError TooLong(std::string field, int64_t max) {
  return Make("FieldValueTooLong", std::move(field), StrCat("Too long: may not be longer than ", max));
}

FieldError TooMany(std::string field, int64_t actual, int64_t max) {
  return Make("FieldValueTooMany", std::move(field),
              StrCat("Too many: ", actual, ": must have at most ", max, " items"));
}

FieldError Duplicate(std::string field, const Json& value) {
  return Make("FieldValueDuplicate", std::move(field), StrCat("Duplicate value: ", GoValue(value)));
}

}  // namespace recon::crd
