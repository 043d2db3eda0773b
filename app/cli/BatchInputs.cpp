#include "app/cli/BatchInputs.h"

#include "app/cli/CliOptions.h"
#include "app/cli/OutputSink.h"
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

QRegularExpression globExpression(const QString& glob)
{
    return QRegularExpression(QRegularExpression::wildcardToRegularExpression(glob), QRegularExpression::CaseInsensitiveOption);
}

QList<QRegularExpression> compile(const QStringList& globs)
{
    QList<QRegularExpression> out;
    for (const QString& glob : globs)
        out << globExpression(glob);
    return out;
}

bool matchesAny(const QString& name, const QList<QRegularExpression>& globs)
{
    for (const QRegularExpression& re : globs)
        if (re.isValid() && re.match(name).hasMatch())
            return true;
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
    Walker(const BatchInputOptions& options, ExpandedInputs& out)
        : m_options(options), m_out(out), m_include(compile(options.include)), m_exclude(compile(options.exclude)) {}
    void named(const QString& path);

private:
    void walk(const QString& root, const QString& rootCanonical, const QString& folder, const QString& relative);
    enum class Take { Yes, NotMedia, Filtered };
    Take wanted(const QString& name) const;
    void addFile(const QString& path, const QString& relative, const struct stat& st);

    const BatchInputOptions& m_options;
    ExpandedInputs& m_out;
    const QList<QRegularExpression> m_include, m_exclude;  // compiled once, not per file
    std::set<FileId> m_folders;
    QHash<QString, QString> m_seen;  // "dev:ino" -> first path
    QList<InputFile> m_found;
};

Walker::Take Walker::wanted(const QString& name) const
{
    if (!m_include.isEmpty() && !matchesAny(name, m_include))
        return Take::Filtered;
    if (m_include.isEmpty() && !(m_options.acceptAnyFile || isKnownMediaFile(name)))
        return Take::NotMedia;
    return matchesAny(name, m_exclude) ? Take::Filtered : Take::Yes;
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
    m_found << InputFile{path, relative, false, QString()};
}

void Walker::named(const QString& path)
{
    if (!m_options.stdinName.isEmpty() && path == m_options.stdinName) {
        m_out.files << InputFile{path, QStringLiteral("stdin"), true, m_options.stdinCopy};
        return;
    }
    struct stat st {};
    if (::stat(nativePath(path).constData(), &st) != 0) {
        m_out.failed << statError(errno, path);
        return;
    }
    if (S_ISREG(st.st_mode)) {
        m_found.clear();
        addFile(path, QFileInfo(path).fileName(), st);  // named explicitly: taken whatever its name
        for (InputFile& f : m_found)
            f.named = true;
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
            if (wanted(name) == Take::Yes)
                m_out.failed << broken;
            continue;
        }
        const bool isDir = S_ISDIR(st.st_mode);
        if (isDir && !m_options.recursive) {
            m_out.unsearched << path;
            continue;
        }
        if (!isDir) {
            const Take take = wanted(name);
            if (take == Take::NotMedia) {
                m_out.notMedia << path;
                continue;
            }
            if (take == Take::Filtered) {
                m_out.filteredOut << path;
                continue;
            }
        }
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
    if (const Error same = outputIsInput(output, namedPaths); same.isError())
        return same;
    struct stat out {};
    const bool exists = ::stat(nativePath(output).constData(), &out) == 0;
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

Error checkGlobs(const QStringList& globs, const QString& option)
{
    for (const QString& glob : globs) {
        const QRegularExpression re = globExpression(glob);
        if (!re.isValid())
            return usageError(QStringLiteral("%1 '%2' is not a glob (%3); a bracket needs its closing ']', e.g. '*.[jt]*'")
                                  .arg(option, glob, re.errorString()));
    }
    return {};
}

QStringList skippedSummary(const ExpandedInputs& inputs, bool verbose)
{
    QStringList lines;
    auto account = [&](const QStringList& paths, const QString& counted, const QString& each) {
        if (paths.isEmpty())
            return;
        if (!verbose) {
            lines << counted.arg(paths.size());
            return;
        }
        for (const QString& p : paths)
            lines << each.arg(p);
    };
    account(inputs.notMedia,
            QStringLiteral("%1 file(s) skipped: not a known image, video or .npy name (-v lists them; --include takes them)"),
            QStringLiteral("skipped %1: not a known image, video or .npy name (--include takes it)"));
    account(inputs.filteredOut, QStringLiteral("%1 file(s) left out by --include/--exclude (-v lists them)"),
            QStringLiteral("skipped %1: left out by --include/--exclude"));
    account(inputs.unsearched, QStringLiteral("%1 sub-folder(s) not searched (use -r)"),
            QStringLiteral("not searched: %1 (a sub-folder; use -r)"));
    return lines;
}
