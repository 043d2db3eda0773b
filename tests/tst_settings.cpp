// The settings value type: load/save round trips, names converted only at the edges, and
// unknown stored names reported instead of silently replaced. The settings panel's round trip
// of the same values is tst_settingspanel's.
#include "app/core/HistogramSettings.h"

#include "SettingsRows.h"

#include <QTemporaryDir>
#include <QtTest>

class TestSettings : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void unknownStoredNamesAreReported_data();
    void unknownStoredNamesAreReported();
    void strategyNamesParse_data();
    void strategyNamesParse();
    void legacyLumaIndexLoads();
    void histogramModeRoundTrips_data();
    void histogramModeRoundTrips();

private:
    QTemporaryDir m_dir;
};

void TestSettings::roundTrip_data() { settingsrows::addRows(); }

void TestSettings::roundTrip()
{
    const HistogramSettings s = settingsrows::currentRow();
    const QString ini = m_dir.filePath(QStringLiteral("roundtrip-%1.ini").arg(QTest::currentDataTag()));
    {
        QSettings store(ini, QSettings::IniFormat);
        s.save(store);
    }
    QSettings store(ini, QSettings::IniFormat);
    // Names, not numbers, are what the file holds.
    QCOMPARE(store.value("histogram/strategy").toString(), strategyDisplayName(s.counting.strategy));
    HistogramSettings loaded;
    QCOMPARE(loaded.load(store), QStringList());
    QVERIFY(loaded == s);
}

void TestSettings::unknownStoredNamesAreReported_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("strategy") << "strategy" << QVariant(QStringLiteral("fastest")) << "fastest";
    QTest::newRow("luma") << "luma" << QVariant(QStringLiteral("bt2020")) << "bt2020";
    QTest::newRow("bins") << "bins" << QVariant(-3) << "-3";
    QTest::newRow("range") << "range/float/lo" << QVariant(9.0) << "[9";
    QTest::newRow("range mode") << "rangeMode" << QVariant(QStringLiteral("auto")) << "auto";
    QTest::newRow("histogram mode") << "mode" << QVariant(QStringLiteral("mosaic")) << "mosaic";
}

void TestSettings::unknownStoredNamesAreReported()
{
    QFETCH(QString, key);
    QFETCH(QVariant, value);
    QFETCH(QString, mentions);
    const QString ini = m_dir.filePath(QStringLiteral("unknown-%1.ini").arg(QTest::currentDataTag()));
    QSettings store(ini, QSettings::IniFormat);
    store.setValue("histogram/range/float/hi", 1.0);
    store.setValue("histogram/" + key, value);
    HistogramSettings loaded;
    loaded.counting.bins = 77;  // load() starts from the defaults, not from what was there
    const QStringList notices = loaded.load(store);
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.first().contains(mentions), qPrintable(notices.first()));
    const HistogramSettings defaults;
    if (key == "strategy") {
        QCOMPARE(loaded.counting.strategy, defaults.counting.strategy);
        QVERIFY2(notices.first().contains("warp-aggregated"), "the notice lists the valid names");
    }
    if (key == "bins")
        QCOMPARE(loaded.counting.bins, defaults.counting.bins);
    if (key == "mode") {
        QCOMPARE(loaded.display.mode, defaults.display.mode);
        QVERIFY2(notices.first().contains("overlay, separate, table"), "the notice lists the valid names");
    }
}

void TestSettings::strategyNamesParse_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("valid");
    for (hs::Strategy s : hs::allStrategies())
        QTest::newRow(qPrintable(strategyDisplayName(s))) << strategyDisplayName(s) << true;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("typo") << "globalatomic" << false;
}

void TestSettings::strategyNamesParse()
{
    QFETCH(QString, name);
    QFETCH(bool, valid);
    Error error;
    const auto strategy = parseStrategy(name, error);
    QCOMPARE(strategy.has_value(), valid);
    if (valid) {
        QCOMPARE(strategyDisplayName(*strategy), name);
        QVERIFY(!error.isError());
    } else {
        QCOMPARE(int(error.kind), int(ErrorKind::InvalidInput));
        QVERIFY(error.source.isEmpty());  // a name, not a file
        QVERIFY2(error.cause.startsWith(QStringLiteral("unknown strategy '%1' (valid: ").arg(name)), qPrintable(error.cause));
        for (hs::Strategy s : hs::allStrategies())
            QVERIFY2(error.cause.contains(strategyDisplayName(s)), qPrintable(error.cause));
    }
}

void TestSettings::legacyLumaIndexLoads()
{
    QSettings store(m_dir.filePath("legacy.ini"), QSettings::IniFormat);
    store.setValue("histogram/luma", 1);
    HistogramSettings loaded;
    QCOMPARE(loaded.load(store), QStringList());
    QCOMPARE(loaded.display.luma, LumaCoefficients::Bt601);
}

void TestSettings::histogramModeRoundTrips_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("stored");
    QTest::newRow("overlay") << int(HistogramMode::Overlay) << "overlay";
    QTest::newRow("separate") << int(HistogramMode::Separate) << "separate";
    QTest::newRow("table") << int(HistogramMode::Table) << "table";
}

// The Histogram dock's display mode is remembered by name, with the other display settings.
void TestSettings::histogramModeRoundTrips()
{
    QFETCH(int, mode);
    QFETCH(QString, stored);
    HistogramSettings s;
    s.display.mode = HistogramMode(mode);
    s.display.logCounts = true;
    const QString ini = m_dir.filePath(QStringLiteral("mode-%1.ini").arg(QTest::currentDataTag()));
    {
        QSettings store(ini, QSettings::IniFormat);
        store.setValue("histogram/mode", QStringLiteral("poisoned"));
        s.save(store);
    }
    QSettings store(ini, QSettings::IniFormat);
    QCOMPARE(store.value("histogram/mode").toString(), stored);
    HistogramSettings loaded;
    loaded.display.mode = HistogramMode((mode + 1) % 3);   // load() replaces what was there
    QCOMPARE(loaded.load(store), QStringList());
    QCOMPARE(int(loaded.display.mode), mode);
    QVERIFY(loaded == s);
}

QTEST_MAIN(TestSettings)
#include "tst_settings.moc"
