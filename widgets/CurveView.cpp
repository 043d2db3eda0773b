#include "widgets/CurveView.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace {
constexpr int kTick = 4;   // tick length, pixels
}

CurveView::CurveView(QWidget* parent) : QWidget(parent), m_inputTitle(tr("input")), m_outputTitle(tr("output"))
{
    setMinimumSize(200, 200);
}

void CurveView::setCurves(const QVector<QVector<double>>& curves, const QVector<QColor>& colors, double maxLevel)
{
    m_curves = curves;
    m_colors = colors;
    m_max = maxLevel > 0 ? maxLevel : 1;
    update();
}

void CurveView::setAxisTitles(const QString& input, const QString& output)
{
    m_inputTitle = input;
    m_outputTitle = output;
    update();
}

void CurveView::setNote(const QString& note)
{
    m_note = note;
    update();
}

QVector<double> CurveView::ticks() const
{
    // Quarters of the range; the last is the largest level itself (255, 65535), not a round number.
    QVector<double> out;
    for (int i = 0; i <= 4; ++i)
        out << (i == 4 ? m_max : std::round(m_max * i / 4.0));
    return out;
}

QString CurveView::tickText(double level) const { return QString::number(level, 'g', 6); }

QRectF CurveView::plotRect(const QSize& size) const
{
    const QFontMetrics fm(font());
    const int widest = fm.horizontalAdvance(tickText(m_max));
    const double left = 4 + fm.height() + 4 + widest + kTick;    // rotated title, tick labels, ticks
    const double bottom = kTick + 2 + fm.height() + 2 + fm.height() + 4;
    const double top = 4 + fm.height() / 2.0;
    const double right = 4 + widest / 2.0;
    return QRectF(left, top, std::max(1.0, size.width() - left - right), std::max(1.0, size.height() - top - bottom));
}

void CurveView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), background());
    const QRectF r = plotRect(size());
    const QFontMetrics fm(font());
    auto xOf = [&](double level) { return r.left() + r.width() * level / m_max; };
    auto yOf = [&](double level) { return r.bottom() - r.height() * level / m_max; };

    // Axes, ticks and their labels, in the data's units.
    p.setPen(QPen(axisColor(), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.drawLine(r.bottomLeft(), r.topLeft());
    for (double t : ticks()) {
        const QString text = tickText(t);
        const double x = xOf(t), y = yOf(t);
        p.drawLine(QPointF(x, r.bottom()), QPointF(x, r.bottom() + kTick));
        p.drawLine(QPointF(r.left() - kTick, y), QPointF(r.left(), y));
        const double w = fm.horizontalAdvance(text);
        p.drawText(QRectF(x - w / 2 - 1, r.bottom() + kTick + 2, w + 2, fm.height()), Qt::AlignCenter, text);
        p.drawText(QRectF(r.left() - kTick - 2 - w - 2, y - fm.height() / 2.0, w + 2, fm.height()), Qt::AlignRight | Qt::AlignVCenter, text);
    }
    p.drawText(QRectF(r.left(), r.bottom() + kTick + 2 + fm.height() + 2, r.width(), fm.height()), Qt::AlignCenter, m_inputTitle);
    p.save();
    p.translate(4, r.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-r.height() / 2, 0, r.height(), fm.height()), Qt::AlignCenter, m_outputTitle);
    p.restore();

    if (!m_note.isEmpty()) {
        // No single curve: say so, and draw none (an identity line would claim one).
        p.setPen(QColor(210, 210, 210));
        p.drawText(r.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, m_note);
        return;
    }
    if (m_curves.isEmpty())
        return;
    p.setClipRect(r.adjusted(-1, -1, 1, 1));
    p.setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    p.drawLine(r.bottomLeft(), r.topRight());   // identity, for reference
    p.setRenderHint(QPainter::Antialiasing);
    for (int i = 0; i < m_curves.size(); ++i) {
        const QVector<double>& c = m_curves[i];
        if (c.isEmpty())
            continue;
        QPainterPath path;
        const double last = std::max(1, int(c.size()) - 1);
        for (int x = 0; x < c.size(); ++x) {
            const QPointF pt(xOf(m_max * x / last), yOf(c[x]));
            x == 0 ? path.moveTo(pt) : path.lineTo(pt);
        }
        p.setPen(QPen(m_colors.value(i, Qt::white), 1.5));
        p.drawPath(path);
    }
}
