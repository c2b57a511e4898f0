// Instruction mix from PTX and SASS listings.
//
// [SECTION] Categories: keys, labels, teaching text
// [SECTION] Small text helpers
// [SECTION] Accumulating counts per kernel, warnings
// [SECTION] PTX: statements and classification
// [SECTION] SASS: lines and classification
#include "analysis/instruction_mix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <unordered_set>

namespace kx::engine {

// [SECTION] Categories: keys, labels, teaching text -------------------------------------------

namespace {

struct CategoryText {
    const char* key;
    const char* label;
    const char* help;
};

// One table, indexed by InstrCategory: the CLI, the GUI and JSON all read names from here.
constexpr CategoryText kCategoryText[kInstrCategoryCount] = {
    {"fp32", "FP32 FMA/ADD/MUL",
     "Single-precision multiply-adds, adds and multiplies (FFMA, FADD, FMUL). One FFMA is two FLOPs; "
     "a SIMT GEMM's inner loop should be almost all FFMA, fed from registers."},
    {"fp16", "FP16/BF16 FMA/ADD/MUL",
     "Half and bfloat16 arithmetic on the ordinary cores (HFMA2, HADD2, HMUL2): two values per "
     "instruction, twice FP32's rate, but far below the tensor cores."},
    {"fp64", "FP64 FMA/ADD/MUL",
     "Double-precision arithmetic (DFMA, DADD, DMUL). Fast on data-centre parts (H100: half the FP32 "
     "rate), 1/64 of it on consumer GPUs."},
    {"tensor_core", "Tensor core (MMA)",
     "Matrix multiply-accumulate on the tensor cores (mma.sync, wgmma; HMMA, HGMMA, IMMA, QGMMA). One "
     "instruction does a whole tile, 512 to thousands of FLOPs: an order of magnitude over FFMA."},
    {"special_function", "Special (MUFU)",
     "exp2, log2, reciprocal, square root, sine and cosine on the special-function units (MUFU): a "
     "quarter of the FMA rate; softmax and GELU spend their time here."},
    {"integer", "Integer/address",
     "Integer arithmetic, logic, shifts and integer compares (IMAD, IADD3, LOP3, SHF, ISETP, LEA). "
     "Mostly address and loop-index arithmetic: overhead that unrolling and wider loads reduce."},
    {"conversion", "Conversions",
     "Type conversions (cvt; F2F, F2I, I2F, F2FP): e.g. float to half before a store. Cheap one by "
     "one, but a sign of mixed precision in the inner loop when there are many."},
    {"global_load", "Global loads",
     "Loads from device memory through L1/L2 (ld.global, LDG; .nc / .CONSTANT through the read-only "
     "path). Width matters: a 128-bit load moves 16 bytes per thread per instruction."},
    {"global_store", "Global stores", "Stores to device memory (st.global, STG). Width matters as for loads."},
    {"async_copy", "Global->shared",
     "Asynchronous copies from global straight into shared memory without passing through registers "
     "(cp.async / LDGSTS on sm_80+, TMA / UTMALDG on sm_90): they overlap loading the next tile with "
     "computing this one."},
    {"shared_load", "Shared loads",
     "Loads from shared memory (ld.shared, LDS; ldmatrix, LDSM, which feeds tensor-core fragments). "
     "Wider loads need fewer instructions; bank conflicts are not visible here."},
    {"shared_store", "Shared stores", "Stores to shared memory (st.shared, STS; stmatrix, STSM)."},
    {"local_load", "Local loads",
     "Loads from local memory (LDL): per-thread memory that lives in DRAM behind L1. They mean register "
     "spills or an array indexed at run time; both are slow."},
    {"local_store", "Local stores",
     "Stores to local memory (STL): register spills or a per-thread array indexed at run time."},
    {"other_memory", "Other memory",
     "Parameter and constant loads (ld.param, LDC), texture and surface access, and loads/stores "
     "through generic pointers (LD, ST) whose space the compiler could not prove."},
    {"barrier", "Barriers/fences",
     "Block barriers (bar.sync, __syncthreads; BAR), memory fences, async-copy waits (cp.async.wait; "
     "DEPBAR) and mbarrier operations. Each barrier stalls warps until the slowest arrives."},
    {"shuffle", "Warp shuffles",
     "Register exchanges between lanes of a warp (shfl.sync, SHFL; redux.sync): warp-level reductions "
     "and broadcasts without shared memory."},
    {"atomic", "Atomics",
     "Atomic read-modify-write in global or shared memory (atom, red; ATOMG, ATOMS, RED). They "
     "serialise on contention."},
    {"control", "Control flow",
     "Branches, calls, returns and convergence (bra; BRA, BSSY, BSYNC, EXIT). Many branches in a hot "
     "loop usually mean bounds checks that a full-tile fast path would remove."},
    {"other", "Other",
     "Moves, selects, predicates, float compares and min/max, votes and special-register reads "
     "(mov, selp, setp.f32; MOV, SEL, FSETP, S2R)."},
};

}  // namespace

const char* categoryKey(InstrCategory c) {
    const int i = static_cast<int>(c);
    return i >= 0 && i < kInstrCategoryCount ? kCategoryText[i].key : "?";
}
const char* categoryLabel(InstrCategory c) {
    const int i = static_cast<int>(c);
    return i >= 0 && i < kInstrCategoryCount ? kCategoryText[i].label : "?";
}
const char* categoryHelp(InstrCategory c) {
    const int i = static_cast<int>(c);
    return i >= 0 && i < kInstrCategoryCount ? kCategoryText[i].help : "";
}

std::string widthLabel(int bits) { return bits > 0 ? fmt::format("{}-bit", bits) : std::string("unsized"); }

void MixCounts::add(const MixCounts& o) {
    for (int i = 0; i < kInstrCategoryCount; ++i) byCategory[static_cast<std::size_t>(i)] += o.byCategory[static_cast<std::size_t>(i)];
    auto merge = [](WidthCounts& into, const WidthCounts& from) {
        for (const auto& [bits, n] : from) into[bits] += n;
    };
    merge(globalLoads, o.globalLoads);
    merge(globalStores, o.globalStores);
    merge(asyncCopies, o.asyncCopies);
    merge(sharedLoads, o.sharedLoads);
    merge(sharedStores, o.sharedStores);
    total += o.total;
}

namespace {

// [SECTION] Small text helpers -----------------------------------------------------------------

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

// The first whitespace-separated word, and what follows it (trimmed).
std::pair<std::string_view, std::string_view> firstWord(std::string_view s) {
    s = trim(s);
    std::size_t i = 0;
    while (i < s.size() && !isSpace(s[i])) ++i;
    return {s.substr(0, i), trim(s.substr(i))};
}

std::vector<std::string_view> splitDots(std::string_view opcode) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (start <= opcode.size()) {
        const std::size_t dot = opcode.find('.', start);
        parts.push_back(opcode.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return parts;
}

bool has(const std::vector<std::string_view>& parts, std::string_view p) {
    return std::find(parts.begin() + 1, parts.end(), p) != parts.end();
}

int toInt(std::string_view s, int fallback) {
    s = trim(s);
    int v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && ptr == s.data() + s.size() ? v : fallback;
}

// What one instruction adds: a category, and for memory the width in bits (-1 when none).
struct Classified {
    InstrCategory category = InstrCategory::Other;
    int widthBits = -1;
};

// [SECTION] Accumulating counts per kernel, warnings --------------------------------------------

class MixBuilder {
public:
    explicit MixBuilder(MixSource source) { m_mix.source = source; }

    void beginKernel(std::string name, bool entry) {
        m_mix.kernels.push_back(KernelMix{std::move(name), entry, {}});
    }

    void add(Classified c) {
        if (m_mix.kernels.empty()) beginKernel("", true);
        addClassified(m_mix.kernels.back().counts, c);
    }

    static void addClassified(MixCounts& k, Classified c) {
        k.byCategory[static_cast<std::size_t>(c.category)] += 1;
        k.total += 1;
        if (c.widthBits < 0) return;
        switch (c.category) {
        case InstrCategory::GlobalLoad: k.globalLoads[c.widthBits] += 1; break;
        case InstrCategory::GlobalStore: k.globalStores[c.widthBits] += 1; break;
        case InstrCategory::AsyncCopy: k.asyncCopies[c.widthBits] += 1; break;
        case InstrCategory::SharedLoad: k.sharedLoads[c.widthBits] += 1; break;
        case InstrCategory::SharedStore: k.sharedStores[c.widthBits] += 1; break;
        default: break;
        }
    }

    InstructionMix finish() {
        for (const KernelMix& k : m_mix.kernels) m_mix.counts.add(k.counts);
        m_mix.hasLocalMemory = m_mix.counts.localMemory() > 0;
        const bool several = m_mix.kernels.size() > 1;
        auto where = [&](const KernelMix& k) { return several ? fmt::format(" in {}", k.name.empty() ? "(no name)" : k.name) : ""; };
        for (const KernelMix& k : m_mix.kernels) {
            const int local = k.counts.localMemory();
            if (local == 0) continue;
            m_mix.warnings.push_back(fmt::format(
                "{} local-memory instruction{}{} ({} load{}, {} store{}): spills or a register array indexed at run time",
                local, local == 1 ? "" : "s", where(k), k.counts[InstrCategory::LocalLoad],
                k.counts[InstrCategory::LocalLoad] == 1 ? "" : "s", k.counts[InstrCategory::LocalStore],
                k.counts[InstrCategory::LocalStore] == 1 ? "" : "s"));
        }
        for (const KernelMix& k : m_mix.kernels) {
            // Only when every global load (and async copy) is known to be 32-bit or narrower: one
            // wide load in the main loop with scalar ones in the tail is the normal, good shape.
            int loads = 0;
            bool allScalar = true;
            for (const WidthCounts* w : {&k.counts.globalLoads, &k.counts.asyncCopies}) {
                for (const auto& [bits, n] : *w) {
                    loads += n;
                    allScalar = allScalar && bits > 0 && bits <= 32;
                }
            }
            if (loads == 0 || !allScalar) continue;
            m_mix.warnings.push_back(fmt::format(
                "global loads narrower than 128 bits: all {} global load{}{} are 32-bit or narrower; 128-bit "
                "(float4) loads move the same bytes with a quarter of the instructions",
                loads, loads == 1 ? "" : "s", where(k)));
        }
        return std::move(m_mix);
    }

private:
    InstructionMix m_mix;
};

// [SECTION] PTX: statements and classification ---------------------------------------------------

// Bits of a PTX type suffix; 0 when the part is not a type.
int ptxTypeBits(std::string_view t) {
    static const std::pair<std::string_view, int> kTypes[] = {
        {"b8", 8},     {"u8", 8},       {"s8", 8},     {"b16", 16},     {"u16", 16},    {"s16", 16},
        {"f16", 16},   {"bf16", 16},    {"b32", 32},   {"u32", 32},     {"s32", 32},    {"f32", 32},
        {"f16x2", 32}, {"bf16x2", 32},  {"tf32", 32},  {"b64", 64},     {"u64", 64},    {"s64", 64},
        {"f64", 64},   {"b128", 128},   {"e4m3x2", 16}, {"e5m2x2", 16}, {"f32x2", 64},
    };
    for (const auto& [name, bits] : kTypes)
        if (t == name) return bits;
    return 0;
}

// The last type part of an opcode (ld.global.v4.f32 -> 32), 0 when none.
int ptxLastTypeBits(const std::vector<std::string_view>& parts) {
    for (auto it = parts.rbegin(); it != parts.rend() - 1; ++it)
        if (int b = ptxTypeBits(*it)) return b;
    return 0;
}

int ptxVectorCount(const std::vector<std::string_view>& parts) {
    if (has(parts, "v2")) return 2;
    if (has(parts, "v4")) return 4;
    if (has(parts, "v8")) return 8;
    return 1;
}

enum class Space { None, Global, Shared, Local, Param, Const };

// The first state space named in the opcode (ld.shared::cta.f32 -> Shared).
Space ptxSpace(const std::vector<std::string_view>& parts) {
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string_view p = parts[i];
        if (p == "global") return Space::Global;
        if (p.substr(0, 6) == "shared") return Space::Shared;
        if (p == "local") return Space::Local;
        if (p == "param") return Space::Param;
        if (p == "const") return Space::Const;
    }
    return Space::None;
}

enum class FloatKind { None, F32, Half, F64 };

FloatKind ptxFloatKind(const std::vector<std::string_view>& parts) {
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string_view p = parts[i];
        if (p == "f32" || p == "f32x2") return FloatKind::F32;
        if (p == "f16" || p == "f16x2" || p == "bf16" || p == "bf16x2") return FloatKind::Half;
        if (p == "f64") return FloatKind::F64;
    }
    return FloatKind::None;
}

// The n-th comma-separated operand, ignoring commas inside [] and {}.
std::string_view nthOperand(std::string_view operands, int n) {
    int depth = 0, index = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= operands.size(); ++i) {
        const char c = i < operands.size() ? operands[i] : ',';
        if (c == '[' || c == '{' || c == '(') ++depth;
        if (c == ']' || c == '}' || c == ')') --depth;
        if (c == ',' && depth <= 0) {
            if (index == n) return trim(operands.substr(start, i - start));
            ++index;
            start = i + 1;
        }
    }
    return {};
}

Classified classifyPtx(std::string_view opcode, std::string_view operands) {
    using C = InstrCategory;
    const std::vector<std::string_view> parts = splitDots(opcode);
    const std::string_view base = parts[0];
    auto memory = [&](C global, C shared, C local, int width) -> Classified {
        switch (ptxSpace(parts)) {
        case Space::Global: return {global, width};
        case Space::Shared: return {shared, width};
        case Space::Local: return {local, -1};
        default: return {C::OtherMemory, -1};
        }
    };

    if (base == "ld" || base == "ldu")
        return memory(C::GlobalLoad, C::SharedLoad, C::LocalLoad, ptxVectorCount(parts) * ptxLastTypeBits(parts));
    if (base == "st") return memory(C::GlobalStore, C::SharedStore, C::LocalStore, ptxVectorCount(parts) * ptxLastTypeBits(parts));
    if (base == "ldmatrix" || base == "stmatrix") {
        // Each of .x1/.x2/.x4 8x8 b16 matrices gives every thread one 32-bit register.
        const int count = has(parts, "x4") ? 4 : has(parts, "x2") ? 2 : 1;
        return {base == "ldmatrix" ? C::SharedLoad : C::SharedStore, 32 * count};
    }
    if (base == "cp") {
        if (parts.size() > 1 && parts[1] == "reduce") return {C::Atomic};
        if (parts.size() < 2 || parts[1] != "async") return {C::OtherMemory};
        if (has(parts, "commit_group") || has(parts, "wait_group") || has(parts, "wait_all") || has(parts, "mbarrier"))
            return {C::Barrier};
        if (has(parts, "prefetch")) return {C::OtherMemory};
        // cp.async[.bulk].DST.SRC: the destination space comes first.
        if (ptxSpace(parts) == Space::Global) return {C::GlobalStore, 0};
        if (has(parts, "bulk")) return {C::AsyncCopy, 0};
        const int bytes = toInt(nthOperand(operands, 2), 0);  // cp.async.ca.shared.global [dst], [src], 16
        return {C::AsyncCopy, bytes * 8};
    }
    if (base == "mma") return {C::TensorCore};
    if (base == "wgmma") return {parts.size() > 1 && parts[1] == "mma_async" ? C::TensorCore : C::Barrier};
    if (base == "wmma") {
        if (parts.size() > 1 && parts[1] == "load") return memory(C::GlobalLoad, C::SharedLoad, C::LocalLoad, 0);
        if (parts.size() > 1 && parts[1] == "store") return memory(C::GlobalStore, C::SharedStore, C::LocalStore, 0);
        return {C::TensorCore};
    }
    if (base == "tcgen05") return {parts.size() > 1 && parts[1].substr(0, 3) == "mma" ? C::TensorCore : C::Other};
    if (base == "bar" || base == "barrier" || base == "membar" || base == "fence" || base == "mbarrier") return {C::Barrier};
    if (base == "shfl" || base == "redux") return {C::Shuffle};
    if (base == "atom" || base == "red" || base == "sured") return {C::Atomic};
    if (base == "bra" || base == "brx" || base == "call" || base == "ret" || base == "exit" || base == "trap")
        return {C::Control};
    if (base == "cvt") return {C::Conversion};
    if (base == "cvta") return {C::Integer};
    if (base == "prefetch" || base == "prefetchu" || base == "tex" || base == "tld4" || base == "txq" || base == "suld" ||
        base == "sust")
        return {C::OtherMemory};

    const FloatKind fk = ptxFloatKind(parts);
    if (base == "fma" || base == "add" || base == "sub" || base == "mul" || base == "mad") {
        switch (fk) {
        case FloatKind::F32: return {C::Fp32};
        case FloatKind::Half: return {C::Fp16};
        case FloatKind::F64: return {C::Fp64};
        case FloatKind::None: return {C::Integer};
        }
    }
    static const std::unordered_set<std::string_view> kSpecial = {"rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh"};
    if (kSpecial.count(base)) return {C::SpecialFunction};
    if (base == "div") return {fk == FloatKind::None ? C::Integer : C::SpecialFunction};
    static const std::unordered_set<std::string_view> kIntegerOnly = {
        "mul24", "mad24", "sad", "rem", "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext",
        "dp4a", "dp2a", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "prmt"};
    if (kIntegerOnly.count(base)) return {has(parts, "pred") ? C::Other : C::Integer};
    if (base == "abs" || base == "neg" || base == "min" || base == "max" || base == "setp" || base == "set")
        return {fk == FloatKind::None ? C::Integer : C::Other};
    return {C::Other};
}

// Directives that end at the end of their line instead of at a ';'.
bool isLineDirective(std::string_view word) {
    static const std::unordered_set<std::string_view> kLine = {
        ".loc",    ".file",    ".version",   ".target",        ".address_size",      ".maxntid",
        ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".explicitcluster", ".reqnctapercluster",
        ".maxclusterrank", ".noreturn"};
    return kLine.count(word) > 0;
}

// Comments removed (strings kept), line directives dropped; newlines kept.
std::string cleanPtx(std::string_view ptx) {
    std::string out;
    out.reserve(ptx.size());
    bool inString = false;
    for (std::size_t i = 0; i < ptx.size(); ++i) {
        const char c = ptx[i];
        if (inString) {
            out += c;
            if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
            while (i < ptx.size() && ptx[i] != '\n') ++i;
            if (i < ptx.size()) out += '\n';
            continue;
        }
        if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
            const std::size_t end = ptx.find("*/", i + 2);
            for (std::size_t j = i; j < std::min(end, ptx.size()); ++j)
                if (ptx[j] == '\n') out += '\n';
            if (end == std::string_view::npos) break;
            i = end + 1;
            continue;
        }
        out += c;
    }
    std::string kept;
    kept.reserve(out.size());
    std::size_t start = 0;
    while (start < out.size()) {
        std::size_t end = out.find('\n', start);
        if (end == std::string::npos) end = out.size();
        const std::string_view line(out.data() + start, end - start);
        if (!isLineDirective(firstWord(line).first)) kept.append(line);
        kept += '\n';
        start = end + 1;
    }
    return kept;
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%'; }

// Strips leading braces, labels ("$L__BB0_2:") and a guard predicate ("@!%p1").
std::string_view stripPrefixes(std::string_view s) {
    for (;;) {
        s = trim(s);
        if (s.empty()) return s;
        if (s.front() == '{' || s.front() == '}') {
            s.remove_prefix(1);
            continue;
        }
        // A label is an identifier without dots followed by ':' (not '::', as in shared::cta).
        std::size_t i = 0;
        while (i < s.size() && isIdentChar(s[i])) ++i;
        std::size_t j = i;
        while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
        if (i > 0 && j < s.size() && s[j] == ':' && (j + 1 >= s.size() || s[j + 1] != ':')) {
            s.remove_prefix(j + 1);
            continue;
        }
        if (s.front() == '@') {
            s = firstWord(s).second;
            continue;
        }
        return s;
    }
}

// For a ".entry"/".func" directive with a body: the function's name and where its body starts
// (just after the '{'). Returns false for prototypes (.extern .func ...;) and other directives.
bool parseFunctionHeader(std::string_view stmt, std::string* name, bool* entry, std::string_view* rest) {
    std::size_t pos = std::string_view::npos;
    for (std::string_view kw : {std::string_view(".entry"), std::string_view(".func")}) {
        std::size_t at = 0;
        while ((at = stmt.find(kw, at)) != std::string_view::npos) {
            const std::size_t after = at + kw.size();
            if ((at == 0 || isSpace(stmt[at - 1])) && after < stmt.size() && (isSpace(stmt[after]) || stmt[after] == '(')) {
                pos = after;
                *entry = kw == ".entry";
                break;
            }
            at = after;
        }
        if (pos != std::string_view::npos) break;
    }
    if (pos == std::string_view::npos) return false;
    auto skipSpace = [&] {
        while (pos < stmt.size() && isSpace(stmt[pos])) ++pos;
    };
    auto skipParens = [&] {
        if (pos >= stmt.size() || stmt[pos] != '(') return;
        int depth = 0;
        for (; pos < stmt.size(); ++pos) {
            if (stmt[pos] == '(') ++depth;
            if (stmt[pos] == ')' && --depth == 0) {
                ++pos;
                return;
            }
        }
    };
    skipSpace();
    skipParens();  // a .func's return parameters
    skipSpace();
    const std::size_t nameStart = pos;
    while (pos < stmt.size() && isIdentChar(stmt[pos])) ++pos;
    if (pos == nameStart) return false;
    *name = std::string(stmt.substr(nameStart, pos - nameStart));
    skipSpace();
    skipParens();
    const std::size_t brace = stmt.find('{', pos);
    if (brace == std::string_view::npos) return false;
    *rest = stmt.substr(brace + 1);
    return true;
}

// [SECTION] SASS: lines and classification -------------------------------------------------------

// LDG.E.128 -> 128, LDS.U16 -> 16, LDG.E -> 32.
int sassWidth(const std::vector<std::string_view>& parts) {
    int width = 32;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const std::string_view p = parts[i];
        const int n = toInt(p, 0);
        if (n == 8 || n == 16 || n == 32 || n == 64 || n == 128) width = n;
        if (p == "U8" || p == "S8") width = 8;
        if (p == "U16" || p == "S16") width = 16;
    }
    return width;
}

Classified classifySass(std::string_view opcode) {
    using C = InstrCategory;
    const std::vector<std::string_view> parts = splitDots(opcode);
    const std::string_view base = parts[0];

    static const std::unordered_set<std::string_view> kFp32 = {"FFMA", "FADD", "FMUL", "FFMA32I", "FADD32I", "FMUL32I",
                                                               "FFMA2", "FADD2", "FMUL2"};
    static const std::unordered_set<std::string_view> kFp16 = {"HFMA2", "HADD2", "HMUL2", "HFMA2_32I", "HADD2_32I", "HMUL2_32I"};
    static const std::unordered_set<std::string_view> kFp64 = {"DFMA", "DADD", "DMUL"};
    static const std::unordered_set<std::string_view> kInteger = {
        "IMAD", "IMADSP", "IMUL", "IADD", "IADD3", "IADD32I", "IMAD32I", "IMUL32I", "ISCADD", "LOP", "LOP3", "LOP32I",
        "SHF", "SHL", "SHR", "LEA", "ISETP", "ICMP", "IMNMX", "VIMNMX", "VIMNMX3", "VIADD", "VIADDMNMX", "IABS", "POPC",
        "FLO", "BREV", "BMSK", "SGXT", "PRMT", "IDP", "IDP4A", "XMAD", "BFE", "BFI", "IMUL.WIDE"};
    static const std::unordered_set<std::string_view> kConversion = {"F2F", "F2I", "I2F", "I2I", "F2FP", "I2FP", "F2IP", "I2IP", "FRND"};
    static const std::unordered_set<std::string_view> kBarrier = {"BAR", "MEMBAR", "DEPBAR", "LDGDEPBAR", "WARPSYNC", "SYNCS",
                                                                  "ERRBAR", "FENCE", "WARPGROUP", "ARRIVES", "CCTL"};
    static const std::unordered_set<std::string_view> kAtomic = {"ATOM", "ATOMG", "ATOMS", "RED", "REDG", "REDAS", "SUATOM", "SURED"};
    static const std::unordered_set<std::string_view> kControl = {"BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT",
                                                                  "BSSY", "BSYNC", "BREAK", "BPT", "KILL", "RTT"};
    static const std::unordered_set<std::string_view> kOtherMemory = {"LD", "ST", "LDC", "ULDC", "TEX", "TLD", "TLD4", "TXQ",
                                                                      "TMML", "TXD", "SULD", "SUST", "UTMAPF", "UBLKPF", "CCTLL"};

    if (kFp32.count(base)) return {C::Fp32};
    if (kFp16.count(base)) return {C::Fp16};
    if (kFp64.count(base)) return {C::Fp64};
    if (base.find("MMA") != std::string_view::npos) return {C::TensorCore};  // HMMA HGMMA IMMA QGMMA BMMA DMMA UTC*MMA
    if (base == "MUFU") return {C::SpecialFunction};
    if (kConversion.count(base)) return {C::Conversion};
    if (base == "LDG") return {C::GlobalLoad, sassWidth(parts)};
    if (base == "STG") return {C::GlobalStore, sassWidth(parts)};
    if (base == "LDGSTS") return {C::AsyncCopy, sassWidth(parts)};
    if (base == "UTMALDG" || base == "UBLKCP") return {C::AsyncCopy, 0};
    if (base == "UTMASTG") return {C::GlobalStore, 0};
    if (base == "LDS") return {C::SharedLoad, sassWidth(parts)};
    if (base == "STS") return {C::SharedStore, sassWidth(parts)};
    if (base == "LDSM" || base == "STSM") {
        // LDSM.16.M88.4: four 8x8 matrices, one 32-bit register each per thread.
        const int count = parts.size() > 2 ? toInt(parts.back(), 1) : 1;
        return {base == "LDSM" ? C::SharedLoad : C::SharedStore, 32 * (count == 2 || count == 4 ? count : 1)};
    }
    if (base == "LDL") return {C::LocalLoad};
    if (base == "STL") return {C::LocalStore};
    if (kOtherMemory.count(base)) return {C::OtherMemory};
    if (kBarrier.count(base)) return {C::Barrier};
    if (base == "SHFL" || base == "REDUX") return {C::Shuffle};
    if (kAtomic.count(base)) return {C::Atomic};
    if (kControl.count(base)) return {C::Control};
    // Integer ops, and their uniform-datapath twins (UIADD3, UIMAD, ULOP3, USHF, ULEA, ...).
    if (kInteger.count(base) || (base.size() > 1 && base[0] == 'U' && kInteger.count(base.substr(1)))) return {C::Integer};
    return {C::Other};
}

bool isHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// "/*0090*/" at the start of s: its length, else 0.
std::size_t sassAddressPrefix(std::string_view s) {
    if (s.substr(0, 2) != "/*") return 0;
    std::size_t i = 2;
    while (i < s.size() && isHex(s[i])) ++i;
    return i > 2 && s.substr(i, 2) == "*/" ? i + 2 : 0;
}

}  // namespace

InstructionMix analyzePtx(std::string_view ptx) {
    MixBuilder builder(MixSource::Ptx);
    const std::string text = cleanPtx(ptx);
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find(';', start);
        if (end == std::string::npos) end = text.size();
        std::string_view stmt = stripPrefixes(std::string_view(text).substr(start, end - start));
        start = end + 1;
        while (!stmt.empty() && stmt.front() == '.') {
            std::string name;
            bool entry = true;
            std::string_view rest;
            if (!parseFunctionHeader(stmt, &name, &entry, &rest)) {
                stmt = {};
                break;
            }
            builder.beginKernel(std::move(name), entry);
            stmt = stripPrefixes(rest);  // the body's first statement shares this chunk
        }
        if (stmt.empty()) continue;
        const auto [opcode, operands] = firstWord(stmt);
        builder.add(classifyPtx(opcode, operands));
    }
    return builder.finish();
}

InstructionMix analyzeSass(std::string_view sass) {
    MixBuilder builder(MixSource::Sass);
    std::size_t start = 0;
    while (start < sass.size()) {
        std::size_t end = sass.find('\n', start);
        if (end == std::string_view::npos) end = sass.size();
        std::string_view line = trim(sass.substr(start, end - start));
        start = end + 1;
        if (line.empty() || line.substr(0, 2) == "//") continue;

        // Kernel headers: cuobjdump's "Function : name", nvdisasm's ".section .text.name,...".
        if (line.substr(0, 8) == "Function") {
            std::string_view rest = trim(line.substr(8));
            if (!rest.empty() && rest.front() == ':') {
                builder.beginKernel(std::string(trim(rest.substr(1))), true);
                continue;
            }
        }
        if (const auto [word, rest] = firstWord(line); word == ".section") {
            if (rest.substr(0, 6) == ".text.") {
                std::string_view name = rest.substr(6);
                name = name.substr(0, std::min(name.find(','), name.find_first_of(" \t")));
                builder.beginKernel(std::string(name), true);
            }
            continue;
        }

        const std::size_t address = sassAddressPrefix(line);
        std::string_view body = line.substr(address);
        const std::size_t semicolon = body.find(';');
        if (semicolon == std::string_view::npos) continue;
        body = trim(body.substr(0, semicolon));
        // Without an address, only a line that reads like an instruction ("LDG.E R2, ... ;").
        if (address == 0 && (body.empty() || !(std::isupper(static_cast<unsigned char>(body.front())) || body.front() == '@' ||
                                               body.front() == '{')))
            continue;
        while (!body.empty() && (body.front() == '{' || body.front() == '}')) body = trim(body.substr(1));
        if (!body.empty() && body.front() == '@') body = firstWord(body).second;
        const std::string_view opcode = firstWord(body).first;
        if (opcode.empty() || opcode == "NOP") continue;
        builder.add(classifySass(opcode));
    }
    return builder.finish();
}

void addPtxInstruction(MixCounts& counts, std::string_view opcode, std::string_view operands) {
    MixBuilder::addClassified(counts, classifyPtx(opcode, operands));
}

void addSassInstruction(MixCounts& counts, std::string_view opcode) {
    if (opcode.empty() || opcode == "NOP") return;
    MixBuilder::addClassified(counts, classifySass(opcode));
}

}  // namespace kx::engine
