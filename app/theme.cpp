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

}  // namespace

Theme Theme::darkProfessional() {
    Theme t;
    Palette& p = t.m_palette;
    p.windowBg = rgb(0x1E1F22);
    p.panelBg = rgb(0x2B2D30);
    p.codeBg = rgb(0x1E1F22);
    p.gutterBg = rgb(0x232427);
    p.border = rgb(0x393B40);
    p.headerBg = rgb(0x34363B);
    p.text = rgb(0xDFE1E5);
    // Text that carries a value keeps 4.5:1 (WCAG AA) on the panel and code backgrounds, dim and
    // faint text included: "faint" ranks a figure, it does not hide it.
    p.textDim = rgb(0xA9ACB3);
    p.textFaint = rgb(0x9497A0);
    p.accent = rgb(0x3574F0);
    p.accentHover = rgb(0x4A85F5);
    p.accentActive = rgb(0x2E5FC2);
    p.ok = rgb(0x5FB865);
    p.warn = rgb(0xE5B45A);
    p.error = rgb(0xFF6B78);
    p.errorLineBg = rgb(0xF75464, 0x38);
    p.warnLineBg = rgb(0xE5B45A, 0x30);
    p.searchHitBg = rgb(0x3574F0, 0x60);
    p.currentLineBg = rgb(0xFFFFFF, 0x0C);
    p.diffRemovedBg = rgb(0xF75464, 0x2C);
    p.diffAddedBg = rgb(0x5FB865, 0x2C);
    p.diffFoldBg = rgb(0x3574F0, 0x18);
    p.bestCellBg = rgb(0x5FB865, 0x30);

    auto set = [&](SyntaxClass c, ImU32 v) { p.syntax[static_cast<int>(c)] = v; };
    set(SyntaxClass::Plain, rgb(0xBCBEC4));
    set(SyntaxClass::Keyword, rgb(0xCF8E6D));
    set(SyntaxClass::Type, rgb(0x4EC9B0));
    set(SyntaxClass::Qualifier, rgb(0xC77DBB));
    set(SyntaxClass::Builtin, rgb(0x56A8F5));
    set(SyntaxClass::Number, rgb(0x2AACB8));
    set(SyntaxClass::String, rgb(0x6AAB73));
    set(SyntaxClass::Comment, rgb(0x8A8E95));
    set(SyntaxClass::Preprocessor, rgb(0xB3AE60));
    set(SyntaxClass::Directive, rgb(0xCF8E6D));
    set(SyntaxClass::Register, rgb(0xC77DBB));
    set(SyntaxClass::Label, rgb(0xB3AE60));
    set(SyntaxClass::Punctuation, rgb(0x9DA0A8));
    return t;
}

Theme Theme::light() {
    Theme t;
    t.m_light = true;
    Palette& p = t.m_palette;
    p.windowBg = rgb(0xE4E6EB);
    p.panelBg = rgb(0xF7F8FA);
    p.codeBg = rgb(0xFFFFFF);
    p.gutterBg = rgb(0xF0F1F4);
    p.border = rgb(0xC9CCD3);
    p.headerBg = rgb(0xE6E8EC);
    p.text = rgb(0x1F2023);
    p.textDim = rgb(0x50535A);
    p.textFaint = rgb(0x62656D);
    p.accent = rgb(0x2A5FCF);
    p.accentHover = rgb(0x3B72E0);
    p.accentActive = rgb(0x2150B0);
    p.ok = rgb(0x2B7A30);
    p.warn = rgb(0x8A5A00);
    p.error = rgb(0xC62A3A);
    p.errorLineBg = rgb(0xC62A3A, 0x26);
    p.warnLineBg = rgb(0xD4A020, 0x30);
    p.searchHitBg = rgb(0x2A5FCF, 0x40);
    p.currentLineBg = rgb(0x000000, 0x0A);
    p.diffRemovedBg = rgb(0xC62A3A, 0x22);
    p.diffAddedBg = rgb(0x2B7A30, 0x22);
    p.diffFoldBg = rgb(0x2A5FCF, 0x14);
    p.bestCellBg = rgb(0x2B7A30, 0x26);

    auto set = [&](SyntaxClass c, ImU32 v) { p.syntax[static_cast<int>(c)] = v; };
    set(SyntaxClass::Plain, rgb(0x1F2023));
    set(SyntaxClass::Keyword, rgb(0x0033B3));
    set(SyntaxClass::Type, rgb(0x00737A));
    set(SyntaxClass::Qualifier, rgb(0x871094));
    set(SyntaxClass::Builtin, rgb(0x1750EB));
    set(SyntaxClass::Number, rgb(0x1750EB));
    set(SyntaxClass::String, rgb(0x067D17));
    set(SyntaxClass::Comment, rgb(0x646870));
    set(SyntaxClass::Preprocessor, rgb(0x7A6500));
    set(SyntaxClass::Directive, rgb(0x0033B3));
    set(SyntaxClass::Register, rgb(0x871094));
    set(SyntaxClass::Label, rgb(0x7A6500));
    set(SyntaxClass::Punctuation, rgb(0x4A4D55));
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
    auto alpha = [](ImU32 c, float a) {
        ImVec4 x = toVec4(c);
        x.w = a;
        return x;
    };
    ImVec4* c = s.Colors;
    c[ImGuiCol_Text] = v(p.text);
    c[ImGuiCol_TextDisabled] = v(p.textFaint);
    c[ImGuiCol_WindowBg] = v(p.panelBg);
    c[ImGuiCol_ChildBg] = v(p.panelBg);
    c[ImGuiCol_PopupBg] = v(p.panelBg);
    c[ImGuiCol_Border] = v(p.border);
    c[ImGuiCol_BorderShadow] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_FrameBg] = v(p.windowBg);
    c[ImGuiCol_FrameBgHovered] = v(p.headerBg);
    c[ImGuiCol_FrameBgActive] = v(p.headerBg);
    c[ImGuiCol_TitleBg] = v(p.windowBg);
    c[ImGuiCol_TitleBgActive] = v(p.windowBg);
    c[ImGuiCol_TitleBgCollapsed] = v(p.windowBg);
    c[ImGuiCol_MenuBarBg] = v(p.windowBg);
    c[ImGuiCol_ScrollbarBg] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_ScrollbarGrab] = v(p.border);
    c[ImGuiCol_ScrollbarGrabHovered] = v(p.textFaint);
    c[ImGuiCol_ScrollbarGrabActive] = v(p.textDim);
    c[ImGuiCol_CheckMark] = v(p.accentHover);
    c[ImGuiCol_SliderGrab] = v(p.accent);
    c[ImGuiCol_SliderGrabActive] = v(p.accentHover);
    c[ImGuiCol_Button] = v(p.headerBg);
    c[ImGuiCol_ButtonHovered] = v(p.border);
    c[ImGuiCol_ButtonActive] = v(p.accentActive);
    c[ImGuiCol_Header] = alpha(p.accent, 0.30f);
    c[ImGuiCol_HeaderHovered] = alpha(p.accent, 0.45f);
    c[ImGuiCol_HeaderActive] = alpha(p.accent, 0.60f);
    c[ImGuiCol_Separator] = v(p.border);
    c[ImGuiCol_SeparatorHovered] = v(p.accent);
    c[ImGuiCol_SeparatorActive] = v(p.accent);
    c[ImGuiCol_ResizeGrip] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_ResizeGripHovered] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_ResizeGripActive] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_Tab] = v(p.panelBg);
    c[ImGuiCol_TabHovered] = v(p.headerBg);
    c[ImGuiCol_TabActive] = v(p.headerBg);
    c[ImGuiCol_TabUnfocused] = v(p.panelBg);
    c[ImGuiCol_TabUnfocusedActive] = v(p.headerBg);
    c[ImGuiCol_PlotHistogram] = v(p.accent);
    c[ImGuiCol_PlotHistogramHovered] = v(p.accentHover);
    c[ImGuiCol_TableHeaderBg] = v(p.headerBg);
    c[ImGuiCol_TableBorderStrong] = v(p.border);
    c[ImGuiCol_TableBorderLight] = alpha(p.border, 0.6f);
    c[ImGuiCol_TableRowBg] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_TableRowBgAlt] = m_light ? ImVec4(0, 0, 0, 0.03f) : ImVec4(1, 1, 1, 0.025f);
    c[ImGuiCol_TextSelectedBg] = alpha(p.accent, 0.45f);
    c[ImGuiCol_NavHighlight] = v(p.accent);
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
