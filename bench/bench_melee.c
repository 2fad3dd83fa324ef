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

/* One unit of a melee benched: who it is, and what the melee sets on it
 * beyond brigade_melee_unit_init's defaults. */
typedef struct bench_unit {
    const char *id;
    brigade_side side;
    brigade_troop_type type;
    brigade_class unit_class;
    int figures;
    int formation;      /* a brigade_formation, or -1: the type's default */
    bool charging;
    int ranks;          /* 0: the default */
    const char *nation; /* NULL: the default */
} bench_unit;

/* A first-round melee of units[0 .. count). */
static void melee_make(brigade_melee *melee, const bench_unit *units, int count)
{
    memset(melee, 0, sizeof *melee);
    melee->round = 1;
    melee->unit_count = count;
    for (int i = 0; i < count; i++) {
        const bench_unit *row = &units[i];
        brigade_melee_unit *unit = &melee->units[i];
        brigade_melee_unit_init(unit);
        snprintf(unit->id, sizeof unit->id, "%s", row->id);
        unit->side = row->side;
        brigade_melee_unit_set_type(unit, row->type);
        unit->unit_class = row->unit_class;
        unit->figures = row->figures;
        if (row->formation >= 0)
            unit->formation = (brigade_formation)row->formation;
        unit->charging = row->charging;
        if (row->ranks > 0)
            unit->ranks = row->ranks;
        if (row->nation)
            snprintf(unit->nation, sizeof unit->nation, "%s", row->nation);
    }
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

    /* 12.7: two French battalions in column charge a British one. */
    static const bench_unit two_against_one_units[] = {
        {"fr1", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 36,
         BRIGADE_FORMATION_COLUMN, true, 0, NULL},
        {"fr2", BRIGADE_SIDE_A, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24,
         BRIGADE_FORMATION_COLUMN, true, 0, NULL},
        {"br1", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24, -1, false, 0,
         "british"},
    };
    /* 12.18: cuirassiers, three ranks deep, charge a square. */
    static const bench_unit square_units[] = {
        {"cuir", BRIGADE_SIDE_A, BRIGADE_TYPE_CUIRASSIERS, BRIGADE_CLASS_ELITE, 12, -1, true, 3,
         NULL},
        {"sq", BRIGADE_SIDE_B, BRIGADE_TYPE_INFANTRY, BRIGADE_CLASS_LINE, 24,
         BRIGADE_FORMATION_SQUARE, false, 0, NULL},
    };
    brigade_melee two_against_one, square;
    melee_make(&two_against_one, two_against_one_units,
               (int)(sizeof two_against_one_units / sizeof two_against_one_units[0]));
    melee_make(&square, square_units, (int)(sizeof square_units / sizeof square_units[0]));

    if (bench_run("2 battalions against 1 (infantry, 12.7)", &two_against_one, seconds) != 0)
        return 1;
    if (bench_run("cuirassiers against a square (12.18)", &square, seconds) != 0)
        return 1;
    return 0;
}
