/* Messages of the MCU <-> Pi protocol, version 2 (firmware_proto/PROTOCOL.md), in plain C99:
 * encoding to wire frames, decoding of frames, and a resynchronising byte-stream receiver.
 *
 * The same checks as the Python codec (firmware_proto/codec.py), in the same order: body
 * length, CRC, type, payload length, UTF-8 of HELLO's firmware, field values.  Where Python
 * returns a ProtocolError with an English reason, this returns one of enum proto_status (the
 * kind of the reason); tests/test_firmware_c.py checks both sides against the same vectors.
 * No dynamic memory, no I/O, no AVR specifics: the firmware and the host test share it. */
#ifndef PROTO_MESSAGES_H
#define PROTO_MESSAGES_H

#include <stddef.h>
#include <stdint.h>

#include "cobs.h"

#define PROTO_VERSION 2u
#define PROTO_MIN_BODY 3u      /* type + CRC */
#define PROTO_MAX_BODY 64u
#define PROTO_MAX_ENCODED 80u  /* bytes a receiver buffers between delimiters */
#define PROTO_MAX_FIRMWARE 32u /* bytes of HELLO's firmware string */
#define PROTO_MAX_PADS 16u
#define PROTO_MAX_RAW_ANGLE 4095u
#define PROTO_ANGLE_STATUS_MASK 0x07u
#define PROTO_MAX_ANGLES 13u /* readings in one ANGLES frame: its body is then 62 bytes */
#define PROTO_MAX_HEARTBEAT_INTERVAL_US 100000ul
/* A whole wire frame: COBS(body) plus the delimiter. */
#define PROTO_MAX_WIRE (PROTO_COBS_MAX(PROTO_MAX_BODY) + 1u)

enum proto_type {
    /* device -> host */
    PROTO_HELLO = 0x01,
    PROTO_PRESS = 0x02,
    PROTO_RELEASE = 0x03,
    PROTO_HEARTBEAT = 0x04,
    PROTO_PONG = 0x05,
    PROTO_ANGLE = 0x06,
    PROTO_ANGLES = 0x07,
    /* host -> device */
    PROTO_HELLO_REQUEST = 0x81,
    PROTO_LAMPS = 0x82,
    PROTO_PING = 0x83,
    PROTO_RESEND = 0x84,
    PROTO_ANGLE_RATE = 0x85
};

/* Outcome of decoding; everything from PROTO_ERR_OVERLONG on is a rejected frame, in the
 * order of PROTOCOL.md 2.5. */
enum proto_status {
    PROTO_OK = 0,         /* a message was decoded */
    PROTO_NONE,           /* (stream receiver) no frame completed by this byte */
    PROTO_ERR_OVERLONG,   /* more than PROTO_MAX_ENCODED bytes without a delimiter */
    PROTO_ERR_COBS,       /* bad COBS encoding */
    PROTO_ERR_SHORT,      /* body shorter than PROTO_MIN_BODY */
    PROTO_ERR_LONG,       /* body longer than PROTO_MAX_BODY */
    PROTO_ERR_CRC,        /* CRC mismatch */
    PROTO_ERR_TYPE,       /* unknown message type */
    PROTO_ERR_LENGTH,     /* payload length does not fit the type */
    PROTO_ERR_UTF8,       /* HELLO firmware is not valid UTF-8 */
    PROTO_ERR_VALUE       /* a field is out of its range */
};

struct proto_hello {
    uint8_t protocol_version;
    uint8_t pad_count;
    uint16_t timer_resolution_us;
    uint32_t timestamp_us;
    uint8_t firmware_len;
    uint8_t firmware[PROTO_MAX_FIRMWARE]; /* UTF-8, not terminated */
};

/* PRESS, RELEASE and HEARTBEAT share a layout; pads is HEARTBEAT's held mask. */
struct proto_edge {
    uint16_t seq;
    uint32_t timestamp_us;
    uint16_t pads;
};

struct proto_pong {
    uint16_t ping_id;
    uint32_t timestamp_us;
};

struct proto_angle {
    uint16_t seq;
    uint32_t timestamp_us;
    uint16_t raw_angle;
    uint8_t status;
};

/* A burst of readings with one status; timestamp_us is the newest reading's time, and
 * reading i was taken age_us[i] before it (oldest first: the ages do not grow, the last is 0). */
struct proto_angles {
    uint16_t seq;
    uint32_t timestamp_us;
    uint8_t status;
    uint8_t count; /* 1..PROTO_MAX_ANGLES */
    uint16_t age_us[PROTO_MAX_ANGLES];
    uint16_t raw_angle[PROTO_MAX_ANGLES];
};

struct proto_lamps {
    uint16_t on;
    uint16_t blink;
};

struct proto_resend {
    uint16_t from_seq;
    uint8_t count; /* 1..255 */
};

struct proto_msg {
    uint8_t type; /* enum proto_type */
    union {
        struct proto_hello hello;
        struct proto_edge edge; /* PRESS, RELEASE, HEARTBEAT */
        struct proto_pong pong;
        struct proto_angle angle;
        struct proto_angles angles;
        uint8_t hello_request_version; /* HELLO_REQUEST */
        struct proto_lamps lamps;
        uint16_t ping_id; /* PING */
        struct proto_resend resend;
        uint16_t angle_interval_us; /* ANGLE_RATE */
    } u;
};

/* type ‖ payload ‖ crc16_le into body (room for PROTO_MAX_BODY bytes); returns its length,
 * or -1 if msg is not a valid message (unknown type, a field out of range). */
int proto_encode_body(const struct proto_msg *msg, uint8_t *body);

/* The complete wire frame COBS(body) ‖ 00 into wire (room for PROTO_MAX_WIRE bytes);
 * returns its length, or -1 if msg is not valid. */
int proto_encode(const struct proto_msg *msg, uint8_t *wire);

/* Decode a body (type ‖ payload ‖ crc); PROTO_OK fills *out. */
enum proto_status proto_decode_body(const uint8_t *body, size_t len, struct proto_msg *out);

/* Decode one frame as received, without its delimiter. */
enum proto_status proto_decode_frame(const uint8_t *encoded, size_t len, struct proto_msg *out);

/* Stream receiver, byte by byte, with the Python FrameDecoder's contract: empty frames are
 * skipped, an over-long frame is reported once (at byte PROTO_MAX_ENCODED + 1) and skipped
 * up to its delimiter, and a valid frame after a delimiter always decodes. */
struct proto_rx {
    uint8_t buf[PROTO_MAX_ENCODED];
    uint8_t len;
    uint8_t discarding;
};

void proto_rx_init(struct proto_rx *rx);

/* Feed one byte: PROTO_NONE if it completed no frame, PROTO_OK with *out filled, or the
 * reason the completed (or over-long) frame was rejected. */
enum proto_status proto_rx_feed(struct proto_rx *rx, uint8_t byte, struct proto_msg *out);

#endif
