/* tacticblue LED panel protocol: the numbers both sides agree on.
 *
 * hardware/PROTOCOL.md describes the protocol; hardware/protocol.py holds the same
 * numbers for the host, and tests/test_panel_protocol.py checks that they agree.
 */
#ifndef TB_PROTOCOL_H
#define TB_PROTOCOL_H

#define TB_PROTOCOL_VERSION 1
#define TB_FIRMWARE_MAJOR 1
#define TB_FIRMWARE_MINOR 0

/* Frame layout before COBS: version, seq, type, length, payload[length], crc16 (big endian). */
#define TB_HEADER_SIZE 4
#define TB_CRC_SIZE 2
#define TB_MAX_PAYLOAD 250

/* Host to device: every command is answered with ACK (HELLO with HELLO_REPLY) carrying its seq. */
#define TB_MSG_HELLO 0x01
#define TB_MSG_LEDS 0x02
#define TB_MSG_PING 0x03
#define TB_MSG_EVENT_ACK 0x04 /* acknowledges a device BUTTON frame; not answered */

/* Device to host. */
#define TB_MSG_ACK 0x80
#define TB_MSG_HELLO_REPLY 0x81
#define TB_MSG_BUTTON 0x82
#define TB_MSG_HEARTBEAT 0x83
#define TB_MSG_BOOT 0x84

/* ACK status. */
#define TB_STATUS_OK 0
#define TB_STATUS_BAD_LENGTH 1
#define TB_STATUS_UNKNOWN_TYPE 2
#define TB_STATUS_BAD_VALUE 3

/* Capabilities advertised in HELLO_REPLY (16-bit mask). */
#define TB_CAP_LEDS 0x0001
#define TB_CAP_BUTTONS 0x0002
#define TB_CAP_BLINK 0x0004
#define TB_CAP_HEARTBEAT 0x0008
#define TB_CAP_DIM_ON_SILENCE 0x0010
#define TB_CAP_BRIGHTNESS 0x0020
#define TB_CAP_BOOT_NOTICE 0x0040

/* LED codes: low nibble colour (palette index), high nibble pattern. */
#define TB_PALETTE_SIZE 11
/* Palette, R G B per colour: off, white, red, green, blue, yellow, cyan, magenta, orange,
 * dim white, dim blue. */
#define TB_PALETTE_RGB {0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 180, 0, \
                        0, 255, 255, 255, 0, 255, 255, 80, 0, 40, 40, 40, 0, 0, 48}
#define TB_PATTERN_STEADY 0
#define TB_PATTERN_BLINK_SLOW 1 /* 500 ms on, 500 ms off */
#define TB_PATTERN_BLINK_FAST 2 /* 125 ms on, 125 ms off */
#define TB_PATTERN_COUNT 3

/* Timing, milliseconds. */
#define TB_HEARTBEAT_MS 1000    /* device heartbeat period */
#define TB_HOST_SILENCE_MS 3000 /* device dims after this long without a valid host frame */
#define TB_EVENT_RETRY_MS 100   /* device resends an unacknowledged BUTTON after this */
#define TB_EVENT_TRIES 10       /* and gives it up after this many sends */
#define TB_DEBOUNCE_MS 20
#define TB_DIM_SHIFT 3 /* dimmed brightness = brightness >> TB_DIM_SHIFT */

#endif
