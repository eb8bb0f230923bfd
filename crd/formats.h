// The string formats kube-openapi's strfmt registry checks in CRD schemas
// (`format: date-time`, byte, hostname, uri, uuid, date, ipv4). Formats it
// does not know, and int32/int64/double (number formats), accept anything.
#ifndef RECON_CRD_FORMATS_H_
#define RECON_CRD_FORMATS_H_

#include <string_view>

namespace recon::crd {

// Is `format` one this library checks?
bool IsCheckedFormat(std::string_view format);
// Does `s` conform? Always true for an unchecked format.
bool MatchesFormat(std::string_view format, std::string_view s);

}  // namespace recon::crd

#endif  // RECON_CRD_FORMATS_H_
