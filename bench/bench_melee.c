/*
 * bench/bench_melee.c: melee resolutions per second on one core.
 *
 *   bench_melee [SECONDS]      (default 2 seconds a scenario)
 *
 * Two scenarios: a 2-against-1 infantry melee (12.6, 12.7: the seed's 36+24
 * French against 24 British) and cuirassiers against a square (12.18). Each
 * resolution goes through the public brigade_melee_resolve() with a dice
 * source that looks rolls up by name, as the server's does; no heap
 * allocation happens inside the loop (the outcome lives on the stack).
 */
#include "core/melee.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Dice for the bench: a xorshift generator, so that every result band and
 * test outcome is exercised; the engine, not the dice, is what is measured. */
typedef struct bench_dice {
    unsigned state;
} bench_dice;

static bool bench_dice_roll(void *context, const char *name, int faces[2])
{
    bench_dice *dice = context;
    if (strstr(name, ".reroll") != NULL)
        return false; /* declined */
    unsigned value = dice->state;
    value ^= value << 13;
    value ^= value >> 17;
    value ^= value << 5;
    dice->state = value;
    faces[0] = (int)(value % 6) + 1;
    faces[1] = (int)((value >> 8) % 6) + 1;
    return true;
}

static void unit_make(brigade_melee_unit *unit, const char *id, brigade_side side,
                      brigade_troop_type type, brigade_class unit_class, int figures)
{
    brigade_melee_unit_init(unit);
    snprintf(unit->id, sizeof unit->id, "%s", id);
    unit->side = side;
    brigade_melee_unit_set_type(unit, type);
    unit->unit_class = unit_class;
    unit->figures = figures;
}

static double seconds_now(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Resolves `melee` repeatedly for about `seconds` and prints the rate. */
static int bench_run(const char *title, const brigade_melee *melee, double seconds)
{
    bench_dice dice = {2463534242u};
    brigade_dice_source source = {&dice, bench_dice_roll};
    brigade_melee_outcome outcome;
    brigade_error error;
    long resolutions = 0, wins[3] = {0, 0, 0};
    double start = seconds_now(), elapsed = 0;
    while (elapsed < seconds) {
        for (int i = 0; i < 10000; i++) {
            if (brigade_melee_resolve(melee, &source, &outcome, &error) != BRIGADE_OK) {
                fprintf(stderr, "bench_melee: %s: %s\n", error.path, error.message);
                return 1;
            }
            wins[outcome.winner]++;
        }
        resolutions += 10000;
        elapsed = seconds_now() - start;
    }
    printf("%-44s %10.0f resolutions/s  (%ld in %.2f s; wins A %ld, B %ld, draws %ld)\n",
           title, (double)resolutions / elapsed, resolutions, elapsed, wins[0], wins[1], wins[2]);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        fprintf(c == 'h' ? stdout : stderr, "usage: bench_melee [SECONDS]: each melee "
                "resolved over and over for SECONDS (2) on one core\n");
        return c == 'h' ? 0 : 2;
    }
    char *end = NULL;
    double seconds = optind < argc ? strtod(argv[optind], &end) : 2.0;
    if (optind + 1 < argc || (end && *end) || !(seconds > 0)) {
        fprintf(stderr, "bench_melee: SECONDS must be one positive number\n");
        return 2;
    }

    brigade_melee two_against_one;
    memset(&two_against_one, 0, sizeof two_against_one);
    two_against_one.round = 1;
    two_against_one.unit_count = 3;
    unit_make(&two_against_one.units[0], "fr1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
              BRIGADE_CLASS_LINE, 36);
    two_against_one.units[0].formation = BRIGADE_FORMATION_COLUMN;
    two_against_one.units[0].charging = true;
    unit_make(&two_against_one.units[1], "fr2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY,
              BRIGADE_CLASS_LINE, 24);
    two_against_one.units[1].formation = BRIGADE_FORMATION_COLUMN;
    two_against_one.units[1].charging = true;
    unit_make(&two_against_one.units[2], "br1", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
              BRIGADE_CLASS_LINE, 24);
    snprintf(two_against_one.units[2].nation, sizeof two_against_one.units[2].nation, "british");

    brigade_melee square;
    memset(&square, 0, sizeof square);
    square.round = 1;
    square.unit_count = 2;
    unit_make(&square.units[0], "cuir", BRIGADE_SIDE_A, BRIGADE_TYPE_CUIRASSIERS,
              BRIGADE_CLASS_ELITE, 12);
    square.units[0].charging = true;
    square.units[0].ranks = 3;
    unit_make(&square.units[1], "sq", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY,
              BRIGADE_CLASS_LINE, 24);
    square.units[1].formation = BRIGADE_FORMATION_SQUARE;

    if (bench_run("2 battalions against 1 (infantry, 12.7)", &two_against_one, seconds) != 0)
        return 1;
    if (bench_run("cuirassiers against a square (12.18)", &square, seconds) != 0)
        return 1;
    return 0;
}
