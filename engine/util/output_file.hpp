// Writing what a command produces, with every failure reported: a full disk, a missing folder
// or a closed pipe must never look like success.
#pragma once

#include <filesystem>
#include <string_view>

namespace kx::engine {

// Writes bytes to file. A regular file (or a new one) is written to a temporary file beside it
// and renamed over it, so a reader never sees half of it and a failed write leaves the old
// content; anything else that exists (a device such as /dev/null, a FIFO) is written in place.
// Throws OutputError "cannot write FILE: reason" on any failure, the temporary file removed.
void writeOutputFile(const std::filesystem::path& file, std::string_view bytes);

// Writes bytes to standard output (through std::cout, so it stays in order with other output)
// and flushes. Throws OutputError "cannot write to standard output: reason".
void writeStandardOutput(std::string_view bytes);

// Flushes std::cout and C's stdout; throws OutputError when either has failed since the start.
// Commands that print with fmt or iostreams call this once before they report success.
void flushStandardOutput();

}  // namespace kx::engine

namespace kx::engine {

// Registers (once) an exit handler that flushes standard output and, when that fails (stdout is
// /dev/full, a closed pipe), prints "PROGRAM: cannot write to standard output: reason" on stderr
// and ends the process with exit code 1 instead of the 0 the command returned.
void failExitWhenStandardOutputIsLost(const char* program);

}  // namespace kx::engine
