#include "runtime/redact.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "base/strings.h"
#include "engine/json.h"
#include "engine/reducer.h"
#include "runtime/secret_table.h"
#include "runtime/secret_views.h"

namespace recon::runtime {

using engine::Dump;
using engine::Json;
using engine::ParseJson;
using engine::Reducer;
using engine::SensitiveField;
namespace {

constexpr size_t kKeyBytes = 32;
constexpr char kLastApplied[] = "kubectl.kubernetes.io/last-applied-configuration";

std::string Hex(const unsigned char* p, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 15];
  }
  return out;
}

absl::StatusOr<std::string> ParseKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(recon::StrCat(path, ": cannot read the redaction key file"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  bool hex =
      text.size() == 2 * kKeyBytes && text.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
  if (!hex) {
    return absl::InvalidArgumentError(recon::StrCat(path, ": expected the redaction key as ", 2 * kKeyBytes,
                                                    " hex digits on one line, got ", text.size(),
                                                    " characters"));
  }
  return absl::HexStringToBytes(Av(text));
}

std::string RandomKey() {
  unsigned char buf[kKeyBytes];
  if (RAND_bytes(buf, sizeof buf) != 1) {
    // OpenSSL's generator failed (no entropy source): fall back to the
    // kernel's, which RAND_bytes normally reads anyway.
    std::ifstream urandom("/dev/urandom", std::ios::binary);
    urandom.read(reinterpret_cast<char*>(buf), sizeof buf);
  }
  return std::string(reinterpret_cast<char*>(buf), sizeof buf);
}

using Recorded = std::vector<std::pair<std::string, SecretValue>>;

// One redaction pass over a parsed body.
class Pass {
 public:
  // `recorded`: where each marker made goes with its value; null: nowhere.
  Pass(const Redactor& r, Recorded* recorded) : r_(r), recorded_(recorded) {}

  void Set(Json& slot, std::string value) { slot = std::move(value); }

  void Record(const std::string& redacted, std::string value, SecretValue::Form form) {
    if (recorded_ != nullptr) recorded_->push_back({redacted, SecretValue{std::move(value), form}});
  }

  // The marker of one scalar (strings by their text, others by their JSON).
  // `string_form`: how a string goes back (a YAML view's scalars go back
  // quoted when a reducer copies them into YAML text).
  void Leaf(Json& v, SecretValue::Form string_form = SecretValue::Form::kText) {
    if (v.is_null()) return;
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (Redactor::IsRedacted(s)) return;
      std::string marker = r_.Hash(s);
      Record(marker, std::move(s), string_form);
      Set(v, std::move(marker));
      return;
    }
    std::string text = Dump(v);
    std::string marker = r_.Hash(text);
    Record(marker, std::move(text), SecretValue::Form::kJson);
    Set(v, std::move(marker));
  }

  // Every scalar below `v`; object keys stay.
  void Tree(Json& v) {
    if (v.is_object() || v.is_array()) {
      for (auto& child : v) Tree(child);
    } else {
      Leaf(v);
    }
  }

  void At(Json& v, const std::vector<std::string>& path, size_t i) {
    if (i == path.size()) {
      Tree(v);
      return;
    }
    if (path[i] == "*") {
      if (v.is_object() || v.is_array())
        for (auto& child : v) At(child, path, i + 1);
      return;
    }
    if (!v.is_object()) return;
    auto it = v.find(path[i]);
    if (it != v.end()) At(*it, path, i + 1);
  }

  // A docker config (JSON text): key names (registry hosts, "auth") stay,
  // every leaf is hashed. Returns the redacted text (always re-serialized,
  // as a Secret body is), or nullopt when the text is not a JSON object.
  std::optional<std::string> DockerConfig(std::string_view text) {
    auto parsed = ParseJson(text);
    if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
    Tree(*parsed);
    return Dump(*parsed);
  }

  // One value of a Secret's `data` (base64) or `stringData` (plain).
  void DataValue(std::string_view key, Json& v, bool base64) {
    if (!v.is_string()) {
      Tree(v);
      return;
    }
    const std::string& s = v.get_ref<const std::string&>();
    if (Redactor::IsRedacted(s)) return;
    std::string plain;
    bool decoded = base64 && absl::Base64Unescape(Av(s), &plain);
    std::string_view text = !base64   ? std::string_view(s)
                            : decoded ? std::string_view(plain)
                                      : std::string_view();
    if ((key == ".dockerconfigjson" || key == ".dockercfg") && (!base64 || decoded)) {
      // Kept readable the way consumers read it (base64 in `data`), so a
      // domain can still ask which registries have credentials.
      if (auto redacted = DockerConfig(text)) {
        if (*redacted != text) {
          std::string stored = base64 ? absl::Base64Escape(Av(*redacted)) : *redacted;
          // A reducer may copy the whole config: it goes back verbatim.
          Record(stored, s, SecretValue::Form::kText);
          Set(v, std::move(stored));
        }
        return;
      }
    }
    // Hashed over the decoded bytes: `data` and `stringData` holding the
    // same value give the same marker. Undecodable base64 by its text.
    bool bytes = !base64 || decoded;
    std::string value = base64 && decoded ? plain : s;
    std::string marker = r_.Hash(value);
    Record(marker, std::move(value), bytes ? SecretValue::Form::kBytes : SecretValue::Form::kText);
    Set(v, std::move(marker));
  }

  void Secret(Json& body) {
    for (const char* field : {"data", "stringData"}) {
      auto it = body.find(field);
      if (it == body.end()) continue;
      if (!it->is_object()) {
        Tree(*it);
        continue;
      }
      bool base64 = std::string_view(field) == "data";
      for (auto kv = it->begin(); kv != it->end(); ++kv) DataValue(kv.key(), kv.value(), base64);
    }
    // `kubectl apply` keeps the whole object, values included, here.
    auto meta = body.find("metadata");
    if (meta != body.end() && meta->is_object()) {
      auto ann = meta->find("annotations");
      if (ann != meta->end() && ann->is_object()) {
        auto la = ann->find(kLastApplied);
        if (la != ann->end()) Leaf(*la);
      }
    }
  }

 private:
  const Redactor& r_;
  Recorded* recorded_;
};

bool IsSecret(const records::ObjectIdRecord& o) { return o.group.empty() && o.kind == "Secret"; }

std::string SourceOf(const records::ObjectIdRecord& o) {
  return recon::StrCat(o.group, "/", o.kind, "/", o.ns, "/", o.name);
}

std::string MinimalBody(const records::ObjectIdRecord& o) {
  Json meta = {{"name", o.name}};
  if (!o.ns.empty()) meta["namespace"] = o.ns;
  Json body = {{"apiVersion", o.group.empty() ? o.version : recon::StrCat(o.group, "/", o.version)},
               {"kind", o.kind},
               {"metadata", std::move(meta)}};
  return Dump(body);
}

}  // namespace

Redactor::Redactor(std::string key) : key_(std::move(key)) {}

Redactor Redactor::WithRandomKey() { return Redactor(RandomKey()); }

absl::StatusOr<Redactor> Redactor::FromKeyFile(const std::string& path) {
  auto key = ParseKeyFile(path);
  if (!key.ok()) return key.status();
  return Redactor(std::move(*key));
}

absl::StatusOr<Redactor> Redactor::ForLog(store::EventStore& store) {
  constexpr std::string_view kAux = "redaction-key";
  auto held = store.GetAux(kAux);
  if (!held.ok()) return held.status();
  if (!held->has_value()) {
    std::string key = RandomKey();
    if (auto s = store.PutAux(kAux, Hex(reinterpret_cast<const unsigned char*>(key.data()), key.size())); !s.ok())
      return s;
    return Redactor(std::move(key));
  }
  const std::string& text = **held;
  if (text.size() != 2 * kKeyBytes || text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    return absl::DataLossError(
        recon::StrCat("the store's redaction key (aux record redaction-key) is not ", 2 * kKeyBytes, " hex digits"));
  }
  return Redactor(absl::HexStringToBytes(Av(text)));
}

absl::StatusOr<Redactor> Redactor::ForStore(const std::string& store_dir) {
  std::error_code ec;
  std::filesystem::create_directories(store_dir, ec);
  if (ec)
    return absl::InternalError(
        recon::StrCat(store_dir, ": cannot create the store directory: ", ec.message()));
  std::string path = recon::StrCat(store_dir, "/", kRedactionKeyFile);
  if (access(path.c_str(), F_OK) != 0) {
    // Written to a private temporary, then linked into place: two processes
    // opening a new store at once agree on whichever key landed first.
    std::string tmp = recon::StrCat(path, ".tmp.", getpid());
    int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return absl::InternalError(recon::StrCat(tmp, ": cannot create: ", std::strerror(errno)));
    std::string key = RandomKey();
    std::string text = Hex(reinterpret_cast<const unsigned char*>(key.data()), key.size()) + "\n";
    bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fsync(fd) == 0;
    close(fd);
    if (!ok) {
      unlink(tmp.c_str());
      return absl::InternalError(recon::StrCat(tmp, ": cannot write the redaction key"));
    }
    int linked = link(tmp.c_str(), path.c_str());
    int err = errno;
    unlink(tmp.c_str());
    if (linked != 0 && err != EEXIST) {
      return absl::InternalError(recon::StrCat(path, ": cannot create: ", std::strerror(err)));
    }
  }
  return FromKeyFile(path);
}

void Redactor::AddSensitiveFields(const std::vector<SensitiveField>& fields) {
  fields_.insert(fields_.end(), fields.begin(), fields.end());
}

void Redactor::AddSecretViews(const std::vector<engine::SecretView>& views) {
  views_.insert(views_.end(), views.begin(), views.end());
}

void Redactor::AddDomainRulesOf(std::span<const std::unique_ptr<Reducer>> reducers) {
  for (const auto& r : reducers) {
    engine::DomainDescriptor d = r->Describe();
    AddSensitiveFields(d.sensitive_fields);
    AddSecretViews(d.secret_views);
  }
}

std::string Redactor::Hash(std::string_view value) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
       reinterpret_cast<const unsigned char*>(value.data()), value.size(), mac, &len);
  return recon::StrCat(kRedactedPrefix, Hex(mac, len));
}

absl::Status Redactor::Redact(records::EventRecord& event) const {
  if (event.type != records::EventType::kAdded && event.type != records::EventType::kModified &&
      event.type != records::EventType::kDeleted) {
    return absl::OkStatus();
  }
  const records::ObjectIdRecord& o = event.object;
  if (!Covers(o.group, o.kind)) return absl::OkStatus();
  bool secret = IsSecret(o);
  bool deleted = event.type == records::EventType::kDeleted;
  Recorded recorded;
  // The table follows the cluster: what this observation holds replaces
  // what the object held before; a deleted object's values are dropped.
  auto update_table = [&] {
    if (!table_) return;
    if (deleted) {
      table_->Forget(SourceOf(o));
    } else {
      table_->Replace(SourceOf(o), std::move(recorded));
    }
  };
  auto body = ParseJson(event.body);
  if (!body.ok() || !body->is_object()) {
    // Where the values are cannot be known: keep none of them.
    if (!event.body.empty()) event.body = MinimalBody(o);
    update_table();
    return absl::OkStatus();
  }
  Pass pass(*this, table_ && !deleted ? &recorded : nullptr);
  // From the values, before they are replaced.
  if (secret)
    ComputeSecretViews(views_, o.ns, o.name, *body,
                       [&pass](Json& v) { pass.Leaf(v, SecretValue::Form::kYamlText); });
  if (secret) pass.Secret(*body);
  for (const auto& f : fields_) {
    if (f.group == o.group && f.kind == o.kind) pass.At(*body, f.path, 0);
  }
  update_table();
  // Re-serialized even when no value changed: the text received may hold
  // what the parse dropped (a duplicate "data" key keeps only the last).
  event.body = Dump(*body);
  return absl::OkStatus();
}

absl::Status Redactor::RedactAll(std::span<records::EventRecord> events) const {
  for (auto& e : events) {
    if (auto s = Redact(e); !s.ok()) return s;
  }
  return absl::OkStatus();
}

bool Redactor::Covers(std::string_view group, std::string_view kind) const {
  if (group.empty() && kind == "Secret") return true;
  for (const auto& f : fields_) {
    if (f.group == group && f.kind == kind) return true;
  }
  return false;
}

void Redactor::Learn(std::vector<records::EventRecord> objects) const {
  if (!table_) return;
  for (auto& o : objects) {
    // Only the table's update matters; the redacted copy is dropped.
    if (o.type == records::EventType::kDeleted) continue;
    (void)Redact(o);
  }
}

}  // namespace recon::runtime
