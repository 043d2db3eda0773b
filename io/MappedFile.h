// A read-only memory map of a whole file that survives the file shrinking under it. Reading a
// page past the new end of a shrunk file raises SIGBUS, which would kill the process (and a
// batch with it). A process-wide SIGBUS handler looks the address up among the live maps,
// puts a page of zeros in place of the lost one, and marks the map damaged; the read goes on,
// and the owner reports the file as failed instead of counting zeros. Faults outside any map
// keep their default behaviour. (Chosen over pread copies, which would read key files larger
// than memory whole, and over sigsetjmp, which cannot unwind the engine's worker threads.)
#pragma once

#include "common/Error.h"

#include <QString>

#include <cstdint>
#include <memory>

class MappedFile {
public:
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    // Opens a regular, non-empty file and maps it; errors name the file and the cause.
    static std::shared_ptr<MappedFile> open(const QString& path, Error& error);

    const unsigned char* data() const { return m_data; }
    std::uint64_t size() const { return m_size; }
    const QString& path() const { return m_path; }
    // False once a read touched a page the file no longer has.
    bool intact() const;

private:
    MappedFile() = default;
    QString m_path;
    unsigned char* m_data = nullptr;
    std::uint64_t m_size = 0;
    int m_slot = -1;
};
