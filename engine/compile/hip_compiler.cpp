#include "compile/hip_compiler.hpp"

#include "util/data_paths.hpp"
#include "compile/compile_files.hpp"
#include "util/hash.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <random>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace kx::engine {
namespace fs = std::filesystem;
using namespace compile_files;  // readFile, writeFile, uniqueSuffix

namespace {

// Runs program with args (no shell), stdout and stderr into logFile; returns the exit status,
// or -1 when the program could not be started or did not exit normally.
int runProcess(const fs::path& program, const std::vector<std::string>& args, const fs::path& logFile) {
    std::vector<char*> argv;
    std::string programText = program.string();
    argv.push_back(programText.data());
    std::vector<std::string> copies = args;
    for (std::string& a : copies) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, programText.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::optional<fs::path> onPath(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    const std::string p = path;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = p.find(':', start);
        const fs::path dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
        std::error_code ec;
        if (!dir.empty() && fs::exists(dir / name, ec)) return dir / name;
        if (end == std::string::npos) return std::nullopt;
        start = end + 1;
    }
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

long long toNumber(std::string_view text) {
    text = trim(text);
    return std::strtoll(std::string(text).c_str(), nullptr, 10);
}

// Calls visit(key, field) for every field of the cache entry's kernel record: one list of keys
// serves writing and reading.
template <class Resources, class Visit>
void visitResourceFields(Resources& k, Visit&& visit) {
    visit("function", k.function);
    visit("vgprs", k.vgprs), visit("agprs", k.agprs), visit("total_vgprs", k.totalVgprs), visit("sgprs", k.sgprs);
    visit("vgpr_spills", k.vgprSpills), visit("sgpr_spills", k.sgprSpills);
    visit("lds", k.ldsBytes), visit("scratch", k.scratchBytes), visit("dynamic_stack", k.dynamicStack);
    visit("wave", k.wavefrontSize), visit("max_wg", k.maxFlatWorkgroupSize), visit("kernarg", k.kernargBytes);
    visit("code", k.codeBytes), visit("occupancy", k.compilerOccupancy);
}

nlohmann::json resourcesToJson(const AmdKernelResources& k) {
    nlohmann::json j = nlohmann::json::object();
    visitResourceFields(k, [&j](const char* key, const auto& field) { j[key] = field; });
    return j;
}

// A key missing from an older cache entry keeps the field's default.
AmdKernelResources resourcesFromJson(const nlohmann::json& j) {
    AmdKernelResources k;
    visitResourceFields(k, [&j](const char* key, auto& field) { field = j.value(key, field); });
    return k;
}

}  // namespace

HipCompileRequest hipRequest(const CompileRequest& request) {
    HipCompileRequest r;
    r.source = request.source;
    r.fileName = request.fileName;
    r.arch = request.arch;
    return r;
}

const AmdKernelResources* amdKernelNamed(const std::vector<AmdKernelResources>& kernels, const std::string& function) {
    for (const AmdKernelResources& k : kernels)
        if (k.function == function) return &k;
    return kernels.empty() ? nullptr : &kernels.front();
}

std::optional<fs::path> findHipClang() {
    if (const char* env = std::getenv("KX_HIP_CLANG"); env && *env) {
        std::error_code ec;
        if (fs::exists(env, ec)) return fs::path(env);
        return std::nullopt;
    }
    if (auto p = onPath("clang++-19")) return p;
    std::error_code ec;
    if (fs::exists("/usr/lib/llvm-19/bin/clang++", ec)) return fs::path("/usr/lib/llvm-19/bin/clang++");
    return std::nullopt;
}

std::string hipClangMissingMessage() {
    if (const char* env = std::getenv("KX_HIP_CLANG"); env && *env)
        return fmt::format("KX_HIP_CLANG names '{}', which does not exist", env);
    return "compiling HIP for AMD needs clang 19 with lld (Debian: apt-get install clang-19 lld-19), or "
           "KX_HIP_CLANG naming a clang++ with the AMDGPU target; clang++-19 was not found";
}

std::string hipClangVersion() {
    static std::mutex mutex;
    static std::unordered_map<std::string, std::string> versions;  // per clang path
    const auto clang = findHipClang();
    if (!clang) return {};
    std::lock_guard lock(mutex);
    if (auto it = versions.find(clang->string()); it != versions.end()) return it->second;
    const fs::path log = fs::temp_directory_path() / ("kx-clang-version-" + uniqueSuffix() + ".txt");
    std::string version;
    if (runProcess(*clang, {"--version"}, log) == 0) {
        const std::string text = readFile(log);
        // "Debian clang version 19.1.7 (3~deb12u1)" -> "clang 19.1.7"
        const std::size_t at = text.find("clang version ");
        if (at != std::string::npos) {
            const std::size_t start = at + 14;
            const std::size_t end = text.find_first_of(" \n", start);
            version = "clang " + text.substr(start, end - start);
        }
    }
    std::error_code ec;
    fs::remove(log, ec);
    versions[clang->string()] = version;
    return version;
}

fs::path defaultHipPrelude() { return dataRoot() / "assets" / "hip" / "kx_hip_prelude.h"; }

std::vector<std::string> hipCompileArgs(const HipCompileRequest& request, const fs::path& prelude, const std::string& sourcePath,
                                        const std::string& outputPath) {
    std::vector<std::string> args = {
        "-x", "hip", "--offload-arch=" + request.arch, "--cuda-device-only",
        // No ROCm: no device libraries and no HIP headers; the prelude stands in for them.
        "-nogpulib", "-nogpuinc", "-O3", "-std=c++17", "-fno-color-diagnostics", "-DKX_HIP_PRELUDE",
        "-include", prelude.string(), "-S"};
    args.insert(args.end(), request.options.begin(), request.options.end());
    args.insert(args.end(), {sourcePath, "-o", outputPath});
    return args;
}

std::vector<AmdKernelResources> parseAmdgpuResources(std::string_view isa) {
    std::vector<AmdKernelResources> kernels;
    // Remarks by function: "; -- Begin function NAME" opens a function whose "; Kernel info:"
    // block follows its code.
    struct Remarks { long long codeBytes = 0; int occupancy = 0; int totalVgprs = -1; int archVgprs = -1; int agprs = -1; };
    std::unordered_map<std::string, Remarks> remarks;
    std::string currentFunction;
    bool inMetadata = false, inKernels = false;
    std::size_t pos = 0;
    while (pos < isa.size()) {
        std::size_t end = isa.find('\n', pos);
        if (end == std::string_view::npos) end = isa.size();
        const std::string_view line = isa.substr(pos, end - pos);
        pos = end + 1;
        const std::string_view t = trim(line);

        if (t == ".amdgpu_metadata") { inMetadata = true; continue; }
        if (t == ".end_amdgpu_metadata") { inMetadata = false; inKernels = false; continue; }
        if (inMetadata) {
            // Top-level keys start in column 0; a kernel starts with "  - " and its own keys sit
            // at four spaces ("    .name:"); deeper lines belong to .args.
            if (!line.empty() && line[0] != ' ' && line[0] != '-') { inKernels = line.rfind("amdhsa.kernels:", 0) == 0; continue; }
            if (!inKernels) continue;
            std::string_view entry;
            if (line.rfind("  - ", 0) == 0) {
                kernels.emplace_back();
                entry = line.substr(4);
            } else if (line.rfind("    .", 0) == 0) {
                entry = line.substr(4);
            } else {
                continue;
            }
            if (kernels.empty()) continue;
            const std::size_t colon = entry.find(':');
            if (colon == std::string_view::npos) continue;
            const std::string_view key = trim(entry.substr(0, colon)), value = trim(entry.substr(colon + 1));
            AmdKernelResources& k = kernels.back();
            if (key == ".name") k.function = std::string(value);
            else if (key == ".vgpr_count") k.totalVgprs = static_cast<int>(toNumber(value));  // unified: arch + AGPRs
            else if (key == ".agpr_count") k.agprs = static_cast<int>(toNumber(value));
            else if (key == ".sgpr_count") k.sgprs = static_cast<int>(toNumber(value));
            else if (key == ".vgpr_spill_count") k.vgprSpills = static_cast<int>(toNumber(value));
            else if (key == ".sgpr_spill_count") k.sgprSpills = static_cast<int>(toNumber(value));
            else if (key == ".group_segment_fixed_size") k.ldsBytes = toNumber(value);
            else if (key == ".private_segment_fixed_size") k.scratchBytes = toNumber(value);
            else if (key == ".uses_dynamic_stack") k.dynamicStack = value == "true";
            else if (key == ".wavefront_size") k.wavefrontSize = static_cast<int>(toNumber(value));
            else if (key == ".max_flat_workgroup_size") k.maxFlatWorkgroupSize = static_cast<int>(toNumber(value));
            else if (key == ".kernarg_segment_size") k.kernargBytes = toNumber(value);
            continue;
        }
        // ".protected NAME ; -- Begin function NAME" (or the remark on a line of its own).
        if (const std::size_t begin = t.find("; -- Begin function "); begin != std::string_view::npos) {
            currentFunction = std::string(trim(t.substr(begin + 20)));
            continue;
        }
        if (t.rfind(";", 0) != 0 || currentFunction.empty()) continue;
        // Kernel-info remarks: "; codeLenInByte = 140", "; Occupancy: 8", "; TotalNumVgprs: 6".
        const std::string_view remark = trim(t.substr(1));
        auto valueAfter = [&](std::string_view prefix) -> std::optional<long long> {
            if (remark.rfind(prefix, 0) != 0) return std::nullopt;
            return toNumber(remark.substr(prefix.size()));
        };
        if (auto v = valueAfter("codeLenInByte = ")) remarks[currentFunction].codeBytes = *v;
        else if (auto v2 = valueAfter("Occupancy: ")) remarks[currentFunction].occupancy = static_cast<int>(*v2);
        else if (auto v3 = valueAfter("TotalNumVgprs: ")) remarks[currentFunction].totalVgprs = static_cast<int>(*v3);
        else if (auto v4 = valueAfter("NumVgprs: ")) remarks[currentFunction].archVgprs = static_cast<int>(*v4);
        else if (auto v5 = valueAfter("NumAgprs: ")) remarks[currentFunction].agprs = static_cast<int>(*v5);
    }
    for (AmdKernelResources& k : kernels) {
        // The metadata's .vgpr_count is the unified count on gfx90a and later (arch VGPRs, then
        // the AGPRs at the next multiple of 4); the remarks give the arch VGPRs themselves.
        k.vgprs = k.agprs > 0 ? std::max(k.totalVgprs - k.agprs, 0) : k.totalVgprs;
        if (auto it = remarks.find(k.function); it != remarks.end()) {
            const Remarks& r = it->second;
            k.codeBytes = r.codeBytes;
            k.compilerOccupancy = r.occupancy;
            if (r.totalVgprs >= 0) k.totalVgprs = r.totalVgprs;
            if (r.archVgprs >= 0) k.vgprs = r.archVgprs;
            if (r.agprs >= 0) k.agprs = r.agprs;
        }
    }
    return kernels;
}

std::vector<CompileDiagnostic> parseClangDiagnostics(std::string_view log) {
    std::vector<CompileDiagnostic> out;
    std::size_t pos = 0;
    while (pos < log.size()) {
        std::size_t end = log.find('\n', pos);
        if (end == std::string_view::npos) end = log.size();
        const std::string line(log.substr(pos, end - pos));
        pos = end + 1;
        for (const char* severity : {"error", "warning"}) {
            const std::string marker = std::string(": ") + severity + ": ";
            const std::size_t at = line.find(marker);
            if (at == std::string::npos) continue;
            // "file:LINE:COL" before the marker.
            const std::string where = line.substr(0, at);
            const std::size_t lastColon = where.rfind(':');
            if (lastColon == std::string::npos) break;
            const std::size_t lineColon = where.rfind(':', lastColon - 1);
            if (lineColon == std::string::npos) break;
            const int lineNumber = std::atoi(where.substr(lineColon + 1, lastColon - lineColon - 1).c_str());
            if (lineNumber <= 0) break;
            out.push_back({where.substr(0, lineColon), lineNumber, severity, line.substr(at + marker.size())});
            break;
        }
    }
    return out;
}

HipCompiler::HipCompiler(fs::path cacheDir, fs::path prelude)
    : m_cacheDir(std::move(cacheDir)), m_prelude(std::move(prelude)), m_memory(std::size_t{256} << 20, [](const HipCompileResult& r) {
          return r.isa.size() + r.codeObject.size() + r.log.size() + r.cacheKey.size() + sizeof(HipCompileResult);
      }) {
    m_preludeText = readFile(m_prelude);
    if (!m_cacheDir.empty()) {
        std::error_code ec;
        fs::create_directories(m_cacheDir, ec);
        if (ec) m_cacheDir.clear();  // an unwritable cache only costs speed
    }
}

std::string HipCompiler::cacheKey(const HipCompileRequest& request) const {
    std::string text = "hip-v2\n" + hipClangVersion() + "\n" + request.fileName + "\n" + request.arch + "\n";
    for (const std::string& a : hipCompileArgs(request, "PRELUDE", "SOURCE", "OUT")) text += a + "\n";
    text += hashHex128(m_preludeText) + "\n" + request.source;
    return hashHex128(text);
}

std::optional<HipCompileResult> HipCompiler::lookup(const std::string& key) {
    return compile_files::findCached(m_mutex, m_memory, m_cacheDir, key, [](const nlohmann::json& meta, const fs::path& dir) {
        HipCompileResult r;
        r.ok = meta.at("ok").get<bool>();
        r.arch = meta.value("arch", "");
        r.compilerVersion = meta.value("compiler", "");
        r.log = meta.value("log", "");
        for (const auto& k : meta.value("kernels", nlohmann::json::array())) r.kernels.push_back(resourcesFromJson(k));
        r.isa = readFile(dir / "kernel.s");
        r.codeObject = readFile(dir / "kernel.hsaco");
        r.diagnostics = parseClangDiagnostics(r.log);
        return r;
    });
}

void HipCompiler::store(const HipCompileResult& result) {
    {
        std::lock_guard lock(m_mutex);
        m_memory.put(result.cacheKey, result);
    }
    if (m_cacheDir.empty()) return;
    nlohmann::json kernels = nlohmann::json::array();
    for (const AmdKernelResources& k : result.kernels) kernels.push_back(resourcesToJson(k));
    const nlohmann::json meta = {{"ok", result.ok}, {"arch", result.arch}, {"compiler", result.compilerVersion},
                                 {"log", result.log}, {"kernels", kernels}};
    compile_files::writeCacheEntry(m_cacheDir / result.cacheKey, {{"kernel.s", result.isa}, {"kernel.hsaco", result.codeObject}}, meta,
                                   true);
}

HipCompileResult HipCompiler::compile(const HipCompileRequest& request) {
    HipCompileResult result;
    result.arch = request.arch;
    const auto clang = findHipClang();
    if (!clang) {
        result.log = hipClangMissingMessage();
        return result;
    }
    if (m_preludeText.empty()) {
        result.log = "the HIP device prelude " + m_prelude.string() + " cannot be read";
        return result;
    }
    result.cacheKey = cacheKey(request);
    if (auto cached = lookup(result.cacheKey)) {
        cached->fromCache = true;
        cached->compileMs = 0;
        return *cached;
    }
    result.compilerVersion = hipClangVersion();

    const auto start = std::chrono::steady_clock::now();
    const fs::path work = fs::temp_directory_path() / ("kx-hip-" + uniqueSuffix());
    std::error_code ec;
    fs::create_directories(work, ec);
    const std::string fileName = fs::path(request.fileName).filename().string().empty() ? "kernel.hip" : fs::path(request.fileName).filename().string();
    const fs::path source = work / fileName, assembly = work / "kernel.s", codeObject = work / "kernel.hsaco", log = work / "log.txt";
    if (ec || !writeFile(source, request.source)) {
        result.log = "cannot write the HIP source to " + work.string();
        fs::remove_all(work, ec);
        return result;
    }
    std::vector<std::string> args = hipCompileArgs(request, m_prelude, source.string(), assembly.string());
    const int status = runProcess(*clang, args, log);
    result.log = readFile(log);
    {
        // Diagnostics name the temporary copy; name the source as the request does.
        const std::string tmpName = source.string();
        for (std::size_t at = result.log.find(tmpName); at != std::string::npos; at = result.log.find(tmpName, at + request.fileName.size()))
            result.log.replace(at, tmpName.size(), request.fileName);
    }
    if (status == 0) {
        result.isa = readFile(assembly);
        // The code object: assemble and link what was shown, so both are the same code.
        fs::remove(log, ec);
        const int linked = runProcess(*clang, {"--target=amdgcn-amd-amdhsa", "-mcpu=" + request.arch, assembly.string(), "-o", codeObject.string()}, log);
        if (linked == 0) {
            result.codeObject = readFile(codeObject);
            result.ok = !result.isa.empty();
        } else {
            result.log += "\nassembling the code object failed (is lld-19 installed?):\n" + readFile(log);
        }
    } else if (status < 0) {
        result.log = "could not run " + clang->string();
    }
    fs::remove_all(work, ec);
    result.compileMs = millisecondsSince(start);
    result.diagnostics = parseClangDiagnostics(result.log);
    if (result.ok) result.kernels = parseAmdgpuResources(result.isa);
    if (status >= 0) store(result);  // a compiler that could not start is not a result
    return result;
}

}  // namespace kx::engine
