// The scopes' options as a value: load/save round trips through QSettings on their own and as
// part of HistogramSettings, names (not numbers) in the file, and unknown or out-of-range stored
// values reported and replaced by their defaults.
#include "app/core/HistogramSettings.h"
#include "app/core/ScopeOptions.h"

#include <QTemporaryDir>
#include <QtTest>

class TestScopeOptions : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data();
    void roundTrip();
    void composedIntoHistogramSettings();
    void badStoredValuesAreReported_data();
    void badStoredValuesAreReported();

private:
    QTemporaryDir m_dir;
};

namespace {

ScopeOptions everythingChanged()
{
    ScopeOptions o;
    o.waveform = {2.5, true};
    o.parade = {0.25, true};
    o.vectorscope = {64.0, true};
    o.histogram2dLog = false;
    o.waveformGraticule = {ScopeScale::Percent, ScopeRange::Legal};
    o.paradeGraticule = {ScopeScale::CodeValues, ScopeRange::Legal};
    o.rgbWaveform = true;
    o.targets = ScopeTargets::Bars100;
    o.trace = ScopeTrace::PixelColours;
    o.skinToneLine = false;
    o.pair = ScopePair::GreenBlue;
    o.exposure = -3.5;
    o.floatAxis = ScopeFloatAxis::Unit;
    o.tab = 3;
    return o;
}

}  // namespace

void TestScopeOptions::roundTrip_data()
{
    QTest::addColumn<int>("row");
    QTest::newRow("defaults") << 0;
    QTest::newRow("every option changed") << 1;
    QTest::newRow("percent full range, red-green, parade tab") << 2;
}

void TestScopeOptions::roundTrip()
{
    QFETCH(int, row);
    ScopeOptions o;
    if (row == 1)
        o = everythingChanged();
    if (row == 2) {
        o.waveformGraticule.scale = ScopeScale::Percent;
        o.pair = ScopePair::RedGreen;
        o.tab = 1;
        o.exposure = 10;
    }
    const QString ini = m_dir.filePath(QStringLiteral("scopes-%1.ini").arg(row));
    {
        QSettings store(ini, QSettings::IniFormat);
        store.setValue("scopes/exposure", 99);   // poisoned: save must replace it
        o.save(store);
    }
    QSettings store(ini, QSettings::IniFormat);
    ScopeOptions loaded = everythingChanged();   // load starts from the defaults
    if (row == 1)
        loaded = ScopeOptions{};
    QCOMPARE(loaded.load(store), QStringList());
    QVERIFY(loaded == o);
    // Names in the file.
    QCOMPARE(store.value("scopes/waveform/scale").toString(), o.waveformGraticule.scale == ScopeScale::Percent ? "percent" : "codes");
    QVERIFY(!store.value("scopes/histogram2d/pair").toString().isEmpty());
}

void TestScopeOptions::composedIntoHistogramSettings()
{
    HistogramSettings s;
    s.counting.bins = 1024;
    s.scopes = everythingChanged();
    const QString ini = m_dir.filePath(QStringLiteral("composed.ini"));
    {
        QSettings store(ini, QSettings::IniFormat);
        s.save(store);
    }
    QSettings store(ini, QSettings::IniFormat);
    QCOMPARE(store.value("scopes/vectorscope/trace").toString(), QStringLiteral("pixel-colours"));
    QCOMPARE(store.value("scopes/tab").toString(), QStringLiteral("histogram2d"));
    HistogramSettings loaded;
    QCOMPARE(loaded.load(store), QStringList());
    QVERIFY(loaded == s);
    QVERIFY(loaded.scopes == everythingChanged());
    QVERIFY(!(loaded.scopes == ScopeOptions{}));
}

void TestScopeOptions::badStoredValuesAreReported_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QVariant>("value");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("gain too large") << "waveform/gain" << QVariant(1000.0) << "1000";
    QTest::newRow("gain not a number") << "parade/gain" << QVariant(QStringLiteral("bright")) << "bright";
    QTest::newRow("exposure") << "exposure" << QVariant(-40) << "-40";
    QTest::newRow("scale") << "waveform/scale" << QVariant(QStringLiteral("ire")) << "codes, percent";
    QTest::newRow("range") << "parade/range" << QVariant(QStringLiteral("smpte")) << "full, legal";
    QTest::newRow("targets") << "vectorscope/targets" << QVariant(QStringLiteral("50")) << "75, 100";
    QTest::newRow("trace") << "vectorscope/trace" << QVariant(QStringLiteral("green")) << "classic, pixel-colours";
    QTest::newRow("pair") << "histogram2d/pair" << QVariant(QStringLiteral("R-A")) << "hue-saturation";
    QTest::newRow("float axis") << "floatAxis" << QVariant(QStringLiteral("log")) << "fit, unit";
    QTest::newRow("tab") << "tab" << QVariant(QStringLiteral("histogram")) << "vectorscope";
}

void TestScopeOptions::badStoredValuesAreReported()
{
    QFETCH(QString, key);
    QFETCH(QVariant, value);
    QFETCH(QString, mentions);
    QSettings store(m_dir.filePath(QStringLiteral("bad-%1.ini").arg(QTest::currentDataTag()).replace(' ', '-')), QSettings::IniFormat);
    everythingChanged().save(store);
    store.setValue("scopes/" + key, value);
    HistogramSettings loaded;
    const QStringList notices = loaded.load(store);
    QCOMPARE(notices.size(), 1);
    QVERIFY2(notices.first().contains(mentions), qPrintable(notices.first()));
    QVERIFY2(notices.first().contains(key), qPrintable(notices.first()));
    // That one value is the default; every other is as saved.
    ScopeOptions expected = everythingChanged();
    const ScopeOptions d;
    if (key == "waveform/gain") expected.waveform.gain = d.waveform.gain;
    if (key == "parade/gain") expected.parade.gain = d.parade.gain;
    if (key == "exposure") expected.exposure = d.exposure;
    if (key == "waveform/scale") expected.waveformGraticule.scale = d.waveformGraticule.scale;
    if (key == "parade/range") expected.paradeGraticule.range = d.paradeGraticule.range;
    if (key == "vectorscope/targets") expected.targets = d.targets;
    if (key == "vectorscope/trace") expected.trace = d.trace;
    if (key == "histogram2d/pair") expected.pair = d.pair;
    if (key == "floatAxis") expected.floatAxis = d.floatAxis;
    if (key == "tab") expected.tab = d.tab;
    QVERIFY(loaded.scopes == expected);
}

QTEST_MAIN(TestScopeOptions)
#include "tst_scopeoptions.moc"
