#include "io/MappedFile.h"

#include "io/NativePath.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

// The live maps, readable from the signal handler without locks: a slot is published by
// writing its end last and retired by zeroing its start first.
struct Slot {
    std::atomic<std::uintptr_t> start{0};
    std::atomic<std::uintptr_t> end{0};
    std::atomic<bool> damaged{false};
};
constexpr int kSlots = 1024;
Slot g_slots[kSlots];
struct sigaction g_previous;

void onSigbus(int signal, siginfo_t* info, void* context)
{
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (Slot& slot : g_slots) {
        const std::uintptr_t start = slot.start.load(std::memory_order_acquire);
        if (start && address >= start && address < slot.end.load(std::memory_order_acquire)) {
            const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
            void* at = reinterpret_cast<void*>(address & ~(page - 1));
            // mmap is a plain system call, safe here in practice; the zero page lives until munmap.
            if (mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
                slot.damaged.store(true, std::memory_order_release);
                return;
            }
        }
    }
    // Not ours: behave as if no handler had been installed.
    if (g_previous.sa_flags & SA_SIGINFO && g_previous.sa_sigaction) {
        g_previous.sa_sigaction(signal, info, context);
        return;
    }
    if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
        g_previous.sa_handler(signal);
        return;
    }
    ::signal(SIGBUS, SIG_DFL);
    ::raise(SIGBUS);
}

void installHandler()
{
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction action {};
        action.sa_sigaction = onSigbus;
        action.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&action.sa_mask);
        sigaction(SIGBUS, &action, &g_previous);
    });
}

int claimSlot(const unsigned char* data, std::uint64_t size)
{
    static std::mutex claim;
    std::lock_guard lock(claim);
    for (int i = 0; i < kSlots; ++i)
        if (g_slots[i].start.load() == 0 && g_slots[i].end.load() == 0) {
            g_slots[i].damaged = false;
            g_slots[i].start.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_release);
            g_slots[i].end.store(reinterpret_cast<std::uintptr_t>(data) + size, std::memory_order_release);
            return i;
        }
    return -1;
}

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const QString& path, Error& error)
{
    // O_NONBLOCK: a FIFO must not block the open; it is refused below as not a regular file.
    const int fd = ::open(nativePath(path).constData(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        error = Error::make(errno == ENOENT ? ErrorKind::Missing : ErrorKind::Unreadable, path,
                            errno == ENOENT ? QStringLiteral("no such file")
                                            : QStringLiteral("cannot be read (%1)").arg(QString::fromLocal8Bit(std::strerror(errno))));
        return nullptr;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        error = Error::make(ErrorKind::NotAFile, path, QStringLiteral("not a regular file"));
        return nullptr;
    }
    if (st.st_size == 0) {
        ::close(fd);
        error = Error::make(ErrorKind::Empty, path, QStringLiteral("the file is empty"));
        return nullptr;
    }
    installHandler();
    void* data = mmap(nullptr, std::size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    const int mapError = errno;
    ::close(fd);  // the map keeps the file
    if (data == MAP_FAILED) {
        error = Error::make(ErrorKind::Unreadable, path,
                            QStringLiteral("cannot be memory-mapped (%1)").arg(QString::fromLocal8Bit(std::strerror(mapError))));
        return nullptr;
    }
    std::shared_ptr<MappedFile> mapped(new MappedFile);
    mapped->m_path = path;
    mapped->m_data = static_cast<unsigned char*>(data);
    mapped->m_size = std::uint64_t(st.st_size);
    mapped->m_slot = claimSlot(mapped->m_data, mapped->m_size);
    if (mapped->m_slot < 0) {
        error = Error::make(ErrorKind::Unreadable, path, QStringLiteral("too many files are mapped at once"));
        return nullptr;
    }
    return mapped;
}

MappedFile::~MappedFile()
{
    if (m_slot >= 0) {
        g_slots[m_slot].start.store(0, std::memory_order_release);
        g_slots[m_slot].end.store(0, std::memory_order_release);
    }
    if (m_data)
        munmap(m_data, std::size_t(m_size));
}

bool MappedFile::intact() const
{
    return m_slot < 0 || !g_slots[m_slot].damaged.load(std::memory_order_acquire);
}
