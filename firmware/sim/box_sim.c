/* The button box firmware (box.elf) on simavr's ATmega328P at 16 MHz, in real time, its UART
 * bridged to a pseudo-terminal and its pad pins driven by commands on stdin.  The tests run
 * the console's real serial driver (drivers/mcu_serial.py) against the pty.
 *
 * stdout, one line each:  PTY <path>                the slave side, opened by the host
 *                         PIN <pad> <level> <cycle>  a pad pin was driven (0 = pressed)
 *                         LAMPS <portb> <cycle>      the lamp pins changed
 * stdin, one line each:   pins <pad>:<after_us>:<level> ...
 *     drive pad pins at exact simulated times, after_us counted from the same cycle for the
 *     whole line (so "pins 0:0:0 1:3:0" presses pad 1 three microseconds after pad 0).
 *                         unplug
 *     the cable is out: the pty is closed (the host reads end of file) and what the chip
 *     sends is lost; the chip keeps its power and runs on.
 *                         plug
 *     the cable is back: a new pty, said again as PTY <path> (the test repoints its link).
 *
 * Real time: the simulation never runs ahead of the wall clock (it waits in poll() for the
 * host instead), so the chip's timer and the host's monotonic clock advance together.
 * Host bytes enter the UART at the line rate (one every 10 bit times at 115200 baud).
 * Usage: box_sim box.elf */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>
#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>

#define FREQ 16000000ull
#define BYTE_CYCLES (FREQ * 10u / 115200u) /* start + 8 data + stop bits */
#define PAD_COUNT 6
#define PAD_PIN0 2 /* pad i is PD(2 + i) */

static avr_t *avr;
static int master = -1; /* -1 while unplugged */
static int slave = -1;  /* kept open: without it the master reads EIO whenever the host closes */
static uint8_t rx_pending[4096]; /* host -> chip bytes not yet on the line */
static size_t rx_len;
static int rx_timer_armed;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    uint8_t b = (uint8_t)value;
    if (master < 0)
        return; /* unplugged: the byte goes nowhere */
    /* The host may not have the port open: then the byte is lost, as on a real line. */
    if (write(master, &b, 1) < 0 && errno != EAGAIN && errno != EIO)
        perror("write pty");
}

static avr_cycle_count_t feed_byte(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)param;
    if (rx_len == 0) {
        rx_timer_armed = 0;
        return 0;
    }
    avr_raise_irq(avr_io_getirq(a, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT), rx_pending[0]);
    memmove(rx_pending, rx_pending + 1, --rx_len);
    return when + BYTE_CYCLES;
}

struct pin_change {
    int pad;
    int level;
};

static avr_cycle_count_t drive_pin(avr_t *a, avr_cycle_count_t when, void *param)
{
    struct pin_change *c = param;
    avr_raise_irq(avr_io_getirq(a, AVR_IOCTL_IOPORT_GETIRQ('D'), PAD_PIN0 + c->pad), (uint32_t)c->level);
    printf("PIN %d %d %llu\n", c->pad, c->level, (unsigned long long)when);
    fflush(stdout);
    free(c);
    (void)when;
    return 0;
}

static void lamps_changed(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)param;
    static int last = -1;
    int lamps = (int)(value & 0x3Fu);
    if (lamps != last) {
        last = lamps;
        printf("LAMPS %d %llu\n", lamps, (unsigned long long)avr->cycle);
        fflush(stdout);
    }
}

static int plug(void)
{
    char name[256];
    if (openpty(&master, &slave, name, NULL, NULL) != 0) {
        perror("openpty");
        return -1;
    }
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    printf("PTY %s\n", name);
    fflush(stdout);
    return 0;
}

static void unplug(void)
{
    if (master < 0)
        return;
    close(master);
    close(slave);
    master = slave = -1;
    rx_len = 0; /* bytes the host sent that had not reached the chip are lost with the cable */
}

static void command(char *line)
{
    char *save = NULL;
    char *tok = strtok_r(line, " \t\r\n", &save);
    if (tok && strcmp(tok, "unplug") == 0) {
        unplug();
        return;
    }
    if (tok && strcmp(tok, "plug") == 0) {
        if (master < 0 && plug() != 0)
            exit(1);
        return;
    }
    if (!tok || strcmp(tok, "pins") != 0) {
        fprintf(stderr, "box_sim: unknown command %s\n", tok ? tok : "(empty)");
        return;
    }
    while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
        int pad, level;
        unsigned long after_us;
        if (sscanf(tok, "%d:%lu:%d", &pad, &after_us, &level) != 3 || pad < 0 || pad >= PAD_COUNT) {
            fprintf(stderr, "box_sim: bad pin change %s\n", tok);
            continue;
        }
        struct pin_change *c = malloc(sizeof *c);
        c->pad = pad;
        c->level = level ? 1 : 0;
        /* +1: a cycle timer due "now" would fire before this line's later changes exist */
        avr_cycle_timer_register(avr, after_us * (FREQ / 1000000u) + 1u, drive_pin, c);
    }
}

static void poll_io(int timeout_ms)
{
    static char cmd[4096];
    static size_t cmd_len;
    struct pollfd fds[2] = {{master, POLLIN, 0}, {0, POLLIN, 0}}; /* fd -1: not polled */
    if (poll(fds, 2, timeout_ms) <= 0)
        return;
    if (fds[0].revents & POLLIN) {
        ssize_t n = read(master, rx_pending + rx_len, sizeof rx_pending - rx_len);
        if (n > 0) {
            rx_len += (size_t)n;
            if (!rx_timer_armed) {
                rx_timer_armed = 1;
                avr_cycle_timer_register(avr, 1, feed_byte, NULL);
            }
        }
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
        ssize_t n = read(0, cmd + cmd_len, sizeof cmd - 1 - cmd_len);
        if (n <= 0)
            exit(0); /* the test went away */
        cmd_len += (size_t)n;
        char *nl;
        while ((nl = memchr(cmd, '\n', cmd_len))) {
            *nl = 0;
            command(cmd);
            cmd_len -= (size_t)(nl + 1 - cmd);
            memmove(cmd, nl + 1, cmd_len);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: box_sim box.elf\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "box_sim: cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "box_sim: simavr has no atmega328p\n");
        return 1;
    }
    avr_init(avr);
    avr->log = 1; /* errors only */
    avr_load_firmware(avr, &fw);
    avr->frequency = FREQ;

    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), IOPORT_IRQ_PIN_ALL),
                            lamps_changed, NULL);
    for (int i = 0; i < PAD_COUNT; i++) /* released: the switches are open, pulled up */
        avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), PAD_PIN0 + i), 1);

    if (plug() != 0)
        return 1;

    uint64_t start = now_ns();
    for (;;) {
        for (int i = 0; i < 2000; i++) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "box_sim: the chip stopped (state %d)\n", state);
                return 1;
            }
        }
        uint64_t sim_ns = avr->cycle * 1000000000ull / FREQ;
        uint64_t wall_ns = now_ns() - start;
        /* Ahead of the wall clock: wait for it, serving the host and the test meanwhile. */
        poll_io(sim_ns > wall_ns + 1000000u ? (int)((sim_ns - wall_ns) / 1000000u) : 0);
    }
}
