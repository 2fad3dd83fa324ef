/*
 * tests/journal/journal_driver.c: a battle that plays itself
 * (journal_driver.h).
 */
#include "journal_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/scenario.h"

const char journal_driver_sappers_scenario[] =
    "{\"title\": \"Sappers at the church\", \"sides\": {\"A\": {\"name\": \"French\"}, \"B\": "
    "{\"name\": \"Austrians\"}}, \"units\": ["
    "{\"id\": \"col\", \"side\": \"A\", \"name\": \"Column\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 24, \"formation\": \"column\", \"sappers\": true},"
    "{\"id\": \"hussars\", \"side\": \"A\", \"name\": \"Hussars\", \"type\": \"light_cavalry\", "
    "\"class\": \"veteran\", \"figures\": 12},"
    "{\"id\": \"church\", \"side\": \"B\", \"name\": \"Church\", \"type\": \"infantry\", "
    "\"class\": \"line\", \"figures\": 18, \"terrain\": \"bua\", \"defending\": \"fortified\"},"
    "{\"id\": \"uhlans\", \"side\": \"B\", \"name\": \"Uhlans\", \"type\": \"lancers\", "
    "\"class\": \"line\", \"figures\": 10}]}";

void journal_rng_seed(journal_rng *rng, uint64_t seed)
{
    rng->state = seed * 2654435761u + 0x9e3779b97f4a7c15u;
    if (rng->state == 0)
        rng->state = 1;
}

static uint64_t rng_next(journal_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return x * 0x2545f4914f6cdd1du;
}

int journal_rng_below(journal_rng *rng, int n)
{
    return (int)(rng_next(rng) % (uint64_t)n);
}

static bool rng_roll(void *context, const char *name, int faces[2])
{
    (void)name;
    journal_rng *rng = context;
    faces[0] = journal_rng_below(rng, 6) + 1;
    faces[1] = journal_rng_below(rng, 6) + 1;
    return true;
}

brigade_dice_source journal_rng_dice(journal_rng *rng)
{
    brigade_dice_source source = {rng, rng_roll};
    return source;
}

brigade_error_code journal_driver_start(const brigade_battle *battle, journal_rng *rng,
                                        uint64_t seed, brigade_event_list *events)
{
    journal_rng_seed(rng, seed);
    brigade_dice_source dice = journal_rng_dice(rng);
    brigade_event_list_init(events);
    brigade_error error;
    return brigade_battle_start(battle, &dice, events, &error);
}

/* Tries `command`; true (events appended) when core accepts it. */
static bool try_command(const brigade_battle *battle, journal_rng *rng, brigade_side seat,
                        const brigade_command *command, brigade_event_list *events)
{
    brigade_dice_source dice = journal_rng_dice(rng);
    brigade_error error;
    return brigade_battle_apply(battle, seat, command, &dice, events, &error) == BRIGADE_OK;
}

static brigade_command command_of(brigade_command_kind kind)
{
    brigade_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    return c;
}

/* A random unit of `side` in play, or -1. */
static int unit_of(const brigade_battle *b, journal_rng *rng, brigade_side side)
{
    int candidates[BRIGADE_BATTLE_UNITS_MAX];
    int n = 0;
    for (int i = 0; i < b->unit_count; i++)
        if (b->units[i].side == side && brigade_battle_unit_in_play(&b->units[i]))
            candidates[n++] = i;
    return n ? candidates[journal_rng_below(rng, n)] : -1;
}

/* Each step's case written out as its own branch: the driver plays what
 * that step of the rules allows. The respond and re-roll branches look
 * alike (each unit of the seat in turn, a command tried) but fill different
 * members, respond falling back to stand; a shared loop would have to take
 * a filler, and the random numbers must stay drawn in this order (each try
 * draws dice too), or the games the journal tests replay would change. */
bool journal_driver_step(const brigade_battle *battle, journal_rng *rng, brigade_side *seat,
                         brigade_command *command, brigade_event_list *events)
{
    const brigade_battle *b = battle;
    if (b->phase == BRIGADE_PHASE_ENDED || b->awaiting == 0)
        return false;
    brigade_side s = (b->awaiting & BRIGADE_SEAT_BIT(BRIGADE_SIDE_A)) ? BRIGADE_SIDE_A
                                                                       : BRIGADE_SIDE_B;
    brigade_side enemy = s == BRIGADE_SIDE_A ? BRIGADE_SIDE_B : BRIGADE_SIDE_A;
    *seat = s;
    brigade_command c;

    switch (b->step) {
    case BRIGADE_STEP_CHOOSE:
        c = command_of(BRIGADE_COMMAND_CHOOSE_INITIATIVE);
        c.phasing = journal_rng_below(rng, 2) ? BRIGADE_SIDE_A : BRIGADE_SIDE_B;
        if (try_command(b, rng, s, &c, events))
            goto played;
        break;
    case BRIGADE_STEP_DECLARE:
        /* Reinforce a melee still in contact now and then (12.8). */
        for (int m = 0; m < b->melee_count && journal_rng_below(rng, 2) == 0; m++) {
            const brigade_battle_melee *melee = &b->melees[m];
            for (int k = 0; k < melee->member_count; k++) {
                int target = melee->members[k].unit;
                int unit = unit_of(b, rng, s);
                if (unit < 0 || b->units[target].side != enemy)
                    continue;
                c = command_of(BRIGADE_COMMAND_DECLARE_CHARGE);
                snprintf(c.unit, sizeof c.unit, "%s", b->units[unit].id);
                snprintf(c.target, sizeof c.target, "%s", b->units[target].id);
                c.reinforce = true;
                if (try_command(b, rng, s, &c, events))
                    goto played;
            }
        }
        if (journal_rng_below(rng, 3) != 0) {
            for (int tries = 0; tries < 6; tries++) {
                int unit = unit_of(b, rng, s), target = unit_of(b, rng, enemy);
                if (unit < 0 || target < 0)
                    break;
                c = command_of(BRIGADE_COMMAND_DECLARE_CHARGE);
                snprintf(c.unit, sizeof c.unit, "%s", b->units[unit].id);
                snprintf(c.target, sizeof c.target, "%s", b->units[target].id);
                c.facing = (brigade_facing)journal_rng_below(rng, 3);
                c.leading = journal_rng_below(rng, 2);
                c.sappers = journal_rng_below(rng, 2);
                c.reinforce = journal_rng_below(rng, 4) == 0;
                if (try_command(b, rng, s, &c, events))
                    goto played;
            }
        }
        break;
    case BRIGADE_STEP_RESPOND:
        for (int i = 0; i < b->unit_count; i++) {
            if (b->units[i].side != s)
                continue;
            c = command_of(BRIGADE_COMMAND_RESPOND);
            snprintf(c.unit, sizeof c.unit, "%s", b->units[i].id);
            c.response = journal_rng_below(rng, 2) ? BRIGADE_RESPONSE_COUNTERCHARGE
                                                   : BRIGADE_RESPONSE_STAND;
            if (try_command(b, rng, s, &c, events))
                goto played;
            c.response = BRIGADE_RESPONSE_STAND;
            if (try_command(b, rng, s, &c, events))
                goto played;
        }
        break;
    case BRIGADE_STEP_REROLL:
        for (int i = 0; i < b->unit_count; i++) {
            if (b->units[i].side != s)
                continue;
            c = command_of(BRIGADE_COMMAND_SAPPERS_REROLL);
            snprintf(c.unit, sizeof c.unit, "%s", b->units[i].id);
            c.die = journal_rng_below(rng, 3) - 1;
            if (try_command(b, rng, s, &c, events))
                goto played;
        }
        break;
    case BRIGADE_STEP_REPORT:
        if (journal_rng_below(rng, 5) == 0) {
            int unit = unit_of(b, rng, s);
            if (unit >= 0) {
                c = command_of(BRIGADE_COMMAND_ADJUST);
                snprintf(c.unit, sizeof c.unit, "%s", b->units[unit].id);
                if (journal_rng_below(rng, 2)) {
                    c.has_formed = true;
                    c.formed = !b->units[unit].formed;
                } else {
                    c.has_figures = true;
                    c.figures = b->units[unit].figures > 1 ? b->units[unit].figures - 1 : 1;
                }
                snprintf(c.note, sizeof c.note, "fire from the ridge, %d", journal_rng_below(rng, 100));
                if (try_command(b, rng, s, &c, events))
                    goto played;
            }
        }
        break;
    default:
        break;
    }
    c = command_of(BRIGADE_COMMAND_DONE);
    if (try_command(b, rng, s, &c, events))
        goto played;
    return false;
played:
    *command = c;
    return true;
}

bool journal_driver_next(const brigade_battle *battle, journal_rng *rng,
                         brigade_event_list *events)
{
    brigade_side seat;
    brigade_command command;
    brigade_event_list_clear(events);
    return journal_driver_step(battle, rng, &seat, &command, events);
}

char *journal_driver_file_read(const char *path, size_t *len)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL)
        return NULL;
    char *text = NULL;
    size_t size = 0;
    if (fseek(file, 0, SEEK_END) == 0) {
        long end = ftell(file);
        if (end >= 0 && fseek(file, 0, SEEK_SET) == 0) {
            text = malloc((size_t)end + 1);
            if (text != NULL && fread(text, 1, (size_t)end, file) == (size_t)end) {
                size = (size_t)end;
                text[size] = '\0';
            } else {
                free(text);
                text = NULL;
            }
        }
    }
    fclose(file);
    if (text != NULL && len != NULL)
        *len = size;
    return text;
}

brigade_battle *journal_driver_battle_load(const char *json, size_t len)
{
    brigade_battle *battle = malloc(sizeof *battle);
    if (battle == NULL)
        return NULL;
    brigade_battle_init(battle);
    brigade_error error;
    if (!brigade_scenario_load(json, len, battle, &error)) {
        fprintf(stderr, "scenario: %s\n", error.message);
        free(battle);
        return NULL;
    }
    return battle;
}

brigade_battle *journal_driver_scenario_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t len = 0;
    char *text = journal_driver_file_read(path, &len);
    if (text == NULL) {
        fprintf(stderr, "scenario: cannot read %s\n", path);
        return NULL;
    }
    brigade_battle *battle = journal_driver_battle_load(text, len);
    free(text);
    return battle;
}
