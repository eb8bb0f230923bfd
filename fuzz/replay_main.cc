// A main for the fuzz targets in the ordinary (gcc) build, where there is no
// libFuzzer: it feeds each input file to LLVMFuzzerTestOneInput, then a fixed
// number of deterministic mutations of each (byte flips, truncations,
// duplicated and dropped ranges, spliced inputs). A target's own checks call
// abort(), so an invariant broken by a parser change fails the test suite
// without the clang build (scripts/fuzz remains the coverage-guided run).
//   fuzz_X_replay [--mutations N] [--seed S] PATH...   (files or directories)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

void Run(const std::string& input) {
  // A copy of exactly `size` bytes, so reads past the end are not masked by
  // the string's terminator or capacity any more than libFuzzer's would be.
  std::vector<uint8_t> bytes(input.begin(), input.end());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

std::string Mutate(const std::string& in, const std::string& other, std::mt19937_64& rng) {
  std::string out = in;
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  switch (rng() % 6) {
    case 0:  // flip a byte
      if (!out.empty()) out[pick(out.size())] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1:  // truncate
      out.resize(pick(out.size() + 1));
      break;
    case 2: {  // drop a range
      size_t at = pick(out.size() + 1);
      out.erase(at, pick(out.size() - at + 1));
      break;
    }
    case 3: {  // duplicate a range
      size_t at = pick(out.size() + 1);
      std::string piece = out.substr(at, pick(out.size() - at + 1));
      out.insert(pick(out.size() + 1), piece);
      break;
    }
    case 4: {  // an interesting byte: structure characters of JSON, YAML and CEL
      static constexpr char kBytes[] = "{}[]\":,\\\n\t -0189eE.'`|&!?()*";
      char c = kBytes[pick(sizeof(kBytes) - 1)];
      if (!out.empty() && rng() % 2 == 0) {
        out[pick(out.size())] = c;
      } else {
        out.insert(pick(out.size() + 1), 1, c);
      }
      break;
    }
    default:  // splice with another input
      out = out.substr(0, pick(out.size() + 1)) + other.substr(pick(other.size() + 1));
      break;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 20;
  uint64_t seed = 1;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--mutations" || arg == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0') {
        std::fprintf(stderr, "%s: %s wants a number, got '%s'\n", argv[0], arg.c_str(), argv[i]);
        return 2;
      }
      if (arg == "--mutations") {
        mutations = static_cast<long>(v);
      } else {
        seed = v;
      }
      continue;
    }
    fs::path p(arg);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(p)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "%s: no such file or directory: %s\n", argv[0], arg.c_str());
      return 2;
    }
  }
  // Directory order differs between file systems; the mutations must not.
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::fprintf(stderr, "%s: no input files\n", argv[0]);
    return 2;
  }
  std::vector<std::string> inputs;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    inputs.push_back(ss.str());
  }
  std::mt19937_64 rng(seed);
  long runs = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Run(inputs[i]);
    ++runs;
    const std::string& other = inputs[(i + 1) % inputs.size()];
    std::string current = inputs[i];
    for (long m = 0; m < mutations; ++m) {
      // Stack mutations a few deep, as libFuzzer does, then start over.
      current = Mutate(m % 4 == 0 ? inputs[i] : current, other, rng);
      Run(current);
      ++runs;
    }
  }
  std::printf("%s: %zu inputs, %ld runs, seed %llu: ok\n", argv[0], inputs.size(), runs,
              static_cast<unsigned long long>(seed));
  return 0;
}
