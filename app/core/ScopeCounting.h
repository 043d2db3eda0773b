// What the scope worker does with a job, as plain functions on a 2-D engine owned by the calling
// thread: each Histogram2D turned into plain ScopePlanes (vectors of doubles, x-major), so the
// GUI thread only wraps them for the widgets.
#pragma once

#include "app/core/ScopeTypes.h"

#include "histoscope/Histogram2D.h"

#include <memory>

// Counts `job` on `engine` into `snapshot` (planes, code ranges, notices, error). Throws only
// what allocation throws.
void countScopes(hs::Histogram2DEngine& engine, const ScopeJob& job, ScopeSnapshot& snapshot);
// The same into a new snapshot carrying the job's identity and its compute time; never throws.
std::shared_ptr<ScopeSnapshot> countScopeJob(hs::Histogram2DEngine& engine, const ScopeJob& job);
