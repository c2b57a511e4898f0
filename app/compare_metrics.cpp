#include "compare_metrics.hpp"

#include "analysis/tile_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace kx::app {

namespace {

constexpr const char* kDash = "\u2014";

std::vector<std::string> splitWords(const std::string& name) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t us = name.find('_', start);
        const std::size_t end = us == std::string::npos ? name.size() : us;
        out.push_back(name.substr(start, end - start));
        if (us == std::string::npos) break;
        start = us + 1;
    }
    return out;
}

std::string kib(double bytes) {
    if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
    return fmt::format("{:.1f} KiB", bytes / 1024.0);
}

// Builds one row from a value per variant; texts come from format, or a dash when absent.
class RowBuilder {
public:
    RowBuilder(std::vector<MetricRow>& rows, std::size_t n) : m_rows(rows), m_n(n) {}

    void section(std::string title) {
        MetricRow r;
        r.section = std::move(title);
        m_rows.push_back(std::move(r));
    }

    template <class Value, class Format>
    MetricRow& add(std::string label, std::string unit, Better better, std::string help, Value value, Format format) {
        MetricRow r;
        r.label = std::move(label);
        r.unit = std::move(unit);
        r.help = std::move(help);
        r.better = better;
        for (std::size_t i = 0; i < m_n; ++i) {
            const std::optional<double> v = value(i);
            r.values.push_back(v);
            r.texts.push_back(v ? format(*v) : std::string(kDash));
        }
        finish(r);
        m_rows.push_back(std::move(r));
        return m_rows.back();
    }

    // A text-only row (limiter, verdict).
    MetricRow& addText(std::string label, std::string help, std::vector<std::string> texts) {
        MetricRow r;
        r.label = std::move(label);
        r.help = std::move(help);
        r.values.assign(m_n, std::nullopt);
        r.texts = std::move(texts);
        finish(r);
        m_rows.push_back(std::move(r));
        return m_rows.back();
    }

private:
    void finish(MetricRow& r) const {
        r.best.assign(m_n, false);
        r.bad.assign(m_n, false);
        r.allEqual = std::all_of(r.texts.begin(), r.texts.end(), [&](const std::string& t) { return t == r.texts.front(); });
        if (r.better == Better::None || r.allEqual) return;
        std::optional<double> best;
        int known = 0;
        for (const auto& v : r.values) {
            if (!v) continue;
            ++known;
            if (!best || (r.better == Better::Lower ? *v < *best : *v > *best)) best = *v;
        }
        // One known value is not a comparison: nothing to highlight.
        if (known < 2) return;
        for (std::size_t i = 0; i < m_n; ++i) {
            r.best[i] = r.values[i] && std::fabs(*r.values[i] - *best) <= 1e-9 * std::max(1.0, std::fabs(*best));
        }
    }

    std::vector<MetricRow>& m_rows;
    std::size_t m_n;
};

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string number(double v) {
    // Enough digits to round-trip what the table shows, without float noise.
    std::string s = fmt::format("{:.6g}", v);
    return s;
}

}  // namespace

std::string columnLetter(std::size_t i) {
    std::string s;
    for (std::size_t k = i + 1; k > 0; k = (k - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (k - 1) % 26));
    return s;
}

std::vector<std::string> columnLabels(const std::vector<SnapshotPtr>& variants) {
    const std::size_t n = variants.size();
    std::vector<std::string> names;
    for (const auto& v : variants) names.push_back(v->name);
    const std::vector<std::string> tails = distinctiveNames(names);
    // The parameters whose values are not the same in every variant, in the config's key order.
    std::vector<std::string> keys;
    for (std::size_t i = 0; i < n; ++i)
        for (const auto& [k, unused] : variants[i]->config.values)
            if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    std::vector<std::string> differing;
    for (const std::string& k : keys) {
        auto value = [&](std::size_t i) {
            const auto it = variants[i]->config.values.find(k);
            return it == variants[i]->config.values.end() ? std::string("-") : it->second;
        };
        for (std::size_t i = 1; i < n; ++i)
            if (value(i) != value(0)) {
                differing.push_back(k);
                break;
            }
    }
    const std::set<std::string> arches = [&] {
        std::set<std::string> a;
        for (const auto& v : variants) a.insert(v->arch);
        return a;
    }();
    const bool sameTemplate = std::all_of(variants.begin(), variants.end(),
                                          [&](const SnapshotPtr& v) { return v->config.templateId == variants.front()->config.templateId; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
        std::string s = columnLetter(i);
        std::string diff;
        if (sameTemplate) {
            for (const std::string& k : differing) {
                const auto it = variants[i]->config.values.find(k);
                diff += fmt::format("{}{}={}", diff.empty() ? "" : " ", k, it == variants[i]->config.values.end() ? "-" : it->second);
            }
        }
        // Other templates, or the same config twice: the distinctive part of the name says more.
        s += "  " + (diff.empty() ? tails[i] : diff);
        if (arches.size() > 1) s += " @" + variants[i]->arch;
        out.push_back(s);
    }
    return out;
}

std::vector<std::string> distinctiveNames(const std::vector<std::string>& names) {
    std::vector<std::vector<std::string>> words;
    for (const auto& n : names) words.push_back(splitWords(n));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::string s;
        for (const std::string& w : words[i]) {
            const bool shared = names.size() > 1 && std::all_of(words.begin(), words.end(), [&](const auto& other) {
                                    return std::find(other.begin(), other.end(), w) != other.end();
                                });
            if (!shared) s += (s.empty() ? "" : "_") + w;
        }
        out.push_back(s.empty() ? names[i] : s);
    }
    return out;
}

namespace {

// The variants of the table and their runs (null where a variant has none), by column.
struct Columns {
    const std::vector<SnapshotPtr>& variants;
    const std::vector<const engine::RunReport*>& runs;
    std::size_t n;
    const engine::RunReport* run(std::size_t i) const { return i < runs.size() ? runs[i] : nullptr; }
    const VariantSnapshot& snap(std::size_t i) const { return *variants[i]; }
};

auto fixed(int decimals) {
    return [decimals](double v) { return fmt::format("{:.{}f}", v, decimals); };
}

std::string integer(double v) { return fmt::format("{:.0f}", v); }

// The latest run's verdict and the sizes it was made at.
void addCorrectnessRows(RowBuilder& b, const Columns& c) {
    const std::size_t n = c.n;
    auto run = [&](std::size_t i) { return c.run(i); };
    std::vector<std::string> verdicts, sizes;
    for (std::size_t i = 0; i < n; ++i) {
        const auto* r = run(i);
        verdicts.push_back(!r                                                              ? kDash
                          : r->correctness.verdict() == engine::Verdict::NoReference ? "unchecked"
                          : r->correctness.passed                                    ? "pass"
                                                                                     : "FAIL");
        std::string s;
        if (r) {
            for (const auto& [k, v] : r->sizes) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
        }
        sizes.push_back(r ? s : kDash);
    }
    MetricRow& row = b.addText("Correct", "Outputs checked against a float64 reference.", verdicts);
    for (std::size_t i = 0; i < n; ++i) row.bad[i] = row.texts[i] == "FAIL";
    b.addText("Problem", "The sizes the run was made at: compare timings only at equal sizes.", sizes);
}

// The waves each run took on its GPU, marked where a last wave left most of the slots idle.
void addWavesRow(RowBuilder& b, const Columns& c) {
    std::vector<std::string> texts;
    std::vector<bool> idle;
    for (std::size_t i = 0; i < c.n; ++i) {
        const auto* r = c.run(i);
        const std::optional<engine::WaveModel> w = r ? engine::runWaves(*r) : std::nullopt;
        const char* unit = w && w->persistent ? (w->rounds() == 1 ? "round" : "rounds") : (w && w->rounds() == 1 ? "wave" : "waves");
        texts.push_back(w ? fmt::format("{} {}, {:.0f}% busy", w->rounds(), unit, 100 * w->busyShare()) : kDash);
        idle.push_back(w && w->busyShare() < 0.8);
    }
    MetricRow& row = b.addText("Waves", "The waves the grid ran in on its GPU (a persistent launch: rounds of work units) and the share of "
                                        "their block slots that had work: the last wave costs a whole block's time however few blocks it "
                                        "holds. Marked under 80 %.",
                               texts);
    for (std::size_t i = 0; i < c.n; ++i) row.bad[i] = idle[i];
}

void addTimingRows(RowBuilder& b, const Columns& c) {
    const std::size_t n = c.n;
    auto run = [&](std::size_t i) { return c.run(i); };
    const bool anyRun = std::any_of(c.runs.begin(), c.runs.end(), [](const engine::RunReport* r) { return r != nullptr; });
    b.section("Timing");
    if (!anyRun) {
        // Eight rows of dashes say less than one line saying why.
        b.addText("Runs", "Run a variant (Run panel, needs an NVIDIA GPU) and its timing fills this section; runs made "
                          "after pinning count too.",
                  std::vector<std::string>(n, "not run"));
        return;
    }
    b.add("Time (median)", "ms", Better::Lower, "Median kernel time of the latest successful run.",
          [&](std::size_t i) -> std::optional<double> {
              if (const auto* r = run(i)) return r->medianMs;
              return std::nullopt;
          },
          fixed(3));
    // A run's figure where it is positive; empty without a run or a figure.
    auto positive = [&run](double engine::RunReport::*figure) {
        return [&run, figure](std::size_t i) -> std::optional<double> {
            if (const auto* r = run(i); r && r->*figure > 0) return r->*figure;
            return std::nullopt;
        };
    };
    b.add("Throughput", "TFLOP/s", Better::Higher, "FLOP formula / median time.", positive(&engine::RunReport::tflops), fixed(2));
    b.add("Bandwidth", "GB/s", Better::Higher, "Least bytes formula / median time (a lower bound on real traffic).",
          positive(&engine::RunReport::gbps), fixed(0));
    b.add("% of roof", "%", Better::Higher,
          "How close the run came to its device's roofline at its own intensity: the larger of its FLOP rate over "
          "the peak of the units it runs on (the CUDA cores' FP32, a dtype's tensor cores) and its bytes over the "
          "DRAM bandwidth. Measured ceilings where kx calibrate ran on the device, else the datasheet's.",
          [&](std::size_t i) -> std::optional<double> {
              const auto* r = run(i);
              if (!r) return std::nullopt;
              if (r->pctOfRoof) return *r->pctOfRoof;
              if (r->pctOfComputeCeiling) return *r->pctOfComputeCeiling;
              if (r->pctOfCopyBandwidth) return *r->pctOfCopyBandwidth;
              return std::nullopt;
          },
          fixed(1));
    b.add("vs baseline", "x", Better::Higher,
          "Baseline time / kernel time, both timed in the same run (the template's first baseline: cuBLAS, CUB or a "
          "device copy of the same bytes): above 1 the kernel is faster.",
          [&](std::size_t i) -> std::optional<double> {
              if (const auto* r = run(i); r && r->primaryBaseline() && r->primaryBaseline()->speedup > 0) return r->primaryBaseline()->speedup;
              return std::nullopt;
          },
          [](double v) { return fmt::format("{:.2f}\u00d7", v); });
    b.add("vs first column", "x", Better::Higher, "The first column's time / this variant's time: above 1 is faster.",
          [&](std::size_t i) -> std::optional<double> {
              const auto* first = run(0);
              const auto* r = run(i);
              if (!first || !r || r->medianMs <= 0) return std::nullopt;
              return first->medianMs / r->medianMs;
          },
          [](double v) { return fmt::format("{:.2f}\u00d7", v); });
    addWavesRow(b, c);
    addCorrectnessRows(b, c);
}

void addResourceRows(RowBuilder& b, const Columns& c) {
    const std::size_t n = c.n;
    auto snap = [&](std::size_t i) -> const VariantSnapshot& { return c.snap(i); };
    b.section("Resources (ptxas)");
    // Resources and occupancy have no better direction in themselves (fewer registers can mean
    // less reuse; more occupancy can mean smaller tiles): no "best" cell, only warnings.
    b.add("Registers", "/thread", Better::None, "Registers per thread (ptxas). Fewer is not better in itself: a bigger tile "
                                                "needs more registers and reuses each loaded value more often.",
          [&](std::size_t i) -> std::optional<double> { return snap(i).resources.registers; }, integer);
    b.add("Static smem", "bytes", Better::None, "Static shared memory per block (ptxas).",
          [&](std::size_t i) -> std::optional<double> { return static_cast<double>(snap(i).resources.sharedBytes); }, kib);
    b.add("Dynamic smem", "bytes", Better::None, "Dynamic shared memory per block, from the launch formula.",
          [&](std::size_t i) -> std::optional<double> {
              if (!snap(i).launch) return std::nullopt;
              return static_cast<double>(snap(i).launch->dynamicSmemBytes);
          },
          kib);
    {
        MetricRow& r = b.add("Spills", "bytes", Better::None, "Spill stores + spill loads per thread (ptxas): local memory traffic.",
                             [&](std::size_t i) -> std::optional<double> {
                                 return static_cast<double>(snap(i).resources.spillStoreBytes + snap(i).resources.spillLoadBytes);
                             },
                             kib);
        for (std::size_t i = 0; i < n; ++i) r.bad[i] = r.values[i] && *r.values[i] > 0;
    }
    b.add("Threads", "/block", Better::None, "Threads per block.",
          [&](std::size_t i) -> std::optional<double> {
              if (!snap(i).launch) return std::nullopt;
              return static_cast<double>(snap(i).launch->threadsPerBlock());
          },
          integer);
    b.add("Blocks", "grid", Better::None, "Blocks in the grid at the default sizes: fewer than SMs x blocks/SM leaves SMs idle.",
          [&](std::size_t i) -> std::optional<double> {
              if (!snap(i).launch) return std::nullopt;
              return static_cast<double>(snap(i).launch->blocks());
          },
          integer);
}

void addOccupancyRows(RowBuilder& b, const Columns& c) {
    const std::size_t n = c.n;
    auto snap = [&](std::size_t i) -> const VariantSnapshot& { return c.snap(i); };
    b.section("Occupancy and roofline");
    b.add("Occupancy", "%", Better::None,
          "Active warps / maximum warps per SM (the CUDA occupancy calculator). Higher hides more latency, but fast "
          "kernels often run at low occupancy with more work per thread.",
          [&](std::size_t i) -> std::optional<double> {
              if (!snap(i).occupancy) return std::nullopt;
              return snap(i).occupancy->occupancy * 100.0;
          },
          fixed(1));
    b.add("Blocks/SM", "", Better::None, "Resident blocks per SM.",
          [&](std::size_t i) -> std::optional<double> {
              if (!snap(i).occupancy) return std::nullopt;
              return snap(i).occupancy->blocksPerSm;
          },
          integer);
    {
        std::vector<std::string> limiters;
        for (std::size_t i = 0; i < n; ++i) {
            const auto& occ = snap(i).occupancy;
            std::string s;
            if (occ) {
                for (const auto l : occ->limiters) s += (s.empty() ? "" : " + ") + std::string(engine::limiterName(l));
            }
            limiters.push_back(occ ? s : kDash);
        }
        b.addText("Limiter", "The resource(s) that cap blocks per SM.", limiters);
    }
    b.add("Predicted AI", "FLOP/B", Better::None,
          "FLOP formula / least bytes at the default sizes. A property of the problem, not of the tile: equal "
          "for every tile shape of one problem.",
          [&](std::size_t i) -> std::optional<double> {
              if (snap(i).predictedAi <= 0) return std::nullopt;
              return snap(i).predictedAi;
          },
          fixed(1));
}

void addInstructionMixRows(RowBuilder& b, const Columns& c) {
    const std::size_t n = c.n;
    auto snap = [&](std::size_t i) -> const VariantSnapshot& { return c.snap(i); };
    b.section("Instruction mix (PTX, static)");
    auto cat = [&](engine::InstrCategory c, Better better, const char* help) {
        b.add(engine::categoryLabel(c), "instr", better, help,
              [&, c](std::size_t i) -> std::optional<double> { return snap(i).mix[c]; }, integer);
    };
    b.add("Instructions", "instr", Better::None, "Every instruction in the PTX listing once (loops count once).",
          [&](std::size_t i) -> std::optional<double> { return snap(i).mix.total(); }, integer);
    cat(engine::InstrCategory::Fp32, Better::None, "FP32 FMA/ADD/MUL: the SIMT math. More per loaded byte is the point of a bigger tile.");
    cat(engine::InstrCategory::TensorCore, Better::None, "mma / wgmma instructions.");
    // Global loads by width: one row per width any variant uses, widest first.
    std::set<int, std::greater<>> widths;
    for (std::size_t i = 0; i < n; ++i)
        for (const auto& [w, count] : snap(i).mix.counts.globalLoads) widths.insert(w);
    for (int w : widths) {
        b.add("Global loads " + engine::widthLabel(w), "instr", Better::None,
              "ld.global of this width per thread: 128-bit loads move four times the bytes per instruction of 32-bit ones.",
              [&, w](std::size_t i) -> std::optional<double> {
                  const auto& g = snap(i).mix.counts.globalLoads;
                  const auto it = g.find(w);
                  return it == g.end() ? 0.0 : static_cast<double>(it->second);
              },
              integer);
    }
    cat(engine::InstrCategory::AsyncCopy, Better::None, "cp.async: global to shared without registers (sm_80+).");
    cat(engine::InstrCategory::SharedLoad, Better::None, "ld.shared / ldmatrix.");
    cat(engine::InstrCategory::Barrier, Better::None, "bar.sync and friends: each one stalls the block until all warps arrive.");
    {
        MetricRow& r = b.add("Local memory", "instr", Better::None, "ld.local / st.local: spills or run-time-indexed arrays.",
                             [&](std::size_t i) -> std::optional<double> { return snap(i).mix.counts.localMemory(); }, integer);
        for (std::size_t i = 0; i < n; ++i) r.bad[i] = r.values[i] && *r.values[i] > 0;
    }
}

// The user's own words last: why a variant is there, what made it fast or slow.
void addNotesRows(RowBuilder& b, const Columns& c) {
    const std::size_t n = c.n;
    auto snap = [&](std::size_t i) -> const VariantSnapshot& { return c.snap(i); };
    if (std::any_of(c.variants.begin(), c.variants.end(), [](const SnapshotPtr& v) { return !v->notes.empty(); })) {
        b.section("Notes");
        std::vector<std::string> notes;
        for (std::size_t i = 0; i < n; ++i) notes.push_back(snap(i).notes.empty() ? std::string(kDash) : snap(i).notes);
        b.addText("Notes", "The variant's notes (Variants panel, or kx session note).", std::move(notes)).prose = true;
    }
}

}  // namespace

MetricTable buildMetricTable(const std::vector<SnapshotPtr>& variants, const std::vector<const engine::RunReport*>& runs) {
    MetricTable t;
    for (const auto& v : variants) {
        t.names.push_back(v->name);
        t.arches.push_back(v->arch);
    }
    t.columns = columnLabels(variants);
    const Columns columns{variants, runs, variants.size()};
    RowBuilder b(t.rows, columns.n);
    addTimingRows(b, columns);
    addResourceRows(b, columns);
    addOccupancyRows(b, columns);
    addInstructionMixRows(b, columns);
    addNotesRows(b, columns);
    return t;
}

std::string metricTableCsv(const MetricTable& table) {
    std::string out = "metric,unit";
    for (const auto& n : table.names) out += "," + csvField(n);
    out += "\n";
    for (const MetricRow& r : table.rows) {
        if (!r.section.empty()) continue;
        out += csvField(r.label) + "," + csvField(r.unit);
        for (std::size_t i = 0; i < r.texts.size(); ++i) {
            // Numbers unformatted (no units, no "×"); text rows as shown; unknown empty.
            const std::string cell = r.values[i] ? number(*r.values[i]) : (r.texts[i] == kDash ? "" : r.texts[i]);
            out += "," + csvField(cell);
        }
        out += "\n";
    }
    return out;
}

std::string metricTableMarkdown(const MetricTable& table) {
    auto escape = [](const std::string& s) {
        std::string e;
        for (char c : s) e += c == '|' ? std::string("\\|") : std::string(1, c);
        return e;
    };
    std::string out = "| metric |";
    for (std::size_t i = 0; i < table.columns.size(); ++i)
        out += " " + escape(table.columns[i]) + "<br>`" + escape(table.names[i]) + "` (" + table.arches[i] + ") |";
    out += "\n|---|";
    for (std::size_t i = 0; i < table.columns.size(); ++i) out += "---:|";
    out += "\n";
    for (const MetricRow& r : table.rows) {
        if (!r.section.empty()) {
            out += "| **" + escape(r.section) + "** |";
            for (std::size_t i = 0; i < table.columns.size(); ++i) out += " |";
            out += "\n";
            continue;
        }
        out += "| " + escape(r.label) + (r.unit.empty() || r.unit == "x" ? "" : " (" + r.unit + ")") + " |";
        for (std::size_t i = 0; i < r.texts.size(); ++i) {
            const std::string cell = escape(r.texts[i]);
            out += " " + (r.best[i] ? "**" + cell + "**" : cell) + " |";
        }
        out += "\n";
    }
    out += "\nBest value in bold only where a direction means something: lower time, higher throughput, % of roof and speedup.\n";
    return out;
}

}  // namespace kx::app
