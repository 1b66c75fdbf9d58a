#include "cobs.h"

/* A code byte says "the next code-1 bytes are non-zero"; 0xFF is the longest run and, unlike
 * every other code, implies no zero after it. */
#define MAX_RUN 254u

size_t proto_cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t o = 0;
    size_t start = 0; /* first byte of the current run of non-zero bytes */
    for (size_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[o++] = (uint8_t)(i - start + 1);
            for (size_t k = start; k < i; k++)
                out[o++] = in[k];
            start = i + 1;
        } else if (i - start + 1 == MAX_RUN && i + 1 < len) {
            out[o++] = 0xFF;
            for (size_t k = start; k <= i; k++)
                out[o++] = in[k];
            start = i + 1;
        }
    }
    out[o++] = (uint8_t)(len - start + 1);
    for (size_t k = start; k < len; k++)
        out[o++] = in[k];
    return o;
}

int proto_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t out_cap)
{
    size_t o = 0;
    size_t i = 0;
    while (i < len) {
        uint8_t code = in[i];
        if (code == 0)
            return -1;
        size_t end = i + code;
        if (end > len)
            return -1;
        for (size_t k = i + 1; k < end; k++) {
            if (in[k] == 0 || o >= out_cap)
                return -1;
            out[o++] = in[k];
        }
        i = end;
        /* the zero implied after the last run is the delimiter itself */
        if (code != 0xFF && i < len) {
            if (o >= out_cap)
                return -1;
            out[o++] = 0;
        }
    }
    return (int)o;
}
