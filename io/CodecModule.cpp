#include "io/CodecModule.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLibrary>

#include <mutex>

namespace codecmodule {

namespace {

struct Loaded {
    void* entry = nullptr;
    QString failure;  // why there is no entry: the module's path and the loader's cause
};

QString programDir()
{
    // The CLI and the app have a QCoreApplication, a test need not: /proc/self/exe is what
    // applicationDirPath() reads on Linux anyway.
    if (QCoreApplication::instance())
        return QCoreApplication::applicationDirPath();
    return QFileInfo(QFile::symLinkTarget(QStringLiteral("/proc/self/exe"))).absolutePath();
}

Loaded load(const QString& fileName, const char* entry)
{
    // Worked out once: the two modules' first loads may race on two threads, and Qt's
    // applicationDirPath() is not safe to call from both at once.
    static const QStringList path = searchPath();
    Loaded out;
    QStringList tried;
    for (const QString& dir : path) {
        const QString path = QDir::cleanPath(dir + QLatin1Char('/') + fileName);
        if (!QFileInfo::exists(path)) {
            tried << path;
            continue;
        }
        auto* library = new QLibrary(path);  // never unloaded: leaked on purpose
        if (!library->load()) {
            out.failure = QStringLiteral("the codec module %1 cannot be loaded: %2").arg(path, library->errorString());
            delete library;
            return out;
        }
        out.entry = reinterpret_cast<void*>(library->resolve(entry));
        if (!out.entry)
            out.failure = QStringLiteral("the codec module %1 has no %2: %3").arg(path, QLatin1String(entry), library->errorString());
        return out;
    }
    out.failure = QStringLiteral("the codec module %1 is not installed (looked for %2)").arg(fileName, tried.join(QStringLiteral(", ")));
    return out;
}

// One load per module and process, whichever thread asks first.
const Loaded& module(bool video)
{
    static std::once_flag videoOnce, imageOnce;
    static Loaded videoModule, imageModule;
    if (video) {
        std::call_once(videoOnce, [] { videoModule = load(QStringLiteral(HISTOSCOPE_VIDEO_MODULE), kVideoDecoderEntry); });
        return videoModule;
    }
    std::call_once(imageOnce, [] { imageModule = load(QStringLiteral(HISTOSCOPE_IMAGE_MODULE), kImageCodecsEntry); });
    return imageModule;
}

QString otherBuild(const char* what)
{
    return QStringLiteral("the %1 module is from another build of HistoScope (its interface differs)").arg(QLatin1String(what));
}

}  // namespace

QStringList searchPath()
{
    const QByteArray forced = qgetenv("HISTOSCOPE_MODULE_DIR");
    if (!forced.isEmpty())
        return {QFile::decodeName(forced)};
    // HISTOSCOPE_MODULE_DIR_FROM_BIN: the installed modules' folder relative to the installed
    // programs' one, so that a relocated or unpacked tree (the .deb's test) finds its own.
    const QString program = programDir();
    QStringList out{program + QStringLiteral("/" HISTOSCOPE_MODULE_DIR_FROM_BIN)};
    // This build's own modules, only for programs inside this build tree: an installed program
    // never loads code from a path someone else could create on its machine.
    const QString buildRoot = QDir::cleanPath(QStringLiteral(HISTOSCOPE_MODULE_DIR_BUILT "/../.."));
    if (QDir::cleanPath(program).startsWith(buildRoot + QLatin1Char('/')))
        out << QStringLiteral(HISTOSCOPE_MODULE_DIR_BUILT);
    out.removeDuplicates();
    return out;
}

std::unique_ptr<VideoDecoder> createVideoDecoder(const QString& source, Error& error)
{
    const Loaded& loaded = module(true);
    if (!loaded.entry) {
        error = Error::make(ErrorKind::UnsupportedType, source, loaded.failure);
        return nullptr;
    }
    std::unique_ptr<VideoDecoder> decoder(reinterpret_cast<VideoDecoderEntry>(loaded.entry)(kVideoDecoderAbi));
    if (!decoder)
        error = Error::make(ErrorKind::UnsupportedType, source, otherBuild("video"));
    return decoder;
}

const ImageCodecs* imageCodecs(const QString& source, Error& error)
{
    const Loaded& loaded = module(false);
    if (!loaded.entry) {
        error = Error::make(ErrorKind::UnsupportedType, source, loaded.failure);
        return nullptr;
    }
    const ImageCodecs* codecs = reinterpret_cast<ImageCodecsEntry>(loaded.entry)(kImageCodecsAbi);
    if (!codecs)
        error = Error::make(ErrorKind::UnsupportedType, source, otherBuild("image"));
    return codecs;
}

}  // namespace codecmodule
