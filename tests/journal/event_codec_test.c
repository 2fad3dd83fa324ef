/*
 * tests/journal/event_codec_test.c: core events and battles through
 * protocol/event_codec.h: exact round trips over whole played battles
 * (every event kind), strict decoding (each kind of refusal names its
 * member), bytes cut or flipped anywhere (an error, never a crash), and
 * what has no encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/battle.h"
#include "journal_driver.h"
#include "protocol/codec.h"
#include "protocol/event_codec.h"

/* ---- helpers ---------------------------------------------------------------- */

static brigade_battle *scenario_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", BRIGADE_SCENARIO_DIR, name);
    size_t len = 0;
    char *text = journal_driver_file_read(path, &len);
    assert_non_null(text);
    brigade_battle *battle = journal_driver_battle_load(text, len);
    free(text);
    assert_non_null(battle);
    return battle;
}

static brigade_battle *scenario_sappers(void)
{
    brigade_battle *battle = journal_driver_battle_load(
        journal_driver_sappers_scenario, strlen(journal_driver_sappers_scenario));
    assert_non_null(battle);
    return battle;
}

/* Encodes and decodes one event both ways, asserting the exact round trip,
 * and returns the decoded event in *out. */
static void event_round_trip(const brigade_battle *battle, const brigade_event *event,
                             brigade_event *out)
{
    protocol_event_status status;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(protocol_event_encode(battle, event, &bytes, &len, &status),
                     PROTOCOL_EVENT_OK);
    assert_non_null(bytes);
    if (protocol_event_decode(battle, bytes, len, out, &status) != PROTOCOL_EVENT_OK)
        fail_msg("%s: %s", brigade_event_kind_name(event->kind), status.message);
    assert_memory_equal(out, event, sizeof *event);

    /* The same through the tree, and equal events give equal bytes. */
    protocol_value *tree = protocol_event_to_value(battle, event, &status);
    assert_non_null(tree);
    assert_string_equal(protocol_value_string_get(protocol_value_map_get(tree, "kind"), NULL),
                        brigade_event_kind_name(event->kind));
    brigade_event again;
    assert_int_equal(protocol_event_from_value(battle, tree, &again, &status), PROTOCOL_EVENT_OK);
    assert_memory_equal(&again, event, sizeof *event);
    uint8_t *bytes2 = NULL;
    size_t len2 = 0;
    assert_int_equal(protocol_event_encode(battle, &again, &bytes2, &len2, &status),
                     PROTOCOL_EVENT_OK);
    assert_int_equal(len2, len);
    assert_memory_equal(bytes2, bytes, len);
    protocol_value_free(tree);
    free(bytes);
    free(bytes2);
}

static void battle_round_trip(const brigade_battle *battle)
{
    protocol_event_status status;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(protocol_battle_encode(battle, &bytes, &len, &status), PROTOCOL_EVENT_OK);
    brigade_battle *out = malloc(sizeof *out);
    assert_non_null(out);
    if (protocol_battle_decode(bytes, len, out, &status) != PROTOCOL_EVENT_OK)
        fail_msg("battle: %s", status.message);
    assert_memory_equal(out, battle, sizeof *battle);
    free(out);
    free(bytes);
}

/* ---- round trips over played battles ------------------------------------- */

typedef struct kinds_seen {
    int count[BRIGADE_BATTLE_EVENT_MELEE_RESOLVED + 1];
} kinds_seen;

/* Plays `battle` (consumed) with `seed` for at most `steps` commands,
 * checking every event and, now and then, the whole battle. */
static void play_and_check(brigade_battle *battle, uint64_t seed, int steps, kinds_seen *seen)
{
    brigade_battle *decoded = malloc(sizeof *decoded);
    assert_non_null(decoded);
    memcpy(decoded, battle, sizeof *battle);
    battle_round_trip(battle);

    journal_rng rng;
    journal_rng_seed(&rng, seed);
    brigade_dice_source dice = journal_rng_dice(&rng);
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_battle_error error;
    assert_int_equal(brigade_battle_start(battle, &dice, &events, &error), BRIGADE_BATTLE_OK);
    for (int step = 0;; step++) {
        for (size_t i = 0; i < events.count; i++) {
            brigade_event out;
            event_round_trip(battle, &events.items[i], &out);
            seen->count[events.items[i].kind]++;
            assert_true(brigade_battle_fold(battle, &events.items[i]));
            assert_true(brigade_battle_fold(decoded, &out));
        }
        assert_memory_equal(decoded, battle, sizeof *battle);
        if (step % 7 == 0)
            battle_round_trip(battle);
        brigade_event_list_clear(&events);
        brigade_side seat;
        brigade_command command;
        if (step == steps || !journal_driver_step(battle, &rng, &seat, &command, &events))
            break;
    }
    battle_round_trip(battle);
    brigade_event_list_free(&events);
    free(decoded);
    free(battle);
}

static void test_round_trip_every_kind(void **state)
{
    (void)state;
    kinds_seen seen;
    memset(&seen, 0, sizeof seen);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        play_and_check(scenario_file("example_a.json"), seed, 300, &seen);
        play_and_check(scenario_file("village.json"), seed, 300, &seen);
        play_and_check(scenario_sappers(), seed, 300, &seen);
    }
    for (int k = BRIGADE_BATTLE_EVENT_ROLL; k <= BRIGADE_BATTLE_EVENT_MELEE_RESOLVED; k++) {
        print_message("%s: %d\n", brigade_event_kind_name(k), seen.count[k]);
        if (seen.count[k] == 0)
            fail_msg("no %s event in the played battles", brigade_event_kind_name(k));
    }
}

/* ---- strict decoding --------------------------------------------------------- */

/* The first event of `kind` in a played village battle, and the battle it
 * belongs to (caller frees both). */
static brigade_event *find_event(brigade_event_kind kind, brigade_battle **battle_out)
{
    for (uint64_t seed = 1; seed < 50; seed++) {
        brigade_battle *battle = seed % 2 ? scenario_file("village.json") : scenario_sappers();
        journal_rng rng;
        journal_rng_seed(&rng, seed);
        brigade_dice_source dice = journal_rng_dice(&rng);
        brigade_event_list events;
        brigade_event_list_init(&events);
        brigade_battle_error error;
        assert_int_equal(brigade_battle_start(battle, &dice, &events, &error), BRIGADE_BATTLE_OK);
        for (int step = 0; step < 400; step++) {
            for (size_t i = 0; i < events.count; i++) {
                if (events.items[i].kind == kind) {
                    brigade_event *found = malloc(sizeof *found);
                    assert_non_null(found);
                    memcpy(found, &events.items[i], sizeof *found);
                    brigade_event_list_free(&events);
                    *battle_out = battle;
                    return found;
                }
                assert_true(brigade_battle_fold(battle, &events.items[i]));
            }
            brigade_event_list_clear(&events);
            brigade_side seat;
            brigade_command command;
            if (!journal_driver_step(battle, &rng, &seat, &command, &events))
                break;
        }
        brigade_event_list_free(&events);
        free(battle);
    }
    fail_msg("no %s event found", brigade_event_kind_name(kind));
    return NULL;
}

/* Decodes `tree` expecting BAD_MEMBER at `member` with `part` in the
 * message. */
static void expect_refused(const brigade_battle *battle, const protocol_value *tree,
                           const char *member, const char *part)
{
    brigade_event out;
    protocol_event_status status;
    assert_int_equal(protocol_event_from_value(battle, tree, &out, &status),
                     PROTOCOL_EVENT_BAD_MEMBER);
    assert_string_equal(status.member, member);
    if (strstr(status.message, part) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", status.message, part);
    brigade_event zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&out, &zero, sizeof zero);
}

static protocol_value *path_get(protocol_value *tree, const char *a, long index, const char *b)
{
    protocol_value *v = protocol_value_map_get(tree, a);
    if (index >= 0)
        v = protocol_value_array_get(v, (size_t)index);
    if (b != NULL)
        v = protocol_value_map_get(v, b);
    assert_non_null(v);
    return v;
}

/* The dice events (PROTOCOL.md §10.3): exact round trips, folded into the
 * battle's dice (which round-trips too), each once; hex that is not 64
 * lower-case characters refused by the codec. */
/* The umpire's part of a battle (PROTOCOL.md §10.2) and its events round
 * trip: seated, a pending double six, a melee fought this turn, a
 * rolled-back range, the settle, overrule and rollback rulings. */
static void test_umpire_round_trip(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("example_a.json");
    brigade_event e, out;
    brigade_battle_seated(&e);
    event_round_trip(battle, &e, &out);
    assert_true(brigade_battle_fold(battle, &e));
    battle->turn = 1;
    battle->phase = BRIGADE_PHASE_MELEE;
    battle->step = BRIGADE_STEP_SETTLE;
    battle->pending_count = 1;
    battle->pending[0].unit = 1;
    battle->pending[0].event = BRIGADE_EVENT_DOUBLE_SIX;
    snprintf(battle->pending[0].melee_id, sizeof battle->pending[0].melee_id, "T1.M1");
    battle->fought_count = 1;
    brigade_battle_fought *f = &battle->fought[0];
    snprintf(f->melee.id, sizeof f->melee.id, "T1.M1");
    f->melee.number = 1;
    f->melee.round = 1;
    f->melee.fought_turn = 1;
    f->melee.member_count = 2;
    f->melee.members[0].unit = 0;
    f->melee.members[0].charging = true;
    f->melee.members[0].dice_recorded = true;
    f->melee.members[0].dice[0] = 6;
    f->melee.members[0].dice[1] = 6;
    f->melee.members[0].reroll_die = -1;
    f->melee.members[1].unit = 1;
    f->melee.members[1].reroll_die = -1;
    f->units[0].figures = 8;
    f->units[0].formed = true;
    f->units[0].resulted = true;
    f->units[0].casualties = 3;
    f->units[1].figures = 12;
    f->units[1].status = BRIGADE_STATUS_NORMAL;
    f->units[1].resulted = true;
    f->units[1].casualties = 1;
    f->units[1].test_kind = BRIGADE_TEST_PURSUIT;
    f->units[1].test_dice[0] = 3;
    f->units[1].test_dice[1] = 4;
    f->winner = BRIGADE_SIDE_B;
    f->result = BRIGADE_RESULT_RETREAT;
    f->overruled = true;
    battle->rolled_back_count = 1;
    battle->rolled_back[0].first = 4;
    battle->rolled_back[0].end = 19;
    battle->rolled_back[0].seq = 12;
    battle->rolled_back[0].to_seq = 3;
    battle_round_trip(battle);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UMPIRE_RULED;
    e.umpire.ruling = BRIGADE_UMPIRE_SETTLE;
    snprintf(e.umpire.text, sizeof e.umpire.text, "the colonel's horse is shot");
    e.umpire.unit = 1;
    e.umpire.event = BRIGADE_EVENT_DOUBLE_SIX;
    event_round_trip(battle, &e, &out);
    e.umpire.ruling = BRIGADE_UMPIRE_OVERRULE;
    e.umpire.event = 0;
    snprintf(e.umpire.melee_id, sizeof e.umpire.melee_id, "T1.M1");
    e.umpire.has_result = true;
    e.umpire.result = BRIGADE_RESULT_PUSHED_BACK;
    e.umpire.winner = BRIGADE_SIDE_B;
    e.umpire.outcome = BRIGADE_OUTCOME_BLOWN;
    event_round_trip(battle, &e, &out);
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UMPIRE_RULED;
    e.umpire.ruling = BRIGADE_UMPIRE_ROLLBACK;
    e.umpire.unit = -1;
    snprintf(e.umpire.text, sizeof e.umpire.text, "rolled back to seq 3: measured wrong");
    e.umpire.to_seq = 3;
    e.umpire.seq = 12;
    e.umpire.rolls = 9;
    e.umpire.events = 19;
    event_round_trip(battle, &e, &out);
    free(battle);
}

static void test_dice_events(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("example_a.json");
    brigade_event events[4], out;
    memset(events, 0, sizeof events);
    events[0].kind = BRIGADE_BATTLE_EVENT_DICE_COMMITTED;
    events[0].dice.side = BRIGADE_SIDE_NONE;
    snprintf(events[0].dice.hex, sizeof events[0].dice.hex, "%s",
             "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
    for (int k = 1; k <= 2; k++) {
        events[k].kind = BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED;
        events[k].dice.side = k == 1 ? BRIGADE_SIDE_B : BRIGADE_SIDE_A;
        memset(events[k].dice.hex, k == 1 ? 'b' : 'a', BRIGADE_DICE_HEX_MAX);
    }
    events[3].kind = BRIGADE_BATTLE_EVENT_DICE_REVEALED;
    events[3].dice.side = BRIGADE_SIDE_NONE;
    memset(events[3].dice.hex, '0', BRIGADE_DICE_HEX_MAX);
    for (int i = 0; i < 4; i++) {
        event_round_trip(battle, &events[i], &out);
        assert_true(brigade_battle_fold(battle, &events[i]));
        assert_false(brigade_battle_fold(battle, &events[i])); /* each once */
        battle_round_trip(battle);
    }
    assert_string_equal(battle->dice.commitment, events[0].dice.hex);
    assert_string_equal(battle->dice.seeds[BRIGADE_SIDE_A], events[2].dice.hex);
    assert_string_equal(battle->dice.server_seed, events[3].dice.hex);

    protocol_event_status status;
    protocol_value *tree = protocol_event_to_value(battle, &events[1], &status);
    assert_non_null(tree);
    assert_int_equal(protocol_value_map_set_string(tree, "hex", "BBBB"), 0);
    expect_refused(battle, tree, "hex", "64 lower-case hex");
    protocol_value_free(tree);
    free(battle);
}

static void test_strict_decoding(void **state)
{
    (void)state;
    brigade_battle *battle = NULL;
    brigade_event *result = find_event(BRIGADE_BATTLE_EVENT_MELEE_UNIT_RESULT, &battle);
    protocol_event_status status;
    protocol_value *good = protocol_event_to_value(battle, result, &status);
    assert_non_null(good);

    protocol_value *t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_remove(t, "total"), 0);
    expect_refused(battle, t, "total", "missing");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_int(t, "extra", 1), 0);
    expect_refused(battle, t, "extra", "unknown member");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_string(t, "unit", "nobody"), 0);
    expect_refused(battle, t, "unit", "no unit \"nobody\"");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_string(t, "status", "happy"), 0);
    expect_refused(battle, t, "status", "unknown status");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_int(t, "figures", 100001), 0);
    expect_refused(battle, t, "figures", "out of range");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_array_set(path_get(t, "dice", -1, NULL), 1,
                                              protocol_value_int_new(7)),
                     0);
    expect_refused(battle, t, "dice[1]", "7 out of range 0..6");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_string(path_get(t, "test", -1, NULL), "kind", "nap"),
                     0);
    expect_refused(battle, t, "test.kind", "unknown test kind");
    protocol_value_free(t);

    if (result->result.modifier_count > 0) {
        t = protocol_value_clone(good);
        assert_int_equal(protocol_value_map_set_string(path_get(t, "modifiers", 0, NULL),
                                                       "value", "two"),
                         0);
        expect_refused(battle, t, "modifiers[0].value", "not an int (string)");
        protocol_value_free(t);
    }

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_bool(t, "kind", true), 0);
    expect_refused(battle, t, "kind", "not a string");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_string(t, "kind", "pillage"), 0);
    expect_refused(battle, t, "kind", "unknown event kind");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set(t, "events", protocol_value_int_new(1)), 0);
    expect_refused(battle, t, "events", "not an array");
    protocol_value_free(t);

    protocol_value *top = protocol_value_array_new();
    expect_refused(battle, top, "", "not a map (array)");
    protocol_value_free(top);

    protocol_value_free(good);
    free(result);
    free(battle);

    /* A melee record inside an event, and nil where nil is not allowed. */
    brigade_event *formed = find_event(BRIGADE_BATTLE_EVENT_MELEE_FORMED, &battle);
    good = protocol_event_to_value(battle, formed, &status);
    assert_non_null(good);
    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set(path_get(t, "melee", -1, NULL), "round",
                                            protocol_value_nil_new()),
                     0);
    expect_refused(battle, t, "melee.round", "not an int (nil)");
    protocol_value_free(t);
    t = protocol_value_clone(good);
    protocol_value *member0 =
        protocol_value_array_get(path_get(t, "melee", -1, "members"), 0);
    assert_int_equal(protocol_value_map_set(member0, "unit", protocol_value_nil_new()), 0);
    expect_refused(battle, t, "melee.members[0].unit", "a unit id is required");
    protocol_value_free(t);
    protocol_value_free(good);
    free(formed);
    free(battle);
}

static void test_strict_battle(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("village.json");
    protocol_event_status status;
    protocol_value *good = protocol_battle_to_value(battle, &status);
    assert_non_null(good);
    brigade_battle *out = malloc(sizeof *out);
    assert_non_null(out);

    protocol_value *t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_int(t, "format", PROTOCOL_BATTLE_FORMAT + 1), 0);
    assert_int_equal(protocol_battle_from_value(t, out, &status), PROTOCOL_EVENT_BAD_MEMBER);
    assert_string_equal(status.member, "format");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    protocol_value *units = protocol_value_map_get(t, "units");
    assert_int_equal(protocol_value_map_set_string(protocol_value_array_get(units, 1), "id",
                                                   "ligne_1"),
                     0);
    assert_int_equal(protocol_battle_from_value(t, out, &status), PROTOCOL_EVENT_BAD_MEMBER);
    assert_string_equal(status.member, "units[1].id");
    assert_non_null(strstr(status.message, "twice"));
    protocol_value_free(t);

    t = protocol_value_clone(good);
    units = protocol_value_map_get(t, "units");
    assert_int_equal(protocol_value_map_set_string(protocol_value_array_get(units, 2),
                                                   "pursuit_of", "ghost"),
                     0);
    assert_int_equal(protocol_battle_from_value(t, out, &status), PROTOCOL_EVENT_BAD_MEMBER);
    assert_string_equal(status.member, "units[2].pursuit_of");
    protocol_value_free(t);

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_remove(protocol_value_map_get(t, "ruleset"),
                                               "bua_fall_back"),
                     0);
    assert_int_equal(protocol_battle_from_value(t, out, &status), PROTOCOL_EVENT_BAD_MEMBER);
    assert_string_equal(status.member, "ruleset.bua_fall_back");
    protocol_value_free(t);

    brigade_battle zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(out, &zero, sizeof zero);
    protocol_value_free(good);
    free(out);
    free(battle);
}

/* Every prefix of the bytes is refused; every byte changed in several ways
 * decodes or is refused, never crashes (ASan/UBSan watch this one). */
static void test_bytes_cut_and_flipped(void **state)
{
    (void)state;
    brigade_battle *battle = NULL;
    brigade_event *resolved = find_event(BRIGADE_BATTLE_EVENT_MELEE_RESOLVED, &battle);
    protocol_event_status status;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(protocol_event_encode(battle, resolved, &bytes, &len, &status),
                     PROTOCOL_EVENT_OK);
    brigade_event out;
    for (size_t cut = 0; cut < len; cut++) {
        protocol_event_error error = protocol_event_decode(battle, bytes, cut, &out, &status);
        assert_true(error == PROTOCOL_EVENT_BAD_BYTES || error == PROTOCOL_EVENT_BAD_MEMBER);
    }
    static const uint8_t patterns[] = {0x01, 0x80, 0xff, 0x20};
    int refused = 0;
    for (size_t at = 0; at < len; at++)
        for (size_t p = 0; p < sizeof patterns; p++) {
            uint8_t *copy = malloc(len);
            assert_non_null(copy);
            memcpy(copy, bytes, len);
            copy[at] ^= patterns[p];
            if (protocol_event_decode(battle, copy, len, &out, &status) != PROTOCOL_EVENT_OK)
                refused++;
            free(copy);
        }
    assert_true(refused > 0);
    free(bytes);

    uint8_t *battle_bytes = NULL;
    size_t battle_len = 0;
    assert_int_equal(protocol_battle_encode(battle, &battle_bytes, &battle_len, &status),
                     PROTOCOL_EVENT_OK);
    brigade_battle *decoded = malloc(sizeof *decoded);
    assert_non_null(decoded);
    for (size_t cut = 0; cut < battle_len; cut += 7)
        assert_int_not_equal(protocol_battle_decode(battle_bytes, cut, decoded, &status),
                             PROTOCOL_EVENT_OK);
    for (size_t at = 0; at < battle_len; at += 3) {
        battle_bytes[at] ^= 0x41;
        (void)protocol_battle_decode(battle_bytes, battle_len, decoded, &status);
        battle_bytes[at] ^= 0x41;
    }
    assert_int_equal(protocol_battle_decode(battle_bytes, battle_len, decoded, &status),
                     PROTOCOL_EVENT_OK);
    free(decoded);
    free(battle_bytes);
    free(resolved);
    free(battle);
}

static void test_unencodable(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("example_a.json");
    protocol_event_status status;
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
    e.unit.unit = 5; /* example A has two units */
    e.unit.pursuit_of = -1;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(protocol_event_encode(battle, &e, &bytes, &len, &status),
                     PROTOCOL_EVENT_UNFIT);
    assert_null(bytes);
    assert_string_equal(status.member, "unit");

    /* A note cut inside a UTF-8 character (bytes c3 a9 = "é", cut after c3). */
    e.unit.unit = 0;
    snprintf(e.unit.note, sizeof e.unit.note, "charg\xc3");
    assert_int_equal(protocol_event_encode(battle, &e, &bytes, &len, &status),
                     PROTOCOL_EVENT_UNFIT);
    assert_string_equal(status.member, "note");
    assert_non_null(strstr(status.message, "UTF-8"));

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_PHASE_BEGUN;
    e.phase.phase = (brigade_phase)42;
    assert_int_equal(protocol_event_encode(battle, &e, &bytes, &len, &status),
                     PROTOCOL_EVENT_UNFIT);
    assert_string_equal(status.member, "phase");

    memset(&e, 0, sizeof e);
    e.kind = (brigade_event_kind)99;
    assert_int_equal(protocol_event_encode(battle, &e, &bytes, &len, &status),
                     PROTOCOL_EVENT_UNFIT);
    assert_string_equal(status.member, "kind");

    /* A readable event on the wire: names, not numbers. */
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
    e.unit.unit = 1;
    e.unit.cause = BRIGADE_CAUSE_MELEE;
    e.unit.status = BRIGADE_STATUS_PUSHED_BACK;
    e.unit.pursuit_of = 0;
    protocol_value *tree = protocol_event_to_value(battle, &e, &status);
    assert_non_null(tree);
    char *json = protocol_value_to_json(tree, 0);
    assert_non_null(json);
    assert_string_equal(json,
                        "{\"kind\":\"unit_changed\",\"unit\":\"dragoons\",\"cause\":\"melee\","
                        "\"figures\":0,\"status\":\"pushed_back\",\"formed\":false,"
                        "\"wavering\":false,\"sappers\":false,\"bonus\":\"none\","
                        "\"pursuit_of\":\"hussars\",\"move\":\"\",\"note\":\"\"}");
    free(json);
    protocol_value_free(tree);
    free(battle);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_kind),
        cmocka_unit_test(test_strict_decoding),
        cmocka_unit_test(test_dice_events),
        cmocka_unit_test(test_umpire_round_trip),
        cmocka_unit_test(test_strict_battle),
        cmocka_unit_test(test_bytes_cut_and_flipped),
        cmocka_unit_test(test_unencodable),
    };
    return cmocka_run_group_tests_name("journal_event_codec", tests, NULL, NULL);
}
