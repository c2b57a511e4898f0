// Instruction mix from PTX and SASS listings.
//
// [SECTION] Categories: keys, labels, teaching text
// [SECTION] Small text helpers
// [SECTION] Accumulating counts per kernel, warnings
// [SECTION] SASS: lines and classification
// PTX statements and their classification are in instruction_mix_ptx.cpp.
#include "analysis/instruction_mix.hpp"
#include "analysis/instruction_mix_detail.hpp"

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

namespace mix_detail {

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

}  // namespace mix_detail

namespace {

using namespace mix_detail;

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
