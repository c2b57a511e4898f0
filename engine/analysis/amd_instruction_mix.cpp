// Mnemonics from the AMD Instinct MI200 (CDNA2) and MI300 (CDNA3) ISA reference guides, as
// LLVM's AMDGPU assembler spells them for gfx90a and gfx942.
#include "analysis/amd_instruction_mix.hpp"

#include <fmt/format.h>

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

const char* amdCategoryKey(AmdInstrCategory c) {
    switch (c) {
    case AmdInstrCategory::Mfma: return "mfma";
    case AmdInstrCategory::ValuFp32: return "valu_fp32";
    case AmdInstrCategory::ValuFp16: return "valu_fp16";
    case AmdInstrCategory::ValuFp64: return "valu_fp64";
    case AmdInstrCategory::ValuTranscendental: return "valu_transcendental";
    case AmdInstrCategory::ValuConversion: return "valu_conversion";
    case AmdInstrCategory::ValuInteger: return "valu_integer";
    case AmdInstrCategory::ValuOther: return "valu_other";
    case AmdInstrCategory::Salu: return "salu";
    case AmdInstrCategory::ScalarLoad: return "scalar_load";
    case AmdInstrCategory::GlobalLoad: return "global_load";
    case AmdInstrCategory::GlobalStore: return "global_store";
    case AmdInstrCategory::LdsRead: return "lds_read";
    case AmdInstrCategory::LdsWrite: return "lds_write";
    case AmdInstrCategory::LdsOther: return "lds_other";
    case AmdInstrCategory::ScratchLoad: return "scratch_load";
    case AmdInstrCategory::ScratchStore: return "scratch_store";
    case AmdInstrCategory::Atomic: return "atomic";
    case AmdInstrCategory::Waitcnt: return "waitcnt";
    case AmdInstrCategory::Barrier: return "barrier";
    case AmdInstrCategory::Branch: return "branch";
    case AmdInstrCategory::Other: return "other";
    case AmdInstrCategory::Count: break;
    }
    return "?";
}

const char* amdCategoryLabel(AmdInstrCategory c) {
    switch (c) {
    case AmdInstrCategory::Mfma: return "MFMA (matrix core)";
    case AmdInstrCategory::ValuFp32: return "VALU FP32";
    case AmdInstrCategory::ValuFp16: return "VALU FP16/BF16";
    case AmdInstrCategory::ValuFp64: return "VALU FP64";
    case AmdInstrCategory::ValuTranscendental: return "VALU transcendental";
    case AmdInstrCategory::ValuConversion: return "VALU conversion";
    case AmdInstrCategory::ValuInteger: return "VALU integer";
    case AmdInstrCategory::ValuOther: return "VALU move/compare";
    case AmdInstrCategory::Salu: return "SALU";
    case AmdInstrCategory::ScalarLoad: return "Scalar loads";
    case AmdInstrCategory::GlobalLoad: return "Global loads";
    case AmdInstrCategory::GlobalStore: return "Global stores";
    case AmdInstrCategory::LdsRead: return "LDS reads";
    case AmdInstrCategory::LdsWrite: return "LDS writes";
    case AmdInstrCategory::LdsOther: return "LDS permute/atomic";
    case AmdInstrCategory::ScratchLoad: return "Scratch loads";
    case AmdInstrCategory::ScratchStore: return "Scratch stores";
    case AmdInstrCategory::Atomic: return "Atomics";
    case AmdInstrCategory::Waitcnt: return "s_waitcnt";
    case AmdInstrCategory::Barrier: return "Barriers/cache";
    case AmdInstrCategory::Branch: return "Branches";
    case AmdInstrCategory::Other: return "Other";
    case AmdInstrCategory::Count: break;
    }
    return "?";
}

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
    std::size_t pos = 0;
    while (pos < isa.size()) {
        std::size_t end = isa.find('\n', pos);
        if (end == std::string_view::npos) end = isa.size();
        std::string_view line = isa.substr(pos, end - pos);
        pos = end + 1;
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
