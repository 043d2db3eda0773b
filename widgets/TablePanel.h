// A read-only table of labelled rows, for per-channel statistics and per-frame timings.
#pragma once

#include <QStringList>
#include <QVector>
#include <QWidget>

class QTableWidget;

struct TableContent {
    QStringList columns;                 // e.g. channel names
    QStringList rowLabels;               // e.g. "mean", "median"
    QVector<QStringList> cells;          // cells[row][column]
};

class TablePanel : public QWidget {
    Q_OBJECT

public:
    explicit TablePanel(QWidget* parent = nullptr);
    void setContent(const TableContent& content);
    QString cell(int row, int column) const;
    int rowOf(const QString& label) const;
    // True when no cell, column title or row label is narrower than its text (nothing elided;
    // what does not fit the panel is scrolled to).
    bool showsEveryCellWhole() const;
    QTableWidget* table() const;

private:
    QTableWidget* m_table;
};
