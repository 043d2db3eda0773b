// File > Open Recent: the last ten files opened, newest first, kept in
// QSettings ("recentFiles") so the next session lists them too.
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

class RecentFiles : public QObject {
    Q_OBJECT

public:
    // Fills `menu` from the saved list.
    explicit RecentFiles(QMenu* menu, QObject* parent = nullptr);

    void add(const QString& path);   // moved to the front when already listed
    QStringList files() const { return m_files; }

signals:
    void openRequested(const QString& path);

private:
    void rebuildMenu();

    QMenu* m_menu;
    QStringList m_files;   // absolute paths
};
