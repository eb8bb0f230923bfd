// The walks Schema::Validate runs over a value, each appending the errors
// it finds in the apiserver's wording, and the field paths they name.
// Internal to crd/: schema.cc, openapi_validator.cc, list_types.cc, cel_rules.cc.
#ifndef RECON_CRD_SCHEMA_WALKS_H_
#define RECON_CRD_SCHEMA_WALKS_H_

#include <string>
#include <vector>

#include "crd/field_error.h"
#include "crd/schema.h"

namespace recon::crd {

// kube-openapi names fields "a.b" and items "a[0]"; field.Path renders map
// keys as "a[key]" (the CEL and list-type errors use field.Path).
std::string Child(const std::string& path, const std::string& name);
std::string Index(const std::string& path, size_t i);
std::string Key(const std::string& path, const std::string& k);

// Go's JSON-decoded equality (numbers by value, so 1 equals 1.0).
bool JsonEqual(const Json& a, const Json& b);

// openapi_validator.cc: kube-openapi's validation of the value against the
// schema (types, formats, bounds, enums, required, patterns, combinators).
void ValidateOpenApi(const Json& v, const SchemaNode& n, const std::string& path, bool top,
                     std::vector<FieldError>& out);

// list_types.cc: duplicates in list-type set and map arrays
// (structurallisttype.ValidateListSetsAndMaps).
void ValidateListTypes(const Json& v, const SchemaNode& n, const std::string& path, bool top,
                       std::vector<FieldError>& out);
// Does any node of the tree declare a list-type set or map (so the walk can be skipped)?
bool HasListTypes(const SchemaNode& n);

// cel_rules.cc: the x-kubernetes-validations rules, with oldSelf on an update
// (apiextensions-apiserver pkg/apiserver/schema/cel).
void ValidateCelRules(const Json& v, const Json* old, const SchemaNode& n, const std::string& path, bool top,
                      std::vector<FieldError>& out);
// Does any node of the tree carry CEL rules (so the walk can be skipped)?
bool HasRules(const SchemaNode& n);

}  // namespace recon::crd

#endif  // RECON_CRD_SCHEMA_WALKS_H_
