// File helpers the two compilers share (compiler.cpp: NVRTC, hip_compiler.cpp: clang): their
// cache entries and scratch files.
#pragma once

#include "compile/memory_cache.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace kx::engine::compile_files {

// The whole file as bytes; "" when it cannot be read (a missing log reads as an empty one).
std::string readFile(const std::filesystem::path& path);

// Writes bytes to path, replacing the file; false when not every byte could be written.
bool writeFile(const std::filesystem::path& path, const std::string& bytes);

// A random number as text, for names of temporary files and folders that concurrent compiles
// (threads or processes) must not share. Thread-safe.
std::string uniqueSuffix();

// [SECTION] Cache entries: a folder per key holding a result's files and meta.json, which is
// written last, so that its presence marks a whole entry.

// The result kept in memory under key, if any; memory is read under mutex.
template <class Result>
std::optional<Result> findInMemory(std::mutex& mutex, MemoryCache<Result>& memory, const std::string& key) {
    std::lock_guard lock(mutex);
    return memory.find(key);
}

// The meta.json of the entry in dir, parsed; none when there is no cache (an empty cacheDir), no
// whole entry, or a damaged meta.json (the caller compiles again and overwrites it).
std::optional<nlohmann::json> readCacheMeta(const std::filesystem::path& cacheDir, const std::string& key);

// The result of key from memory, else read from its disk entry by read(meta, dir) and kept in
// memory. None when neither holds it, or when read throws on a damaged entry (the caller compiles
// again and overwrites it).
template <class Result, class Read>
std::optional<Result> findCached(std::mutex& mutex, MemoryCache<Result>& memory, const std::filesystem::path& cacheDir,
                                 const std::string& key, Read read) {
    if (auto kept = findInMemory(mutex, memory, key)) return kept;
    const std::optional<nlohmann::json> meta = readCacheMeta(cacheDir, key);
    if (!meta) return std::nullopt;
    try {
        Result r = read(*meta, cacheDir / key);
        r.cacheKey = key;
        std::lock_guard lock(mutex);
        memory.put(key, r);
        return r;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

struct CacheFile {
    const char* name;
    const std::string& bytes;
};

// Writes the files, then meta, into a private folder beside dir and renames it to dir: readers
// never see a half-written entry. With replaceExisting an entry already at dir is removed first;
// without, the first writer of a key wins. A failure only costs the cache.
void writeCacheEntry(const std::filesystem::path& dir, std::initializer_list<CacheFile> files, const nlohmann::json& meta,
                     bool replaceExisting);

}  // namespace kx::engine::compile_files
