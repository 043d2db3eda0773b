#include "io/DecoderLog.h"

#include <QMap>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace decoderlog {

struct Reader::State {
    QStringList order;             // messages in the order first seen
    QMap<QString, qint64> repeats; // how often each came
};

void deliver(Reader* reader, const QString& message);

namespace {

constexpr int kLogError = 16;          // AV_LOG_ERROR: what FFmpeg printed under OpenCV's level
constexpr int kMaxMessages = 20;       // per reader; more are counted, not kept

// The stable head of FFmpeg's AVClass, enough to name the context a message comes from.
struct ClassHead {
    const char* className;
    const char* (*itemName)(void* context);
};

std::mutex g_mutex;
std::set<Reader*> g_readers;
Reader::State g_unattributed;
thread_local Reader* t_current = nullptr;

void keep(Reader::State& state, const QString& message)
{
    if (state.repeats.contains(message)) {
        ++state.repeats[message];
        return;
    }
    if (state.order.size() >= kMaxMessages) {
        ++state.repeats[QString()];  // the empty key counts what did not fit
        return;
    }
    state.order << message;
    state.repeats.insert(message, 1);
}

QStringList drain(Reader::State& state)
{
    QStringList out;
    for (const QString& m : state.order) {
        const qint64 n = state.repeats.value(m);
        out << (n > 1 ? QStringLiteral("%1 (%2 times)").arg(m).arg(n) : m);
    }
    if (const qint64 more = state.repeats.value(QString()); more > 0)
        out << QStringLiteral("and %1 further message(s)").arg(more);
    state.order.clear();
    state.repeats.clear();
    return out;
}

void callback(void* context, int level, const char* format, va_list args)
{
    if (level > kLogError)
        return;  // FFmpeg's information and warnings stay quiet, as under OpenCV's default level
    char text[1024];
    std::vsnprintf(text, sizeof text, format, args);
    QString message = QString::fromUtf8(text).trimmed();
    if (message.isEmpty())
        return;
    if (context) {
        const ClassHead* head = *static_cast<ClassHead* const*>(context);
        const char* name = head && head->itemName ? head->itemName(context) : head ? head->className : nullptr;
        if (name && *name)
            message = QStringLiteral("%1: %2").arg(QString::fromUtf8(name), message);
    }
    std::lock_guard lock(g_mutex);
    Reader* owner = t_current && g_readers.count(t_current) ? t_current : g_readers.size() == 1 ? *g_readers.begin() : nullptr;
    if (owner)
        deliver(owner, message);
    else
        keep(g_unattributed, message);
}

// FFmpeg's libavutil, whichever version OpenCV loaded; null when it is not loaded.
void* findSymbol(const char* name)
{
    if (void* symbol = dlsym(RTLD_DEFAULT, name))
        return symbol;
    // dl_iterate_phdr calls back holding the loader's write lock (dl_load_write_lock); dlopen,
    // dlsym and dlclose take its load lock (dl_load_lock). Called from the callback, they take the
    // two in the order opposite to a dlopen on another thread (load lock, then write lock to add
    // each object it maps), and both threads wait for ever: a batch that opened its first video
    // while another worker loaded the image module hung. So the callback only notes the names;
    // they are opened once the iteration has let go of the lock.
    std::vector<std::string> candidates;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            if (info->dlpi_name && std::strstr(info->dlpi_name, "libavutil"))
                static_cast<std::vector<std::string>*>(data)->emplace_back(info->dlpi_name);
            return 0;
        },
        &candidates);
    for (const std::string& library : candidates)
        if (void* handle = dlopen(library.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
            void* found = dlsym(handle, name);
            dlclose(handle);  // RTLD_NOLOAD took a reference to a loaded library: this gives it back
            if (found)
                return found;
        }
    return nullptr;
}

}  // namespace

void deliver(Reader* reader, const QString& message) { keep(*reader->m_state, message); }

void install()
{
    static std::once_flag once;
    std::call_once(once, [] {
        using SetCallback = void (*)(void (*)(void*, int, const char*, va_list));
        if (auto set = reinterpret_cast<SetCallback>(findSymbol("av_log_set_callback")))
            set(callback);
    });
}

Reader::Reader() : m_state(std::make_shared<State>())
{
    std::lock_guard lock(g_mutex);
    g_readers.insert(this);
}

Reader::~Reader()
{
    std::lock_guard lock(g_mutex);
    g_readers.erase(this);
}

Reader::Scope::Scope(Reader& reader) : m_previous(t_current) { t_current = &reader; }
Reader::Scope::~Scope() { t_current = m_previous; }

QStringList Reader::take()
{
    std::lock_guard lock(g_mutex);
    return drain(*m_state);
}

QStringList takeUnattributed()
{
    std::lock_guard lock(g_mutex);
    return drain(g_unattributed);
}

}  // namespace decoderlog
