// Horizontal bars with a label and a value, for "Compare strategies" (times in ms), and a
// footnote under them for what the bars leave out (strategies not run, and why).
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
    // Wrapped to the width under the bars; empty: none.
    void setFootnote(const QString& text);
    const QString& footnote() const { return m_footnote; }
    QRect footnoteRect() const;   // where it is drawn at the current size; empty without one
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QVector<Bar> m_bars;
    QString m_unit;
    QString m_footnote;
};
