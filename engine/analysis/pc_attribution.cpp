#include "analysis/pc_attribution.hpp"

#include <algorithm>
#include <cstdlib>

namespace kx::engine {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

}  // namespace

std::vector<SassSite> sassSites(std::string_view sass) {
    std::vector<SassSite> sites;
    std::string function;
    int line = 0;
    size_t start = 0;
    while (start <= sass.size()) {
        const size_t end = std::min(sass.find('\n', start), sass.size());
        const std::string_view text = trim(sass.substr(start, end - start));
        if (text.starts_with(".text.") && text.ends_with(":")) {
            function = std::string(text.substr(6, text.size() - 7));
        } else if (text.starts_with("Function : ")) {
            function = std::string(trim(text.substr(11)));
        } else if (text.starts_with("/*") && text.size() > 4) {
            // "/*0080*/  LDG.E ..." (nvdisasm) or "/*0080*/  LDG.E ... /* 0x... */" (cuobjdump).
            const size_t close = text.find("*/");
            const std::string_view digits = text.substr(2, close == std::string_view::npos ? 0 : close - 2);
            const bool hex = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
            const bool instruction = hex && trim(text.substr(close + 2)).size() > 0;
            if (instruction && !function.empty())
                sites.push_back({line, function, std::strtoll(std::string(digits).c_str(), nullptr, 16)});
        }
        ++line;
        if (end == sass.size()) break;
        start = end + 1;
    }
    return sites;
}

std::vector<LineSamples> samplesPerSassLine(const PcSamplingReport& report, std::string_view sass, long long* unplaced) {
    std::map<std::pair<std::string, long long>, int> lineOf;
    for (const SassSite& site : sassSites(sass)) lineOf.emplace(std::make_pair(site.function, site.offset), site.line);
    std::map<int, LineSamples> byLine;
    long long lost = 0;
    for (const PcSample& pc : report.pcs) {
        const auto it = lineOf.find({pc.function, pc.offset});
        if (it == lineOf.end()) {
            lost += pc.samples;
            continue;
        }
        LineSamples& entry = byLine[it->second];
        entry.line = it->second;
        entry.samples += pc.samples;
        for (const auto& [reason, count] : pc.stalls) entry.stalls[reason] += count;
    }
    if (unplaced) *unplaced = lost;
    std::vector<LineSamples> out;
    for (auto& [line, entry] : byLine) out.push_back(std::move(entry));
    return out;
}

std::vector<std::pair<std::string, long long>> topStalls(const LineSamples& line, size_t count) {
    std::vector<std::pair<std::string, long long>> reasons;
    for (const auto& [reason, samples] : line.stalls)
        if (samples > 0 && !reason.ends_with("_not_issued")) reasons.emplace_back(reason, samples);
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (reasons.size() > count) reasons.resize(count);
    return reasons;
}

}  // namespace kx::engine
