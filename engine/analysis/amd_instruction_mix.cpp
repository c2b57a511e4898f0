// Mnemonics from the AMD Instinct MI200 (CDNA2) and MI300 (CDNA3) ISA reference guides, as
// LLVM's AMDGPU assembler spells them for gfx90a and gfx942.
#include "analysis/amd_instruction_mix.hpp"
#include "util/enum_names.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

#include <iterator>

namespace kx::engine {

namespace {

bool starts(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Bits per lane of a vector-memory or LDS access, from its suffix: dwordx4 / b128 -> 128,
// read2_b32 -> 64, ushort / u16 / short_d16 -> 16, ubyte / u8 -> 8. 0 when it does not say.
int accessBits(std::string_view m) {
    const int pairs = contains(m, "read2") || contains(m, "write2") || contains(m, "load_2") || contains(m, "store_2") ? 2 : 1;
    auto has = [&](std::string_view p) { return contains(m, p); };
    int bits = 0;
    if (has("dwordx4") || has("b128")) bits = 128;
    else if (has("dwordx3") || has("b96")) bits = 96;
    else if (has("dwordx2") || has("b64")) bits = 64;
    else if (has("dword") || has("b32")) bits = 32;
    else if (has("short") || has("u16") || has("i16") || has("b16")) bits = 16;
    else if (has("byte") || has("u8") || has("i8") || has("b8")) bits = 8;
    return bits * pairs;
}

}  // namespace

namespace {
const char* const kAmdCategoryKeys[] = {
    "mfma",          "valu_fp32",     "valu_fp16",    "valu_fp64",   "valu_transcendental", "valu_conversion",
    "valu_integer",  "valu_other",    "salu",         "scalar_load", "global_load",         "global_store",
    "lds_read",      "lds_write",     "lds_other",    "scratch_load", "scratch_store",      "atomic",
    "waitcnt",       "barrier",       "branch",       "other"};
const char* const kAmdCategoryLabels[] = {
    "MFMA (matrix core)", "VALU FP32",      "VALU FP16/BF16", "VALU FP64",        "VALU transcendental",
    "VALU conversion",    "VALU integer",   "VALU move/compare", "SALU",          "Scalar loads",
    "Global loads",       "Global stores",  "LDS reads",      "LDS writes",       "LDS permute/atomic",
    "Scratch loads",      "Scratch stores", "Atomics",        "s_waitcnt",        "Barriers/cache",
    "Branches",           "Other"};
static_assert(std::size(kAmdCategoryKeys) == static_cast<std::size_t>(AmdInstrCategory::Count));
static_assert(std::size(kAmdCategoryLabels) == static_cast<std::size_t>(AmdInstrCategory::Count));
}  // namespace

const char* amdCategoryKey(AmdInstrCategory c) { return enumName(c, kAmdCategoryKeys); }

const char* amdCategoryLabel(AmdInstrCategory c) { return enumName(c, kAmdCategoryLabels); }

void addAmdInstruction(AmdMixCounts& counts, std::string_view m) {
    using C = AmdInstrCategory;
    C c = C::Other;
    WidthCounts* widths = nullptr;
    if (starts(m, "v_mfma") || starts(m, "v_smfmac")) {
        c = C::Mfma;
    } else if (starts(m, "v_")) {
        if (starts(m, "v_cvt")) c = C::ValuConversion;
        else if (starts(m, "v_rcp") || starts(m, "v_rsq") || starts(m, "v_sqrt") || starts(m, "v_exp") || starts(m, "v_log") ||
                 starts(m, "v_sin") || starts(m, "v_cos"))
            c = C::ValuTranscendental;
        else if (starts(m, "v_mov") || starts(m, "v_cndmask") || starts(m, "v_cmp") || starts(m, "v_read") || starts(m, "v_write") ||
                 starts(m, "v_accvgpr"))
            c = C::ValuOther;
        else if (contains(m, "f64")) c = C::ValuFp64;
        else if (contains(m, "f16") || contains(m, "bf16")) c = C::ValuFp16;
        else if (contains(m, "f32")) c = C::ValuFp32;
        else c = C::ValuInteger;
    } else if (starts(m, "s_waitcnt")) {
        c = C::Waitcnt;
    } else if (starts(m, "s_barrier") || starts(m, "buffer_wbl2") || starts(m, "buffer_inv") || starts(m, "buffer_wbinvl1") ||
               starts(m, "s_dcache")) {
        c = C::Barrier;
    } else if (starts(m, "s_branch") || starts(m, "s_cbranch") || starts(m, "s_endpgm") || starts(m, "s_setpc") ||
               starts(m, "s_swappc") || starts(m, "s_getpc")) {
        c = C::Branch;
    } else if (starts(m, "s_load") || starts(m, "s_buffer_load")) {
        c = C::ScalarLoad;
    } else if (starts(m, "s_nop") || starts(m, "s_setprio") || starts(m, "s_sleep") || starts(m, "s_set") || starts(m, "s_trap")) {
        c = C::Other;
    } else if (starts(m, "s_")) {
        c = C::Salu;
    } else if (starts(m, "ds_")) {
        if (starts(m, "ds_read") || starts(m, "ds_load")) { c = C::LdsRead; widths = &counts.ldsReads; }
        else if (starts(m, "ds_write") || starts(m, "ds_store")) { c = C::LdsWrite; widths = &counts.ldsWrites; }
        else c = C::LdsOther;
    } else if (starts(m, "scratch_")) {
        c = contains(m, "load") ? C::ScratchLoad : C::ScratchStore;
    } else if (starts(m, "global_") || starts(m, "buffer_") || starts(m, "flat_")) {
        if (contains(m, "atomic")) c = C::Atomic;
        else if (contains(m, "load")) { c = C::GlobalLoad; widths = &counts.globalLoads; }
        else if (contains(m, "store")) { c = C::GlobalStore; widths = &counts.globalStores; }
    }
    ++counts.byCategory[static_cast<std::size_t>(c)];
    ++counts.total;
    if (widths) ++(*widths)[accessBits(m)];
}

AmdInstructionMix analyzeAmdIsa(std::string_view isa) {
    AmdInstructionMix mix;
    bool inMetadata = false;
    for (std::string_view line : splitLines(isa)) {
        if (const std::size_t comment = line.find(';'); comment != std::string_view::npos) line = line.substr(0, comment);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
        if (line.empty()) continue;
        if (line == ".amdgpu_metadata") { inMetadata = true; continue; }
        if (line == ".end_amdgpu_metadata") { inMetadata = false; continue; }
        if (inMetadata) continue;
        if (line.front() == '.') {
            // ".type NAME,@function" starts a kernel (or device function).
            if (starts(line, ".type") && contains(line, "@function")) {
                std::string_view name = line.substr(5);
                while (!name.empty() && (name.front() == ' ' || name.front() == '\t')) name.remove_prefix(1);
                mix.kernels.push_back({std::string(name.substr(0, name.find(','))), {}});
            }
            continue;
        }
        if (line.back() == ':') continue;  // a label
        const std::string_view mnemonic = line.substr(0, line.find_first_of(" \t"));
        if (mix.kernels.empty()) mix.kernels.push_back({"", {}});
        addAmdInstruction(mix.kernels.back().counts, mnemonic);
    }
    for (const AmdKernelMix& k : mix.kernels) {
        for (int i = 0; i < kAmdInstrCategoryCount; ++i) mix.counts.byCategory[static_cast<std::size_t>(i)] += k.counts.byCategory[static_cast<std::size_t>(i)];
        mix.counts.total += k.counts.total;
        for (auto [from, into] : {std::pair{&k.counts.globalLoads, &mix.counts.globalLoads}, {&k.counts.globalStores, &mix.counts.globalStores},
                                  {&k.counts.ldsReads, &mix.counts.ldsReads}, {&k.counts.ldsWrites, &mix.counts.ldsWrites}})
            for (const auto& [bits, n] : *from) (*into)[bits] += n;
    }
    for (const AmdKernelMix& k : mix.kernels) {
        if (k.counts.scratch() > 0)
            mix.warnings.push_back(fmt::format("{}: {} scratch loads/stores: registers spilled or a private array indexed at run time "
                                               "(scratch is memory, hundreds of cycles away)", k.name, k.counts.scratch()));
        int wide = 0, narrow = 0;
        for (const auto& [bits, n] : k.counts.globalLoads) (bits > 32 ? wide : narrow) += n;
        if (narrow > 0 && wide == 0)
            mix.warnings.push_back(fmt::format("{}: every global load is 32-bit or narrower: dwordx2/x4 loads move more bytes per instruction", k.name));
    }
    return mix;
}

}  // namespace kx::engine
