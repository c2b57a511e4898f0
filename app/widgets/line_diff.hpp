// Line diff of two texts, for the diff widget: the edit script (dtl's O(NP) algorithm over
// lines), its side-by-side pairing, and the folding of unchanged runs into "N unchanged lines".
//
// Header-only and free of ImGui so the tests include it directly. Pure functions: compute once
// per pair of texts (a 9000-line PTX pair takes tens of milliseconds), then draw from the result.
//
// Lines are interned to integers before dtl runs: the algorithm compares elements many times,
// and an int compare is far cheaper than a string compare on long, similar PTX lines.
#pragma once

#include <dtl/dtl.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kx::app::diff {

// The lines of text, without their '\n'. A final line without '\n' counts; "" has no lines.
inline std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t nl = text.find('\n', start);
        const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

enum class RowKind { Same, Removed, Added, Changed };

// One row of a diff. Line numbers are 1-based; 0 means the side has no line in this row.
struct Row {
    RowKind kind = RowKind::Same;
    int lineA = 0;
    int lineB = 0;
};

struct LineDiff {
    std::vector<Row> unified;  // Same / Removed / Added, in order (the edit script)
    int added = 0;             // lines only in B
    int removed = 0;           // lines only in A
    bool identical() const { return added == 0 && removed == 0; }
};

// The edit script turning lines a into lines b.
inline LineDiff computeLineDiff(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
    std::unordered_map<std::string_view, int> ids;
    auto intern = [&](const std::vector<std::string_view>& lines) {
        std::vector<int> out;
        out.reserve(lines.size());
        for (std::string_view l : lines) out.push_back(ids.emplace(l, static_cast<int>(ids.size())).first->second);
        return out;
    };
    const std::vector<int> ia = intern(a);
    const std::vector<int> ib = intern(b);

    LineDiff out;
    dtl::Diff<int, std::vector<int>> d(ia, ib);
    d.compose();
    // dtl's sequence elements carry the 1-based index in each input (beforeIdx, afterIdx).
    for (const auto& [value, info] : d.getSes().getSequence()) {
        (void)value;
        Row r;
        switch (info.type) {
        case dtl::SES_COMMON:
            r = {RowKind::Same, static_cast<int>(info.beforeIdx), static_cast<int>(info.afterIdx)};
            break;
        case dtl::SES_DELETE:
            r = {RowKind::Removed, static_cast<int>(info.beforeIdx), 0};
            ++out.removed;
            break;
        case dtl::SES_ADD:
            r = {RowKind::Added, 0, static_cast<int>(info.afterIdx)};
            ++out.added;
            break;
        }
        out.unified.push_back(r);
    }
    return out;
}

inline LineDiff computeLineDiff(std::string_view a, std::string_view b) {
    return computeLineDiff(splitLines(a), splitLines(b));
}

// Side-by-side rows: within each block of changes, the i-th removed line faces the i-th added
// line as a Changed row; the longer side's rest stays Removed or Added with a blank opposite.
inline std::vector<Row> sideBySide(const std::vector<Row>& unified) {
    std::vector<Row> out;
    out.reserve(unified.size());
    std::size_t i = 0;
    while (i < unified.size()) {
        if (unified[i].kind == RowKind::Same) {
            out.push_back(unified[i++]);
            continue;
        }
        std::vector<int> removed;
        std::vector<int> added;
        for (; i < unified.size() && unified[i].kind != RowKind::Same; ++i) {
            if (unified[i].kind == RowKind::Removed) removed.push_back(unified[i].lineA);
            else added.push_back(unified[i].lineB);
        }
        const std::size_t n = std::max(removed.size(), added.size());
        for (std::size_t k = 0; k < n; ++k) {
            const int la = k < removed.size() ? removed[k] : 0;
            const int lb = k < added.size() ? added[k] : 0;
            out.push_back({la && lb ? RowKind::Changed : la ? RowKind::Removed : RowKind::Added, la, lb});
        }
    }
    return out;
}

// What a folded view draws: a row of the diff, or a fold standing for `hidden` unchanged rows.
struct DisplayRow {
    int row = -1;    // index into the rows given to foldUnchanged; -1 for a fold
    int hidden = 0;  // fold only: how many Same rows it stands for
    int first = 0;   // fold only: index of the first row it hides (names the fold)
};

// Keeps every changed row and `context` Same rows on each side of it; each longer run of Same
// rows becomes one fold. A run shorter than a fold would save is kept whole (a fold replacing
// one line helps nobody). Identical texts fold to a single row.
inline std::vector<DisplayRow> foldUnchanged(const std::vector<Row>& rows, int context) {
    std::vector<DisplayRow> out;
    const int n = static_cast<int>(rows.size());
    context = std::max(0, context);
    int i = 0;
    while (i < n) {
        if (rows[i].kind != RowKind::Same) {
            out.push_back({i, 0, 0});
            ++i;
            continue;
        }
        int j = i;
        while (j < n && rows[j].kind == RowKind::Same) ++j;
        // Same rows [i, j): keep context after the previous change and before the next one.
        const int keepHead = i == 0 ? 0 : context;
        const int keepTail = j == n ? 0 : context;
        const int run = j - i;
        if (run <= keepHead + keepTail + 1) {
            for (int k = i; k < j; ++k) out.push_back({k, 0, 0});
        } else {
            for (int k = i; k < i + keepHead; ++k) out.push_back({k, 0, 0});
            out.push_back({-1, run - keepHead - keepTail, i + keepHead});
            for (int k = j - keepTail; k < j; ++k) out.push_back({k, 0, 0});
        }
        i = j;
    }
    return out;
}

// Two variants' PTX (or SASS) differ on nearly every symbol line only because their names differ:
// the kernel is named after its config, and NVRTC's internal symbols carry a per-file hash
// ("_ZN74_INTERNAL_00000000_43_gemm_..._cu_31d8fd6e" + the rest of the mangled name). This
// rewrites each occurrence of variantName as "<variant>" and each internal-linkage prefix as
// "_ZN<file>" (using the mangled length to find its end), so the diff shows code changes only.
inline std::string normaliseNames(std::string_view text, std::string_view variantName) {
    constexpr std::string_view kInternal = "_INTERNAL_";
    std::string out;
    out.reserve(text.size());
    std::size_t i = 0;
    while (i < text.size()) {
        if (text.compare(i, 3, "_ZN") == 0) {
            std::size_t j = i + 3;
            std::size_t len = 0;
            while (j < text.size() && text[j] >= '0' && text[j] <= '9') len = len * 10 + static_cast<std::size_t>(text[j++] - '0');
            if (j > i + 3 && text.compare(j, kInternal.size(), kInternal) == 0 && j + len <= text.size()) {
                out += "_ZN<file>";
                i = j + len;
                continue;
            }
        }
        if (!variantName.empty() && text.compare(i, variantName.size(), variantName) == 0) {
            out += "<variant>";
            i += variantName.size();
            continue;
        }
        out += text[i++];
    }
    return out;
}

}  // namespace kx::app::diff
