#pragma once
// Data-parallel loops over large host arrays (inputs and outputs of tens of millions of values).

#include <algorithm>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace kx::engine {

// Calls body(begin, end) on consecutive ranges that cover [0, n), one per thread, on up to as
// many threads as there are cores, each range at least minPerThread long (the calling thread
// takes the first). The body must not throw, and whatever it writes must depend on the index
// alone, so that the result does not depend on the machine.
template <class Body>
void parallelRanges(std::size_t n, std::size_t minPerThread, Body body) {
    const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t threads = std::max<std::size_t>(1, std::min(cores, n / std::max<std::size_t>(minPerThread, 1)));
    if (threads <= 1) {
        body(std::size_t{0}, n);
        return;
    }
    const std::size_t step = (n + threads - 1) / threads;
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back([&body, t, step, n] { body(std::min(n, t * step), std::min(n, (t + 1) * step)); });
    body(std::size_t{0}, std::min(n, step));
    for (std::thread& t : pool) t.join();
}

// A container (std::vector<double>, std::string) of n zeros, for an array that is about to be
// filled on every core (inputs, encoded and decoded values). A new container's zeroing would
// fault each of a large array's 4 KB pages in one at a time on the calling thread (for a
// 16384 x 8192 matrix of doubles that was a quarter of kx run's host time); here each core
// first touches a share of the pages, within the capacity just reserved (plain numbers and
// characters need no construction), so the zeroing that follows only writes.
template <class Container>
Container zeroed(std::size_t n) {
    using Value = typename Container::value_type;
    constexpr std::size_t kPageValues = 4096 / sizeof(Value);
    Container c;
    c.reserve(n);
    if (n >= 64 * kPageValues) {
        Value* data = c.data();
        parallelRanges(n / kPageValues, 256, [data](std::size_t firstPage, std::size_t endPage) {
            for (std::size_t page = firstPage; page < endPage; ++page) data[page * kPageValues] = Value{};
        });
    }
    c.resize(n);
    return c;
}
inline std::vector<double> zeroedValues(std::size_t n) { return zeroed<std::vector<double>>(n); }

}  // namespace kx::engine
