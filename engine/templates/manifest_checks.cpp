#include "templates/manifest_checks.hpp"

#include "templates/expression.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace kx::engine {
namespace {

[[noreturn]] void fail(const TemplateManifest& m, int line, const std::string& message) {
    throw InputError(m.manifestFile + ":" + std::to_string(line) + ": " + message);
}

// Every name a constraint message may fill: variables of either vendor, choice attributes
// (numeric ones become variables), derived values, sizes and {arch}.
std::set<std::string> messageNames(const TemplateManifest& m, const VariableMap& vars) {
    std::set<std::string> names = {"arch"};
    for (const auto& [name, value] : vars) names.insert(name);
    for (bool hipOnly : {false, true})
        for (const auto& [name, value] : manifestCheckArch(hipOnly).expressionVariables()) names.insert(name);
    for (const ParamSpec& p : m.params) {
        names.insert(p.name);
        for (const EnumChoice& c : p.choices)
            for (const auto& [key, value] : c.attributes) names.insert(key);
    }
    for (const DerivedSpec& d : m.derived) names.insert(d.name);
    for (const SizeSpec& s : m.sizes) names.insert(s.name);
    return names;
}

void checkMessages(const TemplateManifest& m, const VariableMap& vars) {
    const std::set<std::string> known = messageNames(m, vars);
    for (const ConstraintSpec& c : m.constraints) {
        for (std::size_t open = c.message.find('{'); open != std::string::npos; open = c.message.find('{', open + 1)) {
            const std::size_t close = c.message.find('}', open);
            if (close == std::string::npos) break;
            const std::string key = c.message.substr(open + 1, close - open - 1);
            if (!known.count(key))
                fail(m, c.line, "the constraint's message names {" + key + "}, which is no parameter, attribute, derived value, size or arch variable");
        }
    }
}

// The launch dimensions and argument counts of a config, strictly evaluated; the first problem
// as (line, reason), or line 0 when there is none.
std::pair<int, std::string> geometryProblem(const TemplateManifest& m, const VariableMap& vars) {
    for (const LaunchSpec& l : m.launches) {
        try {
            for (int i = 0; i < 3; ++i) {
                evaluateExpressionStrict(l.grid[i], vars);
                if (evaluateExpressionStrict(l.block[i], vars) < 1)
                    return {l.line, "block dimension '" + l.block[i] + "' is below 1"};
                if (evaluateExpressionStrict(l.cluster[i], vars) < 1)
                    return {l.line, "cluster dimension '" + l.cluster[i] + "' is below 1"};
            }
            evaluateExpressionStrict(l.dynamicSmem, vars);
            evaluateExpressionStrict(l.repeat, vars);
            evaluateExpressionStrict(l.persistent, vars);
        } catch (const InputError& e) {
            return {l.line, std::string("launch: ") + e.what()};
        }
    }
    for (const ArgSpec& a : m.args) {
        if (a.role == "size" || a.role == "pass" || a.role == "tensor_map") continue;
        try {
            evaluateExpressionStrict(a.role == "scalar" ? a.value : a.count, vars);
        } catch (const InputError& e) {
            return {a.line, "arg '" + a.name + "': " + e.what()};
        }
    }
    return {0, ""};
}

std::pair<int, std::string> derivedProblem(const TemplateManifest& m, const VariableMap& vars) {
    for (const DerivedSpec& d : m.derived)
        if (!std::isfinite(vars.at(d.name)))
            return {d.line, "derived '" + d.name + "' = " + d.expr + " is infinite (a division by zero)"};
    return {0, ""};
}

void checkDefaults(const Template& tmpl, const Arch& arch) {
    const TemplateManifest& m = tmpl.manifest();
    // variables() reports unknown names and NaNs in derived values with their line.
    const VariableMap vars = tmpl.variables(tmpl.defaultConfig(), arch, tmpl.defaultSizes());
    if (auto [line, why] = derivedProblem(m, vars); line) fail(m, line, why + " for the default config");
    for (const ConstraintSpec& c : m.constraints) {
        try {
            evaluateExpressionStrict(c.expr, vars);
        } catch (const InputError& e) {
            fail(m, c.line, std::string("constraint: ") + e.what() + " for the default config");
        }
    }
    for (const ParamSpec& p : m.params) {
        if (p.applies.empty()) continue;
        try {
            evaluateExpressionStrict(p.applies, vars);
        } catch (const InputError& e) {
            fail(m, p.line, "parameter '" + p.name + "': applies: " + e.what() + " for the default config");
        }
    }
    if (auto [line, why] = geometryProblem(m, vars); line) fail(m, line, why + " for the default config");
    checkMessages(m, vars);
}

// A parameter value of 0 is where divisions by zero hide (`BM % WM`, `BM / WM`).
void checkZeroValue(const Template& tmpl, const Arch& arch, const ParamSpec& p) {
    const TemplateManifest& m = tmpl.manifest();
    Config config = tmpl.defaultConfig();
    config.values[p.name] = "0";
    const std::string what = "value 0 of '" + p.name + "': ";
    VariableMap vars;
    try {
        vars = tmpl.variables(config, arch, tmpl.defaultSizes());
    } catch (const InputError& e) {
        fail(m, p.line, what + e.what());
    }
    bool holds = true;
    for (const ConstraintSpec& c : m.constraints) {
        try {
            // Every rule is evaluated, even after one fails: a remainder by zero is a mistake
            // in the manifest whichever rule would have refused the config.
            const bool ok = evaluateExpressionStrict(c.expr, vars) != 0;
            holds = holds && ok;
        } catch (const InputError& e) {
            fail(m, p.line, what + "the constraint at line " + std::to_string(c.line) + ": " + e.what() +
                                "; guard it (" + p.name + " > 0 ? ... : 0) or leave 0 out of the allowed values");
        }
    }
    if (!holds) return;  // the constraints refuse the config: it never reaches the compiler
    if (auto [line, why] = derivedProblem(m, vars); line)
        fail(m, p.line, what + "the constraints allow it, but " + why + " (line " + std::to_string(line) + ")");
    if (auto [line, why] = geometryProblem(m, vars); line)
        fail(m, p.line, what + "the constraints allow it, but " + why + " (line " + std::to_string(line) + ")");
}

}  // namespace

Arch manifestCheckArch(bool hipOnly) {
    Arch a;
    if (hipOnly) {
        a.name = "gfx942";
        a.vendor = Vendor::Amd;
        a.warpSize = 64;
        a.l2Bytes = 4 << 20;
        a.amd = {4, 8, 512, 512, 8, 800, 106, 16, 64 * 1024, 64 * 1024, 128, 1024};
        return a;
    }
    a.name = "sm_90";
    a.warpSize = 32;
    a.l2Bytes = 50 << 20;
    NvidiaLimits& nv = a.nv;
    nv.computeMajor = 9;
    nv.maxThreadsPerBlock = 1024;
    nv.maxThreadsPerSm = 2048;
    nv.maxBlocksPerSm = 32;
    nv.maxWarpsPerSm = 64;
    nv.regsPerSm = 65536;
    nv.regsPerBlock = 65536;
    nv.maxRegsPerThread = 255;
    nv.regAllocUnit = 256;
    nv.smemPerSm = 228 * 1024;
    nv.smemPerBlock = 48 * 1024;
    nv.smemPerBlockOptin = 227 * 1024;
    nv.smemReservedPerBlock = 1024;
    nv.smemAllocUnit = 128;
    return a;
}

void checkManifestValues(const Template& tmpl) {
    const auto& langs = tmpl.manifest().languages;
    const Arch arch = manifestCheckArch(std::find(langs.begin(), langs.end(), "cuda") == langs.end());
    checkDefaults(tmpl, arch);
    for (const ParamSpec& p : tmpl.manifest().params) {
        if (p.type != ParamType::Int) continue;
        const bool allowsZero = p.allowed.empty() ? p.minValue <= 0 && p.maxValue >= 0
                                                  : std::find(p.allowed.begin(), p.allowed.end(), 0) != p.allowed.end();
        if (allowsZero && p.defaultValue != "0") checkZeroValue(tmpl, arch, p);
    }
}

}  // namespace kx::engine
