// Checks of a manifest's values that need its expressions evaluated, run when a template loads:
// what parsing alone cannot see, and what would otherwise reach the compiler or a user's screen
// as "inf threads per block".
#pragma once

#include "templates/template.hpp"

namespace kx::engine {

// Throws InputError "manifest:line: reason" when
// - a derived value, constraint, launch dimension or argument count of the default config (with
//   the default sizes) names an unknown variable, divides by zero or is infinite;
// - a parameter's value 0 (or the lowest of its range when that is 0) makes a constraint divide
//   by zero, or passes the constraints yet leaves a derived value or launch dimension infinite or
//   a block dimension below 1;
// - a constraint's message names a {X} that is no variable.
// Expressions are evaluated against plausible positive limits of the template's vendor (an
// sm_90-like or gfx942-like part), not a real arch: these checks find mistakes that hold on every
// arch; arch-dependent ones are the constraints' job.
void checkManifestValues(const Template& tmpl);

// The limits the checks above evaluate against, for "cuda" templates or (hipOnly) AMD-only ones.
Arch manifestCheckArch(bool hipOnly);

}  // namespace kx::engine
