#include "app/cli/BatchInputs.h"

#include "io/FrameSource.h"

#include <QDirIterator>
#include <QFileInfo>
#include <QRegularExpression>

namespace {

bool matchesAny(const QString& name, const QStringList& globs)
{
    for (const QString& glob : globs) {
        const QRegularExpression re(QRegularExpression::wildcardToRegularExpression(glob),
                                    QRegularExpression::CaseInsensitiveOption);
        if (re.match(name).hasMatch())
            return true;
    }
    return false;
}

}  // namespace

QStringList expandInputs(const QStringList& paths, const BatchInputOptions& options, QStringList& missing)
{
    QStringList files;
    for (const QString& path : paths) {
        const QFileInfo info(path);
        if (!info.exists()) {
            missing << path;
            continue;
        }
        if (info.isFile()) {
            files << path;  // named explicitly: taken whatever its name
            continue;
        }
        QStringList found;
        QDirIterator it(path, QDir::Files | QDir::Readable | QDir::NoDotAndDotDot,
                        options.recursive ? QDirIterator::Subdirectories | QDirIterator::FollowSymlinks
                                          : QDirIterator::NoIteratorFlags);
        while (it.hasNext()) {
            const QString file = it.next();
            const QString name = QFileInfo(file).fileName();
            if (!options.include.isEmpty() ? !matchesAny(name, options.include)
                                           : !(options.acceptAnyFile || isKnownMediaFile(file)))
                continue;
            if (matchesAny(name, options.exclude))
                continue;
            found << file;
        }
        found.sort();  // the same order on every machine, so shards are stable
        files << found;
    }
    if (options.shardCount <= 1)
        return files;
    QStringList share;
    for (int i = options.shardIndex; i < files.size(); i += options.shardCount)
        share << files[i];
    return share;
}
