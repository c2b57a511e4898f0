#include "compile/compiler.hpp"

#include "analysis/sass_listing.hpp"
#include "compile/compile_files.hpp"
#include "util/hash.hpp"

#include <nlohmann/json.hpp>
#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <sys/wait.h>

#ifndef KX_CUDA_INCLUDE_DIR
#define KX_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif
#ifndef KX_CUDA_BIN_DIR
#define KX_CUDA_BIN_DIR "/usr/local/cuda/bin"
#endif

namespace kx::engine {
namespace fs = std::filesystem;
using namespace compile_files;  // readFile, writeFile, uniqueSuffix

namespace {

std::string cudaIncludeDir() {
    if (const char* env = std::getenv("KX_CUDA_INCLUDE"); env && *env) return env;
    return KX_CUDA_INCLUDE_DIR;
}

}  // namespace

const KernelResources* kernelNamed(const std::vector<KernelResources>& kernels, const std::string& function) {
    for (const KernelResources& k : kernels)
        if (k.function == function) return &k;
    return kernels.empty() ? nullptr : &kernels.front();
}

std::string nvrtcVersionString() {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtcSupportedArchs() {
    int count = 0;
    std::vector<std::string> out;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS) return out;
    std::vector<int> archs(static_cast<std::size_t>(count));
    nvrtcGetSupportedArchs(archs.data());
    for (int a : archs) out.push_back("sm_" + std::to_string(a));
    return out;
}

namespace {

// Options only ptxas reads: the PTX stage leaves them out, so its result (and cache entry) is the
// same whatever they are.
bool isAssemblerOption(const std::string& o) {
    return o.rfind("--maxrregcount=", 0) == 0 || o.rfind("-Xptxas", 0) == 0 || o.rfind("--ptxas-options", 0) == 0;
}

// "sm_90a" -> "compute_90a": the PTX stage targets the virtual arch of the same features.
std::string virtualArch(const std::string& arch) {
    return arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
}

std::string ptxCacheKey(const CompileRequest& request) {
    std::string material = "ptx\n" + nvrtcVersionString() + "\n" + request.fileName + "\n";
    for (const std::string& o : nvrtcOptions(request)) material += o + "\n";
    material += request.source;
    return hashHex128(material);
}

}  // namespace

std::vector<std::string> nvrtcOptions(const CompileRequest& request) {
    std::vector<std::string> options = {
        "--gpu-architecture=" + virtualArch(request.arch),
        "-std=c++17",
        // Leaves out textures, surfaces, device-side launches and the runtime's types: kernel
        // templates use none of them, and the front end runs about a tenth faster.
        "--minimal",
        "-I" + cudaIncludeDir(),
    };
    if (request.lineInfo) options.push_back("-lineinfo");
    for (const std::string& o : request.options)
        if (!isAssemblerOption(o)) options.push_back(o);
    return options;
}

std::vector<std::string> fullCompileOptions(const CompileRequest& request) {
    std::vector<std::string> options = {
        "--gpu-architecture=" + request.arch,
        "-std=c++17",
        "--minimal",
        "-I" + cudaIncludeDir(),
        "-Xptxas=-v",   // the resource report
    };
    if (request.lineInfo) options.push_back("-lineinfo");
    options.insert(options.end(), request.options.begin(), request.options.end());
    return options;
}

std::string compileCacheKey(const CompileRequest& request) {
    std::string material = "full\n" + nvrtcVersionString() + "\n" + request.fileName + "\n";
    for (const std::string& o : fullCompileOptions(request)) material += o + "\n";
    material += request.source;
    return hashHex128(material);
}

Compiler::Compiler(fs::path cacheDir, std::size_t memoryBudgetBytes)
    : m_cacheDir(std::move(cacheDir)), m_memory(memoryBudgetBytes, [](const CompileResult& r) {
          return r.ptx.size() + r.cubin.size() + r.log.size() + r.cacheKey.size() + sizeof(CompileResult);
      }) {
    if (!m_cacheDir.empty()) {
        std::error_code ec;
        fs::create_directories(m_cacheDir, ec);
        if (ec) m_cacheDir.clear();  // an unwritable cache only costs speed
    }
}

std::optional<CompileResult> Compiler::lookup(const std::string& key) {
    return compile_files::findCached(m_mutex, m_memory, m_cacheDir, key, [](const nlohmann::json& meta, const fs::path& dir) {
        CompileResult r;
        r.ok = meta.at("ok");
        r.assembled = meta.value("assembled", false);
        r.ptxMs = meta.value("ptx_ms", 0.0);
        r.arch = meta.at("arch");
        r.compilerVersion = meta.at("compiler");
        r.log = readFile(dir / "log.txt");
        r.ptx = readFile(dir / "kernel.ptx");
        r.cubin = readFile(dir / "kernel.cubin");
        r.kernels = parsePtxasReport(r.log);
        r.diagnostics = parseCompileDiagnostics(r.log);
        return r;
    });
}

void Compiler::store(const CompileResult& result, bool persist) {
    {
        std::lock_guard lock(m_mutex);
        m_memory.put(result.cacheKey, result);
    }
    if (m_cacheDir.empty() || !persist) return;
    const nlohmann::json meta = {{"ok", result.ok}, {"assembled", result.assembled}, {"arch", result.arch},
                                 {"compiler", result.compilerVersion}, {"ptx_ms", result.ptxMs}};
    compile_files::writeCacheEntry(m_cacheDir / result.cacheKey,
                                   {{"log.txt", result.log}, {"kernel.ptx", result.ptx}, {"kernel.cubin", result.cubin}}, meta, false);
}

bool Compiler::claim(const std::string& key) {
    std::unique_lock lock(m_mutex);
    bool waited = false;
    while (m_inFlight.count(key) != 0) {
        waited = true;
        m_released.wait(lock);
    }
    if (waited && m_memory.contains(key)) return false;
    m_inFlight.insert(key);
    return true;
}

void Compiler::release(const std::string& key) {
    {
        std::lock_guard lock(m_mutex);
        m_inFlight.erase(key);
    }
    m_released.notify_all();
}

namespace {
// Releases a claimed key however the compile ends.
struct Claim {
    std::function<void()> release;
    ~Claim() {
        if (release) release();
    }
};
}  // namespace

namespace {

// One NVRTC compile with the given options: the log, and the PTX (and, for a real target, the
// CUBIN) when it succeeds.
void runNvrtc(const CompileRequest& request, const std::vector<std::string>& options, bool wantCubin, CompileResult& result) {
    nvrtcProgram program = nullptr;
    nvrtcResult status = nvrtcCreateProgram(&program, request.source.c_str(), request.fileName.c_str(), 0, nullptr, nullptr);
    if (status != NVRTC_SUCCESS) {
        result.log = std::string("NVRTC could not create the program: ") + nvrtcGetErrorString(status);
        return;
    }
    std::vector<const char*> argv;
    for (const std::string& o : options) argv.push_back(o.c_str());
    status = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());

    auto take = [](std::string& text) {
        while (!text.empty() && text.back() == '\0') text.pop_back();
    };
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    result.log.resize(size);
    if (size) nvrtcGetProgramLog(program, result.log.data());
    take(result.log);

    if (status == NVRTC_SUCCESS) {
        result.ok = true;
        nvrtcGetPTXSize(program, &size);
        result.ptx.resize(size);
        nvrtcGetPTX(program, result.ptx.data());
        take(result.ptx);
        if (wantCubin && nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS && size > 0) {
            result.cubin.resize(size);
            nvrtcGetCUBIN(program, result.cubin.data());
        }
    } else if (result.log.empty()) {
        result.log = nvrtcGetErrorString(status);
    }
    nvrtcDestroyProgram(&program);
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::optional<CompileResult> Compiler::cachedOrClaim(const std::string& key) {
    for (;;) {
        if (auto cached = lookup(key)) {
            cached->fromCache = true;
            cached->compileMs = cached->ptxMs = 0;
            return cached;
        }
        if (claim(key)) return std::nullopt;  // else another thread just compiled it: the cache has it now
    }
}

CompileResult Compiler::compilePtx(const CompileRequest& request, bool persist) {
    const std::string key = ptxCacheKey(request);
    if (auto cached = cachedOrClaim(key)) return *cached;
    Claim claimed{[this, key] { release(key); }};

    CompileResult result;
    result.cacheKey = key;
    result.arch = request.arch;
    result.compilerVersion = nvrtcVersionString();
    const auto start = std::chrono::steady_clock::now();
    runNvrtc(request, nvrtcOptions(request), false, result);
    result.compileMs = result.ptxMs = millisecondsSince(start);
    result.diagnostics = parseCompileDiagnostics(result.log);
    store(result, persist);
    return result;
}

CompileResult Compiler::compile(const CompileRequest& request, bool persist) {
    const std::string key = compileCacheKey(request);
    if (auto cached = cachedOrClaim(key)) return *cached;
    Claim claimed{[this, key] { release(key); }};
    // The PTX stage first, from its cache when an edit already made it: a source that does not
    // compile fails there, and the time to PTX is reported as the app sees it.
    CompileResult result = compilePtx(request, persist);
    result.cacheKey = key;
    result.fromCache = false;
    if (!result.ok) return result;  // not stored: the PTX stage's own entry already holds it

    const auto start = std::chrono::steady_clock::now();
    CompileResult full;
    runNvrtc(request, fullCompileOptions(request), true, full);
    if (!full.ok || full.cubin.empty()) {
        result.ok = false;
        result.log += (result.log.empty() || result.log.back() == '\n' ? "" : "\n") + full.log +
                      "\ncompiling for " + request.arch + " failed after the PTX stage succeeded";
    } else {
        result.log = full.log;   // NVRTC's messages again, and ptxas's report
        result.cubin = std::move(full.cubin);
    }
    result.assembled = result.ok;
    result.compileMs = result.ptxMs + millisecondsSince(start);
    result.kernels = parsePtxasReport(result.log);
    result.diagnostics = parseCompileDiagnostics(result.log);
    store(result, persist);
    return result;
}

namespace {

std::string findCudaTool(const std::string& name) {
    for (const fs::path& dir : {fs::path(KX_CUDA_BIN_DIR), fs::path("/usr/local/cuda/bin")}) {
        std::error_code ec;
        if (fs::exists(dir / name, ec)) return (dir / name).string();
    }
    if (const char* path = std::getenv("PATH")) {
        std::string p = path;
        std::size_t start = 0;
        while (start <= p.size()) {
            const std::size_t end = p.find(':', start);
            const fs::path dir = p.substr(start, end == std::string::npos ? std::string::npos : end - start);
            std::error_code ec;
            if (!dir.empty() && fs::exists(dir / name, ec)) return (dir / name).string();
            if (end == std::string::npos) break;
            start = end + 1;
        }
    }
    return {};
}

// Runs a shell command; its output (stdout and stderr), or nullopt with *error set.
std::optional<std::string> runTool(const std::string& command, const std::string& tool, std::string* error) {
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        if (error) *error = "could not start " + tool;
        return std::nullopt;
    }
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
    if (pclose(pipe) != 0) {
        if (error) *error = "disassembler failed: " + output;
        return std::nullopt;
    }
    return output;
}

const char* kNoDisassembler =
    "SASS needs nvdisasm or cuobjdump (CUDA Toolkit, or 'pip install nvidia-cuda-nvdisasm'); neither was found";

// The CUBIN in a private temporary file, removed when this goes out of scope.
struct TempCubin {
    fs::path path = fs::temp_directory_path() / ("kx-" + uniqueSuffix() + ".cubin");
    explicit TempCubin(const std::string& bytes) { writeFile(path, bytes); }
    ~TempCubin() {
        std::error_code ec;
        fs::remove(path, ec);
    }
    std::string quoted() const { return "'" + path.string() + "'"; }
};

}  // namespace

std::optional<std::string> disassembleCubin(const std::string& cubin, std::string* error) {
    if (cubin.empty()) {
        if (error) *error = "no CUBIN to disassemble";
        return std::nullopt;
    }
    std::string tool = findCudaTool("nvdisasm");
    std::string command;
    const TempCubin tmp(cubin);
    if (!tool.empty()) {
        // Without -g: compiles carry line info now, and its "//## File" lines (absolute paths)
        // would only add noise to stored listings and their diffs; disassembleListing has them.
        command = "'" + tool + "' -c " + tmp.quoted() + " 2>&1";
    } else if (!(tool = findCudaTool("cuobjdump")).empty()) {
        command = "'" + tool + "' --dump-sass " + tmp.quoted() + " 2>&1";
    } else {
        if (error) *error = kNoDisassembler;
        return std::nullopt;
    }
    return runTool(command, tool, error);
}

std::optional<SassListing> disassembleListing(const std::string& cubin, const std::string& sourceFile, std::string* error) {
    if (cubin.empty()) {
        if (error) *error = "no CUBIN to disassemble";
        return std::nullopt;
    }
    const TempCubin tmp(cubin);
    const std::string nvdisasm = findCudaTool("nvdisasm");
    if (nvdisasm.empty()) {
        const std::string cuobjdump = findCudaTool("cuobjdump");
        if (cuobjdump.empty()) {
            if (error) *error = kNoDisassembler;
            return std::nullopt;
        }
        const auto text = runTool("'" + cuobjdump + "' --dump-sass " + tmp.quoted() + " 2>&1", cuobjdump, error);
        if (!text) return std::nullopt;
        return parseSassListing(*text, {}, {}, sourceFile);
    }
    const std::string tool = "'" + nvdisasm + "' -c ";
    const auto annotated = runTool(tool + "-gi -hex " + tmp.quoted() + " 2>&1", nvdisasm, error);
    if (!annotated) return std::nullopt;
    // PTX lines and life ranges are extras: a CUBIN without the PTX line table still shows.
    std::string ignored;
    const auto ptxLines = runTool(tool + "-gp " + tmp.quoted() + " 2>/dev/null", nvdisasm, &ignored);
    const auto lifeRanges = runTool(tool + "-lrm count " + tmp.quoted() + " 2>/dev/null", nvdisasm, &ignored);
    return parseSassListing(*annotated, ptxLines.value_or(""), lifeRanges.value_or(""), sourceFile);
}

}  // namespace kx::engine
