#include "compile/compiler.hpp"

#include <regex>
#include <sstream>

namespace kx::engine {

std::vector<KernelResources> parsePtxasReport(std::string_view log) {
    static const std::regex function(R"(Function properties for (\S+))");
    static const std::regex compiling(R"(Compiling entry function '([^']+)')");
    static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used(R"(Used (\d+) registers)");
    static const std::regex barriers(R"(used (\d+) barriers)");
    static const std::regex smem(R"((\d+) bytes smem)");
    static const std::regex cmem(R"((\d+) bytes cmem\[0\])");

    std::vector<KernelResources> kernels;
    KernelResources current;
    std::istringstream lines{std::string(log)};
    std::string line;
    std::smatch m;
    while (std::getline(lines, line)) {
        if (line.find("ptxas") == std::string::npos) continue;
        if (std::regex_search(line, m, compiling)) {
            current = KernelResources{};
            current.function = m[1];
        } else if (std::regex_search(line, m, function)) {
            current.function = m[1];
        } else if (std::regex_search(line, m, frame)) {
            current.stackFrameBytes = std::stoll(m[1]);
            current.spillStoreBytes = std::stoll(m[2]);
            current.spillLoadBytes = std::stoll(m[3]);
        } else if (std::regex_search(line, m, used)) {
            current.registers = std::stoi(m[1]);
            if (std::regex_search(line, m, barriers)) current.barriers = std::stoi(m[1]);
            if (std::regex_search(line, m, smem)) current.sharedBytes = std::stoll(m[1]);
            if (std::regex_search(line, m, cmem)) current.constantBytes = std::stoll(m[1]);
            // "Used" closes a kernel's block in the report.
            kernels.push_back(current);
            current = KernelResources{};
        }
    }
    return kernels;
}

std::vector<CompileDiagnostic> parseCompileDiagnostics(std::string_view log) {
    static const std::regex diag(R"(^(.*)\((\d+)\): (error|warning|remark|catastrophic error)[^:]*: (.*)$)");
    std::vector<CompileDiagnostic> out;
    std::istringstream lines{std::string(log)};
    std::string line;
    std::smatch m;
    while (std::getline(lines, line)) {
        if (std::regex_match(line, m, diag)) {
            std::string severity = m[3];
            if (severity == "catastrophic error") severity = "error";
            out.push_back({m[1], std::stoi(m[2]), severity, m[4]});
        }
    }
    return out;
}

bool ptxasAppliedRegisterCap(std::string_view log, const std::string& function) {
    // "ptxas info    : Overriding maximum register limit 256 for 'k' with  32 of maxrregcount option"
    const std::string needle = "for '" + function + "' with";
    for (std::size_t at = log.find("Overriding maximum register limit"); at != std::string_view::npos;
         at = log.find("Overriding maximum register limit", at + 1)) {
        const std::size_t end = log.find('\n', at);
        if (log.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at).find(needle) != std::string_view::npos) return true;
    }
    return false;
}

RegisterCapOutcome registerCapOutcome(std::string_view log, const std::string& function, int registers, int cap) {
    if (ptxasAppliedRegisterCap(log, function)) return RegisterCapOutcome::Applied;
    return registers <= cap ? RegisterCapOutcome::Within : RegisterCapOutcome::Ignored;
}

}  // namespace kx::engine
