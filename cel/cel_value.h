// Runtime values of the CEL subset that olm.constraint rules use
// (reference §9.6): null, bool, int, uint, double, string, list and map.
// Lists and maps are immutable and shared, so copying a value is cheap.
// Maps keep insertion order (JSON objects: document order), so nothing that
// iterates a map depends on hashing.
#ifndef RECON_CEL_CEL_VALUE_H_
#define RECON_CEL_CEL_VALUE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/json.h"

namespace recon::cel {

class CelValue {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kList, kMap };
  using List = std::vector<CelValue>;
  // Keys are unique (CEL equality); order is insertion order.
  using Map = std::vector<std::pair<CelValue, CelValue>>;

  CelValue() = default;  // null
  static CelValue Null() { return CelValue(); }
  static CelValue Bool(bool b) { return CelValue(Rep(std::in_place_index<1>, b)); }
  static CelValue Int(int64_t i) { return CelValue(Rep(std::in_place_index<2>, i)); }
  static CelValue Uint(uint64_t u) { return CelValue(Rep(std::in_place_index<3>, u)); }
  static CelValue Double(double d) { return CelValue(Rep(std::in_place_index<4>, d)); }
  static CelValue String(std::string s) { return CelValue(Rep(std::in_place_index<5>, std::move(s))); }
  static CelValue MakeList(List l);
  static CelValue MakeMap(Map m);  // the caller guarantees unique keys

  Kind kind() const { return static_cast<Kind>(rep_.index()); }
  bool is(Kind k) const { return kind() == k; }
  bool AsBool() const { return std::get<1>(rep_); }
  int64_t AsInt() const { return std::get<2>(rep_); }
  uint64_t AsUint() const { return std::get<3>(rep_); }
  double AsDouble() const { return std::get<4>(rep_); }
  const std::string& AsString() const { return std::get<5>(rep_); }
  const List& AsList() const { return *std::get<6>(rep_); }
  const Map& AsMap() const { return *std::get<7>(rep_); }
  bool IsNumber() const { return is(Kind::kInt) || is(Kind::kUint) || is(Kind::kDouble); }

  // Map lookup with CEL key equality (1, 1u and 1.0 are the same key).
  const CelValue* Find(const CelValue& key) const;
  // Short human form for messages and tests: 1, 2u, 1.5, "s", [..], {k: v}.
  std::string DebugString() const;

 private:
  using Rep = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string,
                           std::shared_ptr<const List>, std::shared_ptr<const Map>>;
  explicit CelValue(Rep r) : rep_(std::move(r)) {}
  Rep rep_;
};

// "int", "list", "map", ... (CEL type names, for error messages).
std::string_view CelKindName(CelValue::Kind k);

// CEL heterogeneous equality: numbers compare by value across int, uint and
// double; values of different kinds are unequal; lists and maps compare
// element-wise.
bool CelEquals(const CelValue& a, const CelValue& b);

// Ordering for < <= > >=: -1/0/1, or nullopt when the kinds do not compare
// (or a NaN is involved). Numbers compare across kinds; strings bytewise;
// false < true.
std::optional<int> CelCompare(const CelValue& a, const CelValue& b);

// A value decoded from JSON the way Go's encoding/json fills an interface{}
// (OLM decodes property values like that): every number becomes a double.
CelValue CelFromJson(const engine::Json& j);

// Go's %v of a float64 (strconv 'g', shortest): 1, 0.5, 1e+21, 1.5e-07.
std::string GoFormatDouble(double d);

}  // namespace recon::cel

#endif  // RECON_CEL_CEL_VALUE_H_
