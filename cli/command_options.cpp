#include "command_options.hpp"

#include <CLI/CLI.hpp>

namespace kx::cli {

void CommandTable::add(CLI::App* command, CommandAction action) { m_actions.emplace_back(command, std::move(action)); }

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

}  // namespace kx::cli
