// A transfer curve (input level -> output level), e.g. an equalization LUT, on axes in the data's
// units (0..maxLevel both ways, ticks labelled), or a note where there is no single curve to draw
// (CLAHE adapts to each tile).
#pragma once

#include <QVector>
#include <QWidget>

class CurveView : public QWidget {
    Q_OBJECT

public:
    explicit CurveView(QWidget* parent = nullptr);
    void setCurves(const QVector<QVector<double>>& curves, const QVector<QColor>& colors, double maxLevel);
    void setAxisTitles(const QString& input, const QString& output);   // default "input", "output"
    // Shown in the plot instead of any curve (and of the identity line); empty: none.
    void setNote(const QString& note);
    QString note() const { return m_note; }
    double maxLevel() const { return m_max; }
    QVector<double> ticks() const;                 // the levels labelled on both axes
    QRectF plotRect(const QSize& size) const;      // inside the axes: where levels 0..maxLevel go
    QColor axisColor() const { return QColor(150, 150, 150); }
    static QColor background() { return QColor(32, 33, 36); }
    QSize sizeHint() const override { return {280, 280}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString tickText(double level) const;

    QVector<QVector<double>> m_curves;
    QVector<QColor> m_colors;
    double m_max = 255;
    QString m_inputTitle;
    QString m_outputTitle;
    QString m_note;
};
