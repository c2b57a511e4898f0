// File helpers the two compilers share (compiler.cpp: NVRTC, hip_compiler.cpp: clang): their
// cache entries and scratch files.
#pragma once

#include <filesystem>
#include <string>

namespace kx::engine::compile_files {

// The whole file as bytes; "" when it cannot be read (a missing log reads as an empty one).
std::string readFile(const std::filesystem::path& path);

// Writes bytes to path, replacing the file; false when not every byte could be written.
bool writeFile(const std::filesystem::path& path, const std::string& bytes);

// A random number as text, for names of temporary files and folders that concurrent compiles
// (threads or processes) must not share. Thread-safe.
std::string uniqueSuffix();

}  // namespace kx::engine::compile_files
