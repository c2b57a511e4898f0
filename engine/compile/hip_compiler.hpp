// HIP to AMD ISA with clang 19, no ROCm needed: a device-only compile (-x hip --cuda-device-only
// -nogpulib -nogpuinc) with our device prelude (assets/hip/kx_hip_prelude.h) standing in for
// <hip/hip_runtime.h>, to assembly text (-S), which clang then assembles and links into the code
// object (an ELF .hsaco) that a ROCm runtime would load. The resources come from the assembly:
// the code object's metadata (.amdgpu_metadata) and the "; Kernel info" remarks clang writes
// after each kernel, the compiler's own occupancy among them.
//
// clang runs as a child process (posix_spawn, no shell); results are cached by content hash in
// memory and on disk, like Compiler's.
#pragma once

#include "compile/compiler.hpp"  // and the standard headers both compilers' declarations use

namespace kx::engine {

// One HIP source for one AMD arch, as CompileRequest is for NVRTC.
struct HipCompileRequest {
    std::string source;
    std::string arch;                     // "gfx90a", "gfx942"
    std::string fileName = "kernel.hip";  // the name diagnostics refer to
    std::vector<std::string> options;     // extra clang options ("-ffast-math")
};

// The HIP request of a rendered variant (PreparedVariant::request: source, file name, arch).
HipCompileRequest hipRequest(const CompileRequest& request);

// One kernel's resources, from the code object metadata and clang's kernel-info remarks.
// Registers per lane (VGPRs, AGPRs) or per wave (SGPRs); bytes unless said.
struct AmdKernelResources {
    std::string function;
    int vgprs = 0;                 // architectural VGPRs ("; NumVgprs")
    int agprs = 0;                 // accumulation VGPRs (.agpr_count, "; NumAgprs")
    int totalVgprs = 0;            // the unified count the wave is given (.vgpr_count, "; TotalNumVgprs")
    int sgprs = 0;                 // VCC, FLAT_SCRATCH and XNACK_MASK included (.sgpr_count)
    int vgprSpills = 0;            // registers spilled to scratch (.vgpr_spill_count)
    int sgprSpills = 0;            // SGPRs spilled, to VGPR lanes or scratch (.sgpr_spill_count)
    long long ldsBytes = 0;        // static LDS (.group_segment_fixed_size)
    long long scratchBytes = 0;    // per lane (.private_segment_fixed_size)
    bool dynamicStack = false;     // .uses_dynamic_stack: scratch size not known at compile time
    int wavefrontSize = 0;         // .wavefront_size
    int maxFlatWorkgroupSize = 0;  // .max_flat_workgroup_size (__launch_bounds__)
    long long kernargBytes = 0;    // .kernarg_segment_size
    long long codeBytes = 0;       // "; codeLenInByte"
    // Waves per SIMD the compiler expects ("; Occupancy: N"): the registers' and LDS's limit for
    // workgroups of maxFlatWorkgroupSize. 0 when clang wrote none.
    int compilerOccupancy = 0;
    bool spills() const { return vgprSpills > 0 || sgprSpills > 0 || scratchBytes > 0; }
};

// The kernel of that name; the first when none has it; null when there is none.
const AmdKernelResources* amdKernelNamed(const std::vector<AmdKernelResources>& kernels, const std::string& function);

struct HipCompileResult {
    bool ok = false;
    std::string isa;         // the assembly clang wrote (-S), remarks and metadata included
    std::string codeObject;  // the linked ELF code object (.hsaco bytes)
    std::string log;         // clang's messages
    std::vector<CompileDiagnostic> diagnostics;
    std::vector<AmdKernelResources> kernels;
    double compileMs = 0;    // 0 when served from the cache
    bool fromCache = false;
    std::string cacheKey;
    std::string compilerVersion;  // "clang 19.1.7"
    std::string arch;
};

// The clang++ that compiles HIP: $KX_HIP_CLANG, else clang++-19 on PATH, else
// /usr/lib/llvm-19/bin/clang++. nullopt when none is found.
std::optional<std::filesystem::path> findHipClang();

// The sentence to show when findHipClang() finds nothing: what to install.
std::string hipClangMissingMessage();

// "clang 19.1.7", from `clang++ --version`; empty when clang is absent.
std::string hipClangVersion();

// The prelude shipped with the data: <dataRoot>/assets/hip/kx_hip_prelude.h.
std::filesystem::path defaultHipPrelude();

// clang's arguments for the -S stage, without the program name: source file `sourcePath`,
// assembly to `outputPath`.
std::vector<std::string> hipCompileArgs(const HipCompileRequest& request, const std::filesystem::path& prelude,
                                        const std::string& sourcePath, const std::string& outputPath);

// Parses the kernels of AMDGPU assembly: the .amdgpu_metadata block (YAML; the kernel-level keys
// listed in AmdKernelResources) and the "; Kernel info:" remarks after each function. Unknown keys
// are ignored; no metadata gives an empty list.
std::vector<AmdKernelResources> parseAmdgpuResources(std::string_view isa);

// Parses clang's "file:line:col: error: message" lines.
std::vector<CompileDiagnostic> parseClangDiagnostics(std::string_view log);

// Thread-safe. Never throws for compile errors (ok = false with the log), nor when clang is
// absent (ok = false, log = hipClangMissingMessage()).
class HipCompiler {
public:
    // cacheDir: an empty path keeps results in memory only. prelude: the device prelude
    // force-included into every compile.
    // Results kept in memory hold at most 256 MiB of ISA, code objects and logs (the least
    // recently used are dropped; compile_files::MemoryCache).
    explicit HipCompiler(std::filesystem::path cacheDir, std::filesystem::path prelude = defaultHipPrelude());

    HipCompileResult compile(const HipCompileRequest& request);

    // Hash of everything that changes the result: clang's version, arguments, prelude, source.
    std::string cacheKey(const HipCompileRequest& request) const;

private:
    std::optional<HipCompileResult> lookup(const std::string& key);
    void store(const HipCompileResult& result);

    std::filesystem::path m_cacheDir;
    std::filesystem::path m_prelude;
    std::string m_preludeText;
    std::mutex m_mutex;
    compile_files::MemoryCache<HipCompileResult> m_memory;
};

}  // namespace kx::engine
