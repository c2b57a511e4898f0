// The comparison table of pinned variants, as data: one row per metric (time, throughput, % of
// roof, ratio to baseline, correctness, registers, shared memory, spills, occupancy, limiter,
// instruction-mix headlines), one value per variant, which direction is better, which cells
// are best, and whether the row differs at all. The Compare view draws it; CSV and Markdown
// exports write it. No ImGui here: compute once when the inputs change, then draw.
#pragma once

#include "compare_model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kx::app {

enum class Better { None, Lower, Higher };

struct MetricRow {
    std::string section;  // non-empty: a section heading row ("Timing"); the fields below unused
    std::string label;    // "Time (median)"
    std::string unit;     // "ms", for exports' header cells
    std::string help;     // tooltip: what it means, where it comes from
    Better better = Better::None;
    std::vector<std::optional<double>> values;  // per variant; nullopt: not known
    std::vector<std::string> texts;             // per variant, as shown ("0.412", "—")
    std::vector<bool> best;                     // per variant: the best value of the row
    std::vector<bool> bad;                      // per variant: a warning value (spills, failed check)
    bool allEqual = false;                      // every variant shows the same text
    bool prose = false;                         // free text (notes): wrapped, left-aligned
};

struct MetricTable {
    std::vector<std::string> columns;  // "A  BM=64 BN=128": a letter and the parameters that differ
    std::vector<std::string> names;    // full procedural names
    std::vector<std::string> arches;
    std::vector<MetricRow> rows;
};

// The run each variant is measured by (CompareModel::latestRun), in the same order; nullptr
// entries for variants without a successful run.
MetricTable buildMetricTable(const std::vector<SnapshotPtr>& variants,
                             const std::vector<const engine::RunReport*>& runs);

// Column labels: a letter per variant (A, B, ... Z, AA) and the parameters whose values differ
// between the variants ("A  BM=64 S=2"); for variants of different templates, or identical
// configs, the distinctive part of the name instead; " @sm_80" when the arches differ.
std::vector<std::string> columnLabels(const std::vector<SnapshotPtr>& variants);
// "A", "B", ... "Z", "AA": the letter of column i.
std::string columnLetter(std::size_t i);

// Short column names: the '_'-separated words of each name that not all names share, joined
// by '_' ("64x128x32_w32x64"); the whole name when that leaves nothing.
std::vector<std::string> distinctiveNames(const std::vector<std::string>& names);

// Metric rows as CSV: header "metric,unit,<name>,..." then one row per metric (sections are
// skipped), numbers unformatted, unknown values empty. Lines end in '\n'.
std::string metricTableCsv(const MetricTable& table);
// The same as a GitHub Markdown table, best values in bold, a section as a bold row.
std::string metricTableMarkdown(const MetricTable& table);

}  // namespace kx::app
