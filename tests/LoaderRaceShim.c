/* Preloaded into histoscope-cli by tst_batch: widens the window of a loader race so that a test
 * can see it every time instead of once in hundreds of loaded runs. dl_iterate_phdr calls back
 * holding the loader's write lock; this shim sleeps in the first callback of each iteration
 * (LOADER_RACE_ITERATE_MS) and delays the image module's dlopen (LOADER_RACE_IMAGE_MS), so that
 * a dlopen on another thread starts while the lock is held. Code that calls dlopen or dlsym from
 * such a callback then deadlocks, as io/DecoderLog.cpp once did. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned delayMs(const char* name)
{
    const char* value = getenv(name);
    return value ? (unsigned)atoi(value) : 0u;
}

void* dlopen(const char* file, int flags)
{
    static void* (*real)(const char*, int);
    if (!real)
        real = (void* (*)(const char*, int))dlsym(RTLD_NEXT, "dlopen");
    if (file && strstr(file, "libhistoscope_image"))
        usleep(delayMs("LOADER_RACE_IMAGE_MS") * 1000u);
    return real(file, flags);
}

struct Iteration {
    int (*callback)(struct dl_phdr_info*, size_t, void*);
    void* data;
    int first;
};

static int slowCallback(struct dl_phdr_info* info, size_t size, void* data)
{
    struct Iteration* iteration = (struct Iteration*)data;
    if (iteration->first) {
        iteration->first = 0;
        usleep(delayMs("LOADER_RACE_ITERATE_MS") * 1000u);
    }
    return iteration->callback(info, size, iteration->data);
}

int dl_iterate_phdr(int (*callback)(struct dl_phdr_info*, size_t, void*), void* data)
{
    static int (*real)(int (*)(struct dl_phdr_info*, size_t, void*), void*);
    if (!real)
        real = (int (*)(int (*)(struct dl_phdr_info*, size_t, void*), void*))dlsym(RTLD_NEXT, "dl_iterate_phdr");
    struct Iteration iteration = {callback, data, 1};
    return real(slowCallback, &iteration);
}
