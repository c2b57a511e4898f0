#include "views/config_view.hpp"

#include "explorer_model.hpp"
#include "theme.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

namespace kx::app {

namespace {

// Radio buttons read faster than a combo when every choice fits on one row.
constexpr std::size_t kMaxRadioChoices = 4;
// Sliders suit small ranges; wider ranges get a number field with +/- steps.
constexpr long long kMaxSliderSpan = 256;

long long parseInt(const std::string& s, long long fallback) {
    try {
        return std::stoll(s);
    } catch (...) {
        return fallback;
    }
}

// A small check mark or cross drawn with lines, so it does not depend on the font's glyphs.
void verdictIcon(bool ok, ImU32 colour) {
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = h * 0.5f;
    const ImVec2 c(p.x + h * 0.5f, p.y + h * 0.5f);
    dl->AddCircleFilled(c, s, (colour & ~IM_COL32_A_MASK) | (0x40u << IM_COL32_A_SHIFT));
    if (ok) {
        const ImVec2 pts[3] = {ImVec2(c.x - s * 0.45f, c.y + s * 0.02f), ImVec2(c.x - s * 0.1f, c.y + s * 0.38f),
                               ImVec2(c.x + s * 0.5f, c.y - s * 0.35f)};
        dl->AddPolyline(pts, 3, colour, 0, 2.0f);
    } else {
        const float k = s * 0.38f;
        dl->AddLine(ImVec2(c.x - k, c.y - k), ImVec2(c.x + k, c.y + k), colour, 2.0f);
        dl->AddLine(ImVec2(c.x - k, c.y + k), ImVec2(c.x + k, c.y - k), colour, 2.0f);
    }
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine();
}

}  // namespace

void ConfigView::drawContent() {
    if (model().currentTemplate() == nullptr) {
        ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "Pick a template.");
        return;
    }
    // The editor scrolls; the verdict, name and reset stay pinned right under it, so a violated
    // constraint is never hidden below the fold. The footer's height is last frame's.
    const float editorH = std::max(ImGui::GetFrameHeight() * 3, ImGui::GetContentRegionAvail().y - m_footerHeight);
    ImGui::BeginChild("##params", ImVec2(0, editorH), false);
    drawParams();
    ImGui::EndChild();

    const float footerTop = ImGui::GetCursorPosY();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y - 3), ImVec2(p.x + ImGui::GetContentRegionAvail().x, p.y - 3),
                                        theme().palette().border);
    ImGui::Spacing();
    drawValidity();
    ImGui::Spacing();
    drawName();
    drawPresets();
    // Reset and Keep share the row: halves of the width.
    const float half = (ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ItemSpacing.x) * 0.5f;
    if (ImGui::Button("Reset to defaults", ImVec2(half, 0))) {
        model().resetToDefaults();
        m_editError.clear();
    }
    ImGui::SameLine();
    const std::string why = CompareModel::cannotKeepReason(model());
    ImGui::BeginDisabled(!why.empty());
    if (ImGui::Button("Keep in session", ImVec2(-FLT_MIN, 0))) {
        try {
            model().compare().keep(model());
        } catch (const engine::InputError& e) {
            m_editError = e.what();
        }
    }
    ImGui::EndDisabled();
    helpTooltip(why.empty() ? fmt::format("Keep this variant in the session, with its source, PTX, SASS and resources, "
                                          "to compare it and find it again (Ctrl+P); {} kept now.",
                                          model().compare().pins().size())
                            : why);
    m_footerHeight = ImGui::GetCursorPosY() - footerTop;
}

const std::vector<std::string>& ConfigView::wouldBreak(const std::string& key, const std::string& value) {
    if (m_breaksFor != model().generation()) {
        m_breaks.clear();
        m_implicated.clear();
        m_breaksFor = model().generation();
    }
    auto& byValue = m_breaks[key];
    if (auto it = byValue.find(value); it != byValue.end()) return it->second;
    std::vector<std::string>& out = byValue[value];
    const engine::Template* t = model().currentTemplate();
    const engine::Arch* arch = model().currentArch();
    const engine::PreparedVariant* current = model().variant();
    if (t == nullptr || arch == nullptr || current == nullptr || value == model().paramValue(key)) return out;
    try {
        const engine::Config next = t->withValues(model().config(), {{key, value}});
        for (const engine::Violation& v : t->validate(next, *arch)) {
            // Only rules the current config keeps: a rule already broken is not this value's doing.
            const bool already = std::any_of(current->violations.begin(), current->violations.end(),
                                             [&](const engine::Violation& c) { return c.line == v.line && c.expr == v.expr; });
            if (!already) out.push_back(v.message);
        }
    } catch (const std::exception& e) {
        out.push_back(e.what());
    }
    return out;
}

bool ConfigView::implicated(const engine::ParamSpec& p) {
    const engine::PreparedVariant* v = model().variant();
    const engine::Template* t = model().currentTemplate();
    const engine::Arch* arch = model().currentArch();
    if (v == nullptr || v->violations.empty() || t == nullptr || arch == nullptr) return false;
    wouldBreak(p.name, model().paramValue(p.name));  // brings the cache to this edit
    if (auto it = m_implicated.find(p.name); it != m_implicated.end()) return it->second;
    bool involved = false;
    // A constraint naming the parameter ("BM * BK" names BM, not B) ...
    for (const engine::Violation& violation : v->violations) {
        const std::string& e = violation.expr;
        for (std::size_t at = e.find(p.name); at != std::string::npos && !involved; at = e.find(p.name, at + 1)) {
            auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
            involved = (at == 0 || !ident(e[at - 1])) && (at + p.name.size() >= e.size() || !ident(e[at + p.name.size()]));
        }
    }
    // ... or one that a value of it would fix, when the constraint names derived quantities
    // (threads, registers) instead of the parameter.
    std::vector<std::string> values;
    for (const auto& c : p.choices) values.push_back(c.name);
    for (long long a : p.allowed) values.push_back(std::to_string(a));
    if (values.empty() && p.type == engine::ParamType::Int && p.maxValue - p.minValue < 16)
        for (long long x = p.minValue; x <= p.maxValue; ++x) values.push_back(std::to_string(x));
    if (p.type == engine::ParamType::Bool) values = {"true", "false"};
    for (const std::string& value : values) {
        if (involved) break;
        if (value == model().paramValue(p.name)) continue;
        try {
            const auto next = t->validate(t->withValues(model().config(), {{p.name, value}}), *arch);
            for (const engine::Violation& current : v->violations) {
                const bool stillBroken = std::any_of(next.begin(), next.end(), [&](const engine::Violation& n) {
                    return n.line == current.line && n.expr == current.expr;
                });
                if (!stillBroken) involved = true;
            }
        } catch (const std::exception&) {
        }
    }
    m_implicated[p.name] = involved;
    return involved;
}

void ConfigView::apply(const std::string& key, const std::string& value) {
    try {
        model().setParam(key, value);
        m_editError.clear();
    } catch (const engine::InputError& e) {
        m_editError = e.what();
    }
}

void ConfigView::drawPresets() {
    const std::vector<Preset>& presets = m_presets.presets();
    const engine::Arch* arch = model().currentArch();
    const std::string current = m_presets.current();
    std::string shown = !current.empty() ? "preset " + current
                        : presets.empty() ? (arch ? "no preset for " + arch->name : "no arch")
                                          : fmt::format("{} preset{} for {}", presets.size(), presets.size() == 1 ? "" : "s", arch->name);
    ImGui::AlignTextToFramePadding();
    ImGui::TextColored(Theme::toVec4(theme().palette().textDim), "Start from");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::BeginDisabled(presets.empty());
    if (ImGui::BeginCombo("##preset", shown.c_str())) {
        for (const Preset& p : presets) {
            if (ImGui::Selectable(p.name.c_str(), p.name == current)) {
                try {
                    m_presets.apply(p.name);
                    m_editError.clear();
                } catch (const engine::InputError& e) {
                    m_editError = e.what();
                }
            }
            helpTooltip(p.sizes.empty() ? p.help : p.help + "\n\nTuned at " + p.sizes + ": choosing it sets the Run panel's sizes.");
        }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    const std::string& error = m_presets.error();
    helpTooltip(!error.empty() ? error
                : presets.empty()
                    ? "This template has no tuned preset for this arch (templates/<id>/preselected.xml, a set of one config)."
                    : "A tuned config for this arch (the template's preselected.xml; kx run --preset NAME starts from the same), laid "
                      "over the editor's values: what it leaves out stays as it is.");
}

void ConfigView::drawName() {
    const Palette& pal = theme().palette();
    const engine::PreparedVariant* v = model().variant();
    const std::string name = v ? v->name : model().currentTemplate()->configName(model().config());
    ImGui::TextColored(Theme::toVec4(pal.textDim), "Variant");
    // The name in a code-coloured frame, with a copy button at the row's end.
    const float copyW = ImGui::CalcTextSize("Copy").x + ImGui::GetStyle().FramePadding.x * 2;
    const float boxW = ImGui::GetContentRegionAvail().x - copyW - ImGui::GetStyle().ItemSpacing.x;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetFrameHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + boxW, p.y + h), pal.codeBg, ImGui::GetStyle().FrameRounding);
    dl->PushClipRect(p, ImVec2(p.x + boxW - 4, p.y + h), true);
    dl->AddText(ImVec2(p.x + ImGui::GetStyle().FramePadding.x, p.y + ImGui::GetStyle().FramePadding.y),
                theme().syntax(SyntaxClass::Builtin), name.c_str());
    dl->PopClipRect();
    ImGui::InvisibleButton("##name", ImVec2(boxW, h));
    helpTooltip(name);
    ImGui::SameLine();
    if (ImGui::Button("Copy##name")) ImGui::SetClipboardText(name.c_str());
    helpTooltip("Copy the variant name");
}

void ConfigView::drawValidity() {
    const Palette& pal = theme().palette();
    const engine::Arch* arch = model().currentArch();
    const engine::PreparedVariant* v = model().variant();
    if (v == nullptr) {
        // Not the user's mistake (a CUDA-only template on an AMD arch): one neutral note here,
        // the other panels just say they have nothing to show.
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.textDim), "%s", model().prepareError().c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const std::string archName = arch ? arch->name : "?";
    if (v->violations.empty() && arch != nullptr && !arch->compilable) {
        // Never a bare "Valid" for what cannot be compiled: the rules hold, nothing more is known.
        verdictIcon(true, pal.warn);
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.warn), "Within %s's limits; analysis only: %s cannot compile for it, so no PTX, "
                                                    "registers or measured occupancy",
                           archName.c_str(), model().compilerVersion().c_str());
        ImGui::PopTextWrapPos();
    } else if (v->violations.empty()) {
        verdictIcon(true, pal.ok);
        ImGui::TextColored(Theme::toVec4(pal.ok), "Valid for %s", archName.c_str());
    } else {
        verdictIcon(false, pal.error);
        const auto n = v->violations.size();
        ImGui::TextColored(Theme::toVec4(pal.error), "%zu constraint%s violated on %s", n, n == 1 ? "" : "s",
                           archName.c_str());
        ImGui::Indent(ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.x);
        ImGui::PushTextWrapPos(0.0f);
        for (const auto& violation : v->violations) {
            ImGui::PushStyleColor(ImGuiCol_Text, pal.error);
            ImGui::Bullet();
            ImGui::TextWrapped("%s", violation.message.c_str());
            ImGui::PopStyleColor();
            helpTooltip(fmt::format("constraint: {}\nmanifest line {}", violation.expr, violation.line));
        }
        ImGui::PopTextWrapPos();
        ImGui::Unindent(ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.x);
    }
    if (!m_editError.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(Theme::toVec4(pal.warn), "%s", m_editError.c_str());
        ImGui::PopTextWrapPos();
    }
}

void ConfigView::drawParams() {
    const auto& params = model().currentTemplate()->manifest().params;
    // Groups in order of first appearance, so the manifest decides the layout.
    std::vector<std::string> groups;
    for (const auto& p : params) {
        if (std::find(groups.begin(), groups.end(), p.group) == groups.end()) groups.push_back(p.group);
    }
    const float labelW = ImGui::GetContentRegionAvail().x * theme().sizes().propertyLabelFraction;
    // Parameters without effect for this config (the manifest's `applies`) are dimmed, not hidden:
    // the layout stays put as the direction or gather changes.
    std::vector<const engine::ParamSpec*> inactive;
    if (const engine::Arch* arch = model().currentArch()) inactive = model().currentTemplate()->inactiveParams(model().config(), *arch);
    for (const auto& group : groups) {
        const std::string header = (group.empty() ? std::string("Parameters") : group) + "##group";
        ImGui::SetNextItemOpen(true, ImGuiCond_Once);
        ImGui::PushStyleColor(ImGuiCol_Header, theme().palette().headerBg);
        ImGui::PushFont(theme().fonts().bold);
        const bool open = ImGui::CollapsingHeader(header.c_str());
        ImGui::PopFont();
        ImGui::PopStyleColor();
        if (!open) continue;
        if (ImGui::BeginTable(("##t" + group).c_str(), 2, ImGuiTableFlags_SizingFixedFit)) {
            ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, labelW);
            ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
            for (const auto& p : params) {
                if (p.group != group) continue;
                ImGui::TableNextRow();
                ImGui::TableNextColumn();
                ImGui::AlignTextToFramePadding();
                const std::string& label = p.label.empty() ? p.name : p.label;
                const bool bad = implicated(p);
                const bool idle = std::find(inactive.begin(), inactive.end(), &p) != inactive.end();
                ImGui::TextColored(Theme::toVec4(bad ? theme().palette().error : idle ? theme().palette().textDim : theme().palette().text), "%s",
                                   label.c_str());
                helpTooltip(idle ? fmt::format("{}  ({})\nNo effect with this config: {}.\n{}", label, p.name, p.appliesHelp, p.help)
                                 : fmt::format("{}  ({})\n{}", label, p.name, p.help));
                ImGui::TableNextColumn();
                ImGui::PushID(p.name.c_str());
                const ImVec2 start = ImGui::GetCursorScreenPos();
                const float right = start.x + ImGui::GetContentRegionAvail().x;
                if (idle) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, ImGui::GetStyle().Alpha * 0.55f);  // faded, still editable
                drawParam(p);
                if (idle) ImGui::PopStyleVar();
                if (bad) {
                    // Outline the field a violated rule names, so the eye finds what to change.
                    const float pad = 2.0f * theme().scale();
                    ImGui::GetWindowDrawList()->AddRect(ImVec2(start.x - pad, start.y - pad), ImVec2(right + pad, ImGui::GetItemRectMax().y + pad),
                                                        theme().palette().error, ImGui::GetStyle().FrameRounding, 0, 2.0f * theme().scale());
                }
                ImGui::PopID();
            }
            ImGui::EndTable();
        }
        ImGui::Spacing();
    }
    // Flags belong to the variant like its parameters; closed until set, to keep the editor short.
    ImGui::SetNextItemOpen(!model().flags().isDefault(), ImGuiCond_Once);
    ImGui::PushStyleColor(ImGuiCol_Header, theme().palette().headerBg);
    ImGui::PushFont(theme().fonts().bold);
    const bool flagsOpen = ImGui::CollapsingHeader("Compiler flags##group");
    ImGui::PopFont();
    ImGui::PopStyleColor();
    helpTooltip("NVRTC and ptxas options of this variant: a register cap, fast math, the assembler's optimisation level, "
                "extra vectorisation. They are part of its name (\"_r64_fm\") and of what is kept and compared.");
    if (flagsOpen) m_flags.draw(model(), labelW);
}

void ConfigView::drawParam(const engine::ParamSpec& p) {
    const std::string value = model().paramValue(p.name);
    const std::string help = fmt::format("{}  ({})\n{}", p.label.empty() ? p.name : p.label, p.name, p.help);
    ImGui::SetNextItemWidth(-FLT_MIN);
    switch (p.type) {
    case engine::ParamType::Bool: {
        bool b = value == "true" || value == "1";
        if (ImGui::Checkbox("##v", &b)) apply(p.name, b ? "true" : "false");
        helpTooltip(help);
        break;
    }
    case engine::ParamType::Enum: {
        const engine::EnumChoice* currentChoice = nullptr;
        for (const auto& c : p.choices) {
            if (c.name == value) currentChoice = &c;
        }
        if (ImGui::BeginCombo("##v", value.c_str())) {
            for (const auto& c : p.choices) {
                const std::vector<std::string>& breaks = wouldBreak(p.name, c.name);
                if (!breaks.empty()) ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(theme().palette().error));
                if (ImGui::Selectable((breaks.empty() ? c.name : c.name + "  \u00d7").c_str(), c.name == value)) apply(p.name, c.name);
                if (!breaks.empty()) ImGui::PopStyleColor();
                helpTooltip(breaks.empty() ? c.help : c.help + "\nWould break: " + breaks.front());
            }
            ImGui::EndCombo();
        }
        helpTooltip(currentChoice && !currentChoice->help.empty() ? help + "\n\n" + value + ": " + currentChoice->help
                                                                  : help);
        break;
    }
    case engine::ParamType::Int: {
        const long long v = parseInt(value, p.minValue);
        // A small range is a short list too: 1..4 pipeline stages read best as four buttons.
        std::vector<long long> choices = p.allowed;
        if (choices.empty() && p.maxValue >= p.minValue && p.maxValue - p.minValue < static_cast<long long>(kMaxRadioChoices)) {
            for (long long x = p.minValue; x <= p.maxValue; ++x) choices.push_back(x);
        }
        // Buttons only where they all fit the value column; a narrow panel gets the list instead
        // of buttons cut off at its edge.
        const ImGuiStyle& style = ImGui::GetStyle();
        float buttonsWidth = 0.0f;
        for (long long c : choices) {
            buttonsWidth += ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + style.ItemSpacing.x +
                            ImGui::CalcTextSize(fmt::format("{}\u00d7", c).c_str()).x;
        }
        const bool buttonsFit = buttonsWidth <= ImGui::GetContentRegionAvail().x;
        if (!choices.empty() && choices.size() <= kMaxRadioChoices && buttonsFit) {
            for (std::size_t i = 0; i < choices.size(); ++i) {
                if (i > 0) ImGui::SameLine();
                const std::vector<std::string>& breaks = wouldBreak(p.name, std::to_string(choices[i]));
                const std::string label = fmt::format("{}{}##r{}", choices[i], breaks.empty() ? "" : "\u00d7", i);
                if (!breaks.empty()) ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(theme().palette().error));
                if (ImGui::RadioButton(label.c_str(), v == choices[i])) apply(p.name, std::to_string(choices[i]));
                if (!breaks.empty()) ImGui::PopStyleColor();
                helpTooltip(breaks.empty() ? help : fmt::format("{} would break: {}", choices[i], breaks.front()));
            }
        } else if (!choices.empty()) {
            if (ImGui::BeginCombo("##v", value.c_str())) {
                for (long long a : choices) {
                    const std::vector<std::string>& breaks = wouldBreak(p.name, std::to_string(a));
                    if (!breaks.empty()) ImGui::PushStyleColor(ImGuiCol_Text, Theme::toVec4(theme().palette().error));
                    const std::string text = std::to_string(a) + (breaks.empty() ? "" : "  \u00d7");
                    if (ImGui::Selectable(text.c_str(), a == v)) apply(p.name, std::to_string(a));
                    if (!breaks.empty()) ImGui::PopStyleColor();
                    if (!breaks.empty()) helpTooltip("Would break: " + breaks.front());
                }
                ImGui::EndCombo();
            }
            helpTooltip(help);
        } else if (p.maxValue - p.minValue <= kMaxSliderSpan) {
            long long x = v;
            if (ImGui::SliderScalar("##v", ImGuiDataType_S64, &x, &p.minValue, &p.maxValue, "%lld",
                                    ImGuiSliderFlags_AlwaysClamp))
                apply(p.name, std::to_string(x));
            helpTooltip(help);
        } else {
            long long x = v;
            const long long step = 1;
            const long long fastStep = std::max<long long>(1, (p.maxValue - p.minValue) / 16);
            if (ImGui::InputScalar("##v", ImGuiDataType_S64, &x, &step, &fastStep, "%lld")) {
                apply(p.name, std::to_string(std::clamp(x, p.minValue, p.maxValue)));
            }
            helpTooltip(help + fmt::format("\nrange {} .. {}", p.minValue, p.maxValue));
        }
        break;
    }
    }
}

}  // namespace kx::app
