/* CRC-16/CCITT-FALSE (PROTOCOL.md 2.1): poly 0x1021, init 0xFFFF, no reflection, xorout 0.
 * proto_crc16("123456789") == 0x29B1.  Plain C99, shared by the firmware and the host build. */
#ifndef PROTO_CRC_H
#define PROTO_CRC_H

#include <stddef.h>
#include <stdint.h>

#define PROTO_CRC_INIT 0xFFFFu

/* Fold one byte into a running CRC (start from PROTO_CRC_INIT). */
uint16_t proto_crc16_update(uint16_t crc, uint8_t byte);

/* The CRC of len bytes. */
uint16_t proto_crc16(const uint8_t *data, size_t len);

#endif
