// Compilation in two stages, cached by content hash. The PTX stage: NVRTC turns CUDA source into
// PTX for the virtual arch (compute_90), what an edit waits for. The full stage: NVRTC compiles
// the same source for the real arch (sm_90), which yields the same PTX and the CUBIN that ptxas
// makes of it in whole-program mode, with its resource report. (Assembling the PTX separately,
// through nvJitLink, would compile it as a relocatable unit: ptxas then ignores setmaxnreg and
// serialises wgmma, and the SASS shown would not be what nvcc makes.)
#pragma once

#include "analysis/sass_listing.hpp"
#include "compile/memory_cache.hpp"

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kx::engine {

struct CompileRequest {
    std::string source;
    std::string fileName = "kernel.cu";  // the name diagnostics refer to
    std::string arch;                    // "sm_90", "sm_90a"
    // Extra NVRTC options ("--use_fast_math", "--maxrregcount=N"); the PTX stage leaves out
    // those that only the assembler reads.
    std::vector<std::string> options;
    // Line information (NVRTC's -lineinfo): `.loc` directives in the PTX and a line table in the
    // CUBIN that nvdisasm reads, for the source <-> PTX <-> SASS views. It changes neither the
    // PTX instructions nor the SASS, only adds the tables; it is part of the cache key.
    bool lineInfo = true;
};

// One kernel's line of the ptxas report. Bytes unless said.
struct KernelResources {
    std::string function;
    int registers = 0;
    long long sharedBytes = 0;       // static shared memory
    long long constantBytes = 0;     // cmem[0]
    long long stackFrameBytes = 0;
    long long spillStoreBytes = 0;
    long long spillLoadBytes = 0;
    int barriers = 0;
    bool spills() const { return spillStoreBytes > 0 || spillLoadBytes > 0; }
};

// The report line of the named kernel; the first line when none has that name (an older
// session's name); null when the report is empty.
const KernelResources* kernelNamed(const std::vector<KernelResources>& kernels, const std::string& function);

struct CompileDiagnostic {
    std::string file;
    int line = 0;
    std::string severity;  // "error", "warning"
    std::string message;
};

struct CompileResult {
    bool ok = false;
    bool assembled = false;                 // the full stage ran: cubin and kernels are filled in
    std::string ptx;
    std::string cubin;                      // ELF bytes
    std::string log;                        // the compiler's whole log
    std::vector<CompileDiagnostic> diagnostics;
    std::vector<KernelResources> kernels;   // from the ptxas report
    double compileMs = 0;                   // time the stages took (0 when served from the cache)
    double ptxMs = 0;                       // of which the PTX stage
    bool fromCache = false;
    std::string cacheKey;
    std::string compilerVersion;            // "NVRTC 13.0"
    std::string arch;
};

// "NVRTC 13.0".
std::string nvrtcVersionString();

// The architectures this NVRTC accepts, as "sm_75" ... (without the "a"/"f" variants).
std::vector<std::string> nvrtcSupportedArchs();

// The NVRTC options of the PTX stage (virtual target, standard, include path, extra options).
std::vector<std::string> nvrtcOptions(const CompileRequest& request);
// The NVRTC options of the full stage (real target, ptxas -v, every extra option).
std::vector<std::string> fullCompileOptions(const CompileRequest& request);

// Hash of everything that changes the result of compile(): compiler versions, both stages'
// options, file name, source.
std::string compileCacheKey(const CompileRequest& request);

// Parses "ptxas info : Used 40 registers, used 1 barriers, 8192 bytes smem, ..." and the
// "Function properties" lines that precede them. Unknown lines are ignored.
std::vector<KernelResources> parsePtxasReport(std::string_view log);

// True when ptxas says it capped `function`'s registers at --maxrregcount ("Overriding maximum
// register limit ... for 'f' with N of maxrregcount option"). ptxas says nothing for a kernel
// with __launch_bounds__, whose bounds take precedence: it may keep the kernel over the cap, or
// still hold it to the cap (a 128-thread block's bounds leave room for 255 registers, and ptxas
// then used 128 under a cap of 128), so the kernel's count decides.
bool ptxasAppliedRegisterCap(std::string_view log, const std::string& function);

// What became of a --maxrregcount cap for `function`, which uses `registers`.
enum class RegisterCapOutcome {
    Applied,  // ptxas said it capped the kernel
    Within,   // no word from ptxas (the kernel has __launch_bounds__), and the kernel keeps within the cap
    Ignored,  // the kernel uses more than the cap: its __launch_bounds__ took precedence
};
RegisterCapOutcome registerCapOutcome(std::string_view log, const std::string& function, int registers, int cap);

// Parses "file(LINE): error: message" lines of an NVRTC log.
std::vector<CompileDiagnostic> parseCompileDiagnostics(std::string_view log);

// Thread-safe; results are cached in memory and under cacheDir (pass an empty path for memory
// only). A request whose result is being compiled by another thread waits for that compile
// instead of repeating it (the app's speculative compiles and the user's edit meet here).
// Never throws for compile errors: ok=false with the log.
class Compiler {
public:
    // Results kept in memory hold at most memoryBudgetBytes of PTX, CUBIN and logs (the least
    // recently used are dropped; compile_files::MemoryCache).
    static constexpr std::size_t kMemoryBudgetBytes = std::size_t{256} << 20;
    explicit Compiler(std::filesystem::path cacheDir, std::size_t memoryBudgetBytes = kMemoryBudgetBytes);

    // Source to PTX only (assembled = false): the fast first stage. persist = false keeps a new
    // result in memory only (speculative compiles should not fill the disk).
    CompileResult compilePtx(const CompileRequest& request, bool persist = true);
    // Both stages: PTX (from the cache when compilePtx ran first), CUBIN and the ptxas report.
    CompileResult compile(const CompileRequest& request, bool persist = true);

private:
    std::optional<CompileResult> lookup(const std::string& key);
    void store(const CompileResult& result, bool persist);
    // Waits while another thread compiles `key`, then claims it: returns false when the wait
    // ended with the result in the memory cache (nothing to compile), true when this thread must
    // compile it and call release(key) after.
    bool claim(const std::string& key);
    // The cached result of key (fromCache, no compile time), or none once this thread has claimed
    // key and must compile it.
    std::optional<CompileResult> cachedOrClaim(const std::string& key);
    void release(const std::string& key);

    std::filesystem::path m_cacheDir;
    std::mutex m_mutex;
    std::condition_variable m_released;
    compile_files::MemoryCache<CompileResult> m_memory;
    std::unordered_set<std::string> m_inFlight;
};

// SASS of a CUBIN through nvdisasm (`-c`) or cuobjdump (from the CUDA toolkit's bin folder or PATH).
// Returns nullopt with *error set when neither tool is present or it fails.
std::optional<std::string> disassembleCubin(const std::string& cubin, std::string* error);

// The annotated listing (analysis/sass_listing.hpp): nvdisasm run three times for source and PTX
// lines, encodings and live registers; cuobjdump's listing (encodings only) when nvdisasm is
// absent. sourceFile is the CompileRequest's fileName. Nullopt with *error set as above.
std::optional<SassListing> disassembleListing(const std::string& cubin, const std::string& sourceFile, std::string* error);

}  // namespace kx::engine
