#include "app/cli/BatchInputs.h"

#include "app/cli/CliOptions.h"
#include "io/FrameSource.h"
#include "io/NativePath.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <set>
#include <sys/stat.h>
#include <utility>

namespace {

using FileId = std::pair<dev_t, ino_t>;

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

QString errnoText(int error) { return QString::fromLocal8Bit(std::strerror(error)); }

QString typeName(mode_t mode)
{
    if (S_ISFIFO(mode)) return QStringLiteral("a FIFO");
    if (S_ISCHR(mode)) return QStringLiteral("a character device");
    if (S_ISBLK(mode)) return QStringLiteral("a block device");
    if (S_ISSOCK(mode)) return QStringLiteral("a socket");
    if (S_ISDIR(mode)) return QStringLiteral("a folder");
    return QStringLiteral("a special file");
}

QString statCause(int error)
{
    if (error == ENOENT)
        return QStringLiteral("no such file or folder");
    if (error == ELOOP)
        return QStringLiteral("a loop of symbolic links");
    return errnoText(error);
}

// What stat's errno says: nothing there, or something there that cannot be reached
// (permissions, a loop of links).
Error statError(int error, const QString& path)
{
    const ErrorKind kind = error == ENOENT || error == ENOTDIR ? ErrorKind::Missing : ErrorKind::Unreadable;
    return Error::make(kind, path, statCause(error));
}

QString canonical(const QString& path)
{
    char buffer[PATH_MAX];
    return realpath(nativePath(path).constData(), buffer) ? pathFromNative(QByteArray(buffer)) : QString();
}

bool isUnder(const QString& path, const QString& folder)
{
    return path == folder || path.startsWith(folder.endsWith('/') ? folder : folder + '/');
}

class Walker {
public:
    Walker(const BatchInputOptions& options, ExpandedInputs& out) : m_options(options), m_out(out) {}
    void named(const QString& path);

private:
    void walk(const QString& root, const QString& rootCanonical, const QString& folder, const QString& relative);
    bool wanted(const QString& name) const;
    void addFile(const QString& path, const QString& relative, const struct stat& st);

    const BatchInputOptions& m_options;
    ExpandedInputs& m_out;
    std::set<FileId> m_folders;
    QHash<QString, QString> m_seen;  // "dev:ino" -> first path
    QList<InputFile> m_found;
};

bool Walker::wanted(const QString& name) const
{
    if (!m_options.include.isEmpty() ? !matchesAny(name, m_options.include)
                                     : !(m_options.acceptAnyFile || isKnownMediaFile(name)))
        return false;
    return !matchesAny(name, m_options.exclude);
}

void Walker::addFile(const QString& path, const QString& relative, const struct stat& st)
{
    const QString id = QStringLiteral("%1:%2").arg(st.st_dev).arg(st.st_ino);
    const auto seen = m_seen.constFind(id);
    if (seen != m_seen.cend()) {
        m_out.notes << QStringLiteral("%1 is the same file as %2: counted once").arg(path, *seen);
        return;
    }
    m_seen.insert(id, path);
    m_found << InputFile{path, relative};
}

void Walker::named(const QString& path)
{
    struct stat st {};
    if (::stat(nativePath(path).constData(), &st) != 0) {
        m_out.failed << statError(errno, path);
        return;
    }
    if (S_ISREG(st.st_mode)) {
        m_found.clear();
        addFile(path, QFileInfo(path).fileName(), st);  // named explicitly: taken whatever its name
        m_out.files << m_found;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        m_out.failed << Error::make(ErrorKind::NotAFile, path, QStringLiteral("not a regular file (%1)").arg(typeName(st.st_mode)));
        return;
    }
    const QString root = canonical(path);
    m_out.walkedFolders << root;
    m_found.clear();
    m_folders.insert({st.st_dev, st.st_ino});
    const qsizetype problems = m_out.failed.size(), notes = m_out.notes.size();
    walk(path, root, path, QString());
    if (m_found.isEmpty() && m_out.failed.size() == problems && m_out.notes.size() == notes)
        m_out.failed << Error::make(ErrorKind::Empty, path,
                                    m_options.recursive ? QStringLiteral("a folder with no file to count in it or below it")
                                                        : QStringLiteral("a folder with no file to count (-r descends into its sub-folders)"));
    // The same order on every machine, so shards are stable.
    std::sort(m_found.begin(), m_found.end(), [](const InputFile& a, const InputFile& b) { return a.path < b.path; });
    m_out.files << m_found;
}

void Walker::walk(const QString& root, const QString& rootCanonical, const QString& folder, const QString& relative)
{
    DIR* dir = opendir(nativePath(folder).constData());
    if (!dir) {
        m_out.failed << Error::make(ErrorKind::Unreadable, folder, QStringLiteral("the folder cannot be read (%1)").arg(errnoText(errno)));
        return;
    }
    const QString prefix = folder.endsWith('/') ? folder : folder + '/';
    QList<QPair<QString, QString>> entries;  // path, relative
    errno = 0;
    while (const dirent* entry = readdir(dir)) {
        const QByteArray name(entry->d_name);
        if (name == "." || name == "..")
            continue;
        const QString decoded = pathFromNative(name);
        entries.append({prefix + decoded, relative.isEmpty() ? decoded : relative + '/' + decoded});
    }
    if (errno != 0)
        m_out.failed << Error::make(ErrorKind::Unreadable, folder,
                                    QStringLiteral("the folder could not be listed whole (%1)").arg(errnoText(errno)));
    closedir(dir);
    std::sort(entries.begin(), entries.end());
    for (const auto& [path, rel] : entries) {
        const QByteArray native = nativePath(path);
        struct stat link {};
        if (::lstat(native.constData(), &link) != 0) {
            m_out.failed << statError(errno, path);
            continue;
        }
        struct stat st = link;
        const bool isLink = S_ISLNK(link.st_mode);
        const QString name = QFileInfo(path).fileName();
        if (isLink && ::stat(native.constData(), &st) != 0) {
            Error broken = statError(errno, path);  // before wanted() can change errno
            broken.cause = QStringLiteral("a broken symbolic link (%1)").arg(broken.cause);
            if (wanted(name))
                m_out.failed << broken;
            continue;
        }
        const bool isDir = S_ISDIR(st.st_mode);
        if (isDir && !m_options.recursive)
            continue;
        if (!isDir && !wanted(name))
            continue;
        if (isLink && !m_options.followLinks && !isUnder(canonical(path), rootCanonical)) {
            m_out.failed << Error::make(ErrorKind::InvalidInput, path,
                                        QStringLiteral("a symbolic link that leads out of %1 (--follow-links follows it)").arg(root));
            continue;
        }
        if (isDir) {
            if (m_folders.insert({st.st_dev, st.st_ino}).second)
                walk(root, rootCanonical, path, rel);
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            m_out.failed << Error::make(ErrorKind::NotAFile, path, QStringLiteral("not a regular file (%1)").arg(typeName(st.st_mode)));
            continue;
        }
        addFile(path, rel, st);
    }
}

}  // namespace

ExpandedInputs expandInputs(const QStringList& paths, const BatchInputOptions& options)
{
    ExpandedInputs out;
    Walker walker(options, out);
    for (const QString& path : paths)
        walker.named(path);
    if (options.shardCount > 1) {
        QList<InputFile> share;
        for (qsizetype i = options.shardIndex; i < out.files.size(); i += options.shardCount)
            share << out.files[i];
        out.files = share;
    }
    return out;
}

Error outputConflict(const QString& output, bool isFolder, const ExpandedInputs& inputs,
                     const QStringList& namedPaths, bool recursive)
{
    struct stat out {};
    const bool exists = ::stat(nativePath(output).constData(), &out) == 0;
    if (exists && S_ISREG(out.st_mode))
        for (const QString& input : namedPaths) {
            struct stat in {};
            if (::stat(nativePath(input).constData(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
                return usageError(QStringLiteral("%1 is also an input; writing it would destroy it").arg(output));
        }
    // Where the output is (or will be): its own canonical path, or its folder's plus its name.
    QString where = exists ? canonical(output) : QString();
    if (where.isEmpty()) {
        const QFileInfo info(output);
        const QString parent = canonical(info.path());
        if (parent.isEmpty())
            return {};
        where = parent + '/' + info.fileName();
    }
    const QString parent = isFolder ? where : QFileInfo(where).path();
    for (const QString& folder : inputs.walkedFolders)
        if (recursive ? isUnder(parent, folder) : parent == folder)
            return usageError(
                QStringLiteral("%1 is inside the input folder %2, so a later run would read it as an input").arg(output, folder));
    return {};
}
