/* Test harness: the real panel firmware ELF in simavr, behind a pty.
 *
 * Test tooling only (it links simavr, which is GPL); the product never links it.
 * hardware/simulator.py builds it with the system compiler and drives it.
 *
 *   panel_sim FIRMWARE.elf [--link PATH] [--seed N]
 *
 * The firmware's UART is connected to a pty (simavr's uart_pty part); its path is
 * printed as "PTY <path>" and, with --link, also made available as the symlink PATH
 * (a stable name, like /dev/serial/by-id, that survives a restart of the simulator).
 * The simulation is throttled to real time, so the firmware's timers (heartbeat,
 * dimming, debouncing) behave as on a real board.
 *
 * The WS2812 data pin (PB0) is decoded from the simulated waveform: every latched
 * frame is printed as "LEDS <count> <hex of G R B bytes>", after a line "TIMING t0h_min
 * t0h_max t1h_min t1h_max low_max" with the waveform's extremes in cycles (high time of 0
 * and 1 bits, longest low time between two bits).  Lines on stdin act on the
 * board: "press N" / "release N" (button N on PD2+N, active low), "click N MS" (press N
 * for MS ms of simulated time, then pause as long; clicks queue), "garbage-in N" (N
 * random bytes into the firmware's receiver), "garbage-out N" (N random bytes
 * towards the host, as line noise would), "quit".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_elf.h"
#include "sim_irq.h"
#include "uart_pty.h"

#define FREQUENCY 16000000UL
#define BIT_ONE_CYCLES 8     /* a high pulse this long or longer is a 1 (0.5 us) */
#define LATCH_CYCLES 800     /* a low gap this long latches the chain (50 us) */
#define MAX_LED_BYTES (3 * 512)

static avr_t *avr;
static uart_pty_t pty;

/* ---- WS2812 decoding ------------------------------------------------------ */

static int pin_level;
static avr_cycle_count_t rose_at, fell_at;
static uint8_t led_bytes[MAX_LED_BYTES];
static unsigned led_bits;
/* Waveform extremes of the frame being received, in cycles: high time of 0 and 1 bits,
 * and the longest low time between two bits of the frame. */
static avr_cycle_count_t high_min[2], high_max[2], low_max;

static avr_cycle_count_t latch(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a, (void)when, (void)param;
    unsigned n = led_bits / 8;
    printf("TIMING %lu %lu %lu %lu %lu\n", (unsigned long)high_min[0], (unsigned long)high_max[0],
           (unsigned long)high_min[1], (unsigned long)high_max[1], (unsigned long)low_max);
    printf("LEDS %u ", n / 3);
    for (unsigned i = 0; i < n; i++) printf("%02x", led_bytes[i]);
    printf("\n");
    fflush(stdout);
    led_bits = 0;
    return 0;
}

static void data_pin(avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq, (void)param;
    int level = value ? 1 : 0;
    if (level == pin_level) return;
    pin_level = level;
    if (level) {
        rose_at = avr->cycle;
        avr_cycle_timer_cancel(avr, latch, NULL);
        if (led_bits == 0) {
            high_min[0] = high_min[1] = ~(avr_cycle_count_t)0;
            high_max[0] = high_max[1] = low_max = 0;
        } else if (rose_at - fell_at > low_max) {
            low_max = rose_at - fell_at;
        }
        return;
    }
    fell_at = avr->cycle;
    avr_cycle_count_t high = fell_at - rose_at;
    uint8_t bit = high >= BIT_ONE_CYCLES;
    if (high < high_min[bit]) high_min[bit] = high;
    if (high > high_max[bit]) high_max[bit] = high;
    if (led_bits < 8 * MAX_LED_BYTES) {
        uint8_t *byte = &led_bytes[led_bits / 8];
        *byte = (uint8_t)((*byte << 1) | bit);
        led_bits++;
    }
    avr_cycle_timer_register(avr, LATCH_CYCLES, latch, NULL);
}

/* ---- button clicks, timed in simulated time ----------------------------------- */

static int click_button[256], click_ms[256];
static uint8_t click_head, click_tail;
static int click_pressed, click_running;

static void set_button(int button, int pressed) {
    avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 2 + button), !pressed);
}

/* Press, hold, release, pause, next: clicks happen one after the other for exactly as
 * long as asked on the firmware's clock, however fast the simulation runs. */
static avr_cycle_count_t click_step(avr_t *a, avr_cycle_count_t when, void *param) {
    (void)a, (void)param;
    avr_cycle_count_t ms = FREQUENCY / 1000;
    if (click_pressed) {
        set_button(click_button[click_head], 0);
        click_pressed = 0;
        return when + click_ms[click_head++] * ms;
    }
    if (click_head == click_tail) {
        click_running = 0;
        return 0;
    }
    set_button(click_button[click_head], 1);
    click_pressed = 1;
    return when + click_ms[click_head] * ms;
}

static void click(int button, int ms) {
    click_button[click_tail] = button;
    click_ms[click_tail++] = ms > 0 ? ms : 60;
    if (!click_running) {
        click_running = 1;
        avr_cycle_timer_register(avr, 1, click_step, NULL);
    }
}

/* ---- commands from stdin --------------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char pending[64][64];
static int pending_count;
static volatile int have_pending;

static void *read_commands(void *arg) {
    (void)arg;
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        pthread_mutex_lock(&lock);
        if (pending_count < 64) {
            snprintf(pending[pending_count++], sizeof pending[0], "%s", line);
            have_pending = 1;
        }
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    snprintf(pending[pending_count < 64 ? pending_count++ : 63], sizeof pending[0], "quit");
    have_pending = 1;
    pthread_mutex_unlock(&lock);
    return NULL;
}

static unsigned seed = 1;

static int run_command(const char *line) {
    char verb[32];
    int n = 0, ms = 0;
    if (sscanf(line, "%31s %d %d", verb, &n, &ms) < 1) return 0;
    if (!strcmp(verb, "quit")) return 1;
    if (!strcmp(verb, "press") || !strcmp(verb, "release")) {
        set_button(n, !strcmp(verb, "press"));
    } else if (!strcmp(verb, "click")) {
        click(n, ms);
    } else if (!strcmp(verb, "garbage-in") || !strcmp(verb, "garbage-out")) {
        avr_irq_t *to = !strcmp(verb, "garbage-in")
                            ? avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT)
                            : pty.irq + IRQ_UART_PTY_BYTE_IN;
        for (int i = 0; i < n; i++) avr_raise_irq(to, (uint32_t)rand_r(&seed) & 0xFF);
    }
    return 0;
}

static int poll_commands(void) {
    int quit = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < pending_count; i++) quit |= run_command(pending[i]);
    pending_count = 0;
    have_pending = 0;
    pthread_mutex_unlock(&lock);
    return quit;
}

/* ---- main ------------------------------------------------------------------- */

static void wait_in_main_loop(avr_t *a, avr_cycle_count_t how_long) {
    (void)a, (void)how_long; /* the main loop's throttle does the waiting */
}

static double wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    const char *elf = NULL, *link = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--link") && i + 1 < argc) link = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = (unsigned)atoi(argv[++i]);
        else elf = argv[i];
    }
    if (!elf) {
        fprintf(stderr, "usage: panel_sim FIRMWARE.elf [--link PATH] [--seed N]\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(elf, &fw) != 0) {
        fprintf(stderr, "panel_sim: cannot read %s\n", elf);
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) return 2;
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    avr->frequency = FREQUENCY;
    avr->sleep = wait_in_main_loop;

    uart_pty_init(avr, &pty);
    uart_pty_connect(&pty, '0');
    if (link) {
        unlink(link);
        if (symlink(pty.port[0].slavename, link) != 0) {
            perror("panel_sim: symlink");
            return 2;
        }
    }
    for (int b = 0; b < 8; b++) /* buttons released: pulled up */
        avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), b), 1);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), IOPORT_IRQ_PIN0),
                            data_pin, NULL);
    printf("PTY %s\n", pty.port[0].slavename);
    fflush(stdout);

    pthread_t reader;
    pthread_create(&reader, NULL, read_commands, NULL);
    double start = wall_seconds();
    for (unsigned long step = 0;; step++) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "panel_sim: firmware stopped (state %d)\n", state);
            break;
        }
        /* Real time: never more than about a millisecond ahead of the wall clock (a sleeping
         * step jumps to the next interrupt, the 1 ms tick), so that commands arriving 60 ms
         * apart also act 60 ms apart on the firmware. */
        if (state == cpu_Sleeping || (step & 0x3F) == 0) {
            double ahead = (double)avr->cycle / FREQUENCY - (wall_seconds() - start);
            if (ahead > 0.0005) usleep((useconds_t)(ahead * 1e6));
        }
        if (have_pending && poll_commands()) break;
    }
    if (link) unlink(link);
    uart_pty_stop(&pty);
    return 0;
}
