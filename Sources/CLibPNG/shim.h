// libpng's simplified writing API (1.6.29 and later, Debian's libpng16-16), declared here so that Relink builds
// without the library's headers: it is loaded with dlopen when the console first draws a PNG. Layout as in png.h 1.6.
// The simplified API reports errors in the structure (never by longjmp), so it is safe to call from Swift.
#ifndef RELINK_CLIBPNG_H
#define RELINK_CLIBPNG_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *opaque;
    uint32_t version;
    uint32_t width;
    uint32_t height;
    uint32_t format;
    uint32_t flags;
    uint32_t colormap_entries;
    uint32_t warning_or_error;
    char message[64];
} relink_png_image;

#define RELINK_PNG_IMAGE_VERSION 1
#define RELINK_PNG_FORMAT_GRAY 0

typedef int (*relink_png_image_write_to_memory_fn)(
    relink_png_image *image, void *memory, size_t *memory_bytes, int convert_to_8_bit, const void *buffer, int32_t row_stride,
    const void *colormap);
typedef void (*relink_png_image_free_fn)(relink_png_image *image);

#endif
