// The one place colours, sizes and fonts come from. Views never spell an RGB value or a pixel
// size inline: they ask the Theme, so a palette change is a one-file edit.
#pragma once

#include <imgui.h>

#include <string>

namespace kx::app {

// Syntax classes the code view colours. Shared by CUDA and PTX so one palette serves both.
enum class SyntaxClass {
    Plain,
    Keyword,       // C++ keywords: for, if, template, return
    Type,          // int, float, __half, float4, size_t
    Qualifier,     // CUDA qualifiers: __global__, __shared__, __restrict__
    Builtin,       // threadIdx, blockDim, __syncthreads, PTX opcodes (ld.global, mma)
    Number,
    String,
    Comment,
    Preprocessor,  // #include, #pragma unroll
    Directive,     // PTX .reg, .shared, .u32
    Register,      // PTX %r12, %rd3
    Label,         // PTX $L__BB0_2:
    Punctuation,
    Count
};

enum class ThemeKind;

struct Palette {
    ImU32 windowBg, panelBg, codeBg, gutterBg, border, headerBg;
    ImU32 text, textDim, textFaint, accent, accentHover, accentActive;
    ImU32 ok, warn, error, errorLineBg, warnLineBg, searchHitBg, currentLineBg;
    // Diffs: line backgrounds of lines only in A (removed) or only in B (added), and folds.
    ImU32 diffRemovedBg, diffAddedBg, diffFoldBg;
    // Comparison tables: the best value of a row.
    ImU32 bestCellBg;
    ImU32 syntax[static_cast<int>(SyntaxClass::Count)];
};

struct Sizes {
    float leftColumnWidth = 380.0f;
    float rightColumnWidth = 360.0f;
    float kernelPanelLines = 7.5f;   // kernel panel height, in frame heights
    float statusBarPadding = 6.0f;
    float gutterPadding = 12.0f;     // space between line numbers and code
    float fontSize = 15.0f;
    float spinnerRadius = 6.0f;
    float propertyLabelFraction = 0.42f;  // share of a property row given to its label
};

struct Fonts {
    ImFont* regular = nullptr;  // everything: a monospace UI reads like the code it shows
    ImFont* bold = nullptr;     // headings and key figures; equals regular when Bold is missing
};

class Theme {
public:
    // Sets the ImGui style colours and metrics from the palette, scaled by scale().
    void applyStyle() const;

    // Replaces the fonts of the current ImGui font atlas with JetBrains Mono (regular and bold)
    // from fontDir at sizes().fontSize, or ImGui's default font when the files are missing. Call
    // between frames; the renderer's font texture must be rebuilt afterwards.
    void loadFonts(const std::string& fontDir);

    // Zoom times the monitor's content scale: every size (fonts, paddings, the sizes below) is
    // multiplied by it. Call applyStyle() and loadFonts() after changing it.
    void setScale(float scale);
    float scale() const { return m_scale; }

    const Palette& palette() const { return m_palette; }
    // Sizes at the current scale.
    const Sizes& sizes() const { return m_sizes; }
    const Fonts& fonts() const { return m_fonts; }
    ImU32 syntax(SyntaxClass c) const { return m_palette.syntax[static_cast<int>(c)]; }
    static ImVec4 toVec4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

    static Theme darkProfessional();
    // Light backgrounds for bright rooms and projectors; the same hues, darkened until text
    // keeps 4.5:1 on its backgrounds.
    static Theme light();
    static Theme ofKind(ThemeKind kind);
    bool isLight() const { return m_light; }

private:
    Palette m_palette{};
    Sizes m_baseSizes{};
    Sizes m_sizes{};
    Fonts m_fonts{};
    float m_scale = 1.0f;
    bool m_light = false;
};

}  // namespace kx::app
