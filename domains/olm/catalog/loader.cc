#include "domains/olm/catalog/loader.h"

#include <algorithm>

#include "base/strings.h"
#include "domains/olm/catalog/ignore.h"
#include "domains/olm/catalog/json_doc.h"
#include "domains/olm/catalog/yaml_doc.h"

namespace recon::olm {
namespace {

struct FileResult {
  DeclarativeConfig part;
  absl::Status status;
  std::shared_ptr<const std::string> content;
};

bool StartsWithBrace(std::string_view s) {
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

absl::Status ParseFile(const std::string& text, uint32_t index, bool excise, DeclarativeConfig* part) {
  if (StartsWithBrace(text)) {
    return ParseJsonStream(text, index, excise, [&](Node&& d, uint32_t blob) {
      Location loc{index, blob, 0};
      if (auto st = AddBlob(std::move(d), loc, part); !st.ok()) {
        return absl::InvalidArgumentError(StrCat("blob ", loc.blob, ": ", Sv(st.message())));
      }
      return absl::OkStatus();
    });
  }
  auto slices = SplitYamlDocuments(text);
  if (!slices.ok()) return slices.status();
  uint32_t blob = 0;
  for (const auto& s : *slices) {
    auto node = ParseYamlDocument(text, s, index, excise);
    if (!node.ok()) return node.status();
    if (node->kind == Node::Kind::kScalar && node->IsNull()) continue;  // empty document
    Location loc{index, blob++, s.line};
    if (auto st = AddBlob(std::move(*node), loc, part); !st.ok()) {
      return absl::InvalidArgumentError(StrCat("line ", s.line, ": ", Sv(st.message())));
    }
  }
  return absl::OkStatus();
}

template <typename T>
void MoveAppend(std::vector<T>* dst, std::vector<T>* src) {
  dst->insert(dst->end(), std::make_move_iterator(src->begin()), std::make_move_iterator(src->end()));
}

}  // namespace

std::string DeclarativeConfig::Where(const Location& loc) const {
  std::string out = loc.file < files.size() ? files[loc.file] : "?";
  if (loc.line > 0) {
    StrAppend(&out, ":", loc.line);
  } else {
    StrAppend(&out, " blob ", loc.blob);
  }
  return out;
}

std::string_view DeclarativeConfig::SpanText(const Span& s) const {
  if (s.file >= contents.size() || !contents[s.file]) return {};
  return std::string_view(*contents[s.file]).substr(s.offset, s.length);
}

absl::StatusOr<Node> ParseSpan(const DeclarativeConfig& cfg, const Span& span) {
  std::string_view text = cfg.SpanText(span);
  if (text.empty()) return absl::FailedPreconditionError("payload was dropped at load time");
  return span.yaml ? ParseYamlText(text) : ParseJsonText(text);
}

absl::StatusOr<DeclarativeConfig> LoadCatalog(const engine::FileSource& source, const LoadOptions& options) {
  auto listed = source.List();
  if (!listed.ok()) return listed.status();
  IgnoreMatcher ignore;
  for (const auto& f : *listed) {
    std::string_view p = f.path;
    size_t slash = p.rfind('/');
    std::string_view base = slash == std::string_view::npos ? p : p.substr(slash + 1);
    if (base != ".indexignore") continue;
    std::string text;
    if (auto st = source.Read(f.path, &text); !st.ok()) return st;
    ignore.AddFile(slash == std::string_view::npos ? "" : p.substr(0, slash), text);
  }
  std::vector<engine::FileInfo> files;
  for (auto& f : *listed) {
    std::string_view p = f.path;
    size_t slash = p.rfind('/');
    if ((slash == std::string_view::npos ? p : p.substr(slash + 1)) == ".indexignore") continue;
    if (ignore.Ignored(p)) continue;
    files.push_back(std::move(f));
  }

  // Biggest files first so parallel workers finish together.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return files[a].size > files[b].size; });
  std::vector<FileResult> results(files.size());
  auto task = [&](size_t k) {
    size_t i = order[k];
    auto content = std::make_shared<std::string>();
    FileResult& r = results[i];
    r.status = source.Read(files[i].path, content.get());
    if (content->capacity() < content->size() + 64) content->reserve(content->size() + 64);
    if (r.status.ok())
      r.status = ParseFile(*content, static_cast<uint32_t>(i), options.excise_payloads, &r.part);
    if (options.keep_payloads) r.content = std::move(content);
  };
  static const engine::SequentialExecutor kSequential;
  (options.executor != nullptr ? *options.executor : kSequential).ForEach(order.size(), task);

  DeclarativeConfig cfg;
  std::string errors;
  for (size_t i = 0; i < files.size(); ++i) {
    cfg.files.push_back(files[i].path);
    cfg.contents.push_back(results[i].content);
    if (!results[i].status.ok()) {
      StrAppend(&errors, errors.empty() ? "" : "\n", files[i].path, ": ", Sv(results[i].status.message()));
      continue;
    }
    DeclarativeConfig& p = results[i].part;
    if (!options.keep_payloads) {
      for (auto& b : p.bundles) {
        for (auto& prop : b.properties) prop.dropped = prop.is_span;
      }
    }
    MoveAppend(&cfg.packages, &p.packages);
    MoveAppend(&cfg.channels, &p.channels);
    MoveAppend(&cfg.bundles, &p.bundles);
    MoveAppend(&cfg.deprecations, &p.deprecations);
    MoveAppend(&cfg.others, &p.others);
  }
  if (!errors.empty()) return absl::InvalidArgumentError(errors);
  return cfg;
}

}  // namespace recon::olm
