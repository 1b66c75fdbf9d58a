/* Host check of the C protocol core against test vectors generated from the Python codec
 * (tests/firmware_vectors.py; the committed copy is vectors.txt, `make host-test`).
 *
 * One check per line; tokens are separated by blanks, hex strings have no spaces and "-"
 * is the empty string:
 *   crc    <data hex> <crc as 4 hex digits>
 *   cobs   <data hex> <encoded hex>                 both directions
 *   encode <message> = <wire frame hex>             proto_encode
 *   stream <bytes hex> = <item> ; <item> ; ...      proto_rx_feed byte by byte; an item is a
 *                                                   message or the name of an error kind
 * A message is its type name and its fields in PROTOCOL.md order, in decimal, HELLO's
 * firmware as hex: "PRESS 7 1000000 5", "HELLO 1 12 250 123456789 6368676b"; ANGLES's
 * readings follow their count as age and raw pairs: "ANGLES 3 5000 1 2 250 17 0 18".
 * Prints every failure and a summary; exits 1 if any check failed.  Usage: host_test [FILE]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cobs.h"
#include "crc.h"
#include "messages.h"

#define MAX_LINE 65536
#define MAX_TOKENS 4096
#define MAX_BYTES 8192

static const char *const STATUS_NAMES[] = {
    "OK", "NONE", "OVERLONG", "COBS", "SHORT", "LONG", "CRC", "TYPE", "LENGTH", "UTF8", "VALUE",
};

static const struct {
    uint8_t type;
    const char *name;
} TYPE_NAMES[] = {
    {PROTO_HELLO, "HELLO"}, {PROTO_PRESS, "PRESS"}, {PROTO_RELEASE, "RELEASE"},
    {PROTO_HEARTBEAT, "HEARTBEAT"}, {PROTO_PONG, "PONG"}, {PROTO_ANGLE, "ANGLE"},
    {PROTO_ANGLES, "ANGLES"},
    {PROTO_HELLO_REQUEST, "HELLO_REQUEST"}, {PROTO_LAMPS, "LAMPS"}, {PROTO_PING, "PING"},
    {PROTO_RESEND, "RESEND"}, {PROTO_ANGLE_RATE, "ANGLE_RATE"},
};

static int parse_hex(const char *s, uint8_t *out, size_t cap)
{
    if (strcmp(s, "-") == 0)
        return 0;
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return (int)(n / 2);
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    if (n == 0) {
        strcpy(out, "-");
        return;
    }
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void format_msg(const struct proto_msg *m, char *out)
{
    const char *name = "?";
    for (size_t i = 0; i < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]; i++)
        if (TYPE_NAMES[i].type == m->type)
            name = TYPE_NAMES[i].name;
    switch (m->type) {
    case PROTO_HELLO: {
        char fw[2 * PROTO_MAX_FIRMWARE + 2];
        to_hex(m->u.hello.firmware, m->u.hello.firmware_len, fw);
        sprintf(out, "%s %u %u %u %lu %s", name, m->u.hello.protocol_version, m->u.hello.pad_count,
                m->u.hello.timer_resolution_us, (unsigned long)m->u.hello.timestamp_us, fw);
        break;
    }
    case PROTO_PRESS:
    case PROTO_RELEASE:
    case PROTO_HEARTBEAT:
        sprintf(out, "%s %u %lu %u", name, m->u.edge.seq, (unsigned long)m->u.edge.timestamp_us,
                m->u.edge.pads);
        break;
    case PROTO_PONG:
        sprintf(out, "%s %u %lu", name, m->u.pong.ping_id, (unsigned long)m->u.pong.timestamp_us);
        break;
    case PROTO_ANGLE:
        sprintf(out, "%s %u %lu %u %u", name, m->u.angle.seq, (unsigned long)m->u.angle.timestamp_us,
                m->u.angle.raw_angle, m->u.angle.status);
        break;
    case PROTO_ANGLES:
        out += sprintf(out, "%s %u %lu %u %u", name, m->u.angles.seq,
                       (unsigned long)m->u.angles.timestamp_us, m->u.angles.status, m->u.angles.count);
        for (uint8_t i = 0; i < m->u.angles.count; i++)
            out += sprintf(out, " %u %u", m->u.angles.age_us[i], m->u.angles.raw_angle[i]);
        break;
    case PROTO_HELLO_REQUEST:
        sprintf(out, "%s %u", name, m->u.hello_request_version);
        break;
    case PROTO_LAMPS:
        sprintf(out, "%s %u %u", name, m->u.lamps.on, m->u.lamps.blink);
        break;
    case PROTO_PING:
        sprintf(out, "%s %u", name, m->u.ping_id);
        break;
    case PROTO_RESEND:
        sprintf(out, "%s %u %u", name, m->u.resend.from_seq, m->u.resend.count);
        break;
    case PROTO_ANGLE_RATE:
        sprintf(out, "%s %u", name, m->u.angle_interval_us);
        break;
    default:
        sprintf(out, "type 0x%02x", m->type);
    }
}

/* Parse a message from tokens tok[0..n-1]; returns 0 on success. */
static int parse_msg(char **tok, int n, struct proto_msg *m)
{
    unsigned long v[4 + 2 * PROTO_MAX_ANGLES] = {0};
    int type = -1;
    for (size_t i = 0; i < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0]; i++)
        if (n > 0 && strcmp(tok[0], TYPE_NAMES[i].name) == 0)
            type = TYPE_NAMES[i].type;
    if (type < 0)
        return -1;
    int fields = n - 1;
    for (int i = 0; i < fields && i < (int)(sizeof v / sizeof v[0]); i++)
        v[i] = strtoul(tok[1 + i], NULL, 10);
    memset(m, 0, sizeof *m);
    m->type = (uint8_t)type;
    switch (type) {
    case PROTO_HELLO: {
        if (fields != 5)
            return -1;
        m->u.hello.protocol_version = (uint8_t)v[0];
        m->u.hello.pad_count = (uint8_t)v[1];
        m->u.hello.timer_resolution_us = (uint16_t)v[2];
        m->u.hello.timestamp_us = (uint32_t)v[3];
        int len = parse_hex(tok[5], m->u.hello.firmware, PROTO_MAX_FIRMWARE);
        if (len < 0)
            return -1;
        m->u.hello.firmware_len = (uint8_t)len;
        return 0;
    }
    case PROTO_PRESS:
    case PROTO_RELEASE:
    case PROTO_HEARTBEAT:
        m->u.edge.seq = (uint16_t)v[0];
        m->u.edge.timestamp_us = (uint32_t)v[1];
        m->u.edge.pads = (uint16_t)v[2];
        return fields == 3 ? 0 : -1;
    case PROTO_PONG:
        m->u.pong.ping_id = (uint16_t)v[0];
        m->u.pong.timestamp_us = (uint32_t)v[1];
        return fields == 2 ? 0 : -1;
    case PROTO_ANGLE:
        m->u.angle.seq = (uint16_t)v[0];
        m->u.angle.timestamp_us = (uint32_t)v[1];
        m->u.angle.raw_angle = (uint16_t)v[2];
        m->u.angle.status = (uint8_t)v[3];
        return fields == 4 ? 0 : -1;
    case PROTO_ANGLES:
        m->u.angles.seq = (uint16_t)v[0];
        m->u.angles.timestamp_us = (uint32_t)v[1];
        m->u.angles.status = (uint8_t)v[2];
        m->u.angles.count = (uint8_t)v[3];
        if (v[3] > PROTO_MAX_ANGLES || fields != 4 + 2 * (int)v[3])
            return -1;
        for (uint8_t i = 0; i < m->u.angles.count; i++) {
            m->u.angles.age_us[i] = (uint16_t)v[4 + 2 * i];
            m->u.angles.raw_angle[i] = (uint16_t)v[5 + 2 * i];
        }
        return 0;
    case PROTO_HELLO_REQUEST:
        m->u.hello_request_version = (uint8_t)v[0];
        return fields == 1 ? 0 : -1;
    case PROTO_LAMPS:
        m->u.lamps.on = (uint16_t)v[0];
        m->u.lamps.blink = (uint16_t)v[1];
        return fields == 2 ? 0 : -1;
    case PROTO_RESEND:
        m->u.resend.from_seq = (uint16_t)v[0];
        m->u.resend.count = (uint8_t)v[1];
        return fields == 2 ? 0 : -1;
    case PROTO_ANGLE_RATE:
        m->u.angle_interval_us = (uint16_t)v[0];
        return fields == 1 ? 0 : -1;
    default:
        m->u.ping_id = (uint16_t)v[0];
        return fields == 1 ? 0 : -1;
    }
}

static long failures;

static void fail(long line, const char *what, const char *want, const char *got)
{
    failures++;
    printf("FAIL line %ld (%s):\n  expected: %s\n  got:      %s\n", line, what, want, got);
}

static void join(char **tok, int n, char *out)
{
    out[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, tok[i]);
    }
}

static int find_eq(char **tok, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(tok[i], "=") == 0)
            return i;
    return -1;
}

static char want_buf[MAX_LINE], got_buf[MAX_LINE];

static void check_line(long line, char **tok, int n)
{
    static uint8_t a[MAX_BYTES], b[MAX_BYTES], c[MAX_BYTES];
    char *want = want_buf, *got = got_buf;
    if (strcmp(tok[0], "crc") == 0 && n == 3) {
        int len = parse_hex(tok[1], a, sizeof a);
        sprintf(got, "%04x", proto_crc16(a, (size_t)(len < 0 ? 0 : len)));
        if (len < 0 || strcmp(got, tok[2]) != 0)
            fail(line, "crc", tok[2], got);
    } else if (strcmp(tok[0], "cobs") == 0 && n == 3) {
        int len = parse_hex(tok[1], a, sizeof a);
        int elen = parse_hex(tok[2], b, sizeof b);
        if (len < 0 || elen < 0) {
            fail(line, "cobs", "hex", "unparsable");
            return;
        }
        size_t got_len = proto_cobs_encode(a, (size_t)len, c);
        to_hex(c, got_len, got);
        if (strcmp(got, tok[2]) != 0)
            fail(line, "cobs encode", tok[2], got);
        int dlen = proto_cobs_decode(b, (size_t)elen, c, sizeof c);
        if (dlen < 0)
            strcpy(got, "error");
        else
            to_hex(c, (size_t)dlen, got);
        if (strcmp(got, tok[1]) != 0)
            fail(line, "cobs decode", tok[1], got);
    } else if (strcmp(tok[0], "encode") == 0 && find_eq(tok, n) == n - 2) {
        struct proto_msg m;
        join(tok + 1, n - 3, want);
        if (parse_msg(tok + 1, n - 3, &m) != 0) {
            fail(line, "encode", "a message", want);
            return;
        }
        int len = proto_encode(&m, c);
        if (len < 0)
            strcpy(got, "invalid message");
        else
            to_hex(c, (size_t)len, got);
        if (strcmp(got, tok[n - 1]) != 0)
            fail(line, "encode", tok[n - 1], got);
    } else if (strcmp(tok[0], "stream") == 0 && n >= 3 && strcmp(tok[2], "=") == 0) {
        int len = parse_hex(tok[1], a, sizeof a);
        join(tok + 3, n - 3, want);
        if (len < 0) {
            fail(line, "stream", "hex", "unparsable");
            return;
        }
        struct proto_rx rx;
        proto_rx_init(&rx);
        got[0] = 0;
        for (int i = 0; i < len; i++) {
            struct proto_msg m;
            enum proto_status st = proto_rx_feed(&rx, a[i], &m);
            if (st == PROTO_NONE)
                continue;
            if (got[0])
                strcat(got, " ; ");
            if (st == PROTO_OK)
                format_msg(&m, got + strlen(got));
            else
                strcat(got, STATUS_NAMES[st]);
        }
        if (strcmp(got, want) != 0)
            fail(line, "stream", want, got);
    } else {
        join(tok, n, want);
        fail(line, "syntax", "a check", want);
    }
}

int main(int argc, char **argv)
{
    FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    static char buf[MAX_LINE];
    static char *tok[MAX_TOKENS];
    long line = 0, checks = 0;
    while (fgets(buf, sizeof buf, in)) {
        line++;
        int n = 0;
        for (char *t = strtok(buf, " \t\r\n"); t && n < MAX_TOKENS; t = strtok(NULL, " \t\r\n"))
            tok[n++] = t;
        if (n == 0 || tok[0][0] == '#')
            continue;
        checks++;
        check_line(line, tok, n);
    }
    printf("%ld checks, %ld failures\n", checks, failures);
    return failures || checks == 0 ? 1 : 0;
}
