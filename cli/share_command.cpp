// kx share and kx open: a variant as a share string and back (templates/share_string.hpp).
#include "command_options.hpp"
#include "commands.hpp"

#include "templates/share_string.hpp"
#include "util/data_paths.hpp"
#include "util/error.hpp"
#include "util/output_file.hpp"

#include <CLI/CLI.hpp>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>

namespace kx::cli {
using namespace kx::engine;

namespace {

std::string joined(const std::vector<std::pair<std::string, std::string>>& items) {
    std::string text;
    for (const auto& [k, v] : items) text += (text.empty() ? "" : ",") + k + "=" + v;
    return text;
}

// The `kx VERB` command line that names the opened variant.
std::string commandLine(const char* verb, const OpenedShare& o, const std::string& tail) {
    std::string line = fmt::format("kx {} {} --arch {}", verb, o.tmpl->id(), o.arch->name);
    const std::vector<std::pair<std::string, std::string>> sets(o.config.values.begin(), o.config.values.end());
    if (!sets.empty()) line += " --set " + joined(sets);
    if (!o.config.flags.isDefault()) line += " --flag " + o.config.flags.canonical();
    return line + tail;
}

std::string sizesText(const SizeMap& sizes) {
    std::vector<std::pair<std::string, std::string>> items;
    for (const auto& [k, v] : sizes) items.emplace_back(k, std::to_string(v));
    return joined(items);
}

}  // namespace

int share(const Context& ctx, const ShareArgs& args) {
    const ResolvedVariant v = resolveVariant(ctx, args.variant);
    const SizeMap sizes = variantSizes(*v.tmpl, args.variant, args.sizes, v.arch->name);
    writeStandardOutput(encodeShareString(shareDataOf(ctx.templates, *v.tmpl, v.arch->name, v.config, sizes)) + "\n");
    return 0;
}

int openShareString(Context& ctx, const OpenArgs& args) {
    const ShareData data = decodeShareString(args.text);
    const OpenedShare o = openShare(data, ctx.templates, ctx.arches, userTemplatesRoot());
    const std::string name = o.tmpl->configName(o.config);
    const std::vector<Violation> violations = o.tmpl->validate(o.config, *o.arch);
    const bool runnable = !o.tmpl->manifest().args.empty();
    const std::string compileLine = commandLine("compile", o, " --emit resources");
    const std::string runLine = runnable ? commandLine("run", o, o.sizes.empty() ? "" : " --size " + sizesText(o.sizes)) : "";
    // With --emit, the description goes to stderr and stdout carries what was asked for.
    const bool emitting = !args.emit.empty();
    std::string text;
    if (args.json) {
        nlohmann::json doc = {{"variant", name},
                              {"template", o.tmpl->id()},
                              {"arch", o.arch->name},
                              {"config", o.config.values},
                              {"flags", o.config.flags.canonical()},
                              {"sizes", o.sizes},
                              {"user_template", o.carriedTemplate},
                              {"installed", o.installed},
                              {"folder", o.folder.string()},
                              {"violations", nlohmann::json::array()},
                              {"compile", compileLine},
                              {"run", runLine}};
        for (const Violation& x : violations) doc["violations"].push_back(x.message);
        text = doc.dump(2) + "\n";
    } else {
        text = fmt::format("{} for {}\n", name, o.arch->name);
        text += fmt::format("  template  {}{}\n", o.tmpl->id(),
                            !o.carriedTemplate ? ""
                            : o.installed      ? " (user template, installed in " + o.folder.string() + ")"
                                               : " (user template, the same one as in " + o.folder.string() + ")");
        text += fmt::format("  config    {}\n", joined({o.config.values.begin(), o.config.values.end()}));
        text += fmt::format("  flags     {}\n", o.config.flags.isDefault() ? "defaults" : o.config.flags.canonical());
        text += fmt::format("  sizes     {}\n", sizesText(o.sizes));
        for (const Violation& x : violations) text += fmt::format("  not valid {}\n", x.message);
        text += fmt::format("  compile   {}\n", compileLine);
        text += runnable ? fmt::format("  run       {}\n", runLine)
                         : "  run       the manifest describes no kernel arguments (<args>): add them to run it\n";
    }
    if (!emitting) {
        writeStandardOutput(text);
        return 0;
    }
    std::fputs(text.c_str(), stderr);
    VariantArgs variant{o.tmpl->id(), o.arch->name, {}, "", {}};
    for (const auto& [k, value] : o.config.values) variant.sets.push_back(k + "=" + value);
    if (!o.config.flags.isDefault()) variant.flags.push_back(o.config.flags.canonical());
    if (args.emit == "source") return generate(ctx, {variant, "", args.outputFile, ""});
    CompileArgs compileArgs;
    compileArgs.variant = variant;
    compileArgs.emit = args.emit;
    compileArgs.outputFile = args.outputFile;
    compileArgs.json = args.json;
    return compile(ctx, compileArgs);
}

// [SECTION] Command line

void addShareCommands(CLI::App& app, CommandTable& table) {
    auto [shareCmd, shareArgs] =
        table.addCommand<ShareArgs>(app, "share", "Print a variant's share string (a user template's files go with it); kx open reads it", share);
    addVariantAndFlagOptions(shareCmd, *shareArgs);

    auto [openCmd, openArgs] = table.addCommand<OpenArgs>(
        app, "open", "Open a share string: write the user template it carries, print the variant and the commands that reproduce it", openShareString);
    openCmd->add_option("string", openArgs->text, "The share string (kx1:...)")->required();
    openCmd->add_option("--emit", openArgs->emit, "Also generate or compile it: source, ptx, cubin, sass, map or resources")
        ->check(CLI::IsMember({"source", "ptx", "cubin", "sass", "map", "resources"}));
    openCmd->add_option("-o,--output", openArgs->outputFile, "Output file of --emit (default stdout)");
    openCmd->add_flag("--json", openArgs->json, "JSON output");
}

}  // namespace kx::cli
