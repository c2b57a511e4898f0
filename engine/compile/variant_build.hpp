// The path from (template, arch, config) to a compile request: validate, name, render.
#pragma once

#include "arch/arch.hpp"
#include "compile/compiler.hpp"
#include "templates/template.hpp"

#include <string>
#include <vector>

namespace kx::engine {

struct PreparedVariant {
    std::string name;                  // procedural config name
    std::vector<Violation> violations; // empty when valid
    std::string source;                // rendered source (rendered even when invalid, for reading)
    CompileRequest request;            // ready for Compiler::compile when valid and compilable
};

// Throws InputError on a config that does not belong to the template or a broken placeholder.
PreparedVariant prepareVariant(const Template& tmpl, const Config& config, const Arch& arch);

}  // namespace kx::engine
