#include "jobs/job_queue.hpp"

#include <algorithm>
#include <cerrno>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace kx::engine {

void Mailbox::post(std::function<void()> fn) {
    std::lock_guard lock(m_mutex);
    m_pending.push_back(std::move(fn));
}

int Mailbox::drain() {
    std::vector<std::function<void()>> ready;
    {
        std::lock_guard lock(m_mutex);
        ready.swap(m_pending);
    }
    for (auto& fn : ready) fn();
    return static_cast<int>(ready.size());
}

void Job::setStage(std::string stage) {
    std::lock_guard lock(m_stageMutex);
    m_stage = std::move(stage);
}

std::string Job::stage() const {
    std::lock_guard lock(m_stageMutex);
    return m_stage;
}

int currentThreadNice() {
#if defined(__linux__)
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
    return errno == 0 ? nice : 0;
#else
    return 0;
#endif
}

JobQueue::JobQueue(int workers, WorkerPriority priority) {
    // Nice levels are relative to the creator's: a user who started the app with `nice` keeps it.
    const int nice = priority == WorkerPriority::Background ? std::min(19, currentThreadNice() + 10) : currentThreadNice();
    for (int i = 0; i < std::max(1, workers); ++i)
        m_workers.emplace_back([this, nice](std::stop_token stop) { workerLoop(stop, nice); });
}

JobQueue::~JobQueue() {
    {
        std::lock_guard lock(m_mutex);
        for (Entry& e : m_queue) e.job->cancel();
        for (auto& job : m_running) job->cancel();
    }
    for (auto& w : m_workers) w.request_stop();
    m_wake.notify_all();
    m_workers.clear();  // joins
}

std::shared_ptr<Job> JobQueue::submit(std::string name, std::function<void(Job&)> work) {
    auto job = std::make_shared<Job>(std::move(name));
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back({job, std::move(work)});
    }
    m_wake.notify_one();
    return job;
}

int JobQueue::pending() const {
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_queue.size());
}

void JobQueue::workerLoop(std::stop_token stop, int nice) {
#if defined(__linux__)
    // Raising a thread's nice value needs no privilege; a failure leaves it as it was.
    if (nice != currentThreadNice()) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
#endif
    while (!stop.stop_requested()) {
        Entry entry;
        {
            std::unique_lock lock(m_mutex);
            if (!m_wake.wait(lock, stop, [&] { return !m_queue.empty(); })) return;
            entry = std::move(m_queue.front());
            m_queue.pop_front();
            m_running.push_back(entry.job);
        }
        if (!entry.job->cancelled()) {
            try {
                entry.work(*entry.job);
            } catch (...) {
            }
        }
        entry.job->markFinished();
        std::lock_guard lock(m_mutex);
        m_running.erase(std::find(m_running.begin(), m_running.end(), entry.job));
    }
}

}  // namespace kx::engine
