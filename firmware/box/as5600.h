/* AS5600 magnetic angle sensor on TWI (I2C address 0x36), polled from the main loop; built
 * only with `make ANGLE=1` (the table's spinning top).  Not exercised by the tests: simavr
 * has no AS5600 model, so this is untested on the chip; the reading path is the datasheet's
 * (STATUS 0x0B, RAW ANGLE 0x0C..0x0D).  Included once, from main.c. */
#ifndef BOX_AS5600_H
#define BOX_AS5600_H

#include <avr/io.h>
#include <stdint.h>
#include <util/twi.h>

#define AS5600_ADDR 0x36u
#define ANGLE_PERIOD_US 2000ul  /* read at 500 Hz */
#define ANGLE_NOISE_RAW 2u      /* send when the reading moves more than this... */
#define ANGLE_IDLE_US 50000ul   /* ...or at least this often (the protocol asks <= 100 ms) */
#define ANGLE_BATCH_US 40000ul  /* readings gathered into one ANGLES frame for at most this long */
#define TWI_SPINS 2000u         /* give up on a bus that does not answer (~1 ms) */

static uint8_t twi_wait(void)
{
    for (uint16_t i = 0; i < TWI_SPINS; i++)
        if (TWCR & _BV(TWINT))
            return 1;
    return 0;
}

static uint8_t twi_cmd(uint8_t cr)
{
    TWCR = (uint8_t)(cr | _BV(TWINT) | _BV(TWEN));
    return twi_wait();
}

static void twi_stop(void)
{
    TWCR = _BV(TWINT) | _BV(TWEN) | _BV(TWSTO);
}

/* Read n bytes from register reg; 1 on success. */
static uint8_t as5600_read_regs(uint8_t reg, uint8_t *out, uint8_t n)
{
    uint8_t ok = 0;
    if (!twi_cmd(_BV(TWSTA)) || (TW_STATUS != TW_START))
        goto done;
    TWDR = (uint8_t)(AS5600_ADDR << 1);
    if (!twi_cmd(0) || TW_STATUS != TW_MT_SLA_ACK)
        goto done;
    TWDR = reg;
    if (!twi_cmd(0) || TW_STATUS != TW_MT_DATA_ACK)
        goto done;
    if (!twi_cmd(_BV(TWSTA)) || TW_STATUS != TW_REP_START)
        goto done;
    TWDR = (uint8_t)((AS5600_ADDR << 1) | 1u);
    if (!twi_cmd(0) || TW_STATUS != TW_MR_SLA_ACK)
        goto done;
    for (uint8_t i = 0; i < n; i++) {
        if (!twi_cmd(i + 1u < n ? _BV(TWEA) : 0))
            goto done;
        out[i] = TWDR;
    }
    ok = 1;
done:
    twi_stop();
    return ok;
}

/* 400 kHz bus; 1 if a sensor answers. */
static uint8_t as5600_init(void)
{
    uint8_t status;
    TWSR = 0;
    TWBR = (uint8_t)((F_CPU / 400000ul - 16u) / 2u);
    return as5600_read_regs(0x0B, &status, 1);
}

/* raw 0..4095 and the protocol's status bits (detected, too weak, too strong). */
static uint8_t as5600_read(uint16_t *raw, uint8_t *status)
{
    uint8_t b[3]; /* STATUS, RAW ANGLE high, RAW ANGLE low */
    if (!as5600_read_regs(0x0B, b, 3))
        return 0;
    *raw = (uint16_t)(((uint16_t)(b[1] & 0x0Fu) << 8) | b[2]);
    /* AS5600 STATUS: MD bit 5, ML (too weak) bit 4, MH (too strong) bit 3. */
    *status = (uint8_t)(((b[0] >> 5) & 1u) | (((b[0] >> 4) & 1u) << 1) | (((b[0] >> 3) & 1u) << 2));
    return 1;
}

#endif
