// A mutated reply of kx-runner, read as the client reads it: applyRunReply (the "run" reply),
// and the stored report forms runReportFromJson and pcSamplingReportFromJson, each written back.
// A reply that is not JSON never gets this far (runner_client.cpp refuses it). Errors are
// InputErrors or nlohmann::json exceptions (a missing key, a wrong type: variant_run reports them
// as the run's error), nothing else.
#include "fuzz_support.hpp"

#include "run/run_report_json.hpp"
#include "run/variant_run.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;
    try {
        kx::engine::RunReport report;
        report.flops = 2.0e12;
        report.bytes = 3.0e9;
        report.ok = true;
        kx::engine::applyRunReply(j, report);
        kx::engine::toJson(report).dump();
    } catch (const nlohmann::json::exception&) {
    } catch (const kx::engine::InputError&) {
    }
    try {
        kx::engine::toJson(kx::engine::runReportFromJson(j)).dump();
    } catch (const kx::engine::InputError&) {
    }
    try {
        kx::engine::toJson(kx::engine::pcSamplingReportFromJson(j.is_object() && j.contains("pc_sampling") ? j["pc_sampling"] : j)).dump();
    } catch (const kx::engine::InputError&) {
    }
    return 0;
}
