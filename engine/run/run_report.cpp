#include "run/run_report.hpp"

namespace kx::engine {

const char* verdictText(Verdict verdict) {
    switch (verdict) {
    case Verdict::Pass: return "PASS";
    case Verdict::Fail: return "FAIL";
    case Verdict::NoReference: return "NO REFERENCE";
    }
    return "?";
}

const BaselineReport* RunReport::primaryBaseline() const {
    for (const BaselineReport& b : baselines)
        if (b.ok()) return &b;
    return nullptr;
}

}  // namespace kx::engine
