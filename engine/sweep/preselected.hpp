// Preselected sets: named lists of configs worth sweeping on given arches, kept in a template's
// folder as preselected.xml (CK's preselected instances). The format is in templates/README.md:
//
//   <preselected template="gemm_mma">
//     <set name="tensor_core_tiles" arches="sm_80,sm_90" help="..." size="M=4096,N=4096,K=4096">
//       <config BM="128" BN="256" WM="64" WN="64" STAGES="3"/>
//       <config BM="128" BN="128" flags="maxrregcount=128,fast_math"/>
//     </set>
//   </preselected>
//
// A <config> gives some parameters, and may name compiler flags (flags="...", as --flag takes
// them); the others come from the sweep's base config. A <set> may name the problem it was tuned
// and measured at (size="...", as --size takes it): commands that start from the set run there
// unless told other sizes.
#pragma once

#include "templates/template.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kx::engine {

struct PreselectedConfig {
    std::map<std::string, std::string> values;  // canonical text, checked against the manifest
    std::string flags;                          // "maxrregcount=64,fast_math" (checked); "" for none
    int line = 0;
};

struct PreselectedSet {
    std::string name;
    std::string help;
    std::vector<std::string> arches;  // "sm_90"; "any" matches every arch
    std::vector<PreselectedConfig> configs;
    // The problem the set was tuned for, in the order size="M=16,N=8192" gives it (checked
    // against the manifest's sizes); empty when the set names none.
    std::vector<std::pair<std::string, std::string>> sizes;
    std::string file;
    int line = 0;

    // True when the set names the arch, the arch without its "a"/"f" suffix (sm_90a -> sm_90),
    // or "any".
    bool coversArch(const std::string& arch) const;
};

// The sets of <template folder>/preselected.xml; none when the file is absent. Throws
// InputError "file:line: reason" on malformed XML, a set without a name or configs, a name used
// twice for the same arch, a size the template does not have or a malformed one, an unknown parameter, a value the manifest does not allow, or a
// compiler flag that is unknown or out of range.
std::vector<PreselectedSet> loadPreselected(const Template& tmpl);
// The same for a file given by path (tests; the template only checks the values).
std::vector<PreselectedSet> loadPreselected(const Template& tmpl, const std::filesystem::path& file);

// The set named `name` that covers `arch`. Throws InputError listing the template's sets for
// the arch (or saying there are none) when there is no such set.
const PreselectedSet& findPreselected(const std::vector<PreselectedSet>& sets, const Template& tmpl, const std::string& name,
                                      const std::string& arch);

// The problem sizes a command starting from `set` runs at: the template's defaults, the set's
// sizes over them, then `overrides` (--size, the Run panel) over those. Throws InputError on an
// override the template does not take.
SizeMap preselectedSizes(const Template& tmpl, const PreselectedSet* set, const std::map<std::string, std::string>& overrides);
// The set's sizes as "M=16, N=8192, K=8192" (what a tooltip or a listing shows); empty for none.
std::string preselectedSizesText(const PreselectedSet& set);

// The set's configs laid over `base` (a full config of tmpl): a config's parameters replace the
// base's, and the flags it names replace those of the base's flags.
std::vector<Config> preselectedConfigs(const PreselectedSet& set, const Config& base);

// A <config .../> line for the set file: the parameters where `config` differs from the
// template's defaults, and its compiler flags unless they are the defaults (an autotune winner
// to paste into preselected.xml).
std::string preselectedConfigXml(const Template& tmpl, const Config& config);

}  // namespace kx::engine
