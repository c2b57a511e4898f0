// Recording into a session: the one way kx and the app store a variant with its artifacts and
// its runs, so a session written by either reads the same in both.
//
// Artifacts of a recorded variant: its rendered source, its PTX, its SASS listing when a
// disassembler was found, and its ptxas report as JSON (resourcesJson below).
#pragma once

#include "compile/compiler.hpp"
#include "run/variant_run.hpp"
#include "store/session_store.hpp"
#include "templates/config.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kx::engine {

// The resources artifact: [{"function","registers","shared_bytes","constant_bytes",
// "stack_frame_bytes","spill_store_bytes","spill_load_bytes","barriers"}, ...].
std::string resourcesJson(const std::vector<KernelResources>& kernels);
// Its inverse; throws InputError on text that is not such a list.
std::vector<KernelResources> parseResourcesJson(const std::string& json);

// The stored calibration of the device as JSON, "" when it was never calibrated.
std::string calibrationJsonFor(const std::string& device);

// The variant of this config and arch: the one named `name` when its config and arch match, else
// a new one named `name`; when that is taken, "NAME@ARCH" if the taken one is for another arch,
// else the first free of "NAME-2", "NAME-3"... Part of the caller's transaction when there is one.
std::int64_t findOrAddVariant(SessionStore& store, const std::string& name, const std::string& arch, const Config& config);

// What a compiled variant leaves in a session.
struct VariantArtifacts {
    std::string source;
    std::string ptx;
    std::string sass;                      // empty when there is none
    std::vector<KernelResources> kernels;  // empty when ptxas did not run
};
VariantArtifacts artifactsOf(const std::string& source, const CompileResult& compiled, const std::string& sass = "");

// findOrAddVariant and its artifacts in one transaction; returns the variant's id.
std::int64_t recordVariant(SessionStore& store, const std::string& name, const std::string& arch, const Config& config,
                           const VariantArtifacts& artifacts);

}  // namespace kx::engine
