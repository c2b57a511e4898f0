#include "templates/compile_flags.hpp"

#include "arch/arch.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <sstream>

namespace kx::engine {

namespace {

// ptxas raises a smaller cap to the ABI's minimum, so a cap below it would name a variant that
// compiles like another; 255 is the most any NVIDIA arch gives a thread.
constexpr int kMinRegisterCap = 16;
constexpr int kMaxRegisterCap = 255;

bool parseBool(const std::string& key, const std::string& value) {
    if (value == "true" || value == "1" || value == "on") return true;
    if (value == "false" || value == "0" || value == "off") return false;
    throw InputError(fmt::format("{}={} is not allowed: {} must be true or false", key, value, key));
}

int parseInt(const std::string& key, const std::string& value, int lo, int hi, const char* allowed) {
    int v = 0;
    const char* end = value.data() + value.size();
    const auto [ptr, ec] = std::from_chars(value.data(), end, v);
    if (ec != std::errc() || ptr != end || v < lo || v > hi)
        throw InputError(fmt::format("{}={} is not allowed: {} must be {}", key, value, key, allowed));
    return v;
}

std::string unknownFlag(const std::string& key) {
    return fmt::format("'{}' is not a compiler flag (flags: maxrregcount, fast_math, ptxas_opt, extra_vectorization)", key);
}

}  // namespace

const std::vector<CompileFlagKey>& compileFlagKeys() {
    static const std::vector<CompileFlagKey> keys = {
        {"maxrregcount", "Max registers",
         "At most this many registers per thread (NVRTC --maxrregcount): more blocks fit on an SM, at the risk of spills. "
         "0: no cap. __launch_bounds__ in the source still apply."},
        {"fast_math", "Fast math",
         "--use_fast_math: approximate division, square root and transcendentals, denormals flushed to zero."},
        {"ptxas_opt", "ptxas -O", "The assembler's optimisation level (-Xptxas -O0 .. -O3; 3 is the default)."},
        {"extra_vectorization", "Extra vectorisation",
         "--extra-device-vectorization: let NVVM vectorise loads, stores and arithmetic more aggressively."},
    };
    return keys;
}

std::string CompileFlags::canonical() const {
    const CompileFlags defaults;
    std::string text;
    auto add = [&](const std::string& item) { text += (text.empty() ? "" : ",") + item; };
    if (maxRegisters != defaults.maxRegisters) add(fmt::format("maxrregcount={}", maxRegisters));
    if (fastMath != defaults.fastMath) add(fmt::format("fast_math={}", fastMath));
    if (ptxasOptLevel != defaults.ptxasOptLevel) add(fmt::format("ptxas_opt={}", ptxasOptLevel));
    if (extraVectorization != defaults.extraVectorization) add(fmt::format("extra_vectorization={}", extraVectorization));
    return text;
}

std::string CompileFlags::nameSuffix() const {
    const CompileFlags defaults;
    std::string s;
    if (maxRegisters != defaults.maxRegisters) s += fmt::format("_r{}", maxRegisters);
    if (fastMath) s += "_fm";
    if (ptxasOptLevel != defaults.ptxasOptLevel) s += fmt::format("_O{}", ptxasOptLevel);
    if (extraVectorization) s += "_xv";
    return s;
}

std::vector<std::string> CompileFlags::nvrtcOptions() const {
    std::vector<std::string> options;
    if (maxRegisters > 0) options.push_back(fmt::format("--maxrregcount={}", maxRegisters));
    if (fastMath) options.push_back("--use_fast_math");
    if (ptxasOptLevel != CompileFlags{}.ptxasOptLevel) options.push_back(fmt::format("-Xptxas=-O{}", ptxasOptLevel));
    if (extraVectorization) options.push_back("--extra-device-vectorization");
    return options;
}

std::vector<std::pair<std::string, std::string>> CompileFlags::values() const {
    return {{"maxrregcount", std::to_string(maxRegisters)},
            {"fast_math", fastMath ? "true" : "false"},
            {"ptxas_opt", std::to_string(ptxasOptLevel)},
            {"extra_vectorization", extraVectorization ? "true" : "false"}};
}

std::string CompileFlags::value(const std::string& rawKey) const {
    const std::string key = compileFlagKey(rawKey);
    for (auto& [k, v] : values())
        if (k == key) return v;
    throw InputError(unknownFlag(rawKey));
}

std::string compileFlagKey(const std::string& rawKey) {
    std::string key = rawKey;
    std::replace(key.begin(), key.end(), '-', '_');
    for (const CompileFlagKey& k : compileFlagKeys())
        if (key == k.key) return key;
    return {};
}

std::vector<std::string> allowedFlagValues(const std::string& rawKey) {
    const std::string key = compileFlagKey(rawKey);
    if (key == "fast_math" || key == "extra_vectorization") return {"false", "true"};
    std::vector<std::string> values;
    if (key == "ptxas_opt") {
        for (int v = 0; v <= 3; ++v) values.push_back(std::to_string(v));
    } else if (key == "maxrregcount") {
        values.push_back("0");
        for (int v = kMinRegisterCap; v <= kMaxRegisterCap; ++v) values.push_back(std::to_string(v));
    } else {
        throw InputError(unknownFlag(rawKey));
    }
    return values;
}

CompileFlags withFlag(CompileFlags flags, const std::string& rawKey, const std::string& value) {
    std::string key = rawKey;
    std::replace(key.begin(), key.end(), '-', '_');
    if (key == "maxrregcount") {
        const int v = parseInt(key, value, 0, kMaxRegisterCap, "0 (no cap) or 16 to 255");
        if (v != 0 && v < kMinRegisterCap)
            throw InputError(fmt::format("maxrregcount={} is not allowed: maxrregcount must be 0 (no cap) or 16 to 255", value));
        flags.maxRegisters = v;
    } else if (key == "fast_math") {
        flags.fastMath = parseBool(key, value);
    } else if (key == "ptxas_opt") {
        flags.ptxasOptLevel = parseInt(key, value, 0, 3, "0, 1, 2 or 3");
    } else if (key == "extra_vectorization") {
        flags.extraVectorization = parseBool(key, value);
    } else {
        throw InputError(unknownFlag(rawKey));
    }
    return flags;
}

CompileFlags withFlags(CompileFlags flags, const std::string& text) {
    std::stringstream list(text);
    for (std::string item; std::getline(list, item, ',');) {
        if (item.empty()) continue;
        const auto eq = item.find('=');
        flags = eq == std::string::npos ? withFlag(flags, item, "true") : withFlag(flags, item.substr(0, eq), item.substr(eq + 1));
    }
    return flags;
}

std::string compileFlagsProblem(const CompileFlags& flags, const Arch& arch) {
    if (flags.isDefault()) return {};
    if (arch.vendor != Vendor::Nvidia)
        return fmt::format("the compiler flags {} are NVRTC's; {} compiles with clang, which takes none of them: reset the flags",
                           flags.canonical(), arch.name);
    if (arch.nv.maxRegsPerThread > 0 && flags.maxRegisters > arch.nv.maxRegsPerThread)
        return fmt::format("maxrregcount={} is above {}'s {} registers per thread", flags.maxRegisters, arch.name, arch.nv.maxRegsPerThread);
    return {};
}

}  // namespace kx::engine
