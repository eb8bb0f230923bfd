// `.indexignore` files: gitignore patterns (go-git semantics) scoped to the
// folder holding each file; the last matching pattern decides.
#ifndef RECON_DOMAINS_OLM_CATALOG_IGNORE_H_
#define RECON_DOMAINS_OLM_CATALOG_IGNORE_H_

#include <string>
#include <string_view>
#include <vector>

namespace recon::olm {

class IgnoreMatcher {
 public:
  // `dir` is the slash-separated folder of the .indexignore ("" for the root).
  void AddFile(std::string_view dir, std::string_view text);
  void AddPattern(std::string_view dir, std::string_view pattern);
  // `path` is a file path relative to the root (always tested as a file).
  bool Ignored(std::string_view path) const;

 private:
  struct Pattern {
    std::vector<std::string> domain;
    std::vector<std::string> parts;
    bool include = false, dir_only = false, glob = false;
  };
  bool Matches(const Pattern& p, const std::vector<std::string>& path) const;
  std::vector<Pattern> patterns_;
};

// Go's filepath.Match on one path component; false on a malformed pattern.
bool GoFilepathMatch(std::string_view pattern, std::string_view name);

}  // namespace recon::olm

#endif  // RECON_DOMAINS_OLM_CATALOG_IGNORE_H_
