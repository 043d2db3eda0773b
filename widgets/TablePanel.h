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
    QTableWidget* table();
    // Each cell's text is also its tooltip: for long values in a narrow panel.
    void setCellToolTips(bool on);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void applyPending();
    void fitColumns(bool growOnly);

    QTableWidget* m_table;
    TableContent m_pending;   // set while hidden: shown when the panel shows
    bool m_hasPending = false;
    TableContent m_shown;
    bool m_cellToolTips = false;
};
