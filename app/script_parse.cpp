// Reading a script (script.hpp): each line's words checked by its command's parser, found in one
// table by the command's name. The workspace, code and user-kernel commands have their parsers
// beside their steps (script_workspace.cpp, script_code.cpp, script_user.cpp).
#include "script.hpp"
#include "compare_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace kx::app {

namespace {

using Kind = ScriptCommand::Kind;
using Words = std::vector<std::string>;

Words words(const std::string& line) {
    std::istringstream in(line);
    Words out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

std::size_t argCount(const Words& w) { return w.size() - 1; }

// The words from w[first] on, one space between each.
std::string joined(const Words& w, std::size_t first) {
    std::string text;
    for (std::size_t i = first; i < w.size(); ++i) text += (i > first ? " " : "") + w[i];
    return text;
}

// [SECTION] Parsers: each fills c from the words (w[0] is the command) or throws
// std::invalid_argument with the reason; c.kind is already the table's.

void parseNoArgument(const Words& w, ScriptCommand&) {
    if (argCount(w) != 0) throw std::invalid_argument(fmt::format("'{}' takes no argument", w[0]));
}

void parseOneArgument(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 1) throw std::invalid_argument(fmt::format("'{}' takes one argument, got {}", w[0], argCount(w)));
    c.argument = w[1];
}

// "view instruction mix": titles may hold spaces.
void parseView(const Words& w, ScriptCommand& c) {
    if (argCount(w) > 1) c.argument = joined(w, 1);
    else parseOneArgument(w, c);
}

void parseTab(const Words& w, ScriptCommand& c) {
    parseOneArgument(w, c);
    if (c.argument == "occupancy" || c.argument == "roofline") {
        c.kind = Kind::View;  // analysis panels are views of their own
    } else if (c.argument != "source" && c.argument != "ptx" && c.argument != "sass" && c.argument != "log") {
        throw std::invalid_argument(fmt::format("unknown tab '{}' (source, ptx, sass, log, occupancy or roofline)", c.argument));
    }
}

void parseExportRoofline(const Words& w, ScriptCommand& c) {
    parseOneArgument(w, c);
    const std::string ext = std::filesystem::path(c.argument).extension().string();
    if (ext != ".png" && ext != ".csv")
        throw std::invalid_argument(fmt::format("'export-roofline' writes FILE.png or FILE.csv, got '{}'", c.argument));
}

// set, expect, size: KEY=VALUE...
// KEY=VALUE words, each of which may hold several pairs separated by commas, as kx's --set and
// --size and the tutorials' values take them.
void parseKeyValues(const Words& w, ScriptCommand& c) {
    if (argCount(w) == 0) throw std::invalid_argument(fmt::format("'{}' needs KEY=VALUE", w[0]));
    for (std::size_t i = 1; i < w.size(); ++i) {
        std::istringstream pairs(w[i]);
        for (std::string pair; std::getline(pairs, pair, ',');) {
            const auto eq = pair.find('=');
            if (eq == std::string::npos || eq == 0 || eq + 1 == pair.size())
                throw std::invalid_argument(fmt::format("expected KEY=VALUE, got '{}'", pair));
            c.values.emplace_back(pair.substr(0, eq), pair.substr(eq + 1));
        }
    }
}

// Without FILE: the default session, as at start-up.
void parseSession(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 0) parseOneArgument(w, c);
}

void parseFault(const Words& w, ScriptCommand& c) {
    parseOneArgument(w, c);
    if (c.argument != "out_of_bounds" && c.argument != "trap" && c.argument != "hang")
        throw std::invalid_argument(fmt::format("unknown fault '{}' (out_of_bounds, trap or hang)", c.argument));
}

void parseFileDialog(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 1 || (w[1] != "new" && w[1] != "open" && w[1] != "save-as"))
        throw std::invalid_argument("'file-dialog' takes new, open or save-as");
    c.argument = w[1];
}

void parseRename(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 2) throw std::invalid_argument("'rename' takes VARIANT NEW_NAME");
    c.argument = w[1];
    c.second = w[2];
}

void parseNotes(const Words& w, ScriptCommand& c) {
    if (argCount(w) < 2) throw std::invalid_argument("'notes' takes VARIANT TEXT...");
    c.argument = w[1];
    c.second = joined(w, 2);
}

void parseCompareSelect(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 2) throw std::invalid_argument(fmt::format("'compare-select' takes two pins (A B), got {}", argCount(w)));
    c.argument = w[1];
    c.second = w[2];
}

void parseCompareTable(const Words& w, ScriptCommand& c) {
    if (argCount(w) < 2 || argCount(w) > static_cast<int>(CompareModel::kMaxSelected))
        throw std::invalid_argument(fmt::format("'compare-table' takes 2 to {} variants, got {}", CompareModel::kMaxSelected, argCount(w)));
    for (std::size_t i = 1; i < w.size(); ++i) c.values.emplace_back(w[i], "");
}

void parseCompareTab(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 1) throw std::invalid_argument("'compare-tab' takes one of source, ptx, sass");
    c.argument = w[1];
    if (c.argument != "source" && c.argument != "ptx" && c.argument != "sass")
        throw std::invalid_argument(fmt::format("unknown compare tab '{}' (source, ptx or sass)", c.argument));
}

void parseExportCompare(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 1) throw std::invalid_argument("'export-compare' takes one FILE.csv or FILE.md");
    c.argument = w[1];
    const std::string ext = std::filesystem::path(c.argument).extension().string();
    if (ext != ".csv" && ext != ".md") throw std::invalid_argument(fmt::format("'export-compare' writes FILE.csv or FILE.md, got '{}'", c.argument));
}

void parseFrames(const Words& w, ScriptCommand& c) {
    if (argCount(w) != 1) throw std::invalid_argument("'frames' takes one number");
    try {
        std::size_t used = 0;
        c.count = std::stoi(w[1], &used);
        if (used != w[1].size() || c.count < 0) throw std::invalid_argument("negative");
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("'frames' needs a non-negative number, got '{}'", w[1]));
    }
}

void parseTutorial(const Words& w, ScriptCommand& c) {
    const std::size_t nargs = argCount(w);
    const std::string sub = nargs >= 1 ? w[1] : "";
    const bool oneArg = sub == "open" || sub == "action" || sub == "welcome";
    const bool noArg = sub == "next" || sub == "back" || sub == "check" || sub == "images";
    if (!(oneArg && nargs == 2) && !(noArg && nargs == 1))
        throw std::invalid_argument("'tutorial' takes open ID, next, back, action N, check, images or welcome start|dismiss");
    c.argument = sub;
    if (oneArg) c.second = w[2];
    if (sub == "welcome" && c.second != "start" && c.second != "dismiss") throw std::invalid_argument("'tutorial welcome' takes start or dismiss");
    if (sub != "action") return;
    try {
        std::size_t used = 0;
        c.count = std::stoi(c.second, &used);
        if (used != c.second.size() || c.count < 1) throw std::invalid_argument("not positive");
    } catch (const std::exception&) {
        throw std::invalid_argument(fmt::format("'tutorial action' needs a positive number, got '{}'", c.second));
    }
}

void parseSweep(const Words& w, ScriptCommand& c) {
    const std::size_t nargs = argCount(w);
    const std::string sub = nargs >= 1 ? w[1] : "";
    const bool noArg = sub == "stop" || sub == "wait";
    const bool oneArg = sub == "vary" || sub == "metric" || sub == "load" || sub == "export" || sub == "frame-p99" || sub == "preselected";
    if (!(noArg && nargs == 1) && !(oneArg && nargs == 2) && !(sub == "axes" && nargs == 3) && !(sub == "sample" && (nargs == 2 || nargs == 3)) &&
        !(sub == "start" && (nargs == 1 || (nargs == 2 && w[2] == "compile-only"))))
        throw std::invalid_argument("'sweep' takes vary P[=VALUES], preselected NAME|none, sample N [SEED], start [compile-only], stop, wait, "
                                    "axes X Y, metric NAME, load best, export FILE.csv|FILE.png or frame-p99 MS");
    c.argument = sub;
    c.second = joined(w, 2);
    if (sub == "sample") {
        for (std::size_t i = 2; i < w.size(); ++i) {
            std::size_t used = 0;
            long long n = -1;
            try {
                n = std::stoll(w[i], &used);
            } catch (const std::exception&) {
            }
            if (n < 0 || used != w[i].size())
                throw std::invalid_argument(fmt::format("'sweep sample' takes a count (0: every config) and a seed, got '{}'", w[i]));
        }
    }
}

void parseTiles(const Words& w, ScriptCommand& c) {
    const std::size_t nargs = argCount(w);
    const std::string sub = nargs >= 1 ? w[1] : "";
    const bool noArg = sub == "open" || sub == "print";
    const bool oneArg = sub == "step" || sub == "warp" || sub == "device" || sub == "export";
    if (!(noArg && nargs == 1) && !(oneArg && nargs == 2) && !(sub == "select" && nargs == 3))
        throw std::invalid_argument("'tiles' takes open, step N, select I J, warp N, device ID, print or export FILE.png");
    c.argument = sub;
    for (std::size_t i = 2; i < w.size(); ++i) c.values.emplace_back(w[i], "");
    if (sub == "export" && std::filesystem::path(w[2]).extension() != ".png")
        throw std::invalid_argument(fmt::format("'tiles export' writes FILE.png, got '{}'", w[2]));
    for (const auto& [v, unused] : c.values) {
        const bool number = !v.empty() && v.size() <= 9 && std::all_of(v.begin(), v.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
        if ((sub == "step" || sub == "warp" || sub == "select") && !number)
            throw std::invalid_argument(fmt::format("'tiles {}' needs whole numbers, got '{}'", sub, v));
    }
}

// [SECTION] The table

using Parser = void (*)(const Words& w, ScriptCommand& c);

struct CommandSyntax {
    Kind kind;
    Parser parse;
};

const std::map<std::string, CommandSyntax> kCommands = {
    {"template", {Kind::Template, parseOneArgument}},
    {"arch", {Kind::Arch, parseOneArgument}},
    {"set", {Kind::Set, parseKeyValues}},
    {"preset", {Kind::Preset, parseOneArgument}},
    {"expect", {Kind::Expect, parseKeyValues}},
    {"tab", {Kind::Tab, parseTab}},
    {"view", {Kind::View, parseView}},
    {"close", {Kind::CloseView, parseView}},
    {"export-roofline", {Kind::ExportRoofline, parseExportRoofline}},
    {"higher-roof", {Kind::HigherRoof, parseOneArgument}},
    {"wait-compile", {Kind::WaitCompile, parseNoArgument}},
    {"frames", {Kind::Frames, parseFrames}},
    {"screenshot", {Kind::Screenshot, parseOneArgument}},
    {"front", {Kind::Front, parseNoArgument}},
    {"size", {Kind::Size, parseKeyValues}},
    {"run-options", {Kind::RunOptions, parseKeyValues}},
    {"print-launch", {Kind::PrintLaunch, parseNoArgument}},
    {"print-waves", {Kind::PrintWaves, parseNoArgument}},
    {"session", {Kind::Session, parseSession}},
    {"demo", {Kind::Demo, parseNoArgument}},
    {"file-dialog", {Kind::FileDialog, parseFileDialog}},
    {"save-as", {Kind::SaveAs, parseOneArgument}},
    {"keep", {Kind::Keep, parseNoArgument}},
    {"pin", {Kind::Keep, parseNoArgument}},
    {"rename", {Kind::Rename, parseRename}},
    {"notes", {Kind::Notes, parseNotes}},
    {"load-variant", {Kind::LoadVariant, parseOneArgument}},
    {"wait-session", {Kind::WaitSession, parseNoArgument}},
    {"run", {Kind::Run, parseNoArgument}},
    {"fault", {Kind::Fault, parseFault}},
    {"wait-run", {Kind::WaitRun, parseNoArgument}},
    {"crash", {Kind::Crash, parseNoArgument}},
    {"gl-reset", {Kind::GlReset, parseNoArgument}},
    {"compare-select", {Kind::CompareSelect, parseCompareSelect}},
    {"compare-table", {Kind::CompareTable, parseCompareTable}},
    {"compare-tab", {Kind::CompareTab, parseCompareTab}},
    {"export-compare", {Kind::ExportCompare, parseExportCompare}},
    {"tutorial", {Kind::Tutorial, parseTutorial}},
    {"sweep", {Kind::Sweep, parseSweep}},
    {"tiles", {Kind::Tiles, parseTiles}},
    {"code", {Kind::Code, parseCodeCommand}},
};

// The parser of w[0], or nullptr for an unknown command; sets c.kind to the table's.
Parser parserOf(const Words& w, ScriptCommand& c) {
    if (const auto it = kCommands.find(w[0]); it != kCommands.end()) {
        c.kind = it->second.kind;
        return it->second.parse;
    }
    if (isUserCommand(w[0])) return parseUserCommand;
    if (isWorkspaceCommand(w[0])) return parseWorkspaceCommand;
    return nullptr;
}

}  // namespace

Script parseScriptText(const std::string& text, const std::string& fileName) {
    Script script;
    script.file = fileName;
    std::istringstream in(text);
    std::string raw;
    int lineNo = 0;
    while (std::getline(in, raw)) {
        ++lineNo;
        if (const auto hash = raw.find('#'); hash != std::string::npos) raw.erase(hash);
        const Words w = words(raw);
        if (w.empty()) continue;
        auto error = [&](const std::string& reason) { return ScriptError(fmt::format("{}:{}: {}", fileName, lineNo, reason)); };
        ScriptCommand c;
        c.line = lineNo;
        const Parser parse = parserOf(w, c);
        if (!parse)
            throw error(fmt::format("unknown command '{}' (template, arch, set, tab, view, close, wait-compile, frames, screenshot, export-roofline, "
                                    "expect, session, demo, file-dialog, save-as, keep, rename, notes, load-variant, wait-session, run, run-options, fault, wait-run, crash, gl-reset, "
                                    "compare-select, compare-table, compare-tab, export-compare, tutorial, sweep, tiles, frame-stats, wheel, key, layout, maximise, theme, zoom, "
                                    "print-layout, idle-cpu, theme-check, quit, code, kernel, flag, share)",
                                    w[0]));
        try {
            parse(w, c);
        } catch (const std::invalid_argument& e) {
            throw error(e.what());
        }
        script.commands.push_back(std::move(c));
    }
    return script;
}

Script parseScript(const std::filesystem::path& file) {
    std::ifstream in(file);
    if (!in) throw ScriptError(fmt::format("{}: cannot read the script", file.string()));
    std::stringstream buffer;
    buffer << in.rdbuf();
    return parseScriptText(buffer.str(), file.string());
}

}  // namespace kx::app
