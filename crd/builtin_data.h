// The CRD manifests of crd/data/, embedded at build time (crd/embed.cmake
// writes builtin_data.cc into the build tree) so `recon` needs no data
// files at run time.
#ifndef RECON_CRD_BUILTIN_DATA_H_
#define RECON_CRD_BUILTIN_DATA_H_

#include <string_view>
#include <utility>
#include <vector>

namespace recon::crd {

// (file name, contents) of every *.yaml in crd/data/, in name order.
const std::vector<std::pair<std::string_view, std::string_view>>& BuiltinCrdFiles();

}  // namespace recon::crd

#endif  // RECON_CRD_BUILTIN_DATA_H_
