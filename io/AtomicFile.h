// Writes a whole file or nothing: the bytes go to a temporary file in the same folder, are
// synced, and the temporary is renamed over the target. A reader never sees half a plot or
// image, and two writers of one name leave one whole file. Paths are bytes (io/NativePath.h),
// which QSaveFile cannot take.
#pragma once

#include "common/Error.h"

#include <QByteArray>
#include <QString>

Error writeFileAtomically(const QString& path, const QByteArray& bytes);
// mkdir -p on native paths.
Error makeFolders(const QString& path);
