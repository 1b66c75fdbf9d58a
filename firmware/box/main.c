/* Reference firmware of the serial button box: ATmega328P at 16 MHz (Arduino Nano),
 * speaking firmware_proto/PROTOCOL.md version 2 at 115200 baud on the hardware UART.
 *
 * Wiring (README "The button box"): pads 0..5 on PD2..PD7 (Nano D2..D7), each a switch to
 * GND with the internal pull-up; lamps 0..5 on PB0..PB5 (Nano D8..D13, active high, D13 is
 * also the on-board LED); the optional AS5600 angle sensor on TWI (A4 SDA, A5 SCL).
 *
 * Time: Timer1 runs free at F_CPU/8 = 2 MHz (0.5 us a tick); its overflow interrupt extends
 * it, and a stamp is that count in microseconds (u32, wraps every 71.6 min, PROTOCOL.md 5.1).
 *
 * Pads: the pin-change interrupt of port D reads all pads in one read of PIND, as its first
 * instruction after the prologue, then stamps the timer: that read is the "scan".  A pad's
 * first edge is reported at once (leading-edge debounce) and its further edges are ignored
 * for DEBOUNCE_US; then the main loop scans again and reports what the pad reads (the
 * release, if it was let go meanwhile).  The stamp is late by the time the interrupt waited:
 * at most the longest other interrupt or interrupts-off section plus the prologue, which is
 * what HELLO's timer_resolution_us states (TIMER_RESOLUTION_US below).
 *
 * Order (PROTOCOL.md 5.2): every stamped thing (a scan, a received host frame, a heartbeat,
 * an angle reading) is stamped and queued in one event ring inside one interrupts-off
 * section, so the ring is in stamp order; the main loop alone turns events into frames, in
 * ring order, so frames leave in non-decreasing stamp order with consecutive seq numbers.
 * The one exception is RESEND (5.9): the last KEPT sequenced frames are kept and sent again,
 * unchanged, when the host asks for them to repair a gap.
 *
 * Every frame leaves as 00 ‖ COBS(body) ‖ 00 (2.4), so noise on the idle line never costs one.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <stdint.h>
#include <util/atomic.h>

#include "../proto/messages.h"

#ifndef F_CPU
#error "F_CPU must be set (the Makefile sets 16000000)"
#endif
#ifndef ANGLE_SENSOR
#define ANGLE_SENSOR 0 /* make ANGLE=1 builds the AS5600 reader */
#endif

#define FIRMWARE_NAME "chgk-box 1.2.0"
#define PAD_COUNT 6u
#define PAD_SHIFT 2u /* pad i is PD(2 + i) */
#define PAD_PINS 0xFCu
#define LAMP_PINS 0x3Fu /* lamp i is PB(i) */
#define BAUD_UBRR 16u   /* 115200 baud with U2X at 16 MHz (117647, +2.1 %, as Arduino does) */
/* Granularity of the press stamps.  The timer ticks every 0.5 us and stamps are whole
 * microseconds, but a press is stamped when the port is read: at once if the main loop's
 * scan reads it, otherwise when the pin-change interrupt gets to run, after the longest
 * interrupts-off stretch (the main loop's scan section, the receive interrupt) and its own
 * prologue.  Measured on simavr's ATmega328P: stamp minus true edge time spreads over
 * 15.6 to 16.9 us in runs of 30-40 presses, so 20 is stated (tests/test_firmware_sim.py
 * checks the spread stays within it). */
#define TIMER_RESOLUTION_US 20u
#define DEBOUNCE_US 5000ul
#define HEARTBEAT_US 50000ul /* twice as often as the protocol's 100 ms bound */
#define BLINK_SHIFT 18u      /* blink phase = bit 18 of the stamp: 262 ms on, 262 ms off */

/* ---------------------------------------------------------------- the clock */

static volatile uint32_t t1_overflows;

ISR(TIMER1_OVF_vect)
{
    t1_overflows++;
}

/* The stamp in microseconds; interrupts must be off. */
static uint32_t stamp_locked(void)
{
    uint16_t tcnt = TCNT1;
    uint32_t ovf = t1_overflows;
    /* An overflow that happened while interrupts were off is still pending: count it if the
     * counter was read after it (small value). */
    if ((TIFR1 & _BV(TOV1)) && tcnt < 0x8000u)
        ovf++;
    return (ovf << 15) | (tcnt >> 1);
}

/* ---------------------------------------------------------------- the event ring */

enum { EV_SCAN, EV_FRAME, EV_HEARTBEAT, EV_HELLO, EV_ANGLE };

struct event {
    uint32_t t;
    uint8_t kind;
    uint8_t x;  /* EV_FRAME: rx slot; EV_ANGLE: status */
    uint16_t a; /* EV_SCAN: pressed; EV_FRAME: length; EV_HEARTBEAT: held; EV_ANGLE: raw */
    uint16_t b; /* EV_SCAN: released */
};

#define EV_SIZE 16u /* a power of two */
static struct event events[EV_SIZE];
static volatile uint8_t ev_head, ev_tail; /* head: written with interrupts off; tail: main */

/* Queue an event; interrupts must be off.  Returns 0 if the ring is full. */
static uint8_t post_locked(uint8_t kind, uint32_t t, uint8_t x, uint16_t a, uint16_t b)
{
    uint8_t next = (uint8_t)((ev_head + 1u) & (EV_SIZE - 1u));
    if (next == ev_tail)
        return 0;
    struct event *e = &events[ev_head];
    e->t = t;
    e->kind = kind;
    e->x = x;
    e->a = a;
    e->b = b;
    ev_head = next;
    return 1;
}

static uint8_t pop(struct event *out)
{
    uint8_t ok = 0;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (ev_tail != ev_head) {
            *out = events[ev_tail];
            ev_tail = (uint8_t)((ev_tail + 1u) & (EV_SIZE - 1u));
            ok = 1;
        }
    }
    return ok;
}

/* ---------------------------------------------------------------- pads */

static volatile uint8_t reported; /* debounced state, bit i = pad i pressed */
static volatile uint8_t locked;   /* pads inside their debounce interval */
static uint32_t lock_start[PAD_COUNT];
static uint32_t last_scan;

static uint8_t pads_of(uint8_t pind)
{
    return (uint8_t)((uint8_t)~pind & PAD_PINS) >> PAD_SHIFT; /* pressed = pulled low */
}

/* One scan: raw = pads that read pressed at stamp t; interrupts must be off.  A change that
 * does not fit in the ring stays unreported, so a later scan reports it. */
static void scan_locked(uint8_t raw, uint32_t t)
{
    uint8_t changed = (uint8_t)((raw ^ reported) & ~locked);
    if (!changed)
        return;
    if (!post_locked(EV_SCAN, t, 0, changed & raw, changed & (uint8_t)~raw))
        return;
    last_scan = t;
    reported ^= changed;
    locked |= changed;
    for (uint8_t i = 0; i < PAD_COUNT; i++)
        if (changed & (1u << i))
            lock_start[i] = t;
}

ISR(PCINT2_vect)
{
    uint8_t pind = PIND; /* all pads in one read: the scan */
    scan_locked(pads_of(pind), stamp_locked());
}

/* ---------------------------------------------------------------- UART */

#define TX_SIZE 128u /* a power of two */
static uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;

ISR(USART_UDRE_vect)
{
    if (tx_tail != tx_head) {
        UDR0 = tx_buf[tx_tail];
        tx_tail = (uint8_t)((tx_tail + 1u) & (TX_SIZE - 1u));
    } else {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
    }
}

static void tx_bytes(const uint8_t *data, uint8_t len)
{
    /* One contiguous burst per frame: wait until the whole frame fits. */
    while ((uint8_t)(TX_SIZE - 1u - (uint8_t)((tx_head - tx_tail) & (TX_SIZE - 1u))) < len)
        ;
    for (uint8_t i = 0; i < len; i++) {
        tx_buf[tx_head] = data[i];
        tx_head = (uint8_t)((tx_head + 1u) & (TX_SIZE - 1u));
    }
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        UCSR0B |= _BV(UDRIE0);
    }
}

/* Host frames are collected by the receive interrupt into slots; the longest host frame
 * (LAMPS) is 8 bytes before its delimiter (RESEND 7), and a longer one is dropped
 * (PROTOCOL.md 2.5). */
#define RX_SLOTS 4u /* a power of two */
#define RX_FRAME_MAX 8u
static uint8_t rx_slot_buf[RX_SLOTS][RX_FRAME_MAX];
static volatile uint8_t rx_slot_head, rx_slot_tail;
static uint8_t rx_pos, rx_bad;

ISR(USART_RX_vect)
{
    uint8_t err = UCSR0A & (uint8_t)(_BV(FE0) | _BV(DOR0));
    uint8_t c = UDR0;
    if (c == 0) {
        /* The end of a frame: stamp it now, the moment a PING "is received" (5.6). */
        uint32_t t = stamp_locked();
        uint8_t next = (uint8_t)((rx_slot_head + 1u) & (RX_SLOTS - 1u));
        if (rx_pos && !rx_bad && next != rx_slot_tail
            && post_locked(EV_FRAME, t, rx_slot_head, rx_pos, 0))
            rx_slot_head = next;
        rx_pos = 0;
        rx_bad = 0;
    } else if (rx_pos < RX_FRAME_MAX && !err) {
        rx_slot_buf[rx_slot_head][rx_pos++] = c;
    } else {
        rx_bad = 1;
    }
}

/* ---------------------------------------------------------------- frames out */

static uint16_t seq; /* shared by PRESS, RELEASE, HEARTBEAT, ANGLE and ANGLES (5.3) */

/* The last KEPT sequenced frames, for RESEND (5.9): frame number s is kept[s % KEPT] while
 * it is one of the last kept_count numbered.  8 bytes each, the seq being implied. */
#define KEPT 16u /* RESEND_DEPTH, a power of two */
struct kept_frame {
    uint32_t t;
    uint16_t a;   /* PRESS, RELEASE: pads; HEARTBEAT: held; ANGLE: raw angle */
    uint8_t type; /* enum proto_type; PROTO_ANGLES: numbered, not kept (5.9 allows it) */
    uint8_t x;    /* ANGLE: status */
};
static struct kept_frame kept[KEPT];
static uint8_t kept_count;

/* Every frame goes out as 00 ‖ COBS(body) ‖ 00 (PROTOCOL.md 2.4, a MUST): the leading 0x00
 * ends whatever noise the line picked up while idle, so the host reports that noise on its
 * own instead of losing this frame (a press) to it. */
static void send(const struct proto_msg *msg)
{
    uint8_t wire[1u + PROTO_MAX_WIRE];
    wire[0] = 0;
    int len = proto_encode(msg, wire + 1);
    if (len > 0)
        tx_bytes(wire, (uint8_t)(len + 1));
}

static void send_kept(uint16_t s)
{
    const struct kept_frame *k = &kept[s & (KEPT - 1u)];
    struct proto_msg msg;
    if (k->type == PROTO_ANGLES)
        return; /* its readings are not kept (62 bytes each); it holds no press */
    msg.type = k->type;
    if (k->type == PROTO_ANGLE) {
        msg.u.angle.seq = s;
        msg.u.angle.timestamp_us = k->t;
        msg.u.angle.raw_angle = k->a;
        msg.u.angle.status = k->x;
    } else {
        msg.u.edge.seq = s;
        msg.u.edge.timestamp_us = k->t;
        msg.u.edge.pads = k->a;
    }
    send(&msg);
}

/* Keep the record of the frame numbered seq (the next one to go). */
static void keep(uint8_t type, uint32_t t, uint16_t a, uint8_t x)
{
    struct kept_frame *k = &kept[seq & (KEPT - 1u)];
    k->t = t;
    k->a = a;
    k->type = type;
    k->x = x;
    if (kept_count < KEPT)
        kept_count++;
}

/* Number, keep and send a PRESS, RELEASE, HEARTBEAT or ANGLE. */
static void send_sequenced(uint8_t type, uint32_t t, uint16_t a, uint8_t x)
{
    keep(type, t, a, x);
    send_kept(seq++);
}

static void send_edge(uint8_t type, uint32_t t, uint16_t pads)
{
    send_sequenced(type, t, pads, 0);
}

/* RESEND (5.9): the asked-for frames still kept, unchanged, in seq order; seq stays. */
static void resend(uint16_t from, uint8_t count)
{
    for (uint8_t i = 0; i < count; i++) {
        uint16_t s = (uint16_t)(from + i);
        if ((uint16_t)(seq - 1u - s) < kept_count) /* 0 = the newest */
            send_kept(s);
    }
}

static void send_hello(uint32_t t)
{
    static const char name[] = FIRMWARE_NAME;
    struct proto_msg msg;
    msg.type = PROTO_HELLO;
    msg.u.hello.protocol_version = PROTO_VERSION;
    msg.u.hello.pad_count = PAD_COUNT;
    msg.u.hello.timer_resolution_us = TIMER_RESOLUTION_US;
    msg.u.hello.timestamp_us = t;
    msg.u.hello.firmware_len = sizeof name - 1u;
    for (uint8_t i = 0; i < sizeof name - 1u; i++)
        msg.u.hello.firmware[i] = (uint8_t)name[i];
    send(&msg);
}

/* ---------------------------------------------------------------- lamps */

static uint16_t lamps_on, lamps_blink;

static void update_lamps(uint32_t t)
{
    uint16_t lit = (uint16_t)(lamps_on & ~lamps_blink);
    if ((t >> BLINK_SHIFT) & 1u)
        lit |= lamps_blink; /* all blinking lamps in phase (5.7) */
    PORTB = (uint8_t)((PORTB & (uint8_t)~LAMP_PINS) | ((uint8_t)lit & LAMP_PINS));
}

/* ---------------------------------------------------------------- host frames in */

#if ANGLE_SENSOR
/* The host's ANGLE_RATE (PROTOCOL.md 4.12): at most one reading per this many us after the
 * last one sent, unless the status changed; 0 (at power-up) sends every reading. */
static uint16_t angle_interval_us;
#endif

static void handle_frame(const struct event *ev)
{
    struct proto_msg msg;
    enum proto_status st = proto_decode_frame(rx_slot_buf[ev->x], ev->a, &msg);
    rx_slot_tail = (uint8_t)((ev->x + 1u) & (RX_SLOTS - 1u));
    if (st != PROTO_OK)
        return; /* a bad frame is dropped; the host repeats what matters */
    switch (msg.type) {
    case PROTO_HELLO_REQUEST:
        send_hello(ev->t); /* answered whatever the host's version (5.5) */
        break;
    case PROTO_PING: {
        struct proto_msg pong;
        pong.type = PROTO_PONG;
        pong.u.pong.ping_id = msg.u.ping_id;
        pong.u.pong.timestamp_us = ev->t; /* stamped at the PING's delimiter */
        send(&pong);
        break;
    }
    case PROTO_RESEND:
        resend(msg.u.resend.from_seq, msg.u.resend.count);
        break;
#if ANGLE_SENSOR
    case PROTO_ANGLE_RATE:
        angle_interval_us = msg.u.angle_interval_us;
        break;
#endif
    case PROTO_LAMPS:
        lamps_on = msg.u.lamps.on;
        lamps_blink = msg.u.lamps.blink;
        update_lamps(ev->t);
        break;
    default:
        break; /* a device message: the line is looped back; ignore it */
    }
}

/* ---------------------------------------------------------------- angle sensor */

#if ANGLE_SENSOR
#include "as5600.h"

/* Readings gathered into ANGLES frames (PROTOCOL.md 4.11, 5.8), so that the host wakes and
 * decodes once a burst and the line carries 4 bytes a reading instead of 14.  They leave when
 * two frames are full, when the status changes, ANGLE_BATCH_US after the first of them, and before
 * any other frame: the ring is in stamp order, so every event handled after a reading was
 * stamped after it (5.2), and a press is never held back by the readings before it. */
#define BATCH_MAX (2u * PROTO_MAX_ANGLES) /* ANGLE_BATCH_US at 500 Hz: 20 readings, two frames */
static uint32_t batch_t[BATCH_MAX];
static uint16_t batch_raw[BATCH_MAX];
static uint8_t batch_count, batch_status;
static uint32_t sent_t;          /* the last reading sent (gathered): its stamp */
static uint8_t sent_status = 0xFFu; /* and status; none yet (bits 3..7 are never set) */

/* The gathered readings from..from+n-1 (n >= 1, at most a frame's) as one frame. */
static void send_angles(uint8_t from, uint8_t n)
{
    if (n == 1) {
        send_sequenced(PROTO_ANGLE, batch_t[from], batch_raw[from], batch_status);
        return;
    }
    struct proto_msg msg;
    uint32_t newest = batch_t[from + n - 1u];
    msg.type = PROTO_ANGLES;
    msg.u.angles.seq = seq;
    msg.u.angles.timestamp_us = newest;
    msg.u.angles.status = batch_status;
    msg.u.angles.count = n;
    for (uint8_t i = 0; i < n; i++) {
        msg.u.angles.age_us[i] = (uint16_t)(newest - batch_t[from + i]); /* <= 0xFFFF: see gather */
        msg.u.angles.raw_angle[i] = batch_raw[from + i];
    }
    keep(PROTO_ANGLES, newest, 0, batch_status);
    seq++;
    send(&msg);
}

/* Every reading gathered, in frames of up to PROTO_MAX_ANGLES sent back to back: the host
 * reads a burst's frames in one go. */
static void flush_angles(void)
{
    uint8_t n = batch_count;
    batch_count = 0;
    for (uint8_t from = 0; from < n; from += PROTO_MAX_ANGLES) {
        uint8_t left = (uint8_t)(n - from);
        send_angles(from, left < PROTO_MAX_ANGLES ? left : PROTO_MAX_ANGLES);
    }
}

static void gather_angle(const struct event *ev)
{
    if (ev->x == sent_status && ev->t - sent_t < angle_interval_us)
        return; /* the host keeps fewer (4.12): the line carries only what it keeps */
    sent_t = ev->t;
    sent_status = ev->x;
    if (batch_count && (ev->x != batch_status || batch_count == BATCH_MAX
                        || ev->t - batch_t[0] > 0xFFFFul))
        flush_angles();
    batch_t[batch_count] = ev->t;
    batch_raw[batch_count] = ev->a;
    batch_status = ev->x;
    batch_count++;
}
#endif

/* ---------------------------------------------------------------- main */

static void handle(const struct event *ev)
{
#if ANGLE_SENSOR
    if (ev->kind == EV_ANGLE) {
        gather_angle(ev);
        return;
    }
    flush_angles(); /* the readings stamped before this event leave before it (5.2) */
#endif
    switch (ev->kind) {
    case EV_SCAN:
        if (ev->a)
            send_edge(PROTO_PRESS, ev->t, ev->a);
        if (ev->b)
            send_edge(PROTO_RELEASE, ev->t, ev->b);
        break;
    case EV_FRAME:
        handle_frame(ev);
        break;
    case EV_HEARTBEAT:
        send_edge(PROTO_HEARTBEAT, ev->t, ev->a);
        break;
    case EV_HELLO:
        send_hello(ev->t);
        break;
    default:
        break;
    }
}

int main(void)
{
    /* Pads: inputs with pull-ups; lamps: outputs, off (5.7). */
    DDRD &= (uint8_t)~PAD_PINS;
    PORTD |= PAD_PINS;
    DDRB |= LAMP_PINS;
    PORTB &= (uint8_t)~LAMP_PINS;

    /* Timer1 free-running at F_CPU / 8. */
    TCCR1A = 0;
    TCCR1B = _BV(CS11);
    TIMSK1 = _BV(TOIE1);

    /* UART 8N1, receive and transmit interrupts. */
    UBRR0 = BAUD_UBRR;
    UCSR0A = _BV(U2X0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);

    /* Pin change interrupt on the pad pins of port D. */
    PCMSK2 = PAD_PINS;
    PCICR = _BV(PCIE2);

#if ANGLE_SENSOR
    uint8_t angle_present = as5600_init();
    uint32_t last_angle_t = 0, last_read_t = 0;
    uint16_t last_raw = 0xFFFFu;
#endif

    /* Power-up: HELLO before anything else (5.5); its leading 0x00 is the flush byte. */
    uint32_t last_heartbeat, last_t;
    cli();
    last_heartbeat = last_t = stamp_locked();
    post_locked(EV_HELLO, last_heartbeat, 0, 0, 0);
    reported = pads_of(PIND); /* pads held at power-up are held, not pressed */
    sei();

    for (;;) {
        struct event ev;
        while (pop(&ev))
            handle(&ev);

        /* Debounce intervals that are over, worked out with interrupts on: a locked pad's
         * lock_start does not change (the interrupt ignores locked pads). */
        uint8_t expired = 0;
        uint8_t now_locked = locked;
        for (uint8_t i = 0; i < PAD_COUNT; i++)
            /* signed: the interrupt may have locked the pad after last_t was read */
            if ((now_locked & (1u << i)) && (int32_t)(last_t - lock_start[i]) >= (int32_t)DEBOUNCE_US)
                expired |= (uint8_t)(1u << i);

        /* A scan (pads read first, then the stamp, as in the interrupt): it reports the pads
         * whose interval is over, and is the safety net for a change left unreported when
         * the ring was full.  A scan needs a stamp after the previous scan's (5.1):
         * otherwise it waits for the next turn. */
        uint32_t t;
        cli();
        uint8_t pind = PIND;
        t = stamp_locked();
        locked &= (uint8_t)~expired;
        if (t != last_scan)
            scan_locked(pads_of(pind), t);
        /* A heartbeat due while readings stream in waits for their batch to be due (at most
         * ANGLE_BATCH_US, plus a sample period between two batches) and leaves right behind
         * its frames: the host wakes once for both.  Heartbeats stay at most HEARTBEAT_US +
         * ANGLE_BATCH_US + 2 ANGLE_PERIOD_US = 94 ms apart (5.4: 100). */
        uint8_t gathering = 0;
#if ANGLE_SENSOR
        if (batch_count)
            gathering = t - batch_t[0] < ANGLE_BATCH_US;
        else
            gathering = t - last_angle_t < 2u * ANGLE_PERIOD_US; /* the next batch is starting */
#endif
        if (!gathering && t - last_heartbeat >= HEARTBEAT_US
            && post_locked(EV_HEARTBEAT, t, 0, reported, 0))
            last_heartbeat = t;
        sei();
        last_t = t;
        update_lamps(t);
#if ANGLE_SENSOR
        if (batch_count && t - batch_t[0] >= ANGLE_BATCH_US)
            flush_angles();
#endif

#if ANGLE_SENSOR
        if (angle_present && t - last_read_t >= ANGLE_PERIOD_US) {
            uint16_t raw;
            last_read_t = t;
            uint8_t status;
            if (as5600_read(&raw, &status)) {
                uint16_t diff = raw > last_raw ? raw - last_raw : last_raw - raw;
                cli();
                uint32_t at = stamp_locked();
                if ((diff > ANGLE_NOISE_RAW || at - last_angle_t >= ANGLE_IDLE_US)
                    && post_locked(EV_ANGLE, at, status, raw, 0)) {
                    last_angle_t = at;
                    last_raw = raw;
                }
                sei();
            }
        }
#endif
    }
}
