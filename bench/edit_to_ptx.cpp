// Time from a parameter change to PTX ready (validate, render, NVRTC compile, ptxas report),
// for every template, with the cache off so each edit is a real compile.
//
// Usage: bench_edit_to_ptx [--arch sm_90] [--edits N] [--json FILE]
#include "arch/arch_database.hpp"
#include "compile/variant_build.hpp"
#include "templates/template_library.hpp"
#include "util/data_paths.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

using namespace kx::engine;

namespace {

// One-parameter edits of the default config that stay valid: what a user does in the editor.
std::vector<Config> validEdits(const Template& t, const Arch& arch, std::size_t limit) {
    std::vector<Config> edits;
    const Config base = t.defaultConfig();
    for (const ParamSpec& p : t.manifest().params) {
        std::vector<std::string> values;
        if (p.type == ParamType::Int && !p.allowed.empty())
            for (long long v : p.allowed) values.push_back(std::to_string(v));
        if (p.type == ParamType::Int && p.allowed.empty())
            for (long long v = p.minValue; v <= p.maxValue; ++v) values.push_back(std::to_string(v));
        if (p.type == ParamType::Enum)
            for (const EnumChoice& c : p.choices) values.push_back(c.name);
        if (p.type == ParamType::Bool) values = {"true", "false"};
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

}  // namespace

int main(int argc, char** argv) {
    std::string archName = "sm_90";
    std::size_t edits = 12;
    std::string jsonFile;
    for (int i = 1; i + 1 < argc; i += 2) {
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
        // (Both NVRTC and nvJitLink load lazily on first use.)
        std::vector<double> ms, fullMs;
        for (const Config& c : validEdits(*t, *arch, edits)) {
            // What the app does on an edit: validate and render, PTX (shown at once), then the
            // CUBIN and ptxas report from that PTX.
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
    json += "]\n";
    if (!jsonFile.empty()) std::ofstream(jsonFile) << json;
    return 0;
}
