#include "analysis/split_k_hint.hpp"

#include "util/error.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace kx::engine {

namespace {

constexpr const char* kSplitK = "SPLITK";

// The launch's waves for config, or nullopt when the config or the problem is refused.
std::optional<WaveModel> wavesOf(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes, const DeviceSpec& device,
                                 const OccupancyResult& occupancy) {
    if (!tmpl.validate(config, arch).empty() || !tmpl.problemRefusal(config, arch, sizes).empty()) return std::nullopt;
    try {
        return launchWaves(device, tmpl.launch(config, arch, sizes), occupancy);
    } catch (const InputError&) {
        return std::nullopt;
    }
}

}  // namespace

std::optional<SplitKHint> splitKHint(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                                     const DeviceSpec& device, const OccupancyResult& occupancy) {
    const auto& params = tmpl.manifest().params;
    const auto param = std::find_if(params.begin(), params.end(), [](const ParamSpec& p) { return p.name == kSplitK && p.type == ParamType::Int; });
    if (param == params.end() || device.smCount < 1 || occupancy.blocksPerSm < 1) return std::nullopt;
    for (const ParamSpec* inactive : tmpl.inactiveParams(config, arch))
        if (inactive->name == kSplitK) return std::nullopt;
    const std::optional<WaveModel> current = wavesOf(tmpl, config, arch, sizes, device, occupancy);
    if (!current) return std::nullopt;

    std::vector<long long> counts = param->allowed;
    if (counts.empty())
        for (long long v = param->minValue; v <= std::min(param->maxValue, param->minValue + 1023); ++v) counts.push_back(v);
    const std::string own = config.at(kSplitK);
    std::optional<SplitKHint> best;
    for (const long long count : counts) {
        if (std::to_string(count) == own) continue;
        const std::optional<WaveModel> w =
            wavesOf(tmpl, tmpl.withValues(config, {{kSplitK, std::to_string(count)}}), arch, sizes, device, occupancy);
        if (!w || w->rounds() > std::max<long long>(current->rounds(), 1)) continue;
        if (!best || w->busyShare() > best->waves.busyShare() + 1e-9) best = SplitKHint{count, *w, *current};
    }
    if (!best || best->waves.busyShare() < current->busyShare() + 0.05) return std::nullopt;
    return best;
}

std::string splitKHintSentence(const SplitKHint& hint) {
    const WaveModel& w = hint.waves;
    const long long units = w.persistent ? w.gridBlocks : w.blocks;
    const long long passes = w.rounds();
    const char* pass = w.persistent ? "round" : "wave";
    return fmt::format("{}={}: {} {} in {} {}{}, {:.0f}% of the block slots busy (this config: {:.0f}%)", kSplitK, hint.splitK, units,
                       w.persistent ? "work units" : "blocks", passes, pass, passes == 1 ? "" : "s", 100.0 * w.busyShare(),
                       100.0 * hint.current.busyShare());
}

}  // namespace kx::engine
