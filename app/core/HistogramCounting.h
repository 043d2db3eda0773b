// What the histogram worker does with a job, as plain functions on an engine owned by the
// calling thread: the live count (also the timeline pass's) and Compare Strategies.
#pragma once

#include "app/core/EngineHolder.h"
#include "app/core/HistogramJob.h"
#include "app/core/HistogramSnapshot.h"
#include "app/core/StrategyComparison.h"

#include "histoscope/HistogramEngine.h"

#include <memory>

// One job counted on `engine` into `snapshot`: the request resolved by the one rule, the luma
// plane when shown, statistics, plot values, notices. Throws only what allocation or OpenCV throw.
void countSnapshot(hs::HistogramEngine& engine, const HistogramJob& job, HistogramSnapshot& snapshot);
// The same into a new snapshot that carries the job's identity; never throws (a throw becomes
// the snapshot's error).
std::shared_ptr<HistogramSnapshot> countJob(hs::HistogramEngine& engine, const HistogramJob& job);
// Every strategy the holder's engine has, timed and checked against the CPU reference, under
// the holder's device-lost policy. Never throws.
std::shared_ptr<StrategyComparison> compareJob(EngineHolder<hs::HistogramEngine>& holder, const HistogramJob& job);

// The cause when `error` is a device fault (the holder's policy rebuilds on it), else empty.
QString deviceFaultOf(const Error& error);
