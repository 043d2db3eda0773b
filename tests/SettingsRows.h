// Settings values that tst_settings (through QSettings) and tst_settingspanel (through the
// settings panel) both round-trip: the columns and rows of a data function, and the value the
// current row stands for.
#pragma once

#include "app/core/HistogramSettings.h"

#include <QTest>

namespace settingsrows {

inline void addRows()
{
    QTest::addColumn<int>("strategy");
    QTest::addColumn<int>("bins");
    QTest::addColumn<int>("rangeMode");
    QTest::addColumn<uint>("mask");
    QTest::addColumn<bool>("log");
    QTest::addColumn<int>("luma");
    QTest::newRow("defaults") << int(hs::Strategy::Auto) << 256 << int(RangeMode::DataType) << 0xfu << false << int(LumaCoefficients::Bt709);
    QTest::newRow("cpu, 4096 bins, log") << int(hs::Strategy::Cpu) << 4096 << int(RangeMode::DataMinMax) << 0x5u << true << int(LumaCoefficients::None);
    QTest::newRow("shared, manual range") << int(hs::Strategy::Shared) << 100 << int(RangeMode::Manual) << 0x2u << false << int(LumaCoefficients::Bt601);
    QTest::newRow("one bin per value") << int(hs::Strategy::LargeBins) << 0 << int(RangeMode::BitDepth) << 0xfu << true << int(LumaCoefficients::Bt709);
}

inline HistogramSettings currentRow()
{
    QFETCH(int, strategy);
    QFETCH(int, bins);
    QFETCH(int, rangeMode);
    QFETCH(uint, mask);
    QFETCH(bool, log);
    QFETCH(int, luma);
    HistogramSettings s;
    s.counting.strategy = hs::Strategy(strategy);
    s.counting.bins = bins;
    s.counting.rangeMode = RangeMode(rangeMode);
    s.counting.bitDepth = 14;
    s.counting.manualRanges[std::size_t(RangeKind::Float)] = ValueRange{-2.5, 7.25};
    s.counting.manualRanges[std::size_t(RangeKind::Int16)] = ValueRange{0, 4096};
    s.counting.channelMask = mask;
    s.counting.useGpu = !log;
    s.display.logCounts = log;
    s.display.cumulative = !log;
    s.display.luma = LumaCoefficients(luma);
    return s;
}

}  // namespace settingsrows
