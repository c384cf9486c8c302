// The few types of libmaxminddb (1.x, Debian's libmaxminddb0) that Relink calls, declared here so that Relink
// builds without the library: it is loaded with dlopen only when `relink serve --geoip` is given. Layouts as in
// maxminddb.h 1.7; the database handle itself is opaque to Relink (a buffer larger than MMDB_s).
#ifndef RELINK_CMAXMINDDB_H
#define RELINK_CMAXMINDDB_H
#include <stdbool.h>
#include <stdint.h>

typedef struct MMDB_entry_s {
    const void *mmdb;
    uint32_t offset;
} MMDB_entry_s;

typedef struct MMDB_lookup_result_s {
    bool found_entry;
    MMDB_entry_s entry;
    uint16_t netmask;
} MMDB_lookup_result_s;

typedef struct MMDB_entry_data_s {
    bool has_data;
    union {
        uint32_t pointer;
        const char *utf8_string;
        double double_value;
        const uint8_t *bytes;
        uint16_t uint16;
        uint32_t uint32;
        int32_t int32;
        uint64_t uint64;
        unsigned __int128 uint128;
        bool boolean;
        float float_value;
    };
    uint32_t offset;
    uint32_t offset_to_next;
    uint32_t data_size;
    uint32_t type;
} MMDB_entry_data_s;

#define RELINK_MMDB_MODE_MMAP 1
#define RELINK_MMDB_SUCCESS 0
#define RELINK_MMDB_DATA_TYPE_UTF8_STRING 2
/// sizeof(MMDB_s) is 136 in 1.7; the handle is allocated larger.
#define RELINK_MMDB_HANDLE_SIZE 1024

typedef int (*relink_mmdb_open_fn)(const char *filename, uint32_t flags, void *mmdb);
typedef MMDB_lookup_result_s (*relink_mmdb_lookup_string_fn)(const void *mmdb, const char *ipstr, int *gai_error, int *mmdb_error);
typedef int (*relink_mmdb_aget_value_fn)(MMDB_entry_s *start, MMDB_entry_data_s *entry_data, const char *const *path);
typedef void (*relink_mmdb_close_fn)(void *mmdb);
typedef const char *(*relink_mmdb_strerror_fn)(int error_code);

#endif
