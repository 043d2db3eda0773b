// One image file opened for decoding page by page. Its header is read first (io/ImageHeader.h)
// and every page is checked against a memory budget before OpenCV decodes anything, so a
// small file that declares a huge image is refused with the sizes in the message.
#pragma once

#include "common/Error.h"
#include "io/Frame.h"
#include "io/ImageHeader.h"

#include <QByteArray>
#include <QStringList>

#include <memory>
#include <vector>

class ImageFile {
public:
    static std::unique_ptr<ImageFile> open(const QString& path, std::uint64_t memoryBudget, Error& error);

    int pageCount() const { return m_pageCount; }
    // Decoded bytes of a page from its header; 0 when the header does not say.
    std::uint64_t pageBytes(int page) const;
    // Decodes pages [start, start + count); a multi-page TIFF is read a range at a time.
    bool decode(int start, int count, std::vector<Frame>& frames, Error& error);
    const QString& path() const { return m_path; }
    // The encoded bytes held for decoding (single-page formats are decoded from memory).
    std::uint64_t encodedBytes() const { return std::uint64_t(m_bytes.size()); }
    QStringList warnings;  // e.g. a JPEG that ends before its end-of-image marker

private:
    QString m_path;
    imageheader::Info m_info;
    int m_pageCount = 1;
    QByteArray m_bytes;  // the whole file, for single-page formats (decoded from memory)
};
