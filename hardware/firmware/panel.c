/* tacticblue LED panel firmware for the ATmega328P (Arduino Uno/Nano class, 16 MHz).
 *
 * Drives a WS2812 chain on PB0 (Arduino D8), reads TB_BUTTONS buttons on PD2.. (D2..,
 * active low, internal pull-ups) and speaks the protocol of hardware/PROTOCOL.md over the
 * UART at 115200 baud.  Build: `make` (37 LEDs) or `make LEDS=100`.
 *
 * Structure: the UART receive interrupt fills a ring buffer; the main loop takes bytes
 * up to each 0x00 delimiter, decodes the COBS frame in place, checks length, version
 * and CRC and handles it.  A 1 ms timer tick drives button debouncing, blinking,
 * heartbeats, event retries and dimming.  The WS2812 chain is refreshed with interrupts
 * off (about 30 us per LED), right after an LED frame arrives (the host is then waiting
 * for our ACK, so the line is quiet) and otherwise only when the line has been idle;
 * a byte lost during a refresh costs one CRC failure and one host retry.  A watchdog
 * resets the board if the main loop ever stops (the tick wakes it every millisecond).
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <stdint.h>
#include <string.h>

#include "protocol.h"

#ifndef F_CPU
#define F_CPU 16000000UL
#endif
#ifndef TB_LEDS
#define TB_LEDS 37
#endif
#ifndef TB_BUTTONS
#define TB_BUTTONS 3
#endif
#if TB_LEDS + 1 > TB_MAX_PAYLOAD
#error "an LED frame (brightness + one code per LED) must fit in TB_MAX_PAYLOAD"
#endif
#define BAUD 115200UL
#define UBRR_VALUE ((F_CPU + 4 * BAUD) / (8 * BAUD) - 1) /* double speed mode */

#define CAPABILITIES (TB_CAP_LEDS | TB_CAP_BUTTONS | TB_CAP_BLINK | TB_CAP_HEARTBEAT | \
                      TB_CAP_DIM_ON_SILENCE | TB_CAP_BRIGHTNESS | TB_CAP_BOOT_NOTICE)
#define FRAME_MAX (TB_HEADER_SIZE + TB_MAX_PAYLOAD + TB_CRC_SIZE)
#define ENCODED_MAX (FRAME_MAX + FRAME_MAX / 254 + 2)
#define LINE_IDLE_MS 2
#define EVENT_QUEUE 8

static const uint8_t palette[TB_PALETTE_SIZE * 3] = TB_PALETTE_RGB;

/* ---- time ---------------------------------------------------------------- */

static volatile uint32_t ticks_ms;

ISR(TIMER0_COMPA_vect) { ticks_ms++; }

static uint32_t now_ms(void) {
    uint8_t sreg = SREG;
    cli();
    uint32_t t = ticks_ms;
    SREG = sreg;
    return t;
}

/* ---- UART ---------------------------------------------------------------- */

static volatile uint8_t rx_ring[256];
static volatile uint8_t rx_head, rx_tail;
static volatile uint32_t rx_last_ms;

ISR(USART_RX_vect) {
    uint8_t byte = UDR0;
    uint8_t next = rx_head + 1;
    if (next != rx_tail) { /* when full the byte is lost; the frame's CRC will tell */
        rx_ring[rx_head] = byte;
        rx_head = next;
    }
    rx_last_ms = ticks_ms;
}

static void uart_put(uint8_t byte) {
    while (!(UCSR0A & _BV(UDRE0))) {
    }
    UDR0 = byte;
}

/* ---- frames -------------------------------------------------------------- */

static uint16_t crc16(const uint8_t *data, uint16_t n) { /* CRC-16/CCITT-FALSE */
    uint16_t crc = 0xFFFF;
    while (n--) {
        crc ^= (uint16_t)(*data++) << 8;
        for (uint8_t i = 0; i < 8; i++) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1;
    }
    return crc;
}

/* Send one frame: COBS-encode on the fly (a block at a time) and end with 0x00. */
static void send_frame(uint8_t seq, uint8_t type, const uint8_t *payload, uint8_t length) {
    uint8_t raw[TB_HEADER_SIZE + 24 + TB_CRC_SIZE]; /* device payloads are small */
    uint8_t n = 0;
    raw[n++] = TB_PROTOCOL_VERSION;
    raw[n++] = seq;
    raw[n++] = type;
    raw[n++] = length;
    memcpy(raw + n, payload, length);
    n += length;
    uint16_t crc = crc16(raw, n);
    raw[n++] = crc >> 8;
    raw[n++] = crc & 0xFF;
    uint8_t start = 0;
    while (start <= n) { /* blocks of non-zero bytes, each preceded by its length + 1 */
        uint8_t end = start;
        while (end < n && raw[end] != 0) end++;
        uart_put(end - start + 1);
        for (uint8_t i = start; i < end; i++) uart_put(raw[i]);
        start = end + 1;
    }
    uart_put(0);
}

/* Decode a COBS block in place; returns the decoded length or -1 if malformed. */
static int16_t cobs_decode(uint8_t *buf, uint16_t n) {
    uint16_t in = 0, out = 0;
    while (in < n) {
        uint8_t code = buf[in++];
        if (code == 0 || in + code - 1 > n) return -1;
        for (uint8_t i = 1; i < code; i++) buf[out++] = buf[in++];
        if (code < 0xFF && in < n) buf[out++] = 0;
    }
    return out;
}

/* ---- LEDs ---------------------------------------------------------------- */

static uint8_t led_code[TB_LEDS]; /* pattern << 4 | colour */
static uint8_t brightness = 255;
static uint8_t grb[TB_LEDS * 3];
static uint8_t dimmed;
static uint8_t leds_dirty = 1;

/* WS2812 bit: 20 cycles (1.25 us); high for ~5 cycles for a 0, ~12 cycles for a 1. */
static void ws2812_send(const uint8_t *data, uint16_t n) {
    uint8_t hi = PORTB | _BV(PB0), lo = PORTB & ~_BV(PB0);
    uint8_t sreg = SREG;
    cli();
    while (n--) {
        uint8_t byte = *data++, bits;
        __asm__ volatile(
            "ldi %[bits], 8\n"
            "1: out %[port], %[hi]\n"
            "nop\n nop\n nop\n"
            "sbrs %[byte], 7\n"
            "out %[port], %[lo]\n"
            "nop\n nop\n nop\n nop\n nop\n nop\n"
            "out %[port], %[lo]\n"
            "lsl %[byte]\n"
            "nop\n nop\n"
            "dec %[bits]\n"
            "brne 1b\n"
            : [byte] "+r"(byte), [bits] "=&d"(bits)
            : [port] "I"(_SFR_IO_ADDR(PORTB)), [hi] "r"(hi), [lo] "r"(lo));
    }
    SREG = sreg;
}

static uint8_t pattern_on(uint8_t pattern, uint32_t t) {
    switch (pattern) {
    case TB_PATTERN_BLINK_SLOW: return (t / 500) % 2 == 0;
    case TB_PATTERN_BLINK_FAST: return (t / 125) % 2 == 0;
    default: return 1;
    }
}

/* Compute the chain's bytes for time t; returns 1 if they differ from what is shown. */
static uint8_t render(uint32_t t) {
    uint8_t level = dimmed ? brightness >> TB_DIM_SHIFT : brightness;
    uint8_t changed = 0;
    for (uint8_t i = 0; i < TB_LEDS; i++) {
        uint8_t code = led_code[i];
        const uint8_t *rgb = palette + 3 * (code & 0x0F);
        uint8_t on = pattern_on(code >> 4, t);
        uint8_t out[3] = {rgb[1], rgb[0], rgb[2]}; /* the chain wants G, R, B */
        for (uint8_t c = 0; c < 3; c++) {
            uint8_t v = on ? ((uint16_t)out[c] * (level + 1)) >> 8 : 0;
            if (grb[3 * i + c] != v) {
                grb[3 * i + c] = v;
                changed = 1;
            }
        }
    }
    return changed;
}

static void show(uint32_t t) {
    if (render(t) || leds_dirty) {
        ws2812_send(grb, sizeof grb);
        leds_dirty = 0;
    }
}

/* ---- buttons and events ---------------------------------------------------- */

#define BUTTON_MASK (((1 << TB_BUTTONS) - 1) << PD2)

static uint8_t button_state;      /* debounced, bit set = pressed */
static uint8_t button_raw;        /* last sample */
static uint32_t button_since[TB_BUTTONS];

struct event { uint8_t seq, button, action, tries; };
static struct event events[EVENT_QUEUE];
static uint8_t event_count;
static uint32_t event_sent_ms;
static uint8_t device_seq;

static void queue_event(uint8_t button, uint8_t action) {
    if (event_count == EVENT_QUEUE) return; /* host away: the oldest events are kept */
    events[event_count++] = (struct event){device_seq++, button, action, 0};
}

static void drop_event(void) {
    memmove(events, events + 1, (--event_count) * sizeof events[0]);
}

static void poll_buttons(uint32_t t) {
    uint8_t raw = (~PIND & BUTTON_MASK) >> PD2;
    for (uint8_t b = 0; b < TB_BUTTONS; b++) {
        uint8_t bit = 1 << b;
        if ((raw ^ button_raw) & bit) button_since[b] = t;
        else if (((raw ^ button_state) & bit) && t - button_since[b] >= TB_DEBOUNCE_MS) {
            button_state ^= bit;
            queue_event(b, (button_state & bit) ? 1 : 0);
        }
    }
    button_raw = raw;
}

static void send_events(uint32_t t) {
    if (!event_count) return;
    struct event *e = &events[0];
    if (e->tries && t - event_sent_ms < TB_EVENT_RETRY_MS) return;
    if (e->tries == TB_EVENT_TRIES) {
        drop_event();
        return;
    }
    uint8_t payload[2] = {e->button, e->action};
    send_frame(e->seq, TB_MSG_BUTTON, payload, 2);
    e->tries++;
    event_sent_ms = t;
}

/* ---- host commands --------------------------------------------------------- */

static uint32_t host_seen_ms;

static void ack(uint8_t seq, uint8_t status) { send_frame(seq, TB_MSG_ACK, &status, 1); }

static void handle(uint8_t *f, uint8_t length, uint32_t t) {
    uint8_t seq = f[1], type = f[2];
    const uint8_t *payload = f + TB_HEADER_SIZE;
    if (f[0] != TB_PROTOCOL_VERSION && type != TB_MSG_HELLO) return;
    host_seen_ms = t;
    switch (type) {
    case TB_MSG_HELLO: {
        uint8_t reply[] = {TB_PROTOCOL_VERSION, TB_FIRMWARE_MAJOR, TB_FIRMWARE_MINOR,
                           TB_LEDS >> 8, TB_LEDS & 0xFF, TB_BUTTONS, CAPABILITIES >> 8,
                           CAPABILITIES & 0xFF, TB_PALETTE_SIZE, TB_PATTERN_COUNT, TB_MAX_PAYLOAD};
        send_frame(seq, TB_MSG_HELLO_REPLY, reply, sizeof reply);
        break;
    }
    case TB_MSG_LEDS:
        if (length != 1 + TB_LEDS) {
            ack(seq, TB_STATUS_BAD_LENGTH);
            break;
        }
        for (uint8_t i = 0; i < TB_LEDS; i++) {
            uint8_t code = payload[1 + i];
            if ((code & 0x0F) >= TB_PALETTE_SIZE || (code >> 4) >= TB_PATTERN_COUNT) {
                ack(seq, TB_STATUS_BAD_VALUE);
                return;
            }
        }
        brightness = payload[0];
        memcpy(led_code, payload + 1, TB_LEDS);
        dimmed = 0;
        show(t);
        ack(seq, TB_STATUS_OK);
        break;
    case TB_MSG_PING:
        ack(seq, length == 0 ? TB_STATUS_OK : TB_STATUS_BAD_LENGTH);
        break;
    case TB_MSG_EVENT_ACK:
        if (event_count && events[0].tries && events[0].seq == seq) drop_event();
        break;
    default:
        ack(seq, TB_STATUS_UNKNOWN_TYPE);
    }
}

static uint8_t encoded[ENCODED_MAX];
static uint16_t encoded_len;
static uint8_t encoded_overflow;

/* Feed one received byte; a complete valid frame is handled. */
static void receive(uint8_t byte, uint32_t t) {
    if (byte != 0) {
        if (encoded_len < sizeof encoded) encoded[encoded_len++] = byte;
        else encoded_overflow = 1;
        return;
    }
    int16_t n = encoded_overflow ? -1 : cobs_decode(encoded, encoded_len);
    encoded_len = 0;
    encoded_overflow = 0;
    if (n < TB_HEADER_SIZE + TB_CRC_SIZE || n != TB_HEADER_SIZE + encoded[3] + TB_CRC_SIZE) return;
    uint16_t crc = ((uint16_t)encoded[n - 2] << 8) | encoded[n - 1];
    if (crc16(encoded, n - TB_CRC_SIZE) != crc) return;
    handle(encoded, encoded[3], t);
}

/* ---- main ------------------------------------------------------------------ */

int main(void) {
    MCUSR = 0; /* after a watchdog reset the watchdog stays on until this is cleared */
    wdt_enable(WDTO_500MS); /* a hang resets the board; the host sees BOOT and resends */
    DDRB |= _BV(PB0);
    PORTB &= ~_BV(PB0);
    DDRD &= ~BUTTON_MASK;
    PORTD |= BUTTON_MASK; /* pull-ups */

    TCCR0A = _BV(WGM01); /* CTC, 16 MHz / 64 / 250 = 1 kHz */
    TCCR0B = _BV(CS01) | _BV(CS00);
    OCR0A = 249;
    TIMSK0 = _BV(OCIE0A);

    UCSR0A = _BV(U2X0); /* before UBRR0: simavr computes the baud rate when UBRR0 is written */
    UBRR0 = UBRR_VALUE;
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    sei();

    send_frame(device_seq++, TB_MSG_BOOT, 0, 0);
    show(0);
    uint32_t last_tick = 0, last_heartbeat = 0;
    for (;;) {
        wdt_reset();
        while (rx_tail != rx_head) {
            uint8_t byte = rx_ring[rx_tail];
            rx_tail++;
            receive(byte, now_ms());
        }
        uint32_t t = now_ms();
        if (t != last_tick) {
            last_tick = t;
            poll_buttons(t);
            send_events(t);
            if (t - last_heartbeat >= TB_HEARTBEAT_MS) {
                last_heartbeat = t;
                uint8_t hb[5] = {(uint8_t)(t >> 24), (uint8_t)(t >> 16), (uint8_t)(t >> 8), (uint8_t)t, dimmed};
                send_frame(device_seq++, TB_MSG_HEARTBEAT, hb, sizeof hb);
            }
            dimmed = t - host_seen_ms >= TB_HOST_SILENCE_MS;
            uint8_t sreg = SREG;
            cli();
            uint8_t idle = rx_head == rx_tail && t - rx_last_ms >= LINE_IDLE_MS;
            SREG = sreg;
            if (idle && encoded_len == 0) show(t);
        }
        cli();
        if (rx_tail == rx_head) {
            sleep_enable();
            sei();
            sleep_cpu(); /* the 1 ms tick or a received byte wakes us */
            sleep_disable();
        }
        sei();
    }
}
