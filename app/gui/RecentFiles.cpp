#include "app/gui/RecentFiles.h"

#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace {

constexpr int kKept = 10;

}  // namespace

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), m_menu(menu)
{
    m_files = QSettings().value("recentFiles").toStringList();
    rebuildMenu();
}

void RecentFiles::add(const QString& path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    m_files.removeAll(absolute);
    m_files.prepend(absolute);
    while (m_files.size() > kKept)
        m_files.removeLast();
    QSettings().setValue("recentFiles", m_files);
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    m_menu->clear();
    for (const QString& path : m_files)
        m_menu->addAction(QFileInfo(path).fileName(), this, [this, path] { emit openRequested(path); })->setToolTip(path);
    m_menu->setEnabled(!m_files.isEmpty());
}
