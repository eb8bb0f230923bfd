// One CRD version's openAPIV3Schema compiled into a structural schema: the
// tree the apiserver prunes, defaults and validates a custom resource with.
// Compiled once (patterns into RE2, CEL rules into programs); Prune, Default
// and Validate only walk it.
#ifndef RECON_CRD_SCHEMA_H_
#define RECON_CRD_SCHEMA_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cel/cel.h"
#include "crd/registry.h"

namespace re2 {
class RE2;
}

namespace recon::crd {

// One x-kubernetes-validations entry.
struct CelRule {
  std::string rule, message, message_expression, reason, field_path;
  std::shared_ptr<const cel::CelProgram> program;
  std::shared_ptr<const cel::CelProgram> message_program;  // null without messageExpression
  bool uses_old_self = false;  // a transition rule: runs only when an old value exists
};

struct SchemaNode {
  std::string type;  // "", "object", "array", "string", "integer", "number", "boolean"
  bool nullable = false;
  bool preserve_unknown = false;   // x-kubernetes-preserve-unknown-fields
  bool embedded_resource = false;  // x-kubernetes-embedded-resource
  bool int_or_string = false;      // x-kubernetes-int-or-string
  bool has_default = false;
  Json default_value;
  std::string format;
  std::vector<Json> enum_values;
  std::optional<double> minimum, maximum;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<int64_t> min_length, max_length, min_items, max_items, min_properties, max_properties;
  bool unique_items = false;
  std::string pattern;
  std::shared_ptr<const re2::RE2> regex;
  std::vector<std::string> required;
  std::map<std::string, SchemaNode> properties;  // by name: the order fields are validated in
  std::unique_ptr<SchemaNode> additional_properties;
  std::unique_ptr<SchemaNode> items;
  std::string list_type;  // x-kubernetes-list-type: atomic, set, map
  std::vector<std::string> list_map_keys;
  std::vector<SchemaNode> any_of, all_of, one_of;
  std::unique_ptr<SchemaNode> not_schema;
  std::vector<CelRule> rules;

  // The schema of a field of an object value (a property, or the
  // additionalProperties schema); null when neither declares it.
  const SchemaNode* Field(const std::string& name) const;
};

class Schema {
 public:
  // `where` starts every error ("<file>: CustomResourceDefinition \"x\"
  // version v1"); errors name the schema path and, for CEL, the rule.
  static absl::StatusOr<std::shared_ptr<const Schema>> Compile(const Json& open_api_v3_schema,
                                                               std::string_view where);

  const SchemaNode& root() const { return root_; }

  // Drops the fields the schema does not declare (see registry.h); their
  // paths ("spec.foo", "spec.items[0].bar") appended to `dropped`, in
  // document order, when given.
  void Prune(Json& object, std::vector<std::string>* dropped = nullptr) const;
  // Sets `default:`s on absent fields (and on nulls of non-nullable fields,
  // which it otherwise drops), top-down, as structural defaulting does.
  void Default(Json& object) const;
  // The OpenAPI errors, then list-type set/map duplicates, then CEL rules,
  // the order the apiserver's strategy appends them in.
  std::vector<FieldError> Validate(const Json& object, const Json* old) const;

 private:
  SchemaNode root_;
  bool has_rules_ = false, has_list_types_ = false;  // whether those walks can find anything
};

}  // namespace recon::crd

#endif  // RECON_CRD_SCHEMA_H_
