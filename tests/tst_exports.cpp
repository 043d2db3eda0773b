// Exports from the window: actions follow what is open, CSV/JSON/PNG written off the GUI thread
// and answered with exportFinished, the extension added when missing, failed writes reported,
// a video's frame index recorded (frame 0 included), every statistic of the Statistics panel in
// the CSV, and the PNG titled with the file, frame and region.
#include "app/core/CsvReader.h"
#include "app/core/RecordReader.h"
#include "app/gui/MainWindow.h"
#include "widgets/HistogramPanel.h"
#include "widgets/HistogramView.h"
#include "widgets/ImageCanvas.h"
#include "widgets/TablePanel.h"

#include "TestSupport.h"

#include <QAbstractButton>
#include <QAction>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

using namespace testsupport;

class TestExports : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void cleanup();
    void actionsFollowWhatIsOpen();
    void writesCsvJsonAndPlot();
    void extensionIsAddedWhenMissing_data();
    void extensionIsAddedWhenMissing();
    void failedWriteIsReported();
    void videoFrameZeroIsRecorded();
    void csvCarriesEveryStatisticOfThePanel_data();
    void csvCarriesEveryStatisticOfThePanel();
    void plotIsTitledWithTheFileAndRegion();
    void plotFollowsTheRememberedHistogramMode();

private:
    QString openRandomImage(int width, int height);
    bool waitForSnapshot(const std::function<void()>& trigger);
    Error runExport(const std::function<bool()>& start, QString* path = nullptr);

    QTemporaryDir m_dir;
    std::unique_ptr<MainWindow> m_window;
    std::mt19937_64 m_rng;
    cv::Mat m_image;   // the last image opened, as written
};

void TestExports::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_rng = seededRng();
    cv::theRNG().state = m_rng();
}

void TestExports::init()
{
    QSettings().clear();
    m_window = std::make_unique<MainWindow>();
    m_window->show();
}

void TestExports::cleanup() { m_window.reset(); }

QString TestExports::openRandomImage(int width, int height)
{
    m_image = cv::Mat(height, width, CV_8UC3);
    cv::randu(m_image, cv::Scalar::all(0), cv::Scalar::all(256));
    const QString path = m_dir.filePath(QStringLiteral("export%1x%2.png").arg(width).arg(height));
    if (!cv::imwrite(path.toStdString(), m_image))
        return {};
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(path);
    if (!shown.wait(20000) && shown.isEmpty())
        return {};
    return path;
}

bool TestExports::waitForSnapshot(const std::function<void()>& trigger)
{
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    trigger();
    return shown.wait(20000) || !shown.isEmpty();
}

Error TestExports::runExport(const std::function<bool()>& start, QString* path)
{
    QSignalSpy finished(m_window.get(), &MainWindow::exportFinished);
    if (!start())
        return Error::make(ErrorKind::InvalidInput, {}, QStringLiteral("not started"));
    if (!finished.wait(20000) && finished.isEmpty())
        return Error::make(ErrorKind::WriteFailed, {}, QStringLiteral("no answer"));
    if (path)
        *path = finished.at(0).at(0).toString();
    return finished.at(0).at(1).value<Error>();
}

void TestExports::actionsFollowWhatIsOpen()
{
    QCOMPARE(m_window->exportActions().size(), 3);
    for (QAction* a : m_window->exportActions())
        QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
    const QString csv = m_dir.filePath("nothing.csv");
    QVERIFY(!m_window->exportCsv(csv));
    QVERIFY(!m_window->exportJson(m_dir.filePath("nothing.json")));
    QVERIFY(!m_window->exportPlot(m_dir.filePath("nothing.png")));
    QVERIFY(!QFile::exists(csv));
    QVERIFY(!openRandomImage(20, 10).isEmpty());
    for (QAction* a : m_window->exportActions())
        QVERIFY2(a->isEnabled(), qPrintable(a->text()));
}

void TestExports::writesCsvJsonAndPlot()
{
    const QString source = openRandomImage(50, 40);
    QVERIFY(!source.isEmpty());
    // The oracle: red counts of the image as written (OpenCV's BGR: plane 2).
    std::vector<qint64> red(256, 0);
    for (int y = 0; y < m_image.rows; ++y)
        for (int x = 0; x < m_image.cols; ++x)
            ++red[m_image.at<cv::Vec3b>(y, x)[2]];

    const QString csv = m_dir.filePath("h.csv"), json = m_dir.filePath("h.json"), png = m_dir.filePath("h.png");
    QVERIFY(!runExport([&] { return m_window->exportCsv(csv); }).isError());
    QVERIFY(!runExport([&] { return m_window->exportJson(json); }).isError());
    QVERIFY(!runExport([&] { return m_window->exportPlot(png, QSize(900, 420)); }).isError());

    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(c.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);  // header, R, G, B, luma
    QVERIFY(lines[1].contains(",R,u8,256,"));
    QVERIFY(lines[1].endsWith("," + QString::number(red[255])));

    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonArray records = QJsonDocument::fromJson(j.readAll()).array();
    QCOMPARE(records.size(), 4);
    const QJsonObject r = records[0].toObject();
    QCOMPARE(r["channel"].toString(), QStringLiteral("R"));
    QCOMPARE(r["file"].toString(), source);
    QVERIFY(!r.contains("frame"));   // a still image has no frame index
    const QJsonArray counts = r["counts"].toArray();
    QCOMPARE(counts.size(), 256);
    for (int v = 0; v < 256; ++v)
        QCOMPARE(counts[v].toInteger(), red[std::size_t(v)]);
    // Issue 20: the keys in docs/SCHEMA.md's order, `record` first, as the command line writes
    // them (QJsonDocument sorted them: bins, binning, channel, counts, file, …).
    QVERIFY(j.seek(0));
    const QByteArray text = j.readAll();
    const qsizetype start = text.indexOf("{\"record\":\"histogram\"");
    QVERIFY2(start > 0, text.left(200).constData());
    const QByteArray first = text.mid(start, text.indexOf("{\"record\"", start + 1) - start);
    qsizetype last = -1;
    for (const char* key : {"record", "schema", "file", "channel", "type", "bins", "lo", "hi", "binning", "counts", "statistics",
                            "count", "exact", "coarse", "min", "max", "mean", "std", "std_sample", "median", "mode", "percentiles",
                            "clipped_low", "clipped_high", "entropy_bits", "below", "above", "nan"}) {
        const qsizetype at = first.indexOf('"' + QByteArray(key) + "\":");
        QVERIFY2(at > last, key);
        last = at;
    }

    const QImage plot(png);
    QVERIFY(!plot.isNull());
    // The chosen size, axes included: the plot equals the view painted at that size, under a
    // title naming the file and the region.
    QCOMPARE(plot.size(), QSize(900, 420));
    QCOMPARE(plot.convertToFormat(QImage::Format_ARGB32),
             m_window->histogramView()->render(QSize(900, 420), QStringLiteral("export50x40.png — whole frame")).convertToFormat(QImage::Format_ARGB32));
}

void TestExports::extensionIsAddedWhenMissing_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("plot gets .png") << "png";
    QTest::newRow("CSV gets .csv") << "csv";
    QTest::newRow("JSON gets .json") << "json";
}

void TestExports::extensionIsAddedWhenMissing()
{
    QFETCH(QString, format);
    QVERIFY(!openRandomImage(16, 12).isEmpty());
    const QString bare = m_dir.filePath("bare_" + format);
    QString written;
    const Error error = runExport(
        [&] {
            return format == "png" ? m_window->exportPlot(bare) : format == "csv" ? m_window->exportCsv(bare) : m_window->exportJson(bare);
        },
        &written);
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(written, bare + "." + format);
    QVERIFY(QFile::exists(written));
    QVERIFY(!QFile::exists(bare));
    if (format == "png")
        QVERIFY(!QImage(written).isNull());
}

void TestExports::failedWriteIsReported()
{
    QVERIFY(!openRandomImage(16, 12).isEmpty());
    const QString path = m_dir.filePath("no/such/folder/h.json");
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    const Error error = runExport([&] { return m_window->exportJson(path); });
    QCOMPARE(error.kind, ErrorKind::WriteFailed);
    QCOMPARE(error.source, path);
    QCOMPARE(errors.count(), 1);
    QVERIFY2(m_window->errorText().startsWith(path), qPrintable(m_window->errorText()));
    // The next successful export clears it.
    QVERIFY(!runExport([&] { return m_window->exportJson(m_dir.filePath("ok.json")); }).isError());
    QVERIFY(m_window->errorText().isEmpty());
}

void TestExports::videoFrameZeroIsRecorded()
{
    const QString path = m_dir.filePath("three.avi");
    {
        cv::VideoWriter writer(path.toStdString(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0, cv::Size(32, 24));
        if (!writer.isOpened())
            QSKIP("no MJPEG/AVI writer in this OpenCV build");
        for (int i = 0; i < 3; ++i)
            writer.write(cv::Mat(24, 32, CV_8UC3, cv::Scalar(50 * i, 100, 200)));
    }
    QSignalSpy shown(m_window.get(), &MainWindow::snapshotShown);
    m_window->openPath(path);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 20000);
    QCOMPARE(m_window->lastSnapshot()->frameIndex, qint64(0));
    const QString json = m_dir.filePath("frame0.json");
    QVERIFY(!runExport([&] { return m_window->exportJson(json); }).isError());
    QFile j(json);
    QVERIFY(j.open(QIODevice::ReadOnly));
    const QJsonArray records = QJsonDocument::fromJson(j.readAll()).array();
    QVERIFY(!records.isEmpty());
    for (const QJsonValue r : records)
        QCOMPARE(r.toObject()["frame"].toInteger(-1), qint64(0));
    // The plot's title names the frame, frame 0 included.
    const QString png = m_dir.filePath("frame0.png");
    QVERIFY(!runExport([&] { return m_window->exportPlot(png, QSize(640, 320)); }).isError());
    QCOMPARE(QImage(png).convertToFormat(QImage::Format_ARGB32),
             m_window->histogramView()->render(QSize(640, 320), QStringLiteral("three.avi — frame 0 — whole frame")).convertToFormat(QImage::Format_ARGB32));
}

void TestExports::csvCarriesEveryStatisticOfThePanel_data()
{
    QTest::addColumn<int>("cvType");
    QTest::addColumn<QString>("extension");
    QTest::addColumn<QRect>("region");
    QTest::newRow("8-bit colour, whole frame") << int(CV_8UC3) << "png" << QRect();
    QTest::newRow("16-bit gray, a region") << int(CV_16UC1) << "png" << QRect(3, 4, 30, 20);
    QTest::newRow("float colour: estimates") << int(CV_32FC3) << "tiff" << QRect();
}

namespace {

// The precision a number is shown with: half a unit of its last digit (for "0.123" 0.0005).
double shownPrecision(QString text)
{
    text.remove(QStringLiteral("≈"));
    const qsizetype e = text.indexOf(QLatin1Char('e'), 0, Qt::CaseInsensitive);
    const int exponent = e >= 0 ? text.mid(e + 1).toInt() : 0;
    const QString mantissa = e >= 0 ? text.left(e) : text;
    const qsizetype dot = mantissa.indexOf(QLatin1Char('.'));
    const int decimals = dot >= 0 ? int(mantissa.size() - dot - 1) : 0;
    return 0.5 * std::pow(10.0, exponent - decimals);
}

}  // namespace

// Each number of the Statistics panel is in the CSV, by the one definition (the CSV exactly,
// the panel as it rounds it), and the CSV still reads back as the schema's records.
void TestExports::csvCarriesEveryStatisticOfThePanel()
{
    QFETCH(int, cvType);
    QFETCH(QString, extension);
    QFETCH(QRect, region);
    cv::Mat image(37, 53, cvType);
    if (CV_MAT_DEPTH(cvType) == CV_32F)
        cv::randn(image, cv::Scalar::all(0.5), cv::Scalar::all(0.3));   // some outside [0, 1)
    else
        cv::randu(image, cv::Scalar::all(0), cv::Scalar::all(CV_MAT_DEPTH(cvType) == CV_16U ? 65536 : 256));
    const QString base = m_dir.filePath(QStringLiteral("stats_%1").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QRegularExpression("[^a-z0-9]+"), "_")));
    const QString file = base + '.' + extension;
    QVERIFY(cv::imwrite(file.toStdString(), image));
    QVERIFY(waitForSnapshot([&] { m_window->openPath(file); }));
    if (!region.isNull())
        QVERIFY(waitForSnapshot([&] { m_window->imageView()->setRoi(region); }));
    QVERIFY(m_window->lastSnapshot() && m_window->lastSnapshot()->roi.has_value() == !region.isNull());

    const QString csv = base + ".csv";
    QFile poisoned(csv);
    QVERIFY(poisoned.open(QIODevice::WriteOnly) && poisoned.write("poison\n") > 0);
    poisoned.close();
    QVERIFY(!runExport([&] { return m_window->exportCsv(csv); }).isError());

    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    CsvReader reader(&f);
    QList<QByteArray> header, row;
    Error error;
    QVERIFY(reader.readRow(header, error));
    QHash<QString, QHash<QString, QByteArray>> byChannel;   // channel -> column -> field
    while (reader.readRow(row, error)) {
        QCOMPARE(row.size(), header.size());
        QHash<QString, QByteArray> fields;
        for (int i = 0; i < header.size(); ++i)
            fields[QString::fromUtf8(header[i])] = row[i];
        byChannel[QString::fromUtf8(fields["channel"])] = fields;
    }
    QVERIFY2(!error.isError(), qPrintable(error.message()));

    // The panel's rows and the CSV's columns: every row the panel shows has its column.
    const QHash<QString, QPair<QString, double>> columnOf{
        {"count", {"count", 1}}, {"min", {"min", 1}}, {"max", {"max", 1}}, {"mean", {"mean", 1}},
        {"std dev (population)", {"std", 1}}, {"std dev (sample)", {"std_sample", 1}}, {"median", {"median", 1}},
        {"mode", {"mode", 1}}, {"p1", {"p1", 1}}, {"p5", {"p5", 1}}, {"p25", {"p25", 1}}, {"p75", {"p75", 1}},
        {"p95", {"p95", 1}}, {"clipped low %", {"clipped_low", 100}}, {"clipped high %", {"clipped_high", 100}},
        {"entropy (bits)", {"entropy_bits", 1}}, {"below range", {"below", 1}}, {"above range", {"above", 1}},
        {"NaN", {"nan", 1}}};
    QTableWidget* table = m_window->statisticsPanel()->table();
    QCOMPARE(byChannel.size(), table->columnCount());
    int compared = 0;
    for (int c = 0; c < table->columnCount(); ++c) {
        const QString channel = table->horizontalHeaderItem(c)->text();
        QVERIFY2(byChannel.contains(channel), qPrintable(channel));
        const auto& fields = byChannel[channel];
        const bool exact = fields.value("exact") == "true";
        QVERIFY(fields.value("exact") == "true" || fields.value("exact") == "false");
        // Exact where the panel shows no estimate: 8-bit at one bin per value, not 16-bit in
        // 256 bins nor floats.
        QCOMPARE(exact, !m_window->statisticsPanel()->cell(m_window->statisticsPanel()->rowOf("mean"), c).contains(QStringLiteral("≈")));
        QCOMPARE(exact, CV_MAT_DEPTH(cvType) == CV_8U);
        for (int r = 0; r < table->rowCount(); ++r) {
            const QString label = table->verticalHeaderItem(r)->text();
            if (label == QStringLiteral("precision")) {
                // Not a number of its own: "exact", or the bin width (hi - lo) / bins, marked
                // coarse where the CSV's `coarse` is true.
                const QString shown = m_window->statisticsPanel()->cell(r, c);
                if (exact) {
                    QCOMPARE(shown, QStringLiteral("exact"));
                } else {
                    const double width = (fields.value("hi").toDouble() - fields.value("lo").toDouble()) / fields.value("bins").toDouble();
                    QVERIFY2(shown.endsWith(QStringLiteral("bins of ") + QString::number(width, 'g', 3)), qPrintable(shown));
                    QCOMPARE(shown.startsWith(QStringLiteral("coarse")), fields.value("coarse") == "true");
                }
                ++compared;
                continue;
            }
            QVERIFY2(columnOf.contains(label), qPrintable("the CSV has no column for the panel's \"" + label + "\""));
            const auto [column, scale] = columnOf[label];
            QVERIFY2(fields.contains(column), qPrintable(column));
            const QString shown = m_window->statisticsPanel()->cell(r, c);
            const QByteArray written = fields[column];
            if (shown == QStringLiteral("—")) {   // unknown: empty in the CSV
                QVERIFY2(written.isEmpty(), qPrintable(label + ": " + written));
                continue;
            }
            bool ok = false;
            const double value = written.toDouble(&ok) * scale;
            QVERIFY2(ok, qPrintable(label + ": " + written));
            const double panel = QString(shown).remove(QStringLiteral("≈")).toDouble(&ok);
            QVERIFY2(ok, qPrintable(label + ": " + shown));
            // An estimate ("≈") may be rounded to the decimal place of the bin width, as fine as
            // the bins tell it.
            const double binWidth = (fields.value("hi").toDouble() - fields.value("lo").toDouble()) / fields.value("bins").toDouble();
            const double rounding = shown.startsWith(QStringLiteral("≈")) ? 0.5 * std::pow(10.0, std::floor(std::log10(binWidth))) : 0;
            const double tolerance = std::max(shownPrecision(shown), rounding) + 1e-9 * std::abs(value);
            QVERIFY2(std::abs(value - panel) <= tolerance,
                     qPrintable(QStringLiteral("%1 %2: panel %3, CSV %4").arg(channel, label, shown, QString::fromUtf8(written))));
            ++compared;
        }
    }
    QCOMPARE(compared, table->columnCount() * table->rowCount() - [&] {
        int unknown = 0;
        for (int c = 0; c < table->columnCount(); ++c)
            for (int r = 0; r < table->rowCount(); ++r)
                unknown += m_window->statisticsPanel()->cell(r, c) == QStringLiteral("—");
        return unknown;
    }());

    // What merge reads: the records of the schema, the counts of the snapshot.
    QVERIFY(f.seek(0));
    RecordReader records(&f, csv);
    RecordLine line;
    int read = 0;
    const auto channels = m_window->lastSnapshot()->plot;
    while (records.next(line, error)) {
        QCOMPARE(line.record.channel, channels[read].name);
        QCOMPARE(qsizetype(line.record.histogram.counts.size()), channels[read].counts.size());
        for (qsizetype b = 0; b < channels[read].counts.size(); ++b)
            QCOMPARE(double(line.record.histogram.counts[std::size_t(b)]), channels[read].counts[b]);
        ++read;
    }
    QVERIFY2(!error.isError(), qPrintable(error.message()));
    QCOMPARE(read, int(channels.size()));
}

void TestExports::plotIsTitledWithTheFileAndRegion()
{
    QVERIFY(!openRandomImage(50, 40).isEmpty());
    QVERIFY(waitForSnapshot([&] { m_window->imageView()->setRoi(QRect(5, 6, 20, 10)); }));
    const QString png = m_dir.filePath("titled.png");
    QFile poisoned(png);
    QVERIFY(poisoned.open(QIODevice::WriteOnly) && poisoned.write("poison") > 0);
    poisoned.close();
    QVERIFY(!runExport([&] { return m_window->exportPlot(png, QSize(800, 400)); }).isError());
    const QString title = QStringLiteral("export50x40.png — region 20 × 10 at (5, 6)");
    const QImage plot(png);
    QCOMPARE(plot.size(), QSize(800, 400));
    HistogramView* view = m_window->histogramView();
    QCOMPARE(plot.convertToFormat(QImage::Format_ARGB32), view->render(QSize(800, 400), title).convertToFormat(QImage::Format_ARGB32));
    // The title is painted: text where an untitled plot has none.
    const QRect strip = view->titleRect(QSize(800, 400), title).toAlignedRect();
    QVERIFY(!strip.isEmpty());
    const QImage untitled = view->render(QSize(800, 400));
    int text = 0, before = 0;
    for (int y = strip.top(); y <= strip.bottom(); ++y)
        for (int x = strip.left(); x <= strip.right(); ++x) {
            text += plot.pixelColor(x, y).lightness() > 120;
            before += untitled.pixelColor(x, y).lightness() > 120;
        }
    QVERIFY2(text > before + 100, qPrintable(QStringLiteral("%1 / %2").arg(text).arg(before)));
}

// The mode picked on the Histogram dock's bar is what the PNG shows (separate plots as
// separate bands; the table's plot is the overlay), and the next window starts in it.
void TestExports::plotFollowsTheRememberedHistogramMode()
{
    QVERIFY(!openRandomImage(40, 30).isEmpty());
    HistogramPanel* panel = m_window->histogramPanel();
    QCOMPARE(panel->mode(), HistogramPanel::Mode::Overlay);   // the default
    QTest::mouseClick(panel->modeButton(HistogramPanel::Mode::Separate), Qt::LeftButton);
    QCOMPARE(QSettings().value("histogram/mode").toString(), QStringLiteral("separate"));
    const QSize size(700, 500);
    const QString png = m_dir.filePath("separate.png");
    QVERIFY(!runExport([&] { return m_window->exportPlot(png, size); }).isError());
    HistogramView* view = m_window->histogramView();
    QCOMPARE(view->bands(size).size(), 4);   // R, G, B and luma
    QCOMPARE(QImage(png).convertToFormat(QImage::Format_ARGB32),
             view->render(size, QStringLiteral("export40x30.png — whole frame")).convertToFormat(QImage::Format_ARGB32));

    QTest::mouseClick(panel->modeButton(HistogramPanel::Mode::Table), Qt::LeftButton);
    QCOMPARE(QSettings().value("histogram/mode").toString(), QStringLiteral("table"));
    QVERIFY(panel->table()->isVisible());
    QCOMPARE(view->bands(size).size(), 1);

    MainWindow next;
    QCOMPARE(next.histogramPanel()->mode(), HistogramPanel::Mode::Table);
    QVERIFY(next.histogramPanel()->modeButton(HistogramPanel::Mode::Table)->isChecked());
}

QTEST_MAIN(TestExports)
#include "tst_exports.moc"
