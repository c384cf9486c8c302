// The few types of libqrencode (4.x, Debian's libqrencode4) that Relink calls, declared here so that Relink builds
// without the library: it is loaded with dlopen when the console first draws a QR code. Layouts as in qrencode.h 4.1.
#ifndef RELINK_CQRENCODE_H
#define RELINK_CQRENCODE_H

/// One encoded symbol: `width` x `width` modules, one byte each, bit 0 set for a dark module.
typedef struct {
    int version;
    int width;
    unsigned char *data;
} QRcode;

// QRecLevel: L, M, Q, H.
#define RELINK_QR_ECLEVEL_L 0
#define RELINK_QR_ECLEVEL_M 1
#define RELINK_QR_ECLEVEL_Q 2
#define RELINK_QR_ECLEVEL_H 3
// QRencodeMode's 8-bit mode.
#define RELINK_QR_MODE_8 2

typedef QRcode *(*relink_qrcode_encode_string_fn)(const char *string, int version, int level, int hint, int casesensitive);
typedef void (*relink_qrcode_free_fn)(QRcode *qrcode);

#endif
