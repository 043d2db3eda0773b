// The image with zoom (wheel), pan (right or middle drag) and a rubber-band region of interest
// (left drag; a click clears it). The region is reported in image pixels.
#pragma once

#include <QImage>
#include <QRect>
#include <QWidget>

class ImageCanvas : public QWidget {
    Q_OBJECT

public:
    explicit ImageCanvas(QWidget* parent = nullptr);

    void setImage(const QImage& image);   // keeps zoom, pan and region when the size is unchanged
    const QImage& image() const { return m_image; }
    QRect roi() const { return m_roi; }
    void setRoi(const QRect& roi);
    double zoom() const { return m_zoom; }
    void setZoom(double zoom);
    void fitToWindow();
    QPointF widgetToImage(const QPointF& p) const;
    QPointF imageToWidget(const QPointF& p) const;   // the widget position of an image point

    QSize sizeHint() const override { return {640, 480}; }

signals:
    void roiChanged(const QRect& roi);     // an empty rect: the whole image
    void hoveredPixel(const QPoint& pixel);   // the image pixel under the cursor (may lie outside the image)
    void hoverLeft();                         // the cursor left the canvas

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    QRectF imageRectInWidget() const;

    QImage m_image;
    QRect m_roi;
    double m_zoom = 1.0;
    QPointF m_pan;             // image-space offset of the view centre from the image centre
    bool m_fit = true;
    QPoint m_pressPos;
    QPointF m_dragStartImage;
    bool m_selecting = false;
    bool m_panning = false;
};
