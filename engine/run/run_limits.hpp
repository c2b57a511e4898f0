// Input limits of a run, checked before anything is allocated or launched: sizes the kernel's
// argument types cannot hold, buffers whose byte counts overflow, and buffers that together do
// not fit the device's memory are refused with the reason.
#pragma once

#include "arch/arch.hpp"
#include "templates/template.hpp"

namespace kx::engine {

// Why the template cannot run at all ("" when it can): its manifest lists no <args> (a kernel
// pasted into the app gets such a manifest until the user describes its arguments).
std::string notRunnableReason(const Template& tmpl);

// Throws InputError with notRunnableReason when there is one, and when a problem size is passed to the kernel (an arg of role "size") in a
// type that cannot hold it: "int" (and the other 32-bit types) above 2147483647, unsigned above
// 4294967295. Needs no config: `kx run` calls it before starting the runner.
void checkSizeTypes(const Template& tmpl, const SizeMap& sizes);

// checkSizeTypes, then every buffer argument (in, out, inout, scratch): its element count times
// its element size must not overflow 64 bits, and when deviceMemoryBytes > 0 all of them together
// must fit in it. Throws InputError naming the argument, its size and the limit.
void checkRunLimits(const Template& tmpl, const Config& config, const Arch& arch, const SizeMap& sizes,
                    long long deviceMemoryBytes = 0);

}  // namespace kx::engine
