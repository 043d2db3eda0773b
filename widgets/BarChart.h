// Horizontal bars with a label and a value, for "Compare strategies" (times in ms).
#pragma once

#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

struct Bar {
    QString label;
    double value = 0;
    QString note;      // e.g. "exact", "MISMATCH", "picked by auto"
    QColor color;
};

class BarChart : public QWidget {
    Q_OBJECT

public:
    explicit BarChart(QWidget* parent = nullptr);
    void setBars(const QVector<Bar>& bars, const QString& unit);
    const QVector<Bar>& bars() const { return m_bars; }
    QSize sizeHint() const override { return {560, 40 + 26 * int(m_bars.size())}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QVector<Bar> m_bars;
    QString m_unit;
};
