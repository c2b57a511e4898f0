#include "jobs/job_queue.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <utility>

using namespace kx::engine;
using namespace std::chrono_literals;

TEST_CASE("jobs run off the calling thread and post results through the mailbox", "[jobs]") {
    JobQueue queue(2);
    Mailbox mailbox;
    const auto caller = std::this_thread::get_id();
    std::thread::id worker;
    int result = 0;
    auto job = queue.submit("sum", [&](Job& j) {
        int sum = 0;
        for (int i = 1; i <= 100; ++i) sum += i;
        j.setProgress(1.0f);
        worker = std::this_thread::get_id();
        mailbox.post([&result, sum] { result = sum; });
    });
    while (!job->finished()) std::this_thread::sleep_for(1ms);
    CHECK(result == 0);  // nothing reaches the UI thread before it drains
    CHECK(mailbox.drain() == 1);
    CHECK(result == 5050);
    CHECK(worker != caller);
    CHECK(job->progress() == 1.0f);
}

TEST_CASE("cancel stops a running job and skips a queued one", "[jobs]") {
    JobQueue queue(1);
    std::atomic<bool> sawCancel{false};
    std::atomic<bool> started{false};
    auto running = queue.submit("long", [&](Job& j) {
        started = true;
        while (!j.cancelled()) std::this_thread::sleep_for(1ms);
        sawCancel = true;
    });
    std::atomic<bool> queuedRan{false};
    auto queued = queue.submit("queued", [&](Job&) { queuedRan = true; });
    while (!started) std::this_thread::sleep_for(1ms);
    queued->cancel();
    running->cancel();
    while (!running->finished() || !queued->finished()) std::this_thread::sleep_for(1ms);
    CHECK(sawCancel);
    CHECK_FALSE(queuedRan);
}

TEST_CASE("a throwing job does not take the worker down", "[jobs]") {
    JobQueue queue(1);
    auto bad = queue.submit("throws", [](Job&) { throw std::runtime_error("boom"); });
    std::atomic<bool> ran{false};
    auto good = queue.submit("after", [&](Job&) { ran = true; });
    while (!good->finished()) std::this_thread::sleep_for(1ms);
    CHECK(bad->finished());
    CHECK(ran);
}

TEST_CASE("a background queue's workers, and the processes they start, run below the caller's priority", "[jobs]") {
    const int callerNice = currentThreadNice();
    REQUIRE(callerNice < 19);  // else nothing could run below it
    auto niceIn = [](JobQueue& queue) {
        std::atomic<int> nice{-100};
        std::atomic<int> childNice{-100};
        auto job = queue.submit("nice", [&](Job&) {
            nice = currentThreadNice();
            // A child process inherits the starting thread's nice value: nvdisasm and the
            // compilers' subprocesses yield to the frames too.
            if (FILE* p = popen("cut -d' ' -f19 /proc/self/stat", "r")) {  // field 19: nice
                int n = -100;
                if (fscanf(p, "%d", &n) == 1) childNice = n;
                pclose(p);
            }
        });
        while (!job->finished()) std::this_thread::sleep_for(1ms);
        return std::pair<int, int>(nice.load(), childNice.load());
    };
    JobQueue normal(1);
    JobQueue background(1, WorkerPriority::Background);
    CHECK(niceIn(normal) == std::pair<int, int>(callerNice, callerNice));
    const int below = std::min(19, callerNice + 10);
    CHECK(niceIn(background) == std::pair<int, int>(below, below));
    CHECK(currentThreadNice() == callerNice);  // the caller's own priority is untouched
}
