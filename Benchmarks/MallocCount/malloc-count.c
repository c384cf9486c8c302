// Counts the heap allocations of a whole process, loaded with LD_PRELOAD by Benchmarks/allocations.sh.
// Every malloc, calloc, realloc, posix_memalign and aligned_alloc adds one (glibc's own functions do the work);
// every 50 ms the total is written to the file $MALLOC_COUNT_FILE, which the script reads between two bursts of
// requests. Only for benchmarks: never linked into Relink.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_ulong allocations;

static inline void count(void) { atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed); }

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t count_, size_t size) { count(); return __libc_calloc(count_, size); }
void *realloc(void *pointer, size_t size) { count(); return __libc_realloc(pointer, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **result, size_t alignment, size_t size) {
    count();
    *result = __libc_memalign(alignment, size);
    return *result ? 0 : ENOMEM;
}

static void *write_total(void *unused) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    for (;;) {
        usleep(50000);
        FILE *file = fopen(path, "w");
        if (file) {
            fprintf(file, "%lu\n", atomic_load(&allocations));
            fclose(file);
        }
    }
    return unused;
}

__attribute__((constructor)) static void start(void) {
    if (!getenv("MALLOC_COUNT_FILE")) return;
    pthread_t thread;
    pthread_create(&thread, 0, write_total, 0);
}
