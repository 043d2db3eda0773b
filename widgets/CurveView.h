// A transfer curve (input level -> output level), e.g. an equalization LUT.
#pragma once

#include <QVector>
#include <QWidget>

class CurveView : public QWidget {
    Q_OBJECT

public:
    explicit CurveView(QWidget* parent = nullptr);
    void setCurves(const QVector<QVector<double>>& curves, const QVector<QColor>& colors, double maxLevel);
    QSize sizeHint() const override { return {260, 260}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QVector<QVector<double>> m_curves;
    QVector<QColor> m_colors;
    double m_max = 255;
};
