// histoscope: the desktop app.
#include "app/gui/MainWindow.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("HistoScope"));
    QApplication::setOrganizationName(QStringLiteral("HistoScope"));
    QApplication::setApplicationVersion(QStringLiteral(HISTOSCOPE_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Exact GPU histograms of images, video and cameras."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("file", "An image, video or .npy file to open.");
    parser.addOptions({
        {"live", "Open a camera index, device path or GStreamer pipeline.", "SOURCE"},
        {"screenshot", "Save a screenshot of the window to FILE once the histogram is shown, then quit.", "FILE"},
        {"compare", "Run Compare Strategies once the histogram is shown."},
        {"equalize", "Open the equalization dialog once the histogram is shown."},
    });
    parser.process(app);

    MainWindow window;
    window.show();
    if (parser.isSet("live"))
        window.openLive(parser.value("live"));
    else if (!parser.positionalArguments().isEmpty())
        window.openPath(parser.positionalArguments().first());

    const QString screenshot = parser.value("screenshot");
    bool done = false;
    auto finish = [&] {
        if (done || screenshot.isEmpty())
            return;
        done = true;
        QTimer::singleShot(400, &app, [&] {
            QWidget* target = QApplication::activeModalWidget() ? QApplication::activeModalWidget() : &window;
            for (QWidget* w : QApplication::topLevelWidgets())
                if (w != &window && w->isVisible() && w->inherits("QDialog"))
                    target = w;
            target->grab().save(screenshot);
            app.quit();
        });
    };
    QObject::connect(&window, &MainWindow::snapshotShown, &window, [&] {
        static bool first = true;
        if (!first)
            return;
        first = false;
        if (parser.isSet("compare"))
            window.compareStrategies();
        else if (parser.isSet("equalize"))
            window.equalize();
        else
            finish();
    });
    QObject::connect(&window, &MainWindow::comparisonShown, &window, finish);
    QObject::connect(&window, &MainWindow::errorShown, &window, finish);
    if (parser.isSet("equalize"))
        QObject::connect(&window, &MainWindow::snapshotShown, &window, [&] { QTimer::singleShot(1500, &app, finish); });
    return app.exec();
}
