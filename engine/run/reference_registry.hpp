// CPU references by name: what a template's manifest names in reference="...". Each reference
// lives in engine/run/references/<name>.cpp and is listed once in reference_registry.cpp; nothing
// else in the engine, the runner, the app or the CLI knows which templates exist.
//
// A reference receives the run's inputs (as generated from the manifest's fill rules), the
// kernel's outputs after the checked launch (poisoned with NaN / 0xFF bytes before it), the
// baselines' outputs, and the config's variables; it fills a CorrectnessReport.
#pragma once

#include "run/dtype.hpp"
#include "run/run_report.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace kx::engine {

// One argument's host values and element type (see dtype.hpp: integers are exact doubles).
struct HostArray {
    const DtypeInfo* dtype = nullptr;
    std::vector<double> values;
    std::size_t size() const { return values.size(); }
    double operator[](std::size_t i) const { return values[i]; }
};

struct CheckContext {
    std::map<std::string, double> variables;    // parameters, choice attributes, derived, arch limits, sizes
    std::map<std::string, std::string> choices; // enum and bool parameters as text: "op" -> "sum", "SWIZZLE" -> "true"
    SizeMap sizes;
    std::map<std::string, HostArray> inputs;     // "in" and "inout" arguments, as uploaded
    std::map<std::string, HostArray> outputs;    // "out" and "inout" arguments, after the checked launch
    std::map<std::string, HostArray> baselineOutputs;  // by baseline id ("cublas_gemm"), for baselines that wrote one
    // The same, held by a sweep's RunShare and read in place (arrays of tens of millions of
    // values are not copied for every config); input() and baselineOutput() look here first.
    std::map<std::string, std::shared_ptr<const HostArray>> sharedInputs;
    std::map<std::string, std::shared_ptr<const HostArray>> sharedBaselineOutputs;
    std::uint64_t seed = 1;
    // Large problems: a reference that is too slow to compute fully past this many operations
    // (multiply-adds for GEMM) checks sampledOutputs random outputs instead, and compares every
    // output with a baseline's output when there is one.
    double fullCheckOps = 1.5e8;
    int sampledOutputs = 4096;

    // Throw InputError naming the missing name (a manifest that does not match its reference).
    double var(const std::string& name) const;
    long long size(const std::string& name) const;
    const std::string& choice(const std::string& name) const;
    const HostArray& input(const std::string& name) const;
    const HostArray& output(const std::string& name) const;
    // nullptr when that baseline did not run or wrote no output.
    const HostArray* baselineOutput(const std::string& id) const;
};

using ReferenceCheck = std::function<void(const CheckContext&, CorrectnessReport&)>;

// The reference registered under name, or nullptr.
const ReferenceCheck* findReference(const std::string& name);
// Every registered name, sorted.
std::vector<std::string> referenceNames();

// [SECTION] Helpers every reference uses

// Compares outputs one at a time against float64 references with |got - ref| <= tol * scale
// (plus absoluteFloor, for results that round into the subnormal range, where the storage
// rounding is absolute), counting, tracking the worst errors and the first failure
// ("out[12] = 3.1 (expected 2.9)").
// A NaN output never passes (outputs are poisoned with NaN before the checked launch); an
// infinite one passes only when the reference is the same infinity.
class ElementChecker {
public:
    ElementChecker(CorrectnessReport& report, double tolerance, double absoluteFloor = 0);
    // Returns whether this element passed.
    bool check(long long index, double got, double ref, double scale, const std::string& where);
    // The same, with the element's name made only when it is the first failure (a check of
    // millions of elements should not format millions of names): where() returns it.
    template <class Name, class = std::enable_if_t<std::is_invocable_r_v<std::string, Name>>>
    bool check(long long index, double got, double ref, double scale, Name&& where) {
        const bool ok = judge(got, ref, scale);
        if (!ok && m_report.firstBadIndex < 0) recordFirstFailure(index, got, ref, where());
        return ok;
    }
    // Exact comparison (integers, keys, counts, maxima).
    bool checkExact(long long index, double got, double ref, const std::string& where);
    // Sets report.passed from the failures seen (and report.tolerance).
    void finish();

private:
    bool judge(double got, double ref, double scale);  // counts the element and its error
    void recordFirstFailure(long long index, double got, double ref, const std::string& where);

    CorrectnessReport& m_report;
    double m_tolerance;
    double m_absoluteFloor;
};

// "name[i]" or "name[r,c]" for messages.
std::string elementName(const std::string& array, long long index);
std::string elementName(const std::string& array, long long row, long long col);

}  // namespace kx::engine
