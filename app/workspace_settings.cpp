#include "workspace_settings.hpp"

#include "util/data_paths.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace kx::app {

namespace {

// No column narrower than a tenth of the window nor wider than 45%: the others keep room.
constexpr float kMinColumn = 0.08f, kMaxColumn = 0.45f;
constexpr float kMinShare = 0.1f, kMaxShare = 0.9f;

float clampShare(float v, float lo, float hi) { return v < 0 ? -1.0f : std::clamp(v, lo, hi); }

}  // namespace

std::filesystem::path userWorkspaceFile() { return engine::configRoot() / "workspace.json"; }

std::string WorkspaceSettings::toJson() const {
    nlohmann::json j = {{"version", 1},
                        {"left_width", leftWidth},
                        {"right_width", rightWidth},
                        {"centre_top", centreTop},
                        {"below_splits", belowSplits},
                        {"kernel_height", kernelHeight},
                        {"variants_height", variantsHeight},
                        {"run_top", runTop},
                        {"maximised", maximised},
                        {"theme", theme == ThemeKind::Light ? "light" : "dark"},
                        {"zoom", zoom}};
    return j.dump(2) + "\n";
}

void WorkspaceSettings::merge(const std::string& text, const std::string& fileName) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        // The parser counts bytes; say the line, as every data file error does.
        const std::size_t at = std::min<std::size_t>(e.byte, text.size());
        const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
        throw engine::InputError(fmt::format("{}:{}: not JSON: {}", fileName, line, e.what()));
    }
    if (!j.is_object()) throw engine::InputError(fileName + ": a workspace is a JSON object");
    auto number = [&](const char* key, float& out) {
        if (!j.contains(key)) return;
        if (!j[key].is_number()) throw engine::InputError(fmt::format("{}: '{}' must be a number", fileName, key));
        out = j[key].get<float>();
    };
    number("left_width", leftWidth);
    number("right_width", rightWidth);
    number("centre_top", centreTop);
    number("kernel_height", kernelHeight);
    number("variants_height", variantsHeight);
    number("run_top", runTop);
    number("zoom", zoom);
    if (j.contains("below_splits")) {
        if (!j["below_splits"].is_array()) throw engine::InputError(fileName + ": 'below_splits' must be an array of numbers");
        belowSplits.clear();
        for (const auto& v : j["below_splits"]) {
            if (!v.is_number()) throw engine::InputError(fileName + ": 'below_splits' must be an array of numbers");
            belowSplits.push_back(v.get<float>());
        }
    }
    if (j.contains("maximised")) {
        if (!j["maximised"].is_string()) throw engine::InputError(fileName + ": 'maximised' must be a panel title or \"\"");
        maximised = j["maximised"].get<std::string>();
    }
    if (j.contains("theme")) {
        const std::string t = j["theme"].is_string() ? j["theme"].get<std::string>() : "";
        if (t != "dark" && t != "light") throw engine::InputError(fileName + ": 'theme' must be \"dark\" or \"light\"");
        theme = t == "light" ? ThemeKind::Light : ThemeKind::Dark;
    }
    clamp();
}

void WorkspaceSettings::clamp() {
    leftWidth = std::clamp(leftWidth, kMinColumn, kMaxColumn);
    rightWidth = std::clamp(rightWidth, kMinColumn, kMaxColumn);
    centreTop = std::clamp(centreTop, kMinShare, kMaxShare);
    kernelHeight = clampShare(kernelHeight, 0.05f, 0.6f);
    variantsHeight = clampShare(variantsHeight, 0.05f, 0.7f);
    runTop = clampShare(runTop, 0.05f, 0.85f);
    float previous = 0;
    for (float& s : belowSplits) {
        s = std::clamp(s, previous + 0.05f, 0.95f);
        previous = s;
    }
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
}

void WorkspaceSettings::resetLayout(const WorkspaceSettings& defaults) {
    const ThemeKind keepTheme = theme;
    const float keepZoom = zoom;
    *this = defaults;
    theme = keepTheme;
    zoom = keepZoom;
}

WorkspaceSettings WorkspaceSettings::load(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw engine::InputError(file.string() + ": cannot read");
    std::stringstream text;
    text << in.rdbuf();
    WorkspaceSettings s;
    s.merge(text.str(), file.string());
    return s;
}

WorkspaceSettings WorkspaceSettings::loadOrDefault(const std::filesystem::path& defaults, const std::filesystem::path& user,
                                                   std::string& warning) {
    WorkspaceSettings s;
    std::error_code ec;
    for (const auto& file : {defaults, user}) {
        if (file.empty() || !std::filesystem::exists(file, ec)) continue;
        try {
            WorkspaceSettings next = s;
            std::ifstream in(file);
            std::stringstream text;
            text << in.rdbuf();
            next.merge(text.str(), file.string());
            s = std::move(next);
        } catch (const engine::InputError& e) {
            warning = std::string(e.what()) + " (ignored)";
        }
    }
    return s;
}

bool WorkspaceSettings::save(const std::filesystem::path& file, std::string& error) const {
    std::error_code ec;
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
    // Write beside, then rename: a crash mid-write leaves the previous layout, not half a file.
    const std::filesystem::path tmp = file.string() + ".tmp";
    {
        std::ofstream out(tmp);
        out << toJson();
        if (!out) {
            error = "cannot write " + tmp.string();
            return false;
        }
    }
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
        error = "cannot write " + file.string() + ": " + ec.message();
        return false;
    }
    return true;
}

}  // namespace kx::app
