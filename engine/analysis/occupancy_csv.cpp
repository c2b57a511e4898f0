#include "analysis/occupancy_csv.hpp"

#include "analysis/occupancy.hpp"
#include "util/error.hpp"

#include <fmt/core.h>

#include <charconv>
#include <climits>
#include <sstream>
#include <vector>

namespace kx::engine {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A field as an integer within [lo, hi]: out-of-range values are refused, never wrapped (an int
// column given 2147483648 must not become a negative block size).
long long parseField(const std::string& text, int row, const std::string& column, long long lo = 0, long long hi = INT_MAX) {
    long long v = 0;
    const std::string t = trim(text);
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    const std::string where = "row " + std::to_string(row) + ", column " + column + ": '" + t + "' ";
    if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == t.data() + t.size() && (v < lo || v > hi)))
        throw InputError(where + "is out of range (" + std::to_string(lo) + " to " + std::to_string(hi) + ")");
    if (t.empty() || ec != std::errc() || ptr != t.data() + t.size()) throw InputError(where + "is not an integer");
    return v;
}

// One line of the CSV, at most kMaxCsvLine characters, refusing binary data: `--csv /dev/zero`
// must end at once with a reason, not read forever. False at the end of the input.
constexpr std::size_t kMaxCsvLine = 4096;
bool readCsvLine(std::istream& in, std::string& line, int row) {
    line.clear();
    for (int c = in.get(); c != EOF; c = in.get()) {
        if (c == '\n') return true;
        if (c == '\0') throw InputError("row " + std::to_string(row) + " holds a NUL byte: the input is not CSV text");
        if (line.size() == kMaxCsvLine)
            throw InputError("row " + std::to_string(row) + " is longer than " + std::to_string(kMaxCsvLine) + " characters: the input is not this CSV");
        line += static_cast<char>(c);
    }
    return !line.empty();
}

}  // namespace

std::string occupancyCsv(std::istream& in, const ArchDatabase& arches) {
    static const char* kColumns[] = {"arch", "regs", "static_smem", "block", "dyn_smem", "carveout"};
    std::string line;
    if (!readCsvLine(in, line, 1)) throw InputError("the CSV is empty: expected header arch,regs,static_smem,block,dyn_smem,carveout");
    if (trim(line) != "arch,regs,static_smem,block,dyn_smem,carveout")
        throw InputError("row 1: header must be 'arch,regs,static_smem,block,dyn_smem,carveout', got '" + trim(line) + "'");
    // Compute every row before printing any, so a bad row leaves no partial output.
    std::string out = "arch,regs,static_smem,block,dyn_smem,carveout,blocks_per_sm\n";
    int row = 1;
    while (readCsvLine(in, line, row + 1)) {
        ++row;
        if (trim(line).empty()) continue;
        std::vector<std::string> fields;
        std::stringstream parts(line);
        std::string f;
        while (std::getline(parts, f, ',')) fields.push_back(trim(f));
        if (fields.size() != 6)
            throw InputError("row " + std::to_string(row) + ": expected 6 columns, found " + std::to_string(fields.size()));
        const std::string where = "row " + std::to_string(row) + ", column arch: ";
        const Arch* arch = arches.findArch(fields[0]);
        if (!arch) throw InputError(where + "unknown arch '" + fields[0] + "'");
        // The CSV's columns (carveout, blocks_per_sm) are NVIDIA's; AMD launches go through
        // --arch gfx... one at a time.
        if (arch->vendor != Vendor::Nvidia)
            throw InputError("row " + std::to_string(row) + ": " + arch->name +
                             " is an AMD arch; the CSV mode computes NVIDIA occupancy only (use kx occupancy --arch " +
                             arch->name + " --regs R --block B for AMD)");
        OccupancyInput input;
        input.registersPerThread = static_cast<int>(parseField(fields[1], row, kColumns[1]));
        input.staticSmemBytes = parseField(fields[2], row, kColumns[2], 0, LLONG_MAX);
        input.threadsPerBlock = static_cast<int>(parseField(fields[3], row, kColumns[3], 1));
        input.dynamicSmemBytes = parseField(fields[4], row, kColumns[4], 0, LLONG_MAX);
        input.carveoutPercent = static_cast<int>(parseField(fields[5], row, kColumns[5], -1, 100));
        OccupancyResult r;
        try {
            r = nvidiaOccupancy(*arch, input);
        } catch (const InputError& e) {
            throw InputError("row " + std::to_string(row) + ": " + e.what());
        }
        out += fmt::format("{},{},{},{},{},{},{}\n", fields[0], input.registersPerThread, input.staticSmemBytes,
                           input.threadsPerBlock, input.dynamicSmemBytes, input.carveoutPercent, r.blocksPerSm);
    }
    return out;
}

}  // namespace kx::engine
