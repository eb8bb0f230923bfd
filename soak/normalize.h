// Comparing two soak runs' final states: each object with what runs may
// legitimately differ in removed (times, generations, uids, history kept in
// status), and a short account of where two objects still differ.
#ifndef RECON_SOAK_NORMALIZE_H_
#define RECON_SOAK_NORMALIZE_H_

#include <string>
#include <string_view>

namespace recon::soak {

// The object with the fields a fault-free and a faulty run may legitimately
// differ in removed, keys sorted.
std::string NormalizeForSoak(std::string_view object_json);
// Where two JSON documents differ: up to 8 paths, each with both values
// (cut at 200 bytes), one per line, for a soak's difference report.
std::string JsonDifferences(std::string_view a_json, std::string_view b_json, std::string_view a_name,
                            std::string_view b_name);

}  // namespace recon::soak

#endif  // RECON_SOAK_NORMALIZE_H_
