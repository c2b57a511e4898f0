// parallelRanges covers [0, n) exactly once whatever the thread count, and zeroed() returns n
// zeros of the asked size, small (no pages touched ahead) and large (pages touched on every core).
#include "util/parallel_ranges.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

using namespace kx::engine;

TEST_CASE("parallelRanges visits every index once", "[util]") {
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{100003}}) {
        CAPTURE(n);
        std::vector<std::atomic<int>> seen(n);
        parallelRanges(n, 10, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) seen[i].fetch_add(1);
        });
        REQUIRE(std::all_of(seen.begin(), seen.end(), [](const std::atomic<int>& s) { return s.load() == 1; }));
    }
}

TEST_CASE("zeroed gives n zeros of the asked size, small and large", "[util]") {
    for (const std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{511}, std::size_t{1} << 22, (std::size_t{1} << 22) + 77}) {
        CAPTURE(n);
        const std::vector<double> values = zeroedValues(n);
        REQUIRE(values.size() == n);
        REQUIRE(std::all_of(values.begin(), values.end(), [](double v) { return v == 0.0; }));
        const std::string bytes = zeroed<std::string>(n);
        REQUIRE(bytes.size() == n);
        REQUIRE(bytes.find_first_not_of('\0') == std::string::npos);
    }
}
