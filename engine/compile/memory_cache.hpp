// The compilers' results kept in memory, bounded: once they hold more bytes than the budget, the
// least recently used are dropped (the newest is always kept). A long app session's speculative
// compiles of neighbouring configs and its sweeps would otherwise keep every PTX and CUBIN they
// ever made; what was persisted is still on disk, and anything else compiles again when asked.
// Not thread-safe: the compilers call it under their own mutex.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace kx::engine::compile_files {

template <class Result>
class MemoryCache {
public:
    MemoryCache(std::size_t budgetBytes, std::function<std::size_t(const Result&)> bytesOf)
        : m_budget(budgetBytes), m_bytesOf(std::move(bytesOf)) {}

    // The result kept under key, which becomes the most recently used.
    std::optional<Result> find(const std::string& key) {
        const auto it = m_entries.find(key);
        if (it == m_entries.end()) return std::nullopt;
        m_order.splice(m_order.begin(), m_order, it->second.at);
        return it->second.result;
    }
    bool contains(const std::string& key) const { return m_entries.count(key) != 0; }

    // Keeps result under key (replacing what was there) as the most recently used, then drops the
    // least recently used others while the bytes kept exceed the budget.
    void put(const std::string& key, Result result) {
        erase(key);
        const std::size_t bytes = m_bytesOf(result);
        m_order.push_front(key);
        m_entries.emplace(key, Entry{std::move(result), bytes, m_order.begin()});
        m_bytes += bytes;
        while (m_bytes > m_budget && m_entries.size() > 1) erase(m_order.back());
    }

    std::size_t bytes() const { return m_bytes; }
    std::size_t size() const { return m_entries.size(); }

private:
    struct Entry {
        Result result;
        std::size_t bytes;
        std::list<std::string>::iterator at;
    };
    void erase(const std::string& key) {
        const auto it = m_entries.find(key);
        if (it == m_entries.end()) return;
        m_bytes -= it->second.bytes;
        m_order.erase(it->second.at);
        m_entries.erase(it);
    }

    std::size_t m_budget;
    std::function<std::size_t(const Result&)> m_bytesOf;
    std::list<std::string> m_order;  // most recently used first
    std::unordered_map<std::string, Entry> m_entries;
    std::size_t m_bytes = 0;
};

}  // namespace kx::engine::compile_files
