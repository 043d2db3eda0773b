#include "app/cli/Interrupts.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace {

std::atomic<bool> g_requested{false};
std::atomic<void (*)()> g_wakeup{nullptr};
std::mutex g_noteMutex;
QByteArray g_note;

sigset_t watchedSignals()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

[[noreturn]] void endNow(int signal)
{
    // Between two lines: whatever was written is whole. A writer stuck on a full pipe does not
    // keep the process alive past a few seconds.
    const bool locked = Interrupts::outputLock().try_lock_for(std::chrono::seconds(3));
    QByteArray note;
    {
        std::lock_guard lock(g_noteMutex);
        note = g_note;
    }
    QByteArray text = "\nhistoscope-cli: ended at once by " + QByteArray(signal == SIGTERM ? "SIGTERM" : "a second Ctrl-C");
    text += locked ? "; every line written is whole" : "; the output was blocked mid-line";
    if (!note.isEmpty())
        text += "; " + note;
    text += '\n';
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text.constData(), size_t(text.size()));
    _exit(128 + signal);
}

void watch()
{
    const sigset_t set = watchedSignals();
    for (;;) {
        int signal = 0;
        if (sigwait(&set, &signal) != 0)
            continue;
        if (signal == SIGTERM || g_requested.exchange(true))
            endNow(signal);
        if (auto wakeup = g_wakeup.load())
            wakeup();
    }
}

}  // namespace

void Interrupts::install()
{
    static std::once_flag once;
    std::call_once(once, [] {
        const sigset_t set = watchedSignals();
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
        // A reader that goes away (`| head`) makes writes fail with EPIPE, reported and cut
        // back to whole lines like any write error, instead of killing the process mid-line.
        ::signal(SIGPIPE, SIG_IGN);
        std::thread(watch).detach();
    });
}

bool Interrupts::requested() { return g_requested.load(); }

std::timed_mutex& Interrupts::outputLock()
{
    static std::timed_mutex lock;
    return lock;
}

void Interrupts::setExitNote(const QString& note)
{
    std::lock_guard lock(g_noteMutex);
    g_note = note.toUtf8();
}

void Interrupts::setWakeup(void (*wakeup)()) { g_wakeup = wakeup; }
