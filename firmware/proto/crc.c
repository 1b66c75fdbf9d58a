/* CRC-16/CCITT-FALSE, bitwise: 8 shifts a byte cost ~100 AVR cycles, which is nothing at
 * a frame every few milliseconds, and a 512-byte table would be a quarter of the SRAM. */
#include "crc.h"

uint16_t proto_crc16_update(uint16_t crc, uint8_t byte)
{
    crc ^= (uint16_t)((uint16_t)byte << 8);
    for (int k = 0; k < 8; k++)
        crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
    return crc;
}

uint16_t proto_crc16(const uint8_t *data, size_t len)
{
    uint16_t crc = PROTO_CRC_INIT;
    for (size_t i = 0; i < len; i++)
        crc = proto_crc16_update(crc, data[i]);
    return crc;
}
