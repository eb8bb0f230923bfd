// The API server's Warning headers read as client-go reads them: 299 only,
// several per header, escapes, an optional date, garbage skipped.
#include "adapters/k8s/warnings.h"

#include <gtest/gtest.h>

namespace recon::k8s {
namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

TEST(K8sWarnings, ReadsEveryWarningOfCode299InOrder) {
  Headers h = {{"content-type", "application/json"},
               {"warning", R"(299 - "unknown field \"spec.foo\"")"},
               {"warning", R"(299 - "a", 299 kube-apiserver "b" "Tue, 15 Nov 1994 08:12:31 GMT")"}};
  EXPECT_EQ(ServerWarnings(h), (std::vector<std::string>{R"(unknown field "spec.foo")", "a", "b"}));
  EXPECT_EQ(WarningsJson(ServerWarnings(h)), R"(["unknown field \"spec.foo\"","a","b"])");
}

TEST(K8sWarnings, SkipsOtherCodesAndWhatItCannotRead) {
  Headers h = {{"warning", R"(199 - "not the server's", 299 - "kept")"},
               {"warning", "299 - unquoted"},
               {"warning", R"(299 - "no end)"},
               {"warning", ""},
               {"x-warning", R"(299 - "another header")"}};
  EXPECT_EQ(ServerWarnings(h), (std::vector<std::string>{"kept"}));
  EXPECT_EQ(WarningsJson({}), "");
}

}  // namespace
}  // namespace recon::k8s
