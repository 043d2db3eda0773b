// Comparing with a pinned reference: which histogram is pinned (r) and that the current one (c)
// is measured against it, the four compareHist distances per channel (chi-square labelled with
// its formula, since it is not symmetric), and buttons to pin, clear, and match the image to the
// reference.
#pragma once

#include "app/core/HistogramDistances.h"

#include <QWidget>

class QLabel;
class QPushButton;
class TablePanel;

class ComparePanel : public QWidget {
    Q_OBJECT

public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setReference(const QString& description);   // empty: none pinned
    void setCanPin(bool can);
    void showDistances(const HistogramDistances& distances);
    TablePanel* table() const { return m_table; }
    QString referenceText() const;
    QString messageText() const;
    QString legendText() const;
    static QString chiSquareLabel();   // the row of chi-square: says which side it divides by

signals:
    void pinRequested();
    void clearRequested();
    void matchRequested();

private:
    QLabel* m_reference;
    QLabel* m_message;
    QLabel* m_legend;
    TablePanel* m_table;
    QPushButton* m_pin;
    QPushButton* m_clear;
    QPushButton* m_match;
};
