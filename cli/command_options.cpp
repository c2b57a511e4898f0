#include "command_options.hpp"

#include <CLI/CLI.hpp>

namespace kx::cli {

void CommandTable::add(CLI::App* command, CommandAction action) { m_actions.emplace_back(command, std::move(action)); }

CLI::App* CommandTable::addSubcommand(CLI::App& parent, const std::string& name, const std::string& help, CommandAction action) {
    CLI::App* command = parent.add_subcommand(name, help);
    add(command, std::move(action));
    return command;
}

const CommandAction* CommandTable::chosen() const {
    for (const auto& [command, action] : m_actions)
        if (command->parsed()) return &action;
    return nullptr;
}

void addVariantOptions(CLI::App* cmd, VariantArgs& v) {
    cmd->add_option("template", v.templateId, "Template id (see 'kx templates')")->required();
    cmd->add_option("--arch", v.arch, "Target architecture, e.g. sm_90 (see 'kx arches')")->required();
    cmd->add_option("--set", v.sets, "Parameter value KEY=VALUE (repeatable, or comma-separated)");
    cmd->add_option("--preset", v.preset, "Start from a tuned preset: a set of templates/<id>/preselected.xml with one config for the arch");
}

void addFlagOption(CLI::App* cmd, VariantArgs& v) {
    cmd->add_option("--flag", v.flags,
                    "Compiler flag: maxrregcount=N (0 or 16..255), fast_math, ptxas_opt=0..3, extra_vectorization "
                    "(KEY or KEY=VALUE; repeatable, or comma-separated)");
}

void addSizeOption(CLI::App* cmd, std::vector<std::string>& sizes) {
    cmd->add_option("--size", sizes, "Problem size KEY=VALUE (repeatable, or comma-separated)");
}

void addVariantAndFlagOptions(CLI::App* command, VariantArgs& variant) {
    addVariantOptions(command, variant);
    addFlagOption(command, variant);
}

void addVariantAndFlagOptions(CLI::App* command, VariantArgs& variant, std::vector<std::string>& sizes) {
    addVariantAndFlagOptions(command, variant);
    addSizeOption(command, sizes);
}

void TemplateDirsOption::addTo(CLI::App& app) { addToTree(app, true); }

void TemplateDirsOption::addToTree(CLI::App& app, bool global) {
    // Each (sub)command keeps its own list, so that dirs() can give them in command-line order.
    std::vector<std::string>& given = m_given.emplace_back();
    app.add_option("--templates", given,
                   global ? "More templates: a template's folder, or a folder of them (repeatable). The user's own "
                            "($XDG_DATA_HOME/kernel-explorer/templates) are always loaded"
                          : "More templates: a template's folder, or a folder of them (repeatable; as kx --templates DIR before the command)");
    for (CLI::App* sub : app.get_subcommands({})) addToTree(*sub, false);
}

std::vector<std::string> TemplateDirsOption::dirs() const {
    std::vector<std::string> all;
    for (const std::vector<std::string>& given : m_given) all.insert(all.end(), given.begin(), given.end());
    return all;
}

}  // namespace kx::cli
