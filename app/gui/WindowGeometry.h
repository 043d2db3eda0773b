// The window's size, place and dock layout: saved on close, restored at start, and kept on
// screen. A geometry saved on another monitor, a larger screen or a different panel layout can
// put the window, or only its status bar, off screen; restoreGeometry() does not always bring
// it back.
#pragma once

#include <QByteArray>
#include <QRect>

class QMainWindow;

class WindowGeometry {
public:
    explicit WindowGeometry(QMainWindow* window) : m_window(window) {}

    // Once the docks are laid out: a size that fits the screen becomes the default layout (View
    // > Reset Layout), then the user's saved geometry and dock layout are restored.
    void restore();
    void resetLayout();
    void save() const;
    void shown();   // the window's first show: only now does the platform know its frame

    // A window's frame moved and shrunk by the least that puts all of it, status bar included,
    // inside `available` (a screen's available geometry); a frame inside it comes back as it is.
    static QRect clampToArea(const QRect& frame, const QRect& available);

private:
    void keepOnScreen();

    static constexpr int kStateVersion = 3;   // 3: the Scopes dock holds the built-in scopes
    QMainWindow* m_window;
    QByteArray m_defaultState;
    bool m_checkRestored = false;   // once more when first shown, with the real frame
};
