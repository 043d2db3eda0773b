// Ctrl-C and SIGTERM for the commands that write records. The signals are blocked in every
// thread and taken by one watcher thread (sigwait), so no handler runs in the middle of a
// write: the first Ctrl-C asks the run to stop after the current file; a second Ctrl-C or a
// SIGTERM ends the process at once, but only between two lines (it takes the output lock).
// SIGPIPE is ignored, so a closed pipe is a checked write error like a full disk.
#pragma once

#include <QString>

#include <mutex>

class Interrupts {
public:
    // Call before any thread is started, so that every thread inherits the blocked signals.
    static void install();
    static bool requested();
    // Held around every line written; the immediate exit waits for it (at most a few seconds).
    static std::timed_mutex& outputLock();
    // What the immediate exit prints on stderr before it ends the process.
    static void setExitNote(const QString& note);
    // Called (on the watcher thread) when the first Ctrl-C arrives, to wake waiting threads.
    static void setWakeup(void (*wakeup)());
};
