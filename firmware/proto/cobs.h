/* COBS (PROTOCOL.md 2.2), the same canonical encoding as firmware_proto/framing.py:
 * a full 254-byte run at the very end of the data is sent without a trailing 0x01 code. */
#ifndef PROTO_COBS_H
#define PROTO_COBS_H

#include <stddef.h>
#include <stdint.h>

/* Encoded size of len data bytes, without the delimiter (the worst case, and exact for
 * data of at most 254 bytes: len + 1). */
#define PROTO_COBS_MAX(len) ((len) + (len) / 254u + 1u)

/* Encode len bytes of in into out (room for PROTO_COBS_MAX(len) bytes); returns the number
 * of bytes written.  No delimiter is appended. */
size_t proto_cobs_encode(const uint8_t *in, size_t len, uint8_t *out);

/* Decode len bytes of in (without the delimiter) into out (room for out_cap bytes).
 * Returns the decoded length, or -1 if in holds a 0x00, a code byte runs past the end, or
 * the result would not fit. */
int proto_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t out_cap);

#endif
