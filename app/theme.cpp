// A dark palette in the spirit of Nsight and the JetBrains "New UI" dark theme: near-black
// panels, one blue accent, and syntax colours that stay distinct on the code background.
#include "theme.hpp"

#include "workspace_settings.hpp"

#include <cmath>
#include <filesystem>

namespace kx::app {

namespace {

constexpr ImU32 rgb(unsigned hex, unsigned alpha = 0xFF) {
    // ImU32 is ABGR in memory order; hex is written 0xRRGGBB as designers write it.
    return (alpha << 24) | ((hex & 0xFF) << 16) | (hex & 0xFF00) | ((hex >> 16) & 0xFF);
}

// Latin-1 plus the few symbols the UI draws as text (dashes, ellipsis, arrows, minus, <= >=, the roofline's square and diamond). The atlas
// keeps a pointer to this table until it is built, hence namespace scope.
constexpr ImWchar kRanges[] = {0x0020, 0x00FF, 0x2013, 0x2026, 0x2190, 0x2193, 0x2212, 0x2212, 0x2264, 0x2265, 0x25A0, 0x25A0, 0x25C6, 0x25C6, 0};

// [SECTION] The two palettes, side by side: a colour added to one cannot be forgotten in the other.
// Text that carries a value keeps 4.5:1 (WCAG AA) on the panel and code backgrounds in both,
// dim and faint text included: "faint" ranks a figure, it does not hide it.

struct PaletteColour {
    ImU32 Palette::*slot;
    ImU32 dark, light;
};

constexpr PaletteColour kPaletteColours[] = {
    {&Palette::windowBg, rgb(0x1E1F22), rgb(0xE4E6EB)},
    {&Palette::panelBg, rgb(0x2B2D30), rgb(0xF7F8FA)},
    {&Palette::codeBg, rgb(0x1E1F22), rgb(0xFFFFFF)},
    {&Palette::gutterBg, rgb(0x232427), rgb(0xF0F1F4)},
    {&Palette::border, rgb(0x393B40), rgb(0xC9CCD3)},
    {&Palette::headerBg, rgb(0x34363B), rgb(0xE6E8EC)},
    {&Palette::text, rgb(0xDFE1E5), rgb(0x1F2023)},
    {&Palette::textDim, rgb(0xA9ACB3), rgb(0x50535A)},
    {&Palette::textFaint, rgb(0x9497A0), rgb(0x62656D)},
    {&Palette::accent, rgb(0x3574F0), rgb(0x2A5FCF)},
    {&Palette::accentHover, rgb(0x4A85F5), rgb(0x3B72E0)},
    {&Palette::accentActive, rgb(0x2E5FC2), rgb(0x2150B0)},
    {&Palette::ok, rgb(0x5FB865), rgb(0x2B7A30)},
    {&Palette::warn, rgb(0xE5B45A), rgb(0x8A5A00)},
    {&Palette::error, rgb(0xFF6B78), rgb(0xC62A3A)},
    {&Palette::errorLineBg, rgb(0xF75464, 0x38), rgb(0xC62A3A, 0x26)},
    {&Palette::warnLineBg, rgb(0xE5B45A, 0x30), rgb(0xD4A020, 0x30)},
    {&Palette::searchHitBg, rgb(0x3574F0, 0x60), rgb(0x2A5FCF, 0x40)},
    {&Palette::currentLineBg, rgb(0xFFFFFF, 0x0C), rgb(0x000000, 0x0A)},
    {&Palette::diffRemovedBg, rgb(0xF75464, 0x2C), rgb(0xC62A3A, 0x22)},
    {&Palette::diffAddedBg, rgb(0x5FB865, 0x2C), rgb(0x2B7A30, 0x22)},
    {&Palette::diffFoldBg, rgb(0x3574F0, 0x18), rgb(0x2A5FCF, 0x14)},
    {&Palette::bestCellBg, rgb(0x5FB865, 0x30), rgb(0x2B7A30, 0x26)},
};

struct SyntaxColour {
    SyntaxClass cls;
    ImU32 dark, light;
};

constexpr SyntaxColour kSyntaxColours[] = {
    {SyntaxClass::Plain, rgb(0xBCBEC4), rgb(0x1F2023)},         {SyntaxClass::Keyword, rgb(0xCF8E6D), rgb(0x0033B3)},
    {SyntaxClass::Type, rgb(0x4EC9B0), rgb(0x00737A)},          {SyntaxClass::Qualifier, rgb(0xC77DBB), rgb(0x871094)},
    {SyntaxClass::Builtin, rgb(0x56A8F5), rgb(0x1750EB)},       {SyntaxClass::Number, rgb(0x2AACB8), rgb(0x1750EB)},
    {SyntaxClass::String, rgb(0x6AAB73), rgb(0x067D17)},        {SyntaxClass::Comment, rgb(0x8A8E95), rgb(0x646870)},
    {SyntaxClass::Preprocessor, rgb(0xB3AE60), rgb(0x7A6500)},  {SyntaxClass::Directive, rgb(0xCF8E6D), rgb(0x0033B3)},
    {SyntaxClass::Register, rgb(0xC77DBB), rgb(0x871094)},      {SyntaxClass::Label, rgb(0xB3AE60), rgb(0x7A6500)},
    {SyntaxClass::Punctuation, rgb(0x9DA0A8), rgb(0x4A4D55)},
};

Palette paletteOf(bool light) {
    Palette p{};
    for (const PaletteColour& c : kPaletteColours) p.*c.slot = light ? c.light : c.dark;
    for (const SyntaxColour& c : kSyntaxColours) p.syntax[static_cast<int>(c.cls)] = light ? c.light : c.dark;
    return p;
}

// Which palette colour each ImGui colour takes, grouped by widget; alpha < 0 keeps the palette
// colour's own, no colour (nullptr) is transparent. The colours that differ by theme beyond the
// palette are set in applyStyle. A child window is transparent: it always sits on a window or
// popup of the same panelBg, and painting that again only costs fill (see widgets/opaque_fill.hpp).
struct StyleColour {
    ImGuiCol_ imgui;
    ImU32 Palette::*colour;
    float alpha = -1.0f;
};

constexpr StyleColour kStyleColours[] = {
    {ImGuiCol_Text, &Palette::text}, {ImGuiCol_TextDisabled, &Palette::textFaint},
    {ImGuiCol_WindowBg, &Palette::panelBg}, {ImGuiCol_ChildBg, nullptr}, {ImGuiCol_PopupBg, &Palette::panelBg},
    {ImGuiCol_Border, &Palette::border}, {ImGuiCol_BorderShadow, nullptr},
    {ImGuiCol_FrameBg, &Palette::windowBg}, {ImGuiCol_FrameBgHovered, &Palette::headerBg}, {ImGuiCol_FrameBgActive, &Palette::headerBg},
    {ImGuiCol_TitleBg, &Palette::windowBg}, {ImGuiCol_TitleBgActive, &Palette::windowBg},
    {ImGuiCol_TitleBgCollapsed, &Palette::windowBg}, {ImGuiCol_MenuBarBg, &Palette::windowBg},
    {ImGuiCol_ScrollbarBg, nullptr}, {ImGuiCol_ScrollbarGrab, &Palette::border},
    {ImGuiCol_ScrollbarGrabHovered, &Palette::textFaint}, {ImGuiCol_ScrollbarGrabActive, &Palette::textDim},
    {ImGuiCol_CheckMark, &Palette::accentHover}, {ImGuiCol_SliderGrab, &Palette::accent},
    {ImGuiCol_SliderGrabActive, &Palette::accentHover},
    {ImGuiCol_Button, &Palette::headerBg}, {ImGuiCol_ButtonHovered, &Palette::border}, {ImGuiCol_ButtonActive, &Palette::accentActive},
    {ImGuiCol_Header, &Palette::accent, 0.30f}, {ImGuiCol_HeaderHovered, &Palette::accent, 0.45f},
    {ImGuiCol_HeaderActive, &Palette::accent, 0.60f},
    {ImGuiCol_Separator, &Palette::border}, {ImGuiCol_SeparatorHovered, &Palette::accent}, {ImGuiCol_SeparatorActive, &Palette::accent},
    {ImGuiCol_ResizeGrip, nullptr}, {ImGuiCol_ResizeGripHovered, nullptr}, {ImGuiCol_ResizeGripActive, nullptr},
    {ImGuiCol_Tab, &Palette::panelBg}, {ImGuiCol_TabHovered, &Palette::headerBg}, {ImGuiCol_TabActive, &Palette::headerBg},
    {ImGuiCol_TabUnfocused, &Palette::panelBg}, {ImGuiCol_TabUnfocusedActive, &Palette::headerBg},
    {ImGuiCol_PlotHistogram, &Palette::accent}, {ImGuiCol_PlotHistogramHovered, &Palette::accentHover},
    {ImGuiCol_TableHeaderBg, &Palette::headerBg}, {ImGuiCol_TableBorderStrong, &Palette::border},
    {ImGuiCol_TableBorderLight, &Palette::border, 0.6f}, {ImGuiCol_TableRowBg, nullptr},
    {ImGuiCol_TextSelectedBg, &Palette::accent, 0.45f}, {ImGuiCol_NavHighlight, &Palette::accent},
};

}  // namespace

Theme Theme::darkProfessional() {
    Theme t;
    t.m_palette = paletteOf(false);
    return t;
}

Theme Theme::light() {
    Theme t;
    t.m_light = true;
    t.m_palette = paletteOf(true);
    return t;
}

Theme Theme::ofKind(ThemeKind kind) { return kind == ThemeKind::Light ? light() : darkProfessional(); }

void Theme::setScale(float scale) {
    m_scale = scale;
    m_sizes = m_baseSizes;
    m_sizes.leftColumnWidth *= scale;
    m_sizes.rightColumnWidth *= scale;
    m_sizes.statusBarPadding *= scale;
    m_sizes.gutterPadding *= scale;
    m_sizes.fontSize = std::round(m_baseSizes.fontSize * scale);
    m_sizes.spinnerRadius *= scale;
}

void Theme::applyStyle() const {
    ImGuiStyle& s = ImGui::GetStyle();
    s = ImGuiStyle();
    s.WindowPadding = ImVec2(10, 8);
    s.FramePadding = ImVec2(8, 4);
    s.ItemSpacing = ImVec2(8, 6);
    s.ItemInnerSpacing = ImVec2(6, 4);
    s.IndentSpacing = 14;
    s.ScrollbarSize = 12;
    s.GrabMinSize = 10;
    s.WindowBorderSize = 1;
    s.ChildBorderSize = 1;
    s.PopupBorderSize = 1;
    s.FrameBorderSize = 0;
    s.TabBorderSize = 0;
    s.WindowRounding = 0;
    s.ChildRounding = 3;
    s.FrameRounding = 3;
    s.PopupRounding = 3;
    s.ScrollbarRounding = 6;
    s.GrabRounding = 3;
    s.TabRounding = 3;
    s.WindowTitleAlign = ImVec2(0.0f, 0.5f);
    s.WindowMenuButtonPosition = ImGuiDir_None;

    const Palette& p = m_palette;
    auto v = [](ImU32 c) { return toVec4(c); };
    ImVec4* c = s.Colors;
    for (const StyleColour& sc : kStyleColours) {
        ImVec4 colour = sc.colour ? v(p.*sc.colour) : ImVec4(0, 0, 0, 0);
        if (sc.colour && sc.alpha >= 0) colour.w = sc.alpha;
        c[sc.imgui] = colour;
    }
    c[ImGuiCol_TableRowBgAlt] = m_light ? ImVec4(0, 0, 0, 0.03f) : ImVec4(1, 1, 1, 0.025f);
    c[ImGuiCol_ModalWindowDimBg] = ImVec4(0, 0, 0, m_light ? 0.3f : 0.55f);
    if (m_light) {
        c[ImGuiCol_Button] = v(p.headerBg);
        c[ImGuiCol_ButtonHovered] = v(p.border);
        c[ImGuiCol_FrameBg] = v(p.codeBg);
        c[ImGuiCol_FrameBgHovered] = v(p.gutterBg);
        c[ImGuiCol_FrameBgActive] = v(p.gutterBg);
        c[ImGuiCol_FrameBg].w = 1.0f;
        s.FrameBorderSize = 1;  // white fields on a near-white panel need an outline
    }
    s.ScaleAllSizes(m_scale);
}

void Theme::loadFonts(const std::string& fontDir) {
    ImGuiIO& io = ImGui::GetIO();
    const std::filesystem::path dir(fontDir);
    const auto regular = dir / "JetBrainsMono-Regular.ttf";
    const auto bold = dir / "JetBrainsMono-Bold.ttf";

    io.Fonts->Clear();
    m_fonts = Fonts{};
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    std::error_code ec;
    if (std::filesystem::exists(regular, ec)) {
        m_fonts.regular = io.Fonts->AddFontFromFileTTF(regular.c_str(), m_sizes.fontSize, &cfg, kRanges);
    }
    if (m_fonts.regular == nullptr) {
        // ImGui's built-in ProggyClean: ugly but always there, so the app still starts.
        m_fonts.regular = io.Fonts->AddFontDefault();
        m_fonts.bold = m_fonts.regular;
        return;
    }
    if (std::filesystem::exists(bold, ec)) {
        m_fonts.bold = io.Fonts->AddFontFromFileTTF(bold.c_str(), m_sizes.fontSize, &cfg, kRanges);
    }
    if (m_fonts.bold == nullptr) m_fonts.bold = m_fonts.regular;
}

}  // namespace kx::app
