#include "run/run_report.hpp"
#include "util/enum_names.hpp"

#include <fmt/format.h>

namespace kx::engine {

const char* verdictText(Verdict verdict) { return enumName(verdict, {"PASS", "FAIL", "NO REFERENCE"}); }

const BaselineReport* RunReport::primaryBaseline() const {
    for (const BaselineReport& b : baselines)
        if (b.ok()) return &b;
    return nullptr;
}

namespace {

// Bytes in decimal units, three significant digits: "49.2 MB".
std::string bytesText(double bytes) {
    const char* units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (bytes >= 1000 && u < 4) {
        bytes /= 1000;
        ++u;
    }
    return fmt::format("{:.{}f} {}", bytes, bytes >= 100 || u == 0 ? 0 : bytes >= 10 ? 1 : 2, units[u]);
}

}  // namespace

std::string memoryTrafficText(const RunReport& report) {
    if (!report.memoryCounters) return {};
    const MemoryCountersReport& m = *report.memoryCounters;
    if (!m.error.empty()) return "not counted: " + m.error;
    std::string text = fmt::format("DRAM {} read + {} written", bytesText(m.dramReadBytes), bytesText(m.dramWriteBytes));
    if (report.bytes > 0) text += fmt::format(" ({:.2f}x the template's {})", m.dramBytes() / report.bytes, bytesText(report.bytes));
    return text + fmt::format(", L2 {}, L1 {} in {} pass{}", bytesText(m.l2Bytes), bytesText(m.l1Bytes), m.passes, m.passes == 1 ? "" : "es");
}

}  // namespace kx::engine
