#include "compare_flags.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace kx::app {

void addFlagRows(MetricTable& table, const std::vector<SnapshotPtr>& variants) {
    const std::size_t n = variants.size();
    if (n == 0 || table.columns.size() != n) return;
    if (std::all_of(variants.begin(), variants.end(), [](const SnapshotPtr& v) { return v->config.flags.isDefault(); })) return;

    std::vector<MetricRow> rows;
    MetricRow section;
    section.section = "Compiler flags";
    rows.push_back(section);
    std::vector<std::string> differing;  // "maxrregcount=64" parts, per column
    std::vector<std::string> labelTail(n);
    for (const engine::CompileFlagKey& key : engine::compileFlagKeys()) {
        MetricRow r;
        r.label = key.label;
        r.help = std::string(key.key) + ": " + key.help;
        for (std::size_t i = 0; i < n; ++i) {
            for (const auto& [k, text] : variants[i]->config.flags.values()) {
                if (k != key.key) continue;
                r.texts.push_back(text);
                // Numbers stay numbers in the CSV export; on/off flags are text only.
                r.values.push_back(text == "true" || text == "false" ? std::nullopt : std::optional<double>(std::stod(text)));
            }
        }
        r.best.assign(n, false);
        r.bad.assign(n, false);
        r.allEqual = std::all_of(r.texts.begin(), r.texts.end(), [&](const std::string& t) { return t == r.texts.front(); });
        if (!r.allEqual)
            for (std::size_t i = 0; i < n; ++i) labelTail[i] += " " + std::string(key.key) + "=" + r.texts[i];
        rows.push_back(std::move(r));
    }
    table.rows.insert(table.rows.begin(), rows.begin(), rows.end());

    // The labels: letter, then what differs. Configs that differ only in flags were labelled by
    // the distinctive tail of their names ("r64"); the flags say it plainly instead.
    const bool sameConfig = std::all_of(variants.begin(), variants.end(), [&](const SnapshotPtr& v) {
        return v->config.templateId == variants.front()->config.templateId && v->config.values == variants.front()->config.values;
    });
    for (std::size_t i = 0; i < n; ++i) {
        if (labelTail[i].empty()) continue;
        std::string& label = table.columns[i];
        const std::size_t at = label.find(" @");  // the arch suffix stays last
        const std::string arch = at == std::string::npos ? "" : label.substr(at);
        const std::string head = at == std::string::npos ? label : label.substr(0, at);
        label = sameConfig ? columnLetter(i) + " " + labelTail[i] + arch : head + labelTail[i] + arch;
    }
}

}  // namespace kx::app
