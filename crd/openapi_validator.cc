// kube-openapi's validation of a value against a structural schema, in its
// wording: types, formats, bounds, lengths, enums, required fields,
// patterns, anyOf/allOf/oneOf/not.
#include <re2/re2.h>

#include <algorithm>
#include <cmath>

#include "base/strings.h"
#include "crd/field_error.h"
#include "crd/formats.h"
#include "crd/schema_walks.h"

namespace recon::crd {
namespace {

// The swag type name kube-openapi reports for a decoded value.
std::string TypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::array:
      return "array";
    default:
      return "object";
  }
}

bool TypeMatches(const std::string& type, const Json& v) {
  if (type.empty()) return true;
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "integer") return v.is_number_integer() || v.is_number_unsigned();
  if (type == "number") return v.is_number();
  return true;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The "%v" of a schema bound: an integral value prints as an integer.
std::string Bound(double d) { return GoFloat(d); }

class OpenApiValidator {
 public:
  explicit OpenApiValidator(std::vector<FieldError>& out) : out_(out) {}

  // `path` is kube-openapi's name for the value ("spec.replicas").
  void Validate(const Json& v, const SchemaNode& n, const std::string& path, bool top) {
    const std::string& p = path;
    if (v.is_null()) {
      if (n.nullable || n.type.empty()) return;
      out_.push_back(TypeInvalid(p, "null", StrCat(p, " in body must be of type ", n.type, ": \"null\"")));
      return;
    }
    if (!TypeMatches(n.type, v)) {
      std::string got = TypeName(v);
      out_.push_back(TypeInvalid(p, got, StrCat(p, " in body must be of type ", n.type, ": ", GoQuote(got))));
      return;
    }
    SchemaProps(v, n, p);
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (n.max_length && static_cast<int64_t>(CodePoints(s)) > *n.max_length) {
        out_.push_back(TooLong(p, *n.max_length));
      }
      if (n.min_length && static_cast<int64_t>(CodePoints(s)) < *n.min_length) {
        out_.push_back(
            Invalid(p, v, StrCat(p, " in body should be at least ", *n.min_length, " chars long")));
      }
      if (n.regex && !re2::RE2::PartialMatch(s, *n.regex)) {
        out_.push_back(Invalid(p, v, StrCat(p, " in body should match '", n.pattern, "'")));
      }
      if (!n.format.empty() && !MatchesFormat(n.format, s)) {
        out_.push_back(TypeInvalid(p, v, StrCat(p, " in body must be of type ", n.format, ": ", GoQuote(s))));
      }
    }
    if (v.is_number()) Number(v, n, p);
    if (v.is_array()) {
      if (n.items)
        for (size_t i = 0; i < v.size(); ++i) Validate(v[i], *n.items, Index(p, i), false);
      int64_t size = static_cast<int64_t>(v.size());
      if (n.min_items && size < *n.min_items) {
        out_.push_back(Invalid(p, size, StrCat(p, " in body should have at least ", *n.min_items, " items")));
      }
      if (n.max_items && size > *n.max_items) out_.push_back(TooMany(p, size, *n.max_items));
      if (n.unique_items) {
        for (size_t i = 0; i < v.size(); ++i) {
          bool dup = false;
          for (size_t k = 0; k < i && !dup; ++k) dup = JsonEqual(v[i], v[k]);
          if (dup) {
            out_.push_back(Invalid(p, "", StrCat(p, " in body shouldn't contain duplicates")));
            break;
          }
        }
      }
    }
    if (!n.enum_values.empty()) {
      bool found = false;
      for (const Json& e : n.enum_values) found = found || JsonEqual(e, v);
      if (!found) out_.push_back(NotSupported(p, v, n.enum_values));
    }
    if (v.is_object()) Object(v, n, p, top);
  }

  // Does `v` satisfy `n` (for anyOf/oneOf/not)? Errors are discarded.
  static bool Passes(const Json& v, const SchemaNode& n, const std::string& path) {
    std::vector<FieldError> errs;
    OpenApiValidator(errs).Validate(v, n, path, false);
    return errs.empty();
  }

 private:
  void Number(const Json& v, const SchemaNode& n, const std::string& p) {
    double d = v.get<double>();
    if (n.maximum) {
      bool bad = n.exclusive_maximum ? d >= *n.maximum : d > *n.maximum;
      if (bad)
        out_.push_back(Invalid(p, v,
                               StrCat(p, " in body should be less than ",
                                      n.exclusive_maximum ? "" : "or equal to ", Bound(*n.maximum))));
    }
    if (n.minimum) {
      bool bad = n.exclusive_minimum ? d <= *n.minimum : d < *n.minimum;
      if (bad)
        out_.push_back(Invalid(p, v,
                               StrCat(p, " in body should be greater than ",
                                      n.exclusive_minimum ? "" : "or equal to ", Bound(*n.minimum))));
    }
  }

  // allOf, anyOf, oneOf, not (kube-openapi's schemaPropsValidator).
  void SchemaProps(const Json& v, const SchemaNode& n, const std::string& p) {
    for (const SchemaNode& s : n.all_of) Validate(v, s, p, false);
    if (!n.any_of.empty()) {
      bool any = false;
      for (const SchemaNode& s : n.any_of) any = any || Passes(v, s, p);
      if (!any) {
        out_.push_back(Invalid(p, "", StrCat(p, " must validate at least one schema (anyOf)")));
        Validate(v, n.any_of.front(), p, false);  // the first branch's errors, as the best failure
      }
    }
    if (!n.one_of.empty()) {
      int passed = 0;
      for (const SchemaNode& s : n.one_of) passed += Passes(v, s, p);
      if (passed == 0)
        out_.push_back(Invalid(p, "", StrCat(p, " must validate one and only one schema (oneOf)")));
      if (passed > 1)
        out_.push_back(Invalid(p, "",
                               StrCat(p, " must validate one and only one schema (oneOf). Found ", passed,
                                      " valid alternatives")));
    }
    if (n.not_schema && Passes(v, *n.not_schema, p)) {
      out_.push_back(Invalid(p, "", StrCat(p, " must not validate the schema (not)")));
    }
  }

  void Object(const Json& v, const SchemaNode& n, const std::string& p, bool top) {
    int64_t size = static_cast<int64_t>(v.size());
    if (n.max_properties && size > *n.max_properties) out_.push_back(TooMany(p, size, *n.max_properties));
    if (n.min_properties && size < *n.min_properties) {
      out_.push_back(Invalid(p, *n.min_properties,
                             StrCat(p, " in body should have at least ", *n.min_properties, " properties")));
    }
    for (const std::string& r : n.required)
      if (!v.contains(r)) out_.push_back(Required(Child(p, r)));
    for (const auto& [name, child] : n.properties) {
      if (top && name == "metadata") continue;  // the caller's (ObjectMeta validation)
      auto it = v.find(name);
      if (it != v.end()) Validate(*it, child, Child(p, name), false);
    }
    if (n.additional_properties) {
      for (auto it = v.begin(); it != v.end(); ++it)
        if (!n.properties.count(it.key())) Validate(*it, *n.additional_properties, Child(p, it.key()), false);
    }
  }

  std::vector<FieldError>& out_;
};

}  // namespace

void ValidateOpenApi(const Json& v, const SchemaNode& n, const std::string& path, bool top,
                     std::vector<FieldError>& out) {
  OpenApiValidator(out).Validate(v, n, path, top);
}

}  // namespace recon::crd
