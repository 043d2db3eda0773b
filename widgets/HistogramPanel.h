// The Histogram dock's content: a small bar that picks how the counts are shown (channels
// overlaid in one plot, one plot per channel, or a table of the bins) over the plot or the
// table. The table is fed only while it is shown, from the plot's own display value.
#pragma once

#include <QWidget>

class HistogramTableModel;
class HistogramView;
class QAbstractButton;
class QStackedWidget;
class QTableView;

class HistogramPanel : public QWidget {
    Q_OBJECT

public:
    enum class Mode { Overlay, Separate, Table };
    Q_ENUM(Mode)

    explicit HistogramPanel(QWidget* parent = nullptr);

    HistogramView* view() const { return m_view; }
    QTableView* table() const { return m_table; }
    HistogramTableModel* tableModel() const { return m_model; }
    QAbstractButton* modeButton(Mode mode) const;

    Mode mode() const { return m_mode; }
    void setMode(Mode mode);   // from settings: no modeChanged

signals:
    void modeChanged(HistogramPanel::Mode mode);   // the user picked another mode

private:
    void apply();
    void refreshTable();

    HistogramView* m_view;
    QTableView* m_table;
    HistogramTableModel* m_model;
    QStackedWidget* m_pages;
    QAbstractButton* m_buttons[3];
    Mode m_mode = Mode::Overlay;
    bool m_fitColumns = true;   // the model was reset: size the columns to its new values
};
