// Time from a parameter change to PTX ready (validate, render, NVRTC compile, ptxas report),
// for every template, with the cache off so each edit is a real compile.
//
// With --think-ms T1,T2,...: a user session as the app sees it. A seeded walk of one-parameter
// edits from the default config (half of them carry on with the parameter edited last, in the
// same direction; the rest pick another neighbour), with T ms of reading between edits while the
// app's NeighbourPrefetcher compiles the configs one edit away. Reported: how many edits found
// their PTX ready, and the edit-to-PTX median and 90th percentile, next to the same walk with no
// prefetching. Every walk starts from an empty cache.
//
// Usage: bench_edit_to_ptx [--arch sm_90] [--edits N] [--json FILE] [--think-ms 1000,2000] [--walk N]
#include "arch/arch_database.hpp"
#include "compile/neighbour_prefetch.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

using namespace kx::engine;

namespace {

// One-parameter edits of the default config that stay valid: what a user does in the editor.
std::vector<Config> validEdits(const Template& t, const Arch& arch, std::size_t limit) {
    std::vector<Config> edits;
    const Config base = t.defaultConfig();
    for (const ParamSpec& p : t.manifest().params) {
        const std::vector<std::string> values = parameterValues(p);
        for (const std::string& value : values) {
            if (value == base.values.at(p.name)) continue;
            Config c = t.withValues(base, {{p.name, value}});
            if (t.validate(c, arch).empty()) edits.push_back(c);
            if (edits.size() >= limit) return edits;
        }
    }
    return edits;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

double percentile90(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(0.9 * static_cast<double>(v.size())))];
}

// A seeded walk of valid one-parameter edits, as a user explores: after an edit of parameter P
// from a to b, half the time the next edit takes P one step further the same way (when valid).
struct Edit {
    Config config;
    std::string key, previous;
};
std::vector<Edit> userWalk(const Template& t, const Arch& arch, std::size_t length, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<Edit> walk;
    Config at = t.defaultConfig();
    std::string lastKey, lastPrevious;
    while (walk.size() < length) {
        const std::vector<Config> next = neighbourConfigs(t, at, arch, lastKey, lastPrevious);
        if (next.empty()) break;
        std::size_t pick = std::uniform_int_distribution<std::size_t>(0, next.size() - 1)(rng);
        // neighbourConfigs lists the edited parameter's next step in the same direction first.
        if (!lastKey.empty() && next.front().values.at(lastKey) != at.values.at(lastKey) && next.front().values.at(lastKey) != lastPrevious &&
            std::bernoulli_distribution(0.5)(rng))
            pick = 0;
        std::string key;
        for (const auto& [k, v] : next[pick].values)
            if (at.values.at(k) != v) key = k;
        walk.push_back({next[pick], key, at.values.at(key)});
        lastKey = key;
        lastPrevious = at.values.at(key);
        at = next[pick];
    }
    return walk;
}

struct WalkResult {
    std::vector<double> ms;
    int ready = 0;  // edits whose PTX was in the cache when they landed
};

// Plays the walk: each edit waits for its PTX (what the user waits for), then its ptxas stage
// (what the app does next), then the user reads for thinkMs while the prefetcher, if any, works.
WalkResult playWalk(const std::shared_ptr<const Template>& t, const Arch& arch, const std::vector<Edit>& walk, double thinkMs, bool prefetch) {
    auto compiler = std::make_shared<Compiler>(std::filesystem::path());
    NeighbourPrefetcher prefetcher(compiler);
    compiler->compile(prepareVariant(*t, t->defaultConfig(), arch).request);
    if (prefetch) prefetcher.start(t, t->defaultConfig(), arch);
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(thinkMs));
    WalkResult out;
    for (const Edit& e : walk) {
        prefetcher.stop();  // as the app does on an edit
        const auto start = std::chrono::steady_clock::now();
        const PreparedVariant v = prepareVariant(*t, e.config, arch);
        const CompileResult ptx = compiler->compilePtx(v.request);
        out.ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        out.ready += ptx.fromCache && out.ms.back() < 20 ? 1 : 0;
        compiler->compile(v.request);
        if (prefetch) prefetcher.start(t, e.config, arch, e.key, e.previous);
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(thinkMs));
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::string archName = "sm_90";
    std::size_t edits = 12;
    std::string jsonFile;
    std::vector<double> thinkTimes;
    std::size_t walkLength = 30;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--think-ms")) {
            std::stringstream list(argv[i + 1]);
            for (std::string t; std::getline(list, t, ',');) thinkTimes.push_back(std::stod(t));
        }
        if (!std::strcmp(argv[i], "--walk")) walkLength = std::stoul(argv[i + 1]);
        if (!std::strcmp(argv[i], "--arch")) archName = argv[i + 1];
        else if (!std::strcmp(argv[i], "--edits")) edits = std::stoul(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--json")) jsonFile = argv[i + 1];
    }
    const auto root = dataRoot();
    const ArchDatabase arches = ArchDatabase::loadFromDataRoot(root);
    const TemplateLibrary library = TemplateLibrary::load(root / "templates");
    const Arch* arch = arches.findArch(archName);
    if (!arch) {
        fmt::print(stderr, "unknown arch {}\n", archName);
        return 2;
    }

    fmt::print("edit -> PTX ready on {} ({} hardware threads), {} , arch {}, cache off\n",
               "this CPU", std::thread::hardware_concurrency(), nvrtcVersionString(), archName);
    fmt::print("{:<10} {:>6} {:>14} {:>10} {:>10} {:>20}\n", "template", "edits", "PTX median ms", "min ms", "max ms",
               "+ptxas report median");
    std::string json = "[";
    for (const auto& t : library.templates()) {
        Compiler compiler({});  // memory-only cache, and every edit below is a different config
        // Warm NVRTC once (first call loads its builtins) so the figures are steady-state edits.
        compiler.compile(prepareVariant(*t, t->defaultConfig(), *arch).request);
        std::vector<double> ms, fullMs;
        for (const Config& c : validEdits(*t, *arch, edits)) {
            // What the app does on an edit: validate and render, PTX (shown at once), then the
            // CUBIN and ptxas report for the real target.
            const auto start = std::chrono::steady_clock::now();
            const PreparedVariant v = prepareVariant(*t, c, *arch);
            const CompileResult ptx = compiler.compilePtx(v.request);
            const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            const CompileResult full = compiler.compile(v.request);
            const double fullElapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (!ptx.ok || ptx.fromCache || ptx.ptx.empty() || !full.assembled || full.kernels.empty()) {
                fmt::print(stderr, "{} did not compile fresh:\n{}\n", v.name, full.log);
                return 1;
            }
            ms.push_back(elapsed);
            fullMs.push_back(fullElapsed);
        }
        const double med = median(ms);
        const double lo = ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
        const double hi = ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end());
        const double fullMed = median(fullMs);
        fmt::print("{:<10} {:>6} {:>14.1f} {:>10.1f} {:>10.1f} {:>20.1f}\n", t->id(), ms.size(), med, lo, hi, fullMed);
        json += fmt::format("{}{{\"template\":\"{}\",\"arch\":\"{}\",\"edits\":{},\"ptx_median_ms\":{:.1f},\"ptx_min_ms\":{:.1f},"
                            "\"ptx_max_ms\":{:.1f},\"report_median_ms\":{:.1f}}}",
                            json.size() > 1 ? "," : "", t->id(), archName, ms.size(), med, lo, hi, fullMed);
    }
    if (!thinkTimes.empty()) {
        fmt::print("\nA user's walk of {} edits (seeded), reading between edits; prefetch = NeighbourPrefetcher on\n", walkLength);
        fmt::print("{:<10} {:>9} {:>9} {:>12} {:>14} {:>12}\n", "template", "think ms", "prefetch", "PTX ready", "median ms", "p90 ms");
        for (const auto& t : library.templates()) {
            const std::vector<Edit> walk = userWalk(*t, *arch, walkLength, 2026);
            for (double think : thinkTimes) {
                for (bool prefetch : {false, true}) {
                    const WalkResult r = playWalk(t, *arch, walk, think, prefetch);
                    fmt::print("{:<10} {:>9.0f} {:>9} {:>8}/{:<3} {:>14.1f} {:>12.1f}\n", t->id(), think, prefetch ? "on" : "off", r.ready,
                               r.ms.size(), median(r.ms), percentile90(r.ms));
                    json += fmt::format(",{{\"template\":\"{}\",\"think_ms\":{:.0f},\"prefetch\":{},\"edits\":{},\"ready\":{},"
                                        "\"ptx_median_ms\":{:.1f},\"ptx_p90_ms\":{:.1f}}}",
                                        t->id(), think, prefetch, r.ms.size(), r.ready, median(r.ms), percentile90(r.ms));
                }
            }
        }
    }
    json += "]\n";
    if (!jsonFile.empty()) std::ofstream(jsonFile) << json;
    return 0;
}
