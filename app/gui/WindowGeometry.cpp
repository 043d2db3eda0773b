#include "app/gui/WindowGeometry.h"

#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>
#include <QSettings>
#include <QStyle>

#include <algorithm>

void WindowGeometry::restore()
{
    // A size that fits the screen (1280x720 included); then the user's own, if saved.
    QSize size(1280, 760);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableGeometry().size());
    m_window->resize(size);
    m_defaultState = m_window->saveState(kStateVersion);
    QSettings store;
    // Only a restored geometry is checked: the default above already fits the screen.
    m_checkRestored = m_window->restoreGeometry(store.value("window/geometry").toByteArray());
    if (m_checkRestored)
        keepOnScreen();
    m_window->restoreState(store.value("window/state").toByteArray(), kStateVersion);
}

void WindowGeometry::resetLayout() { m_window->restoreState(m_defaultState, kStateVersion); }

void WindowGeometry::save() const
{
    QSettings store;
    store.setValue("window/geometry", m_window->saveGeometry());
    store.setValue("window/state", m_window->saveState(kStateVersion));
}

void WindowGeometry::shown()
{
    // Before the first show the frame was only estimated; now the platform knows its margins.
    if (m_checkRestored) {
        m_checkRestored = false;
        keepOnScreen();
    }
}

QRect WindowGeometry::clampToArea(const QRect& frame, const QRect& available)
{
    QRect fitted(frame.topLeft(), frame.size().boundedTo(available.size()));
    // std::max last: a frame that cannot shrink enough keeps its title bar on screen.
    fitted.moveLeft(std::max(available.left(), std::min(fitted.left(), available.right() + 1 - fitted.width())));
    fitted.moveTop(std::max(available.top(), std::min(fitted.top(), available.bottom() + 1 - fitted.height())));
    return fitted;
}

void WindowGeometry::keepOnScreen()
{
    if (m_window->isMaximized() || m_window->isFullScreen())
        return;   // the window manager fits these to the screen itself
    QRect frame = m_window->frameGeometry();
    QSize decoration = frame.size() - m_window->size();
    if (decoration.isNull()) {
        // Not shown yet, so the frame is unknown: allow for a title bar, as restoreGeometry() does.
        decoration = QSize(0, m_window->style()->pixelMetric(QStyle::PM_TitleBarHeight, nullptr, m_window));
        frame.setSize(m_window->size() + decoration);
    }
    const QScreen* screen = QGuiApplication::screenAt(frame.center());
    if (!screen)
        screen = QGuiApplication::primaryScreen();
    if (!screen)
        return;
    const QRect available = screen->availableGeometry();
    const QRect fitted = clampToArea(frame, available);
    if (fitted == frame)
        return;
    m_window->resize(fitted.size() - decoration);
    // move() places the frame; the minimum size may have kept the window larger than asked.
    m_window->move(clampToArea(QRect(fitted.topLeft(), m_window->size() + decoration), available).topLeft());
}
