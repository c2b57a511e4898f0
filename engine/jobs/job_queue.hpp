// Background jobs with progress and cancel, and a mailbox that carries their results to the UI
// thread. Workers never touch UI state: they post closures that the UI thread runs between frames.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

namespace kx::engine {

// Closures posted from any thread, run on the thread that calls drain() (the UI thread).
class Mailbox {
public:
    void post(std::function<void()> fn);
    // Runs and removes everything posted so far. Returns how many ran.
    int drain();

private:
    std::mutex m_mutex;
    std::vector<std::function<void()>> m_pending;
};

// What a running job sees: its cancel flag and where to publish progress.
class Job {
public:
    explicit Job(std::string name) : m_name(std::move(name)) {}
    const std::string& name() const { return m_name; }

    // Progress in [0,1] and a short stage text ("compiling"); safe from any thread.
    void setProgress(float fraction) { m_progress.store(fraction); }
    float progress() const { return m_progress.load(); }
    void setStage(std::string stage);
    std::string stage() const;

    void cancel() { m_stop.request_stop(); }
    bool cancelled() const { return m_stop.stop_requested(); }
    std::stop_token stopToken() const { return m_stop.get_token(); }

    bool finished() const { return m_finished.load(); }
    void markFinished() { m_finished.store(true); }

private:
    std::string m_name;
    std::atomic<float> m_progress{0};
    std::atomic<bool> m_finished{false};
    mutable std::mutex m_stageMutex;
    std::string m_stage;
    std::stop_source m_stop;
};

// How a queue's workers share the CPU with the rest of the process.
enum class WorkerPriority {
    Normal,
    // Ten nice levels below the thread that made the queue (Linux: per thread, inherited by the
    // threads and processes a job starts): compiles and disassembly then take the cores only
    // while the UI thread and the renderer do not need them, so frames keep coming on a small
    // machine (with a software rasteriser, drawing is CPU work too).
    Background,
};

// The calling thread's nice value (Linux; 0 elsewhere), for tests and reports.
int currentThreadNice();

// A fixed pool of worker threads running jobs in submission order.
class JobQueue {
public:
    explicit JobQueue(int workers = 1, WorkerPriority priority = WorkerPriority::Normal);
    ~JobQueue();  // cancels queued and running jobs, then joins
    JobQueue(const JobQueue&) = delete;
    JobQueue& operator=(const JobQueue&) = delete;

    // Queues work; the returned handle reports progress and takes cancel(). A job cancelled
    // before it starts never runs. Exceptions thrown by work are swallowed after the job is
    // marked finished: work should catch and post its own errors.
    std::shared_ptr<Job> submit(std::string name, std::function<void(Job&)> work);

    int pending() const;  // queued, not yet started

private:
    struct Entry {
        std::shared_ptr<Job> job;
        std::function<void(Job&)> work;
    };
    void workerLoop(std::stop_token stop, int nice);

    mutable std::mutex m_mutex;
    std::condition_variable_any m_wake;
    std::deque<Entry> m_queue;
    std::vector<std::shared_ptr<Job>> m_running;
    std::vector<std::jthread> m_workers;
};

}  // namespace kx::engine
