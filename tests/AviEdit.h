// Edits of an AVI written by cv::VideoWriter, made by the tests to stand for real files:
// zero-size "repeat the previous frame" index entries (variable frame rate captures write
// them), a header whose frame count is wrong, and files cut short.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

#include <cstdint>
#include <cstring>

namespace aviedit {

inline std::uint32_t le32(const QByteArray& b, qsizetype at)
{
    std::uint32_t v = 0;
    std::memcpy(&v, b.constData() + at, 4);
    return v;
}

inline void setLe32(QByteArray& b, qsizetype at, std::uint32_t v) { std::memcpy(b.data() + at, &v, 4); }

inline QByteArray le32Bytes(std::uint32_t v) { return QByteArray(reinterpret_cast<const char*>(&v), 4); }

// Sets every frame count of the header: the main header's, the video stream's and OpenDML's.
inline void setHeaderFrameCount(QByteArray& avi, std::uint32_t frames)
{
    setLe32(avi, 48, frames);  // avih dwTotalFrames
    const qsizetype strh = avi.indexOf("strh");
    if (strh > 0)
        setLe32(avi, strh + 8 + 32, frames);  // AVIStreamHeader dwLength
    const qsizetype dmlh = avi.indexOf("dmlh");
    if (dmlh > 0)
        setLe32(avi, dmlh + 8, frames);
}

// After each video chunk, `repeats` zero-size chunks with their idx1 entries; the header counts
// every entry, as capture programs do. Returns an empty array when the file is not laid out as
// expected (LIST movi followed by idx1).
// The file at `path` with its header's frame count set to `frames`, in place; false if it could not
// be read or written whole.
inline bool setHeaderFrameCount(const QString& path, std::uint32_t frames)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadWrite))
        return false;
    QByteArray bytes = file.readAll();
    setHeaderFrameCount(bytes, frames);
    return file.seek(0) && file.write(bytes) == bytes.size();
}

inline QByteArray withRepeatEntries(const QByteArray& avi, int repeats)
{
    const qsizetype movi = avi.indexOf("movi");
    const qsizetype list = movi - 8;
    if (movi < 8 || avi.mid(list, 4) != "LIST")
        return {};
    const qsizetype moviEnd = list + 8 + qsizetype(le32(avi, list + 4));
    const qsizetype idx = avi.indexOf("idx1", moviEnd);
    if (idx < 0)
        return {};
    const qsizetype idxSize = qsizetype(le32(avi, idx + 4));
    // idx1 offsets are relative to some base (the movi fourcc, or the file start): keep it.
    const qsizetype base = movi + 4 - qsizetype(le32(avi, idx + 8 + 8));
    QByteArray chunks, index;
    std::uint32_t entries = 0;
    auto offset = [&] { return std::uint32_t(movi + 4 + chunks.size() - base); };
    for (qsizetype e = idx + 8; e + 16 <= idx + 8 + idxSize; e += 16) {
        const qsizetype at = qsizetype(le32(avi, e + 8)) + base;
        const std::uint32_t size = le32(avi, at + 4);
        QByteArray entry = avi.mid(e, 16);
        setLe32(entry, 8, offset());
        index += entry;
        chunks += avi.mid(at, 8 + qsizetype(size + (size & 1)));
        ++entries;
        if (avi.mid(at + 2, 2) != "dc")
            continue;
        for (int r = 0; r < repeats; ++r) {
            QByteArray repeat = entry;
            setLe32(repeat, 4, 0);  // not a key frame
            setLe32(repeat, 8, offset());
            setLe32(repeat, 12, 0);
            index += repeat;
            chunks += avi.mid(at, 4) + le32Bytes(0);
            ++entries;
        }
    }
    QByteArray out = avi.left(movi + 4) + chunks;
    setLe32(out, list + 4, std::uint32_t(4 + chunks.size()));
    out += "idx1" + le32Bytes(std::uint32_t(index.size())) + index;
    setLe32(out, 4, std::uint32_t(out.size() - 8));
    setHeaderFrameCount(out, entries);
    return out;
}

}  // namespace aviedit
