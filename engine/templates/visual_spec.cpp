#include "templates/visual_spec.hpp"

#include "util/error.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <set>
#include <vector>

namespace kx::engine {

namespace {

struct KindSchema {
    const char* kind;
    std::vector<const char*> required;
    std::vector<const char*> optional;
};

// One table: what each kind takes (templates/README.md documents every attribute).
const std::vector<KindSchema>& schemas() {
    static const std::vector<KindSchema> table = {
        {"gemm",
         {"m", "n", "k", "block_m", "block_n", "block_k", "warp_m", "warp_n", "stages", "elem_bytes"},
         {"thread_m", "thread_n", "row_chunk", "col_chunk", "shared", "b_shared", "group_m", "vector", "a_pad", "b_pad", "a_k_contiguous", "b_k_contiguous", "swizzle", "warp_threads",
          "producer_threads", "lookahead", "regs", "transposed", "a_registers"}},
        {"blocks", {"elements", "block", "items"}, {"vector", "load_blocked", "hold_blocked", "warp_striped", "regs"}},
    };
    return table;
}

const std::set<std::string> kFragments = {"thread", "mma_m16n8k16", "wgmma_m64nNk16"};

std::string joined(const std::vector<const char*>& names) {
    std::string out;
    for (const char* n : names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

}  // namespace

VisualSpec parseVisualSpec(const std::string& file, const tinyxml2::XMLElement* e) {
    VisualSpec v;
    v.line = e->GetLineNum();
    auto fail = [&](const std::string& message) { throw InputError(file + ":" + std::to_string(v.line) + ": " + message); };
    const char* kind = e->Attribute("kind");
    if (!kind || !*kind) fail("<visual> needs attribute 'kind' (gemm or blocks)");
    v.kind = kind;
    const auto schema = std::find_if(schemas().begin(), schemas().end(), [&](const KindSchema& s) { return v.kind == s.kind; });
    if (schema == schemas().end()) fail("<visual> kind '" + v.kind + "' is unknown (gemm or blocks)");

    for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next()) {
        const std::string key = a->Name();
        if (key == "kind") continue;
        if (key == "fragment") {
            v.fragment = a->Value();
            continue;
        }
        const auto known = [&](const std::vector<const char*>& list) {
            return std::any_of(list.begin(), list.end(), [&](const char* n) { return key == n; });
        };
        if (!known(schema->required) && !known(schema->optional))
            fail("<visual kind=\"" + v.kind + "\"> takes no attribute '" + key + "' (it takes " + joined(schema->required) + ", " +
                 joined(schema->optional) + ")");
        if (std::string(a->Value()).empty()) fail("<visual> attribute '" + key + "' is empty");
        v.exprs[key] = a->Value();
    }
    for (const char* name : schema->required)
        if (!v.exprs.count(name)) fail("<visual kind=\"" + v.kind + "\"> needs attribute '" + name + "'");
    if (v.kind == "gemm") {
        if (!kFragments.count(v.fragment))
            fail("<visual kind=\"gemm\"> needs fragment=\"thread\", \"mma_m16n8k16\" or \"wgmma_m64nNk16\", not '" + v.fragment + "'");
        if (v.fragment == "thread" && (!v.exprs.count("thread_m") || !v.exprs.count("thread_n")))
            fail("<visual fragment=\"thread\"> needs thread_m and thread_n (the registers of C each lane holds)");
    } else if (!v.fragment.empty()) {
        fail("<visual kind=\"" + v.kind + "\"> takes no fragment");
    }
    return v;
}

}  // namespace kx::engine
