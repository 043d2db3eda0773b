// histoscope: the desktop app.
#include "app/gui/HistogramExporter.h"
#include "app/gui/MainWindow.h"
#include "app/gui/ScopePanel.h"
#include "app/gui/Scopes.h"
#include "widgets/ImageCanvas.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QTimer>

#include <algorithm>
#include <cstdio>

namespace {

void describeApplication()
{
    QCoreApplication::setApplicationName(QStringLiteral("HistoScope"));
    QCoreApplication::setOrganizationName(QStringLiteral("HistoScope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(HISTOSCOPE_VERSION));
}

void addOptions(QCommandLineParser& parser)
{
    parser.setApplicationDescription(QStringLiteral("Exact GPU histograms of images, video and cameras."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("file", "An image, video or .npy file to open.");
    parser.addOptions({
        {"live", "Open a camera index, device path or GStreamer pipeline.", "SOURCE"},
        {"screenshot", "Save a screenshot of the window to FILE once the histogram is shown, then quit.", "FILE"},
        {"compare", "Run Compare Strategies once the histogram is shown."},
        {"equalize", "Open the equalization dialog once the histogram is shown."},
        {"match", "With --reference: open the equalization dialog matching the file to the reference."},
        {"reference", "Open FILE first and pin its histogram as the reference to compare with.", "FILE"},
        {"roi", "Count only the region X,Y,WIDTH,HEIGHT (pixels).", "X,Y,W,H"},
        {"scan", "Scan the whole video in the background once it is open (the timeline's statistics over time)."},
        {"seek", "Show frame N of a video once it is open.", "N"},
        {"play", "Start playing a video once it is open; with --screenshot, the picture is taken after --delay of playback."},
        {"scopes", "Show the Scopes dock (waveform, parade, vectorscope, 2-D histogram) in front; with --screenshot, each scope in a grid."},
        {"delay", "With --screenshot: wait MS milliseconds after the histogram is shown (default 400), e.g. to let a live source play.", "MS"},
    });
}

// --help and --version are answered without a window, so without a display (help2man, ssh, CI):
// a QApplication would abort first, unable to load the platform plugin. Anything else, errors
// included, is judged after QApplication has taken its own options (-platform, -style, …).
void answerWithoutDisplay(int argc, char** argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);
    QCommandLineParser probe;
    addOptions(probe);
    probe.parse(arguments);  // unknown options (QApplication's) are still passed over
    if (!probe.isSet("help") && !probe.isSet("help-all") && !probe.isSet("version"))
        return;
    QCoreApplication core(argc, argv);
    describeApplication();
    if (probe.isSet("help"))
        probe.showHelp(0);  // these exit
    if (probe.isSet("version"))
        probe.showVersion();
    probe.process(core);  // --help-all, with the Qt options a QCoreApplication knows
}

}  // namespace

int main(int argc, char** argv)
{
    answerWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    describeApplication();
    QCommandLineParser parser;
    addOptions(parser);
    parser.process(app);

    MainWindow window;
    window.show();
    if (parser.isSet("scopes"))
        QTimer::singleShot(0, window.scopesDock(), &QDockWidget::raise);   // once the docks are laid out
    auto openMain = [&] {
        if (parser.isSet("live"))
            window.openLive(parser.value("live"));
        else if (!parser.positionalArguments().isEmpty())
            window.openPath(parser.positionalArguments().first());
    };
    // --reference: that file's first histogram is pinned, then the main source opens.
    bool referencePending = parser.isSet("reference");
    if (referencePending)
        window.openPath(parser.value("reference"));
    else
        openMain();
    const QStringList roi = parser.value("roi").split(',');
    bool roiApplied = false;

    const QString screenshot = parser.value("screenshot");
    // Each picture is written whole or not at all, in the format its extension names; one that
    // cannot be is told on stderr and in the exit status.
    bool screenshotFailed = false;
    auto save = [&](const QImage& image, const QString& path) {
        const QByteArray format = QFileInfo(path).suffix().toLatin1();
        const Error error = HistogramExporter::writeImage(path, image, format.constData());
        if (error.isError()) {
            std::fprintf(stderr, "histoscope: %s\n", qPrintable(error.message()));
            screenshotFailed = true;
        }
    };
    bool done = false;
    auto finish = [&] {
        if (done || screenshot.isEmpty())
            return;
        done = true;
        const int delay = parser.isSet("delay") ? parser.value("delay").toInt() : 400;
        // The window first, as it plays (with --scopes, only the scope in front is counted), then
        // the grid of every scope, for which each kind is counted once more.
        auto grabWindow = [&] {
            QWidget* target = QApplication::activeModalWidget() ? QApplication::activeModalWidget() : &window;
            for (QWidget* w : QApplication::topLevelWidgets())
                if (w != &window && w->isVisible() && w->inherits("QDialog"))
                    target = w;
            save(target->grab().toImage(), screenshot);
        };
        auto grabGrid = [&] {
            // Every scope panel in a 2 x 2 grid next to the window's screenshot: NAME-grid.png.
            // Each kind drawn by a panel of its own at one size, from the last snapshot.
            const QList<ScopePanel*> panels = window.scopes()->panels();
            const QSize cell(640, 400);
            QImage grid(cell.width() * 2, cell.height() * ((panels.size() + 1) / 2), QImage::Format_RGB32);
            grid.fill(Qt::black);
            QPainter painter(&grid);
            for (int i = 0; i < panels.size(); ++i) {
                ScopePanel copy(panels[i]->kind());
                copy.setAttribute(Qt::WA_DontShowOnScreen);
                copy.setOptions(window.scopes()->options());
                copy.resize(cell);
                copy.show();
                if (window.scopes()->lastSnapshot())
                    copy.showSnapshot(window.scopes()->lastSnapshot());
                painter.drawPixmap((i % 2) * cell.width(), (i / 2) * cell.height(), copy.grab());
            }
            painter.end();
            const QFileInfo info(screenshot);
            save(grid, info.dir().filePath(info.completeBaseName() + QStringLiteral("-grid.") + info.suffix()));
        };
        QTimer::singleShot(std::max(0, delay), &app, [&, grabWindow, grabGrid] {
            grabWindow();
            if (!parser.isSet("scopes"))
                return app.exit(screenshotFailed ? 1 : 0);
            // Count every scope once (the hidden tabs too), then draw the grid.
            auto* once = new QObject(&window);
            QObject::connect(window.scopes(), &Scopes::snapshotShown, once, [once, grabGrid, &app, &window, &screenshotFailed] {
                // A live source's frames counted before every kind was asked for come first.
                if (window.scopes()->lastSnapshot()->settings.kinds != kAllScopeKinds)
                    return;
                once->deleteLater();
                QTimer::singleShot(100, &app, [grabGrid, &app, &screenshotFailed] {
                    grabGrid();
                    app.exit(screenshotFailed ? 1 : 0);
                });
            });
            window.scopes()->setCountAll(true);
        });
    };
    QObject::connect(&window, &MainWindow::snapshotShown, &window, [&] {
        if (referencePending) {
            referencePending = false;
            window.pinReference();
            openMain();
            return;
        }
        if (roi.size() == 4 && !roiApplied) {
            roiApplied = true;   // the next snapshot is the region's
            window.imageView()->setRoi(QRect(roi[0].toInt(), roi[1].toInt(), roi[2].toInt(), roi[3].toInt()));
            return;
        }
        static bool first = true;
        if (!first)
            return;
        first = false;
        if (parser.isSet("seek")) {
            const qint64 target = parser.value("seek").toLongLong();
            static bool sought = false;
            if (!sought) {
                sought = true;
                first = true;   // the sought frame's snapshot continues below
                window.seekTo(target);
                return;
            }
        }
        if (parser.isSet("play"))
            window.media()->play();
        if (parser.isSet("scan"))
            window.toggleScan();
        else if (parser.isSet("compare"))
            window.compareStrategies();
        else if (parser.isSet("equalize"))
            window.equalize();
        else if (parser.isSet("match"))
            window.matchToReference();
        else
            finish();
    });
    QObject::connect(&window, &MainWindow::comparisonShown, &window, finish);
    QObject::connect(&window, &MainWindow::scanFinished, &window, finish);
    QObject::connect(&window, &MainWindow::errorShown, &window, finish);
    if (parser.isSet("equalize") || parser.isSet("match"))
        QObject::connect(&window, &MainWindow::snapshotShown, &window, [&] { QTimer::singleShot(1500, &app, finish); });
    return app.exec();
}
