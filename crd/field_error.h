// Constructors for the field errors a kube-apiserver answers, with
// k8s.io/apimachinery/pkg/util/validation/field's wording ("Required value",
// "Invalid value: <v>: <detail>", ...) and its Go rendering of bad values:
// strings %q, numbers and bools %v, lists and maps %#v.
#ifndef RECON_CRD_FIELD_ERROR_H_
#define RECON_CRD_FIELD_ERROR_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/go_quote.h"
#include "crd/registry.h"

namespace recon::crd {

// How Go's fmt renders a decoded JSON value as a field error's bad value:
// "abc" → "\"abc\"", 3 → "3", [a] → "[]interface {}{\"a\"}",
// {a: 1} → "map[string]interface {}{\"a\":1}" (keys sorted), null → "<nil>".
std::string GoValue(const Json& v);
// strconv.Quote.
using recon::GoQuote;
// Go's %v of a float64 ('g', shortest).
std::string GoFloat(double d);

FieldError Required(std::string field, std::string_view detail = "");
FieldError Forbidden(std::string field, std::string_view detail);
FieldError Invalid(std::string field, const Json& value, std::string_view detail);
FieldError TypeInvalid(std::string field, const Json& value, std::string_view detail);
FieldError NotSupported(std::string field, const Json& value, const std::vector<Json>& supported);
FieldError TooLong(std::string field, int64_t max);
FieldError TooMany(std::string field, int64_t actual, int64_t max);
FieldError Duplicate(std::string field, const Json& value);

}  // namespace recon::crd

#endif  // RECON_CRD_FIELD_ERROR_H_
