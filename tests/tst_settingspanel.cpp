// The settings panel shows and returns the same HistogramSettings value, for the values
// tst_settings round-trips through QSettings.
#include "app/gui/SettingsPanel.h"

#include "SettingsRows.h"

#include <QtTest>

class TestSettingsPanel : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data() { settingsrows::addRows(); }
    void roundTrip();
};

void TestSettingsPanel::roundTrip()
{
    const HistogramSettings s = settingsrows::currentRow();
    SettingsPanel panel;
    panel.setSettings(s);
    QVERIFY(panel.settings() == s);
}

QTEST_MAIN(TestSettingsPanel)
#include "tst_settingspanel.moc"
