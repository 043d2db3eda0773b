// The `batch --plot-dir` SVG read back as a viewer would: it must parse as XML, its axis labels
// must name the bin edges and the highest count that the test itself put in (random counts, an
// oracle computed here, never by the plot's code), its title must survive any file name, and
// its legend must list the channels when there is more than one. HISTOSCOPE_SEED=N replays a run.
#include "app/cli/HistogramPlotSvg.h"

#include "gpu/testing/TestCases.h"

#include <QXmlStreamReader>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>

namespace {

std::uint64_t seed()
{
    static const std::uint64_t value = [] {
        const std::uint64_t s = hs::testing::runSeed();
        qInfo("tst_histogramplotsvg seed %llu (replay with HISTOSCOPE_SEED=%llu)", static_cast<unsigned long long>(s),
              static_cast<unsigned long long>(s));
        return s;
    }();
    return value;
}

struct Binned {
    double lo, hi;
    int bins;
};

// Histograms that outlive the NamedChannel pointers into them.
struct Channels {
    std::deque<hs::ChannelHistogram> histograms;
    QVector<NamedChannel> named;
    std::uint64_t peak = 0;
};

// Fresh random counts in [1, countMax] per bin, and the peak taken from them.
Channels makeChannels(const QStringList& names, const QList<Binned>& binning, std::uint64_t countMax)
{
    std::mt19937_64 rng = hs::testing::caseRng(seed(), QTest::currentDataTag());
    std::uniform_int_distribution<std::uint64_t> count(1, countMax);
    Channels out;
    for (qsizetype i = 0; i < names.size(); ++i) {
        const Binned& b = binning[std::min(i, binning.size() - 1)];
        hs::ChannelHistogram& h = out.histograms.emplace_back();
        h.channel = int(i);
        h.binning.bins = std::uint32_t(b.bins);
        h.binning.lo = b.lo;
        h.binning.hi = b.hi;
        h.binning.identity = b.hi - b.lo == b.bins && b.lo == std::floor(b.lo);
        h.counts.resize(std::size_t(b.bins));
        for (std::uint64_t& c : h.counts) {
            c = count(rng);
            out.peak = std::max(out.peak, c);
        }
        out.named.append({names[i], &h});
    }
    return out;
}

struct Text {
    QString group;   // the class of the innermost <g> holding it
    QString cls;
    double x = 0, y = 0;
    QString fill;
    QString text;
};

struct Parsed {
    bool svgRoot = false;
    QString rootFont;
    QString title;
    QList<Text> texts;
    QList<QString> polygonFills;
    double minPolygonY = 1e300;
    std::optional<QRectF> plotArea;
    QStringList textFonts;   // any font-family a <text> sets itself

    QList<Text> in(const QString& group) const
    {
        QList<Text> out;
        for (const Text& t : texts)
            if (t.group == group && t.cls.isEmpty())
                out.append(t);
        return out;
    }
};

// Fails the test (through the caller's QVERIFY) when the document is not well-formed.
std::optional<Parsed> parse(const QString& svg, QString* error)
{
    Parsed p;
    QXmlStreamReader xml(svg);
    QStringList groups;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isEndElement() && xml.name() == u"g")
            groups.removeLast();
        if (!xml.isStartElement())
            continue;
        const QXmlStreamAttributes a = xml.attributes();
        const auto number = [&](const char* name) { return a.value(QLatin1String(name)).toDouble(); };
        if (xml.name() == u"svg") {
            p.svgRoot = xml.namespaceUri() == u"http://www.w3.org/2000/svg";
            p.rootFont = a.value("font-family").toString();
        } else if (xml.name() == u"g") {
            groups.append(a.value("class").toString());
        } else if (xml.name() == u"title") {
            p.title = xml.readElementText();
        } else if (xml.name() == u"text") {
            Text t{groups.value(groups.size() - 1), a.value("class").toString(), number("x"), number("y"),
                   a.value("fill").toString(), {}};
            if (a.hasAttribute("font-family"))
                p.textFonts.append(a.value("font-family").toString());
            t.text = xml.readElementText();
            p.texts.append(t);
        } else if (xml.name() == u"rect" && a.value("class") == u"plot-area") {
            p.plotArea = QRectF(number("x"), number("y"), number("width"), number("height"));
        } else if (xml.name() == u"polygon") {
            p.polygonFills.append(a.value("fill").toString());
            for (const QString& point : a.value("points").toString().split(u' ', Qt::SkipEmptyParts))
                p.minPolygonY = std::min(p.minPolygonY, point.section(u',', 1, 1).toDouble());
        }
    }
    if (xml.hasError()) {
        *error = QStringLiteral("line %1: %2").arg(xml.lineNumber()).arg(xml.errorString());
        return std::nullopt;
    }
    return p;
}

// A count label as a reader takes it: plain digits, or a compact 1.23M.
double readCount(const QString& label)
{
    static const QString prefixes = QStringLiteral("kMGTPE");
    const qsizetype prefix = label.isEmpty() ? -1 : prefixes.indexOf(label.back());
    if (prefix < 0)
        return label.toDouble();
    return label.chopped(1).toDouble() * std::pow(1000.0, double(prefix + 1));
}

QList<Text> sortedBy(QList<Text> texts, double Text::*axis)
{
    std::sort(texts.begin(), texts.end(), [axis](const Text& a, const Text& b) { return a.*axis < b.*axis; });
    return texts;
}

}  // namespace

Q_DECLARE_METATYPE(Binned)

class TestHistogramPlotSvg : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { seed(); }
    void axes_data();
    void axes();
    void titleIsEscaped_data();
    void titleIsEscaped();
    void legend_data();
    void legend();
    void noChannelsIsStillSvg();
};

void TestHistogramPlotSvg::axes_data()
{
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QList<Binned>>("binning");   // per channel; the last repeats
    QTest::addColumn<quint64>("countMax");

    const QStringList gray{"gray"}, rgb{"R", "G", "B"};
    QTest::newRow("8-bit gray, 256 bins") << gray << QList<Binned>{{0, 256, 256}} << quint64(5000);
    QTest::newRow("8-bit RGB, counts in the thousands") << rgb << QList<Binned>{{0, 256, 256}} << quint64(9000);
    QTest::newRow("16-bit, 1024 bins, counts in the millions") << gray << QList<Binned>{{0, 65536, 1024}}
                                                               << quint64(40'000'000);
    QTest::newRow("16-bit identity, counts in the billions") << rgb << QList<Binned>{{0, 65536, 65536}}
                                                             << quint64(7'000'000'000);
    QTest::newRow("32-bit from -1000") << gray << QList<Binned>{{-1000, 3000, 4000}} << quint64(300);
    QTest::newRow("float, one range") << gray << QList<Binned>{{-1.5, 2.25, 100}} << quint64(120'000);
    QTest::newRow("float, a range per channel") << rgb << QList<Binned>{{-0.25, 0.75, 256}, {0.1, 1.3, 256}, {0, 1, 256}}
                                                << quint64(2500);
    QTest::newRow("float, narrow beside its magnitude") << gray << QList<Binned>{{1000.25, 1000.5, 64}} << quint64(77);
    QTest::newRow("one count at most") << gray << QList<Binned>{{0, 256, 256}} << quint64(1);
}

void TestHistogramPlotSvg::axes()
{
    QFETCH(QStringList, names);
    QFETCH(QList<Binned>, binning);
    QFETCH(quint64, countMax);
    const Channels channels = makeChannels(names, binning, countMax);
    double lo = 1e300, hi = -1e300;
    for (qsizetype i = 0; i < names.size(); ++i) {
        lo = std::min(lo, binning[std::min(i, binning.size() - 1)].lo);
        hi = std::max(hi, binning[std::min(i, binning.size() - 1)].hi);
    }

    QString error;
    const std::optional<Parsed> svg = parse(histogramSvg(QStringLiteral("plot.png"), channels.named), &error);
    QVERIFY2(svg, qPrintable(error));
    QVERIFY(svg->svgRoot);
    QCOMPARE(svg->rootFont, QStringLiteral("sans-serif"));
    QVERIFY2(svg->textFonts.isEmpty(), qPrintable(svg->textFonts.join(u',')));
    QVERIFY(svg->plotArea);
    const QRectF area = *svg->plotArea;
    QCOMPARE(svg->polygonFills.size(), names.size());
    // The highest bar reaches the top of the plot, where the peak is labelled.
    QCOMPARE(svg->minPolygonY, area.top());

    // x: the first bin's low edge, round values between, the last bin's high edge, all below the plot.
    const QList<Text> x = sortedBy(svg->in("x-axis"), &Text::x);
    QVERIFY2(x.size() >= 3, "no round value between the edges");
    auto sameValue = [](const QString& label, double expected) {
        if (expected == std::floor(expected))
            return label == QString::number(qint64(expected));
        return std::abs(label.toDouble() - expected) <= 1e-6 * std::abs(expected);
    };
    QVERIFY2(sameValue(x.front().text, lo), qPrintable(x.front().text));
    QVERIFY2(sameValue(x.back().text, hi), qPrintable(x.back().text));
    QCOMPARE(x.front().x, area.left());
    QCOMPARE(x.back().x, area.right());
    for (qsizetype i = 0; i < x.size(); ++i) {
        bool ok = false;
        const double v = x[i].text.toDouble(&ok);
        QVERIFY2(ok, qPrintable(x[i].text));
        QVERIFY(x[i].y > area.bottom());
        if (i > 0)
            QVERIFY2(v > x[i - 1].text.toDouble(), qPrintable(x[i].text));
        // Placed where the value is on the axis.
        QVERIFY(std::abs(x[i].x - (area.left() + (v - lo) / (hi - lo) * area.width())) < 0.5);
    }

    // y: 0 at the bottom, the highest count at the top, left of the plot, said to be linear.
    const QList<Text> y = sortedBy(svg->in("y-axis"), &Text::y);
    QVERIFY(y.size() >= 2);
    QCOMPARE(y.back().text, QStringLiteral("0"));
    const double top = readCount(y.front().text);
    if (y.front().text.back().isDigit())
        QCOMPARE(y.front().text, QString::number(channels.peak));
    else
        QVERIFY2(std::abs(top - double(channels.peak)) <= 0.005 * double(channels.peak), qPrintable(y.front().text));
    QVERIFY(y.front().y < area.top() + 6);
    if (channels.peak >= 10)
        QVERIFY2(y.size() >= 3, "no round count between 0 and the peak");
    for (qsizetype i = 0; i < y.size(); ++i) {
        QVERIFY(y[i].x < area.left());
        if (i > 0)
            QVERIFY(readCount(y[i].text) < readCount(y[i - 1].text));
    }
    const auto caption = std::find_if(svg->texts.begin(), svg->texts.end(),
                                      [](const Text& t) { return t.group == u"y-axis" && t.cls == u"caption"; });
    QVERIFY(caption != svg->texts.end());
    QVERIFY(caption->text.contains(u"linear"));
}

void TestHistogramPlotSvg::titleIsEscaped_data()
{
    QTest::addColumn<QString>("title");
    QTest::addColumn<QString>("expected");   // what a reader gets back

    QTest::newRow("markup characters") << QStringLiteral("a&b<c>d\"e'f.png") << QStringLiteral("a&b<c>d\"e'f.png");
    QTest::newRow("entity lookalike") << QStringLiteral("&amp;&lt;]]>.png") << QStringLiteral("&amp;&lt;]]>.png");
    QTest::newRow("folders, spaces, accents")
        << QStringLiteral("/data/Füße & Köpfe/'<x>' 1.tif") << QStringLiteral("/data/Füße & Köpfe/'<x>' 1.tif");
    QTest::newRow("control character XML cannot hold")
        << QStringLiteral("bad\x01name\x1f.png") << QStringLiteral("bad\uFFFDname\uFFFD.png");
    const QString deep = QStringLiteral("/very/deep/folder/&/").repeated(12) + QStringLiteral("IMG_0001 <final>.png");
    QTest::newRow("long path") << deep << deep;
}

void TestHistogramPlotSvg::titleIsEscaped()
{
    QFETCH(QString, title);
    QFETCH(QString, expected);
    const Channels channels = makeChannels({"gray"}, {{0, 256, 256}}, 1000);
    QString error;
    const QString text = histogramSvg(title, channels.named);
    const std::optional<Parsed> svg = parse(text, &error);
    QVERIFY2(svg, qPrintable(error));
    QVERIFY(svg->svgRoot);
    QCOMPARE(svg->title, expected);
    const auto shown = std::find_if(svg->texts.begin(), svg->texts.end(), [](const Text& t) { return t.cls == u"title"; });
    QVERIFY(shown != svg->texts.end());
    if (expected.size() <= 92) {
        QCOMPARE(shown->text, expected);
    } else {
        // Too long to show whole: its start and its file name stay.
        QVERIFY(shown->text.size() <= 92);
        QVERIFY(shown->text.contains(QChar(0x2026)));
        QVERIFY(expected.startsWith(shown->text.section(QChar(0x2026), 0, 0)));
        QVERIFY(expected.endsWith(shown->text.section(QChar(0x2026), 1)));
        QVERIFY(shown->text.endsWith(u"IMG_0001 <final>.png"));
    }
}

void TestHistogramPlotSvg::legend_data()
{
    QTest::addColumn<QStringList>("names");
    QTest::newRow("gray alone: no legend") << QStringList{"gray"};
    QTest::newRow("gray and alpha") << QStringList{"gray", "A"};
    QTest::newRow("RGB") << QStringList{"R", "G", "B"};
    QTest::newRow("RGBA") << QStringList{"R", "G", "B", "A"};
}

void TestHistogramPlotSvg::legend()
{
    QFETCH(QStringList, names);
    const Channels channels = makeChannels(names, {{0, 256, 256}}, 500);
    QString error;
    const std::optional<Parsed> svg = parse(histogramSvg(QStringLiteral("legend.png"), channels.named), &error);
    QVERIFY2(svg, qPrintable(error));
    const QList<Text> entries = sortedBy(svg->in("legend"), &Text::x);
    if (names.size() == 1) {
        QVERIFY(entries.isEmpty());
        return;
    }
    QCOMPARE(entries.size(), names.size());
    QSet<QString> colors;
    for (qsizetype i = 0; i < names.size(); ++i) {
        QCOMPARE(entries[i].text, names[i]);
        // In the colour its bars are drawn in, and told apart from the others'.
        QCOMPARE(entries[i].fill, svg->polygonFills[i]);
        colors.insert(entries[i].fill);
        QVERIFY(svg->plotArea && entries[i].y > svg->plotArea->bottom());
    }
    QCOMPARE(colors.size(), names.size());
}

void TestHistogramPlotSvg::noChannelsIsStillSvg()
{
    QString error;
    const std::optional<Parsed> svg = parse(histogramSvg(QStringLiteral("empty"), {}), &error);
    QVERIFY2(svg, qPrintable(error));
    QVERIFY(svg->svgRoot);
    QVERIFY(svg->in("x-axis").isEmpty());
}

QTEST_GUILESS_MAIN(TestHistogramPlotSvg)
#include "tst_histogramplotsvg.moc"
