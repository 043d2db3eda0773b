#include "widgets/ImageCanvas.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

ImageCanvas::ImageCanvas(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(240, 180);
    setFocusPolicy(Qt::WheelFocus);
}

void ImageCanvas::setImage(const QImage& image)
{
    const bool sameSize = image.size() == m_image.size();
    m_image = image;
    if (!sameSize) {
        m_roi = QRect();
        m_pan = {};
        m_fit = true;
        emit roiChanged(m_roi);
    }
    if (m_fit)
        fitToWindow();
    update();
}

void ImageCanvas::setRoi(const QRect& roi)
{
    const QRect clipped = roi.intersected(m_image.rect());
    if (clipped == m_roi)
        return;
    m_roi = clipped;
    update();
    emit roiChanged(m_roi);
}

void ImageCanvas::setZoom(double zoom)
{
    m_zoom = std::clamp(zoom, 0.02, 64.0);
    m_fit = false;
    update();
}

void ImageCanvas::fitToWindow()
{
    if (m_image.isNull())
        return;
    m_zoom = std::min(double(width()) / m_image.width(), double(height()) / m_image.height());
    m_pan = {};
    m_fit = true;
    update();
}

QRectF ImageCanvas::imageRectInWidget() const
{
    const QSizeF size(m_image.width() * m_zoom, m_image.height() * m_zoom);
    const QPointF centre = QPointF(width() / 2.0, height() / 2.0) - m_pan * m_zoom;
    return QRectF(centre - QPointF(size.width() / 2, size.height() / 2), size);
}

QPointF ImageCanvas::widgetToImage(const QPointF& p) const
{
    const QRectF r = imageRectInWidget();
    return (p - r.topLeft()) / m_zoom;
}

QPointF ImageCanvas::imageToWidget(const QPointF& p) const
{
    return imageRectInWidget().topLeft() + p * m_zoom;
}

void ImageCanvas::leaveEvent(QEvent*)
{
    emit hoverLeft();
}

void ImageCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), QColor(24, 24, 26));
    if (m_image.isNull())
        return;
    p.setRenderHint(QPainter::SmoothPixmapTransform, m_zoom < 2.0);
    const QRectF target = imageRectInWidget();
    p.drawImage(target, m_image);
    if (!m_roi.isEmpty()) {
        const QRectF r(target.topLeft() + QPointF(m_roi.x(), m_roi.y()) * m_zoom, QSizeF(m_roi.size()) * m_zoom);
        QPainterPath outside;
        outside.addRect(target);
        QPainterPath inside;
        inside.addRect(r);
        p.fillPath(outside.subtracted(inside), QColor(0, 0, 0, 110));
        p.setPen(QPen(QColor(255, 210, 0), 1.5, Qt::DashLine));
        p.drawRect(r);
    }
}

void ImageCanvas::wheelEvent(QWheelEvent* event)
{
    if (m_image.isNull())
        return;
    const QPointF before = widgetToImage(event->position());
    const double factor = std::pow(1.0015, event->angleDelta().y());
    m_zoom = std::clamp(m_zoom * factor, 0.02, 64.0);
    m_fit = false;
    // Keep the pixel under the cursor where it was.
    const QPointF after = widgetToImage(event->position());
    m_pan += before - after;
    update();
}

void ImageCanvas::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->pos();
    if (event->button() == Qt::LeftButton && !m_image.isNull()) {
        m_selecting = true;
        m_dragStartImage = widgetToImage(event->position());
    } else if (event->button() == Qt::RightButton || event->button() == Qt::MiddleButton) {
        m_panning = true;
    }
}

void ImageCanvas::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF imagePoint = widgetToImage(event->position());
    emit hoveredPixel(QPoint(int(std::floor(imagePoint.x())), int(std::floor(imagePoint.y()))));
    if (m_selecting) {
        const QRectF r = QRectF(m_dragStartImage, imagePoint).normalized();
        m_roi = r.toAlignedRect().intersected(m_image.rect());
        update();
    } else if (m_panning) {
        m_pan -= QPointF(event->pos() - m_pressPos) / m_zoom;
        m_pressPos = event->pos();
        m_fit = false;
        update();
    }
}

void ImageCanvas::mouseReleaseEvent(QMouseEvent* event)
{
    if (m_selecting) {
        m_selecting = false;
        if ((event->pos() - m_pressPos).manhattanLength() < 3)
            m_roi = QRect();  // a click clears the region
        emit roiChanged(m_roi);
        update();
    }
    m_panning = false;
}

void ImageCanvas::resizeEvent(QResizeEvent*)
{
    if (m_fit)
        fitToWindow();
}
