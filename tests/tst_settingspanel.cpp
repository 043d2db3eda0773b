// The settings panel shows and returns the same HistogramSettings value, for the values
// tst_settings round-trips through QSettings; the GPU's choices follow the machine: without a
// device no GPU strategy can be picked (each says why) and "Use the GPU" is not offered ticked,
// while the stored choice is kept for a machine that has one.
#include "app/gui/SettingsPanel.h"

#include "SettingsRows.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QtTest>

class TestSettingsPanel : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data() { settingsrows::addRows(); }
    void roundTrip();
    void gpuChoicesFollowTheMachine_data();
    void gpuChoicesFollowTheMachine();
    void channelBoxesFollowTheImage_data();
    void channelBoxesFollowTheImage();
};

void TestSettingsPanel::roundTrip()
{
    const HistogramSettings s = settingsrows::currentRow();
    SettingsPanel panel;
    panel.setSettings(s);
    QVERIFY(panel.settings() == s);
}

void TestSettingsPanel::gpuChoicesFollowTheMachine_data()
{
    QTest::addColumn<bool>("present");
    QTest::addColumn<bool>("useGpu");
    QTest::addColumn<bool>("gpuStrategiesOffered");
    QTest::addColumn<QString>("why");
    QTest::newRow("no CUDA device") << false << true << false << "no CUDA device was found";
    QTest::newRow("no CUDA device, GPU off") << false << false << false << "no CUDA device was found";
    QTest::newRow("a device, Use the GPU off") << true << false << false << "Use the GPU";
    QTest::newRow("a device, Use the GPU on") << true << true << true << "";
}

void TestSettingsPanel::gpuChoicesFollowTheMachine()
{
    QFETCH(bool, present);
    QFETCH(bool, useGpu);
    QFETCH(bool, gpuStrategiesOffered);
    QFETCH(QString, why);
    HistogramSettings s;
    s.counting.useGpu = useGpu;
    s.counting.bins = 128;
    SettingsPanel panel;
    panel.setGpuAvailability(GpuAvailability{present, present ? QString() : QStringLiteral("no CUDA device was found")});
    panel.setSettings(s);
    auto* strategy = panel.findChild<QComboBox*>("strategy");
    auto* model = qobject_cast<QStandardItemModel*>(strategy->model());
    QVERIFY(strategy && model);
    QCOMPARE(strategy->count(), int(hs::allStrategies().size()));
    for (int i = 0; i < strategy->count(); ++i) {
        const auto kind = hs::Strategy(strategy->itemData(i).toInt());
        const QString tip = strategy->itemData(i, Qt::ToolTipRole).toString();
        const QString name = strategy->itemText(i);
        if (!hs::isGpuStrategy(kind)) {
            QVERIFY2(model->item(i)->isEnabled(), qPrintable(name));   // auto and cpu, always
            QVERIFY(tip.isEmpty());
            continue;
        }
        QCOMPARE(model->item(i)->isEnabled(), gpuStrategiesOffered);
        QCOMPARE(panel.strategyUnavailableReason(kind), tip);
        if (gpuStrategiesOffered)
            QVERIFY2(tip.isEmpty(), qPrintable(name + ": " + tip));
        else
            QVERIFY2(tip.contains(why), qPrintable(name + ": " + tip));
    }
    // Not offered as ticked without a device; the stored choice stays in the value.
    auto* gpu = panel.findChild<QCheckBox*>("useGpu");
    QVERIFY(gpu);
    QCOMPARE(gpu->isEnabled(), present);
    QCOMPARE(gpu->isChecked(), present && useGpu);
    if (!present)
        QVERIFY(gpu->toolTip().contains(QStringLiteral("no CUDA device was found")));
    QList<HistogramSettings> changed;
    connect(&panel, &SettingsPanel::settingsChanged, this, [&changed](const HistogramSettings& e) { changed << e; });
    panel.findChild<QSpinBox*>("bins")->setValue(64);
    QCOMPARE(changed.size(), 1);
    const HistogramSettings edited = changed.first();
    QCOMPARE(edited.counting.bins, 64);
    QCOMPARE(edited.counting.useGpu, useGpu);
    QCOMPARE(panel.settings().counting.useGpu, useGpu);
}

// Only the image's channels are offered, a gray image's as "Gray"; a hidden channel keeps its
// setting for the next image that has it.
void TestSettingsPanel::channelBoxesFollowTheImage_data()
{
    QTest::addColumn<int>("channels");
    QTest::addColumn<QStringList>("offered");
    QTest::newRow("before any image") << 0 << QStringList{"R", "G", "B", "A"};
    QTest::newRow("gray") << 1 << QStringList{"Gray"};
    QTest::newRow("gray and alpha") << 2 << QStringList{"Gray", "A"};
    QTest::newRow("RGB") << 3 << QStringList{"R", "G", "B"};
    QTest::newRow("RGBA") << 4 << QStringList{"R", "G", "B", "A"};
}

void TestSettingsPanel::channelBoxesFollowTheImage()
{
    QFETCH(int, channels);
    QFETCH(QStringList, offered);
    HistogramSettings s;
    s.counting.channelMask = 0xB;  // R, G and A ticked
    SettingsPanel panel;
    panel.setSettings(s);
    panel.setImageChannels(4);
    panel.setImageChannels(channels);
    QStringList shown;
    for (const char* name : {"channelR", "channelG", "channelB", "channelA"}) {
        auto* box = panel.findChild<QCheckBox*>(QString::fromLatin1(name));
        QVERIFY(box);
        if (!box->isHidden())
            shown << box->text();
    }
    QCOMPARE(shown, offered);
    QCOMPARE(panel.settings().counting.channelMask, 0xBu);
}

QTEST_MAIN(TestSettingsPanel)
#include "tst_settingspanel.moc"
