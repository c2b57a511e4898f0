#include "run/reference_registry.hpp"

#include "run/references/references.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <cstdio>

namespace kx::engine {

// [SECTION] The registry
//
// One line per reference. An explicit table rather than self-registering files: the engine is a
// static library, whose unreferenced object files (and their static initialisers) the linker
// would drop.
namespace {
const std::map<std::string, ReferenceCheck>& registry() {
    static const std::map<std::string, ReferenceCheck> table = {
        {"gemm", checkGemm},
        {"reduce", checkReduce},
        {"map", checkMap},
        {"scan", checkScan},
        {"filter", checkFilter},
        {"histogram", checkHistogram},
        {"transpose", checkTranspose},
        {"stencil", checkStencil},
        {"radix_sort", checkRadixSort},
        {"group_by", checkGroupBy},
        {"join", checkJoin},
        {"rownorm", checkRownorm},
        {"glu", checkGlu},
        {"norm_rope", checkNormRope},
        {"attention", checkAttention},
        {"ln_linear", checkLnLinear},
        {"conv", checkConv},
    };
    return table;
}
}  // namespace

const ReferenceCheck* findReference(const std::string& name) {
    const auto& table = registry();
    const auto it = table.find(name);
    return it == table.end() ? nullptr : &it->second;
}

std::vector<std::string> referenceNames() {
    std::vector<std::string> names;
    for (const auto& [name, check] : registry()) names.push_back(name);
    return names;
}

// [SECTION] CheckContext

double CheckContext::var(const std::string& name) const {
    const auto it = variables.find(name);
    if (it == variables.end()) throw InputError("the reference needs the variable '" + name + "', which the manifest does not define");
    return it->second;
}

long long CheckContext::size(const std::string& name) const {
    const auto it = sizes.find(name);
    if (it == sizes.end()) throw InputError("the reference needs the problem size '" + name + "', which the manifest does not define");
    return it->second;
}

const std::string& CheckContext::choice(const std::string& name) const {
    const auto it = choices.find(name);
    if (it == choices.end()) throw InputError("the reference needs the parameter '" + name + "', which the manifest does not define");
    return it->second;
}

const HostArray& CheckContext::input(const std::string& name) const {
    if (const auto shared = sharedInputs.find(name); shared != sharedInputs.end()) return *shared->second;
    const auto it = inputs.find(name);
    if (it == inputs.end()) throw InputError("the reference needs the input '" + name + "', which the manifest does not declare");
    return it->second;
}

const HostArray& CheckContext::output(const std::string& name) const {
    const auto it = outputs.find(name);
    if (it == outputs.end()) throw InputError("the reference needs the output '" + name + "', which the manifest does not declare");
    return it->second;
}

const HostArray* CheckContext::baselineOutput(const std::string& id) const {
    if (const auto shared = sharedBaselineOutputs.find(id); shared != sharedBaselineOutputs.end()) return shared->second.get();
    const auto it = baselineOutputs.find(id);
    return it == baselineOutputs.end() ? nullptr : &it->second;
}

// [SECTION] ElementChecker

ElementChecker::ElementChecker(CorrectnessReport& report, double tolerance, double absoluteFloor)
    : m_report(report), m_tolerance(tolerance), m_absoluteFloor(absoluteFloor) {
    m_report.tolerance = tolerance;
}

bool ElementChecker::check(long long index, double got, double ref, double scale, const std::string& where) {
    const bool ok = judge(got, ref, scale);
    if (!ok && m_report.firstBadIndex < 0) recordFirstFailure(index, got, ref, where);
    return ok;
}

bool ElementChecker::judge(double got, double ref, double scale) {
    ++m_report.checked;
    const double err = std::fabs(got - ref);
    const double rel = err / std::max(scale, 1e-30);
    // NaN never passes (outputs are poisoned with NaN); an infinity only when expected.
    const bool ok = std::isfinite(got) ? (std::isfinite(ref) && (rel <= m_tolerance || err <= m_tolerance * scale + m_absoluteFloor))
                                    : (!std::isnan(got) && got == ref);
    if (std::isfinite(got) && std::isfinite(ref)) {
        m_report.maxAbsError = std::max(m_report.maxAbsError, err);
        m_report.maxRelError = std::max(m_report.maxRelError, rel);
    }
    return ok;
}

void ElementChecker::recordFirstFailure(long long index, double got, double ref, const std::string& where) {
    m_report.firstBadIndex = index;
    char text[256];
    std::snprintf(text, sizeof text, "%s = %.9g (expected %.9g)", where.c_str(), got, ref);
    m_report.firstBadText = text;
}

bool ElementChecker::checkExact(long long index, double got, double ref, const std::string& where) {
    ++m_report.checked;
    const bool ok = got == ref;
    if (std::isfinite(got) && std::isfinite(ref)) m_report.maxAbsError = std::max(m_report.maxAbsError, std::fabs(got - ref));
    if (!ok && m_report.firstBadIndex < 0) {
        m_report.firstBadIndex = index;
        char text[256];
        std::snprintf(text, sizeof text, "%s = %.17g (expected %.17g)", where.c_str(), got, ref);
        m_report.firstBadText = text;
    }
    return ok;
}

void ElementChecker::finish() {
    m_report.tolerance = m_tolerance;
    m_report.passed = m_report.firstBadIndex < 0 && (!m_report.baselineCompared || m_report.baselineAgrees);
}

std::string elementName(const std::string& array, long long index) { return array + "[" + std::to_string(index) + "]"; }

std::string elementName(const std::string& array, long long row, long long col) {
    return array + "[" + std::to_string(row) + "," + std::to_string(col) + "]";
}

}  // namespace kx::engine
