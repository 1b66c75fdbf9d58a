#include "messages.h"

#include "cobs.h"
#include "crc.h"

/* Fixed payload sizes (PROTOCOL.md section 3). */
#define HELLO_FIXED 8u
#define EDGE_SIZE 8u
#define PONG_SIZE 6u
#define ANGLE_SIZE 9u
#define ANGLES_HEAD 7u    /* seq, stamp, status; then 4 bytes a reading */
#define ANGLES_READING 4u
#define HELLO_REQUEST_SIZE 1u
#define LAMPS_SIZE 4u
#define PING_SIZE 2u
#define RESEND_SIZE 3u
#define ANGLE_RATE_SIZE 2u

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (uint16_t)p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

/* Strict UTF-8, as Python's bytes.decode("utf-8"): no overlong forms, no surrogates,
 * nothing above U+10FFFF. */
static int valid_utf8(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t more;
        uint8_t lo = 0x80, hi = 0xBF; /* allowed range of the first continuation byte */
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            more = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            more = 2;
            if (c == 0xE0)
                lo = 0xA0;
            else if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            more = 3;
            if (c == 0xF0)
                lo = 0x90;
            else if (c == 0xF4)
                hi = 0x8F;
        } else {
            return 0;
        }
        if (i + more >= n) /* truncated sequence */
            return 0;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t k = 2; k <= more; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return 0;
        i += more + 1;
    }
    return 1;
}

static int hello_fields_ok(const struct proto_hello *h)
{
    return h->pad_count <= PROTO_MAX_PADS && h->timer_resolution_us >= 1;
}

static int angle_fields_ok(const struct proto_angle *a)
{
    return a->raw_angle <= PROTO_MAX_RAW_ANGLE && (a->status & ~PROTO_ANGLE_STATUS_MASK) == 0;
}

static int angles_fields_ok(const struct proto_angles *a)
{
    if (a->count < 1 || a->count > PROTO_MAX_ANGLES || (a->status & ~PROTO_ANGLE_STATUS_MASK) != 0)
        return 0;
    for (uint8_t i = 0; i < a->count; i++) {
        if (a->raw_angle[i] > PROTO_MAX_RAW_ANGLE || (i > 0 && a->age_us[i] > a->age_us[i - 1]))
            return 0;
    }
    return a->age_us[a->count - 1] == 0;
}

int proto_encode_body(const struct proto_msg *msg, uint8_t *body)
{
    uint8_t *p = body + 1;
    size_t n;
    body[0] = msg->type;
    switch (msg->type) {
    case PROTO_HELLO: {
        const struct proto_hello *h = &msg->u.hello;
        if (!hello_fields_ok(h) || h->firmware_len > PROTO_MAX_FIRMWARE
            || !valid_utf8(h->firmware, h->firmware_len))
            return -1;
        p[0] = h->protocol_version;
        p[1] = h->pad_count;
        put16(p + 2, h->timer_resolution_us);
        put32(p + 4, h->timestamp_us);
        for (uint8_t i = 0; i < h->firmware_len; i++)
            p[HELLO_FIXED + i] = h->firmware[i];
        n = HELLO_FIXED + h->firmware_len;
        break;
    }
    case PROTO_PRESS:
    case PROTO_RELEASE:
    case PROTO_HEARTBEAT:
        if (msg->type != PROTO_HEARTBEAT && msg->u.edge.pads == 0)
            return -1;
        put16(p, msg->u.edge.seq);
        put32(p + 2, msg->u.edge.timestamp_us);
        put16(p + 6, msg->u.edge.pads);
        n = EDGE_SIZE;
        break;
    case PROTO_PONG:
        put16(p, msg->u.pong.ping_id);
        put32(p + 2, msg->u.pong.timestamp_us);
        n = PONG_SIZE;
        break;
    case PROTO_ANGLE:
        if (!angle_fields_ok(&msg->u.angle))
            return -1;
        put16(p, msg->u.angle.seq);
        put32(p + 2, msg->u.angle.timestamp_us);
        put16(p + 6, msg->u.angle.raw_angle);
        p[8] = msg->u.angle.status;
        n = ANGLE_SIZE;
        break;
    case PROTO_ANGLES: {
        const struct proto_angles *a = &msg->u.angles;
        if (!angles_fields_ok(a))
            return -1;
        put16(p, a->seq);
        put32(p + 2, a->timestamp_us);
        p[6] = a->status;
        for (uint8_t i = 0; i < a->count; i++) {
            put16(p + ANGLES_HEAD + ANGLES_READING * i, a->age_us[i]);
            put16(p + ANGLES_HEAD + ANGLES_READING * i + 2, a->raw_angle[i]);
        }
        n = ANGLES_HEAD + ANGLES_READING * (size_t)a->count;
        break;
    }
    case PROTO_HELLO_REQUEST:
        p[0] = msg->u.hello_request_version;
        n = HELLO_REQUEST_SIZE;
        break;
    case PROTO_LAMPS:
        put16(p, msg->u.lamps.on);
        put16(p + 2, msg->u.lamps.blink);
        n = LAMPS_SIZE;
        break;
    case PROTO_PING:
        put16(p, msg->u.ping_id);
        n = PING_SIZE;
        break;
    case PROTO_RESEND:
        if (msg->u.resend.count == 0)
            return -1;
        put16(p, msg->u.resend.from_seq);
        p[2] = msg->u.resend.count;
        n = RESEND_SIZE;
        break;
    case PROTO_ANGLE_RATE:
        put16(p, msg->u.angle_interval_us);
        n = ANGLE_RATE_SIZE;
        break;
    default:
        return -1;
    }
    put16(p + n, proto_crc16(body, 1 + n));
    return (int)(1 + n + 2);
}

int proto_encode(const struct proto_msg *msg, uint8_t *wire)
{
    uint8_t body[PROTO_MAX_BODY];
    int len = proto_encode_body(msg, body);
    if (len < 0)
        return -1;
    size_t n = proto_cobs_encode(body, (size_t)len, wire);
    wire[n] = 0;
    return (int)(n + 1);
}

/* Payload size of a fixed-layout type, 0 for HELLO and ANGLES (variable) and -1 for unknown
 * types. */
static int payload_size(uint8_t type)
{
    switch (type) {
    case PROTO_HELLO:
    case PROTO_ANGLES: return 0;
    case PROTO_PRESS:
    case PROTO_RELEASE:
    case PROTO_HEARTBEAT: return EDGE_SIZE;
    case PROTO_PONG: return PONG_SIZE;
    case PROTO_ANGLE: return ANGLE_SIZE;
    case PROTO_HELLO_REQUEST: return HELLO_REQUEST_SIZE;
    case PROTO_LAMPS: return LAMPS_SIZE;
    case PROTO_PING: return PING_SIZE;
    case PROTO_RESEND: return RESEND_SIZE;
    case PROTO_ANGLE_RATE: return ANGLE_RATE_SIZE;
    default: return -1;
    }
}

enum proto_status proto_decode_body(const uint8_t *body, size_t len, struct proto_msg *out)
{
    if (len < PROTO_MIN_BODY)
        return PROTO_ERR_SHORT;
    if (len > PROTO_MAX_BODY)
        return PROTO_ERR_LONG;
    /* The CRC first: if it is wrong, every other byte is suspect. */
    if (get16(body + len - 2) != proto_crc16(body, len - 2))
        return PROTO_ERR_CRC;
    uint8_t type = body[0];
    int size = payload_size(type);
    if (size < 0)
        return PROTO_ERR_TYPE;
    const uint8_t *p = body + 1;
    size_t n = len - 3; /* payload length */
    if (type == PROTO_HELLO) {
        if (n < HELLO_FIXED || n > HELLO_FIXED + PROTO_MAX_FIRMWARE)
            return PROTO_ERR_LENGTH;
    } else if (type == PROTO_ANGLES) {
        if (n < ANGLES_HEAD + ANGLES_READING || n > ANGLES_HEAD + ANGLES_READING * PROTO_MAX_ANGLES
            || (n - ANGLES_HEAD) % ANGLES_READING != 0)
            return PROTO_ERR_LENGTH;
    } else if (n != (size_t)size) {
        return PROTO_ERR_LENGTH;
    }
    out->type = type;
    switch (type) {
    case PROTO_HELLO: {
        struct proto_hello *h = &out->u.hello;
        h->protocol_version = p[0];
        h->pad_count = p[1];
        h->timer_resolution_us = get16(p + 2);
        h->timestamp_us = get32(p + 4);
        h->firmware_len = (uint8_t)(n - HELLO_FIXED);
        for (uint8_t i = 0; i < h->firmware_len; i++)
            h->firmware[i] = p[HELLO_FIXED + i];
        if (!valid_utf8(h->firmware, h->firmware_len))
            return PROTO_ERR_UTF8;
        return hello_fields_ok(h) ? PROTO_OK : PROTO_ERR_VALUE;
    }
    case PROTO_PRESS:
    case PROTO_RELEASE:
    case PROTO_HEARTBEAT:
        out->u.edge.seq = get16(p);
        out->u.edge.timestamp_us = get32(p + 2);
        out->u.edge.pads = get16(p + 6);
        /* a PRESS/RELEASE is sent because some pad changed: an empty set is a firmware bug */
        return (type != PROTO_HEARTBEAT && out->u.edge.pads == 0) ? PROTO_ERR_VALUE : PROTO_OK;
    case PROTO_PONG:
        out->u.pong.ping_id = get16(p);
        out->u.pong.timestamp_us = get32(p + 2);
        return PROTO_OK;
    case PROTO_ANGLE:
        out->u.angle.seq = get16(p);
        out->u.angle.timestamp_us = get32(p + 2);
        out->u.angle.raw_angle = get16(p + 6);
        out->u.angle.status = p[8];
        return angle_fields_ok(&out->u.angle) ? PROTO_OK : PROTO_ERR_VALUE;
    case PROTO_ANGLES: {
        struct proto_angles *a = &out->u.angles;
        a->seq = get16(p);
        a->timestamp_us = get32(p + 2);
        a->status = p[6];
        a->count = (uint8_t)((n - ANGLES_HEAD) / ANGLES_READING);
        for (uint8_t i = 0; i < a->count; i++) {
            a->age_us[i] = get16(p + ANGLES_HEAD + ANGLES_READING * i);
            a->raw_angle[i] = get16(p + ANGLES_HEAD + ANGLES_READING * i + 2);
        }
        return angles_fields_ok(a) ? PROTO_OK : PROTO_ERR_VALUE;
    }
    case PROTO_HELLO_REQUEST:
        out->u.hello_request_version = p[0];
        return PROTO_OK;
    case PROTO_LAMPS:
        out->u.lamps.on = get16(p);
        out->u.lamps.blink = get16(p + 2);
        return PROTO_OK;
    case PROTO_RESEND:
        out->u.resend.from_seq = get16(p);
        out->u.resend.count = p[2];
        return out->u.resend.count ? PROTO_OK : PROTO_ERR_VALUE;
    case PROTO_ANGLE_RATE:
        out->u.angle_interval_us = get16(p);
        return PROTO_OK;
    default: /* PROTO_PING: payload_size() knows no other type */
        out->u.ping_id = get16(p);
        return PROTO_OK;
    }
}

enum proto_status proto_decode_frame(const uint8_t *encoded, size_t len, struct proto_msg *out)
{
    /* COBS never decodes to more bytes than it was given, so PROTO_MAX_ENCODED is room
     * enough (and a body longer than PROTO_MAX_BODY is still told apart and reported). */
    uint8_t body[PROTO_MAX_ENCODED];
    if (len > PROTO_MAX_ENCODED)
        return PROTO_ERR_OVERLONG;
    int n = proto_cobs_decode(encoded, len, body, sizeof body);
    if (n < 0)
        return PROTO_ERR_COBS;
    return proto_decode_body(body, (size_t)n, out);
}

void proto_rx_init(struct proto_rx *rx)
{
    rx->len = 0;
    rx->discarding = 0;
}

enum proto_status proto_rx_feed(struct proto_rx *rx, uint8_t byte, struct proto_msg *out)
{
    if (byte == 0) {
        uint8_t len = rx->len;
        int was_discarding = rx->discarding;
        rx->len = 0;
        rx->discarding = 0;
        if (was_discarding || len == 0)
            return PROTO_NONE; /* end of an over-long frame (already reported), or a flush */
        return proto_decode_frame(rx->buf, len, out);
    }
    if (rx->discarding)
        return PROTO_NONE;
    if (rx->len < PROTO_MAX_ENCODED) {
        rx->buf[rx->len++] = byte;
        return PROTO_NONE;
    }
    rx->len = 0;
    rx->discarding = 1;
    return PROTO_ERR_OVERLONG;
}
