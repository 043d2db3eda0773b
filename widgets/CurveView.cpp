#include "widgets/CurveView.h"

#include <QPainter>
#include <QPainterPath>

CurveView::CurveView(QWidget* parent) : QWidget(parent) { setMinimumSize(160, 160); }

void CurveView::setCurves(const QVector<QVector<double>>& curves, const QVector<QColor>& colors, double maxLevel)
{
    m_curves = curves;
    m_colors = colors;
    m_max = maxLevel > 0 ? maxLevel : 1;
    update();
}

void CurveView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(32, 33, 36));
    const QRectF r = rect().adjusted(8, 8, -8, -8);
    p.setPen(QPen(QColor(90, 90, 90), 1, Qt::DashLine));
    p.drawLine(r.bottomLeft(), r.topRight());  // identity
    p.setRenderHint(QPainter::Antialiasing);
    for (int i = 0; i < m_curves.size(); ++i) {
        const QVector<double>& c = m_curves[i];
        if (c.isEmpty())
            continue;
        QPainterPath path;
        for (int x = 0; x < c.size(); ++x) {
            const QPointF pt(r.left() + r.width() * x / std::max(1, int(c.size()) - 1), r.bottom() - r.height() * c[x] / m_max);
            x == 0 ? path.moveTo(pt) : path.lineTo(pt);
        }
        p.setPen(QPen(m_colors.value(i, Qt::white), 1.5));
        p.drawPath(path);
    }
}
