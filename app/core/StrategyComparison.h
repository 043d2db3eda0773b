// Compare Strategies: every strategy this engine has, timed on one frame and checked against
// the CPU reference.
#pragma once

#include "common/Error.h"

#include "histoscope/HistogramTypes.h"

#include <QMetaType>
#include <QString>

#include <memory>
#include <vector>

struct StrategyTiming {
    hs::Strategy strategy = hs::Strategy::Auto;
    hs::Strategy ran = hs::Strategy::Auto;
    double milliseconds = 0;       // median of 5 runs after a warm-up (hs::medianRunMs)
    bool exact = false;            // equal to the CPU reference
    Error error;
};

struct StrategyComparison {
    quint64 generation = 0;        // the generation compareStrategies() returned
    std::vector<StrategyTiming> timings;
    QString backend;
    Error error;                   // the reference itself failed
};

using ComparisonPtr = std::shared_ptr<const StrategyComparison>;
Q_DECLARE_METATYPE(ComparisonPtr)
