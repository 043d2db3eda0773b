// One engine and the device-lost policy, written once for everything that holds an engine: the
// app's workers, the batch's pool threads and the one-file commands.
//
// run() runs a job on the engine. When the job's answer says the device was lost (a sticky CUDA
// error: ErrorKind::DeviceLost), the engine is rebuilt once (a new GPU engine resets the
// faulted device) and the job runs again; if the rebuilt engine faults too, or none can be
// built, the job runs a third time on a CPU engine, which then stays until the GPU choice
// changes. Each recovery leaves one notice (takeNotice()) that says what faulted and where
// counting continues, for the status line or stderr. Not thread-safe: one holder per thread,
// as the engines' own contract says.
#pragma once

#include "histoscope/Histogram2D.h"
#include "histoscope/HistogramEngine.h"

#include <QString>

#include <memory>
#include <utility>

// Where an engine counts, in the user's words ("GPU: NVIDIA H200", "CPU (No CUDA device found…)").
QString engineDescription(const hs::HistogramEngine& engine);
QString engineDescription(const hs::Histogram2DEngine& engine);

template <typename Engine>
class EngineHolder {
public:
    explicit EngineHolder(hs::EngineOptions options = {}) : m_options(options) {}

    // The engine for this GPU choice: built on first use and again when the choice changes.
    Engine& engine(bool useGpu)
    {
        if (m_engine && useGpu == m_requestedGpu)
            return *m_engine;
        m_requestedGpu = useGpu;
        m_gpuFailed = false;   // a new choice gives the GPU a new chance
        build(useGpu);
        return *m_engine;
    }

    // Runs `job(engine)` under the policy above. `faultOf(answer)` is the cause when the answer
    // is a device fault, else empty; the job must be safe to run again from the start.
    template <typename Job, typename FaultOf>
    auto run(bool useGpu, Job&& job, FaultOf&& faultOf) -> decltype(job(std::declval<Engine&>()))
    {
        auto answer = job(engine(useGpu));
        const QString cause = faultOf(answer);
        if (cause.isEmpty())
            return answer;
        const bool wasGpu = m_engine->hasGpu();
        build(m_requestedGpu);   // once, on the device it ran on
        // Said before the job runs again, so what the job writes can carry it (notice()).
        m_notice = faultNotice(wasGpu, cause, QString());
        answer = job(*m_engine);
        if (!faultOf(answer).isEmpty()) {
            m_gpuFailed = true;
            build(false);
            m_notice = faultNotice(wasGpu, cause, QStringLiteral(", since the rebuilt engine faulted too"));
            answer = job(*m_engine);
        } else if (!m_engine->hasGpu()) {
            m_gpuFailed = m_requestedGpu;
        }
        return answer;
    }

    QString description() const { return m_engine ? engineDescription(*m_engine) : QString(); }
    quint64 serial() const { return m_serial; }          // engines built so far: 1 for the first
    const QString& notice() const { return m_notice; }   // the last fault survived, until taken
    QString takeNotice() { return std::exchange(m_notice, QString()); }

private:
    QString faultNotice(bool wasGpu, const QString& cause, const QString& why) const
    {
        const QString where = m_engine->hasGpu() ? QStringLiteral("on a rebuilt engine (%1)").arg(description())
                                                 : QStringLiteral("on the %1").arg(description());
        return QStringLiteral("%1 faulted (%2); counting continues %3%4.")
            .arg(wasGpu ? QStringLiteral("The GPU") : QStringLiteral("The engine"), cause, where, why);
    }

    void build(bool useGpu)
    {
        m_engine.reset();   // the faulted engine goes first: its context may be reset next
        hs::EngineOptions options = m_options;
        options.useGpu = useGpu && !m_gpuFailed;
        m_engine = std::make_unique<Engine>(options);
        ++m_serial;
    }

    hs::EngineOptions m_options;
    std::unique_ptr<Engine> m_engine;
    bool m_requestedGpu = true;
    bool m_gpuFailed = false;
    quint64 m_serial = 0;
    QString m_notice;
};
