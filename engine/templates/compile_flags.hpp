// Compiler flags of a variant: the NVRTC and ptxas options a user may change for any template
// (a register cap, fast math, the assembler's optimisation level, extra vectorisation). They are
// part of the variant's identity, like its parameters: they enter Config (and so its canonical
// text, hash and procedural name), the compile request's options and through them the cache key.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kx::engine {

struct Arch;

struct CompileFlags {
    // ptxas may use at most this many registers per thread (NVRTC --maxrregcount); 0: no cap.
    // A kernel with __launch_bounds__ is still capped by those bounds as well.
    int maxRegisters = 0;
    bool fastMath = false;            // --use_fast_math: approximate division, sqrt, exp; flush to zero
    int ptxasOptLevel = 3;            // -Xptxas -O0 .. -O3; 3 is ptxas's own default
    bool extraVectorization = false;  // --extra-device-vectorization: more aggressive vectorising in NVVM

    bool isDefault() const { return *this == CompileFlags{}; }

    // The non-default flags as "maxrregcount=64,fast_math=true": empty for the defaults, keys in
    // the order of compileFlagKeys(). parseCompileFlags() reads it back.
    std::string canonical() const;
    // What the procedural name gets appended: "_r64_fm_O1_xv" (empty for the defaults).
    std::string nameSuffix() const;
    // The NVRTC options that give these flags, in a fixed order (CompileRequest::options).
    std::vector<std::string> nvrtcOptions() const;
    // Every flag as (key, value text), defaults included, in compileFlagKeys() order.
    std::vector<std::pair<std::string, std::string>> values() const;
    // One flag's value text as values() gives it ("64", "true"); throws InputError for a key that
    // is not a flag.
    std::string value(const std::string& key) const;

    bool operator==(const CompileFlags&) const = default;
};

struct CompileFlagKey {
    const char* key;    // "maxrregcount"
    const char* label;  // "Max registers"
    const char* help;   // one sentence for tooltips and `kx --help`
};

// The four keys: maxrregcount, fast_math, ptxas_opt, extra_vectorization.
const std::vector<CompileFlagKey>& compileFlagKeys();

// The key of a compiler flag as compileFlagKeys() spells it, '-' read as '_' ("fast-math" ->
// "fast_math"); "" when `key` names no flag.
std::string compileFlagKey(const std::string& key);

// Every value a flag allows, as CompileFlags::values() writes it: maxrregcount 0 and 16..255,
// ptxas_opt 0..3, the booleans false and true. Throws InputError for a key that is not a flag.
std::vector<std::string> allowedFlagValues(const std::string& key);

// flags with `key` set to `value` ("64", "true", "off"; '-' in a key reads as '_'). Throws
// InputError naming the key and what it allows: maxrregcount 0 (no cap) or 16..255, ptxas_opt
// 0..3, booleans true/false (1/0, on/off).
CompileFlags withFlag(CompileFlags flags, const std::string& key, const std::string& value);

// flags with each item of "maxrregcount=64,fast_math" set (a bare key sets a boolean flag to
// true); throws InputError as withFlag.
CompileFlags withFlags(CompileFlags flags, const std::string& text);
// withFlags over the defaults: reads CompileFlags::canonical() back.
inline CompileFlags parseCompileFlags(const std::string& text) { return withFlags(CompileFlags{}, text); }

// Why these flags cannot build for the arch ("" when they can): an AMD arch compiles with clang,
// which takes none of them; a register cap above the arch's registers per thread.
std::string compileFlagsProblem(const CompileFlags& flags, const Arch& arch);

}  // namespace kx::engine
