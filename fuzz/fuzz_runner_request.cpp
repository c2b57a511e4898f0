// A mutated "run" request, parsed as kx-runner parses it (runner/request_parsing.hpp): the
// launches and the arguments. Loading the module and launching need a driver, so they are not
// fuzzed. Errors are RunnerErrors or nlohmann::json exceptions (main.cpp answers both with an
// error reply), nothing else.
#include "fuzz_support.hpp"

#include "request_parsing.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded()) return 0;
    try {
        kx::runner::parseLaunches(j);
    } catch (const kx::runner::RunnerError&) {
    } catch (const nlohmann::json::exception&) {
    }
    try {
        kx::runner::parseArgs(j.is_object() && j.contains("args") ? j["args"] : j);
    } catch (const kx::runner::RunnerError&) {
    } catch (const nlohmann::json::exception&) {
    }
    return 0;
}
