/*
 * tests/journal/event_codec_test.c: core events and battles through
 * journal/event_codec.h: exact round trips over whole played battles
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
#include "old_battle_charged.h"
#include "protocol/codec.h"
#include "journal/event_codec.h"

/* ---- helpers ---------------------------------------------------------------- */

static brigade_battle *scenario_file(const char *name)
{
    brigade_battle *battle = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, name);
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

/* The tree of one event, or of a battle, which the test expects to have one
 * (the failure names the code's message). */
static protocol_value *event_tree(const brigade_battle *battle, const brigade_event *event)
{
    journal_fault status;
    protocol_value *tree = journal_event_to_value(battle, event, &status);
    if (tree == NULL)
        fail_msg("%s: %s", brigade_event_kind_name(event->kind), status.message);
    return tree;
}

static protocol_value *battle_tree(const brigade_battle *battle)
{
    journal_fault status;
    protocol_value *tree = journal_battle_to_value(battle, &status);
    if (tree == NULL)
        fail_msg("battle: %s", status.message);
    return tree;
}

/* Encodes and decodes one event both ways, asserting the exact round trip,
 * and returns the decoded event in *out. */
static void event_round_trip(const brigade_battle *battle, const brigade_event *event,
                             brigade_event *out)
{
    journal_fault status;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(journal_event_encode(battle, event, &bytes, &len, &status),
                     JOURNAL_OK);
    assert_non_null(bytes);
    if (journal_event_decode(battle, bytes, len, out, &status) != JOURNAL_OK)
        fail_msg("%s: %s", brigade_event_kind_name(event->kind), status.message);
    assert_memory_equal(out, event, sizeof *event);

    /* The same through the tree, and equal events give equal bytes. */
    protocol_value *tree = event_tree(battle, event);
    assert_string_equal(protocol_value_string_get(protocol_value_map_get(tree, "kind"), NULL),
                        brigade_event_kind_name(event->kind));
    brigade_event again;
    assert_int_equal(journal_event_from_value(battle, tree, &again, &status), JOURNAL_OK);
    assert_memory_equal(&again, event, sizeof *event);
    uint8_t *bytes2 = NULL;
    size_t len2 = 0;
    assert_int_equal(journal_event_encode(battle, &again, &bytes2, &len2, &status),
                     JOURNAL_OK);
    assert_int_equal(len2, len);
    assert_memory_equal(bytes2, bytes, len);
    protocol_value_free(tree);
    free(bytes);
    free(bytes2);
}

/* An umpire's ruling of no unit with this text, its other members 0. */
static brigade_event umpire_ruled(brigade_umpire_ruling ruling, const char *text)
{
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UMPIRE_RULED;
    e.umpire.ruling = ruling;
    e.umpire.unit = -1;
    snprintf(e.umpire.text, sizeof e.umpire.text, "%s", text);
    return e;
}

static void battle_round_trip(const brigade_battle *battle)
{
    journal_fault status;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(journal_battle_encode(battle, &bytes, &len, &status), JOURNAL_OK);
    brigade_battle *out = malloc(sizeof *out);
    assert_non_null(out);
    if (journal_battle_decode(bytes, len, out, &status) != JOURNAL_OK)
        fail_msg("battle: %s", status.message);
    assert_memory_equal(out, battle, sizeof *battle);
    free(out);
    free(bytes);
}

/* ---- round trips over played battles ------------------------------------- */

typedef struct kinds_seen {
    int count[BRIGADE_BATTLE_EVENT_KIND_LAST + 1];
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
    brigade_event_list events;
    assert_int_equal(journal_driver_start(battle, &rng, seed, &events), BRIGADE_OK);
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
        if (step == steps || !journal_driver_next(battle, &rng, &events))
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
    /* Played by core without a player's report: the pursuers' Morale-phase
     * tests (D35). The reports' events are in test_reports_round_trip. */
    print_message("%s: %d\n", brigade_event_kind_name(BRIGADE_BATTLE_EVENT_TEST_TAKEN),
                  seen.count[BRIGADE_BATTLE_EVENT_TEST_TAKEN]);
}

/* ---- strict decoding --------------------------------------------------------- */

/* The first event of `kind` in a played village battle, and the battle it
 * belongs to (caller frees both). */
static brigade_event *find_event(brigade_event_kind kind, brigade_battle **battle_out)
{
    for (uint64_t seed = 1; seed < 50; seed++) {
        brigade_battle *battle = seed % 2 ? scenario_file("village.json") : scenario_sappers();
        journal_rng rng;
        brigade_event_list events;
        assert_int_equal(journal_driver_start(battle, &rng, seed, &events), BRIGADE_OK);
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
            if (!journal_driver_next(battle, &rng, &events))
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
    journal_fault status;
    assert_int_equal(journal_event_from_value(battle, tree, &out, &status),
                     JOURNAL_ERROR_BAD_MEMBER);
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
    e = umpire_ruled(BRIGADE_UMPIRE_ROLLBACK, "rolled back to seq 3: measured wrong");
    e.umpire.to_seq = 3;
    e.umpire.seq = 12;
    e.umpire.rolls = 9;
    e.umpire.events = 19;
    event_round_trip(battle, &e, &out);

    /* The umpire's end (PROTOCOL.md §11.5): "result" only with one, so an
     * end without a result has the members (and bytes) it always had. */
    e = umpire_ruled(BRIGADE_UMPIRE_END, "time is up: 3 hours");
    event_round_trip(battle, &e, &out);
    journal_fault status;
    protocol_value *tree = event_tree(battle, &e);
    assert_int_equal(protocol_value_count(tree), 3); /* kind, ruling, text */
    assert_null(protocol_value_map_get(tree, "result"));
    protocol_value_free(tree);
    static const brigade_end_result results[] = {BRIGADE_END_RESULT_A, BRIGADE_END_RESULT_B,
                                                 BRIGADE_END_RESULT_DRAW};
    static const char *const result_names[] = {"A", "B", "draw"};
    for (int i = 0; i < 3; i++) {
        e.umpire.end_result = results[i];
        event_round_trip(battle, &e, &out);
        assert_int_equal(out.umpire.end_result, results[i]);
        tree = event_tree(battle, &e);
        assert_string_equal(protocol_value_string_get(protocol_value_map_get(tree, "result"), NULL),
                            result_names[i]);
        protocol_value_free(tree);
    }
    /* "" (no result) is never written, so never read. */
    tree = journal_event_to_value(battle, &e, &status);
    assert_int_equal(protocol_value_map_set_string(tree, "result", ""), 0);
    assert_int_equal(journal_event_from_value(battle, tree, &out, &status),
                     JOURNAL_ERROR_BAD_MEMBER);
    assert_string_equal(status.member, "result");
    protocol_value_free(tree);

    /* The battle's end_result, likewise only with one. */
    battle->phase = BRIGADE_PHASE_ENDED;
    battle->step = BRIGADE_STEP_NONE;
    battle->end_cause = BRIGADE_END_UMPIRE;
    snprintf(battle->end_reason, sizeof battle->end_reason, "agreed");
    battle_round_trip(battle);
    tree = battle_tree(battle);
    assert_null(protocol_value_map_get(tree, "end_result"));
    protocol_value_free(tree);
    battle->end_result = BRIGADE_END_RESULT_DRAW;
    battle_round_trip(battle);
    tree = battle_tree(battle);
    assert_string_equal(
        protocol_value_string_get(protocol_value_map_get(tree, "end_result"), NULL), "draw");
    protocol_value_free(tree);
    free(battle);
}

/* Its start (a scenario, trees built and freed one by one) is the shape of
 * the tests around it: each test owns the battle it reads. */
/* The reports of D34-D46 (issue 10) round trip: a battle with fled_turn,
 * an uncontrolled charge and the phase's reports; the events reported,
 * report_answered and test_taken; unit_changed with fled_turn and each new
 * cause; the step occupy, the effect flees, the ruling rule. */
static void test_reports_round_trip(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("example_a.json");
    assert_true(battle->unit_count >= 2);
    battle->turn = 2;
    battle->phase = BRIGADE_PHASE_CHARGE;
    battle->step = BRIGADE_STEP_OCCUPY;
    battle->units[0].fled_turn = 1;
    battle->units[0].status = BRIGADE_STATUS_PURSUING;
    battle->units[0].pursuit_of = 1;
    battle->charge_count = 1;
    battle->charges[0].unit = 0;
    battle->charges[0].target = 1;
    battle->charges[0].facing = BRIGADE_FACING_FLANK;
    battle->charges[0].uncontrolled = true;
    battle->charges[0].occupies = true;
    battle->report_numbers = 4;
    battle->report_count = 3;
    brigade_report *r = &battle->reports[2];
    r->number = 4;
    r->kind = BRIGADE_REPORT_ADJUST; /* A's adjustment of B's unit (D46) */
    r->side = BRIGADE_SIDE_A;
    r->unit = 1;
    r->target = -1;
    r->state = BRIGADE_REPORT_AWAITS_ANSWER;
    r->has_figures = true;
    r->figures = 10;
    r->has_formed = true;
    r->formed = false;
    snprintf(r->note, sizeof r->note, "carbine fire");
    /* The reports written out member by member: their values are the data checked. */
    r = &battle->reports[0];
    r->number = 2;
    r->kind = BRIGADE_REPORT_UNCONTROLLED;
    r->side = BRIGADE_SIDE_A;
    r->unit = 0;
    r->target = -1;
    r->state = BRIGADE_REPORT_STANDS;
    r = &battle->reports[1];
    r->number = 3;
    r->kind = BRIGADE_REPORT_CONTACT;
    r->side = BRIGADE_SIDE_B;
    r->unit = 1;
    r->target = 0;
    r->facing = BRIGADE_FACING_REAR;
    r->state = BRIGADE_REPORT_REJECTED;
    r->contested = true;
    snprintf(r->contest, sizeof r->contest, "the hussars were 3\" away");
    snprintf(r->ruling, sizeof r->ruling, "measured: not in contact");
    battle_round_trip(battle);

    /* Each new member is in the tree only when set. */
    journal_fault status;
    protocol_value *tree = battle_tree(battle);
    assert_non_null(path_get(tree, "units", 0, "fled_turn"));
    assert_null(protocol_value_map_get(
        protocol_value_array_get(protocol_value_map_get(tree, "units"), 1), "fled_turn"));
    assert_true(protocol_value_bool_get(path_get(tree, "charges", 0, "uncontrolled")));
    assert_true(protocol_value_bool_get(path_get(tree, "charges", 0, "occupies")));
    assert_true(protocol_value_kind_of(path_get(tree, "reports", 0, "target")) ==
                PROTOCOL_VALUE_NIL);
    assert_string_equal(protocol_value_string_get(path_get(tree, "reports", 1, "state"), NULL),
                        "rejected");
    assert_int_equal(protocol_value_int_get(path_get(tree, "reports", 2, "figures")), 10);
    assert_false(protocol_value_bool_get(path_get(tree, "reports", 2, "formed")));
    assert_null(protocol_value_map_get(
        protocol_value_array_get(protocol_value_map_get(tree, "reports"), 2), "status"));
    assert_null(protocol_value_map_get(
        protocol_value_array_get(protocol_value_map_get(tree, "reports"), 1), "note"));
    assert_string_equal(protocol_value_string_get(path_get(tree, "step", -1, NULL), NULL),
                        "occupy");
    /* A report numbered beyond the game's count is refused. */
    brigade_battle *out = malloc(sizeof *out);
    assert_non_null(out);
    assert_int_equal(protocol_value_map_set_int(tree, "report_numbers", 3), 0);
    assert_int_equal(journal_battle_from_value(tree, out, &status), JOURNAL_ERROR_BAD_MEMBER);
    assert_string_equal(status.member, "reports[2]");
    assert_int_equal(protocol_value_map_set_int(tree, "report_numbers", 4), 0);
    assert_int_equal(protocol_value_map_set_string(protocol_value_array_get(
                                                       protocol_value_map_get(tree, "reports"), 0),
                                                   "state", "pending"),
                     0);
    assert_int_equal(journal_battle_from_value(tree, out, &status), JOURNAL_ERROR_BAD_MEMBER);
    assert_string_equal(status.member, "reports[0].state");
    protocol_value_free(tree);
    free(out);

    brigade_event e, back;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_REPORTED;
    e.report.report = battle->reports[1];
    event_round_trip(battle, &e, &back);
    e.report.report = battle->reports[0];
    event_round_trip(battle, &e, &back);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_REPORT_ANSWERED;
    e.answer_report.number = 3;
    e.answer_report.state = BRIGADE_REPORT_AWAITS_UMPIRE;
    e.answer_report.contested = true;
    snprintf(e.answer_report.text, sizeof e.answer_report.text, "not in contact");
    event_round_trip(battle, &e, &back);
    e.answer_report.state = BRIGADE_REPORT_ACCEPTED;
    e.answer_report.contested = false;
    memset(e.answer_report.text, 0, sizeof e.answer_report.text);
    event_round_trip(battle, &e, &back);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_TEST_TAKEN;
    e.test.unit = 0;
    snprintf(e.test.roll, sizeof e.test.roll, "T2.%s.pursuit", battle->units[0].id);
    e.test.kind = BRIGADE_TEST_PURSUIT;
    e.test.dice[0] = 5;
    e.test.dice[1] = 2;
    e.test.total = 9;
    e.test.outcome = BRIGADE_OUTCOME_PURSUIT;
    e.test.modifier_count = 1;
    snprintf(e.test.modifiers[0].rule, sizeof e.test.modifiers[0].rule, "12.23 b");
    snprintf(e.test.modifiers[0].name, sizeof e.test.modifiers[0].name, "cavalry");
    e.test.modifiers[0].value = 2;
    event_round_trip(battle, &e, &back);
    e.test.kind = BRIGADE_TEST_REFORM;
    e.test.target = 7;
    e.test.outcome = BRIGADE_OUTCOME_UNFORMED;
    event_round_trip(battle, &e, &back);

    /* A withdrawn declaration (issue 14): a charge, then a report of none in sight. */
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_CHARGE_WITHDRAWN;
    e.withdrawn.unit = 0;
    e.withdrawn.charge = 2;
    e.withdrawn.target = 1;
    e.withdrawn.reinforce = true;
    event_round_trip(battle, &e, &back);
    assert_int_equal(back.withdrawn.charge, 2);
    assert_true(back.withdrawn.reinforce);
    e.withdrawn.charge = -1;
    e.withdrawn.report = 5;
    e.withdrawn.target = -1;
    e.withdrawn.reinforce = false;
    event_round_trip(battle, &e, &back);
    assert_int_equal(back.withdrawn.target, -1);
    assert_int_equal(back.withdrawn.report, 5);

    static const brigade_unit_cause causes[] = {BRIGADE_CAUSE_RALLIED,     BRIGADE_CAUSE_REFORMED,
                                                BRIGADE_CAUSE_BLOWN_OVER,  BRIGADE_CAUSE_CHARGE_OVER,
                                                BRIGADE_CAUSE_CONTACT,     BRIGADE_CAUSE_TEST};
    static const char *const cause_names[] = {"rallied", "reformed", "blown_over",
                                              "charge_over", "contact", "test"};
    for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
        memset(&e, 0, sizeof e);
        e.kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
        e.unit.unit = 1;
        e.unit.cause = causes[i];
        e.unit.figures = 6;
        e.unit.status = BRIGADE_STATUS_RETREATING;
        e.unit.pursuit_of = -1;
        e.unit.fled_turn = (int)i + 1;
        event_round_trip(battle, &e, &back);
        tree = event_tree(battle, &e);
        assert_string_equal(protocol_value_string_get(protocol_value_map_get(tree, "cause"), NULL),
                            cause_names[i]);
        assert_int_equal(protocol_value_int_get(protocol_value_map_get(tree, "fled_turn")),
                         (int)i + 1);
        /* fled_turn 0 is written by leaving it out, never as 0 */
        assert_int_equal(protocol_value_map_set_int(tree, "fled_turn", 0), 0);
        expect_refused(battle, tree, "fled_turn", "out of range");
        protocol_value_free(tree);
    }

    /* An occupier's position (D41): terrain and defending only then. */
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
    e.unit.unit = 0;
    e.unit.cause = BRIGADE_CAUSE_TEST;
    e.unit.figures = 8;
    e.unit.pursuit_of = -1;
    e.unit.has_position = true;
    e.unit.terrain = BRIGADE_TERRAIN_BUA;
    e.unit.defending = BRIGADE_DEFENDING_BUILDING;
    event_round_trip(battle, &e, &back);
    e.unit.has_position = false;
    e.unit.terrain = 0;
    e.unit.defending = 0;
    tree = event_tree(battle, &e);
    assert_null(protocol_value_map_get(tree, "terrain"));
    assert_null(protocol_value_map_get(tree, "defending"));
    protocol_value_free(tree);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_PHASE_BEGUN;
    e.phase.phase = BRIGADE_PHASE_CHARGE;
    e.phase.step = BRIGADE_STEP_OCCUPY;
    e.phase.awaiting = BRIGADE_SEAT_BIT(BRIGADE_SIDE_A);
    event_round_trip(battle, &e, &back);

    /* Each event written out member by member: its values are the data
     * checked, so the repetition is deliberate. */
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_MORALE_TESTED;
    e.morale.unit = 1;
    e.morale.role = BRIGADE_MORALE_TARGET;
    snprintf(e.morale.roll, sizeof e.morale.roll, "T2.%s.morale", battle->units[1].id);
    e.morale.result.tested = true;
    e.morale.result.dice[0] = 1;
    e.morale.result.dice[1] = 1;
    e.morale.result.total = 2;
    e.morale.result.pass_on = 6;
    e.morale.result.failed_by = 4;
    e.morale.effect = BRIGADE_MORALE_FLEES;
    event_round_trip(battle, &e, &back);

    e = umpire_ruled(BRIGADE_UMPIRE_RULE, "measured: not in contact");
    event_round_trip(battle, &e, &back);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_CHARGE_DECLARED;
    e.charge.charge = battle->charges[0];
    event_round_trip(battle, &e, &back);
    free(battle);
}

/* Rows written by the build before issue 10 (commit aab12b5's codec, on
 * example A played by journal_driver with seed 2: the first charge declared,
 * the battle once that charge is answered, the first unit_changed with a
 * pursuit) decode with the new members at their defaults, and encode
 * again to the same bytes, so an old game's journal and snapshots hash as
 * they did (issue 10 point 4). */
/* old_charge_declared, 251 bytes */
static const char old_charge_declared[] =
    "83a46b696e64af6368617267655f6465636c61726564a5696e64657800a6636861726765"
    "89a4756e6974a768757373617273a6746172676574a8647261676f6f6e73a6666163696e"
    "67a5666c616e6ba76c656164696e67c2a773617070657273c2a97265696e666f726365c2"
    "a8726573706f6e7365c0ae636861726765725f6d6f72616c6586a6746573746564c2a464"
    "696365920000a5746f74616c00a7706173735f6f6e00a6706173736564c2a96661696c65"
    "645f627900ad7461726765745f6d6f72616c6586a6746573746564c2a464696365920000"
    "a5746f74616c00a7706173735f6f6e00a6706173736564c2a96661696c65645f627900";
/* old_unit_changed, 159 bytes */
static const char old_unit_changed[] =
    "8ca46b696e64ac756e69745f6368616e676564a4756e6974a8647261676f6f6e73a56361"
    "757365a56d656c6565a76669677572657301a6737461747573a87075727375696e67a666"
    "6f726d6564c2a87761766572696e67c2a773617070657273c2a5626f6e7573a677696e6e"
    "6572aa707572737569745f6f66a768757373617273a46d6f7665a0a46e6f7465b26d656c"
    "6565205432312e4d313a206175746f";

/* `text` (hex) as bytes, malloc'd; *len their count. */
static uint8_t *hex_bytes(const char *text, size_t *len)
{
    size_t n = strlen(text) / 2;
    uint8_t *bytes = malloc(n);
    assert_non_null(bytes);
    for (size_t i = 0; i < n; i++) {
        unsigned byte = 0;
        assert_int_equal(sscanf(text + 2 * i, "%2x", &byte), 1);
        bytes[i] = (uint8_t)byte;
    }
    *len = n;
    return bytes;
}

/* Decodes an old event row into *out and checks that it encodes again to
 * the same bytes. */
static void old_event_row(const brigade_battle *battle, const char *hex, brigade_event *out)
{
    size_t len = 0;
    uint8_t *bytes = hex_bytes(hex, &len);
    journal_fault status;
    if (journal_event_decode(battle, bytes, len, out, &status) != JOURNAL_OK)
        fail_msg("old row: %s", status.message);
    uint8_t *again = NULL;
    size_t again_len = 0;
    assert_int_equal(journal_event_encode(battle, out, &again, &again_len, &status),
                     JOURNAL_OK);
    assert_int_equal(again_len, len);
    assert_memory_equal(again, bytes, len);
    free(again);
    free(bytes);
}

static void test_old_rows(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("example_a.json");
    /* A new battle carries each unit's starting strength through the codec. */
    assert_int_equal(battle->units[brigade_battle_unit_find(battle, "dragoons")].strength, 12);
    battle_round_trip(battle);
    brigade_event e;
    old_event_row(battle, old_unit_changed, &e);
    assert_int_equal(e.kind, BRIGADE_BATTLE_EVENT_UNIT_CHANGED);
    assert_int_equal(e.unit.fled_turn, 0);
    old_event_row(battle, old_charge_declared, &e);
    assert_int_equal(e.kind, BRIGADE_BATTLE_EVENT_CHARGE_DECLARED);
    assert_false(e.charge.charge.uncontrolled || e.charge.charge.occupies);

    size_t len = 0;
    uint8_t *bytes = hex_bytes(old_battle_charged, &len);
    brigade_battle *old = malloc(sizeof *old);
    assert_non_null(old);
    journal_fault status;
    if (journal_battle_decode(bytes, len, old, &status) != JOURNAL_OK)
        fail_msg("old battle: %s", status.message);
    assert_int_equal(old->report_numbers, 0);
    assert_int_equal(old->report_count, 0);
    assert_true(old->charge_count > 0);
    for (int i = 0; i < old->charge_count; i++)
        assert_false(old->charges[i].uncontrolled || old->charges[i].occupies);
    for (int i = 0; i < old->unit_count; i++) {
        assert_int_equal(old->units[i].fled_turn, 0);
        assert_int_equal(old->units[i].strength, 0); /* absent: the journal fills it in */
    }
    uint8_t *again = NULL;
    size_t again_len = 0;
    assert_int_equal(journal_battle_encode(old, &again, &again_len, &status), JOURNAL_OK);
    assert_int_equal(again_len, len);
    assert_memory_equal(again, bytes, len);
    free(again);
    free(bytes);
    free(old);
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

    protocol_value *tree = event_tree(battle, &events[1]);
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
    protocol_value *good = event_tree(battle, result);

    protocol_value *t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_remove(t, "total"), 0);
    expect_refused(battle, t, "total", "missing");
    protocol_value_free(t);

    /* A top-level member set to a value it may not have, refused by name. */
    struct {
        const char *member;
        protocol_value *value;
        const char *why;
    } members[] = {
        {"extra", protocol_value_int_new(1), "unknown member"},
        {"unit", protocol_value_string_new("nobody"), "no unit \"nobody\""},
        {"status", protocol_value_string_new("happy"), "unknown status"},
        {"figures", protocol_value_int_new(100001), "out of range"},
        {"kind", protocol_value_bool_new(true), "not a string"},
        {"kind", protocol_value_string_new("pillage"), "unknown event kind"},
        {"events", protocol_value_int_new(1), "not an array"},
    };
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        assert_non_null(members[i].value);
        t = protocol_value_clone(good);
        assert_int_equal(protocol_value_map_set(t, members[i].member, members[i].value), 0);
        expect_refused(battle, t, members[i].member, members[i].why);
        protocol_value_free(t);
    }

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

    protocol_value *top = protocol_value_array_new();
    expect_refused(battle, top, "", "not a map (array)");
    protocol_value_free(top);

    protocol_value_free(good);
    free(result);
    free(battle);

    /* A melee record inside an event, and nil where nil is not allowed. */
    brigade_event *formed = find_event(BRIGADE_BATTLE_EVENT_MELEE_FORMED, &battle);
    good = event_tree(battle, formed);
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

/* `tree` (freed here) is refused as a battle, the member named and `part`
 * in the message. */
static void expect_battle_refused(protocol_value *tree, brigade_battle *out, const char *member,
                                  const char *part)
{
    journal_fault status;
    assert_int_equal(journal_battle_from_value(tree, out, &status), JOURNAL_ERROR_BAD_MEMBER);
    assert_string_equal(status.member, member);
    if (strstr(status.message, part) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", status.message, part);
    protocol_value_free(tree);
}

static void test_strict_battle(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("village.json");
    protocol_value *good = battle_tree(battle);
    brigade_battle *out = malloc(sizeof *out);
    assert_non_null(out);

    protocol_value *t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_int(t, "format", JOURNAL_BATTLE_FORMAT + 1), 0);
    expect_battle_refused(t, out, "format", "");

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_set_string(path_get(t, "units", 1, NULL), "id", "ligne_1"),
                     0);
    expect_battle_refused(t, out, "units[1].id", "twice");

    t = protocol_value_clone(good);
    assert_int_equal(
        protocol_value_map_set_string(path_get(t, "units", 2, NULL), "pursuit_of", "ghost"), 0);
    expect_battle_refused(t, out, "units[2].pursuit_of", "");

    t = protocol_value_clone(good);
    assert_int_equal(protocol_value_map_remove(path_get(t, "ruleset", -1, NULL), "bua_fall_back"),
                     0);
    expect_battle_refused(t, out, "ruleset.bua_fall_back", "");

    brigade_battle zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(out, &zero, sizeof zero);
    protocol_value_free(good);
    free(out);
    free(battle);
}

/* It starts as test_strict_decoding does (find_event's battle and one
 * event of it), the start each test of a single event has. */
/* Every prefix of the bytes is refused; every byte changed in several ways
 * decodes or is refused, never crashes (ASan/UBSan watch this one). */
static void test_bytes_cut_and_flipped(void **state)
{
    (void)state;
    brigade_battle *battle = NULL;
    brigade_event *resolved = find_event(BRIGADE_BATTLE_EVENT_MELEE_RESOLVED, &battle);
    journal_fault status;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(journal_event_encode(battle, resolved, &bytes, &len, &status),
                     JOURNAL_OK);
    brigade_event out;
    for (size_t cut = 0; cut < len; cut++) {
        journal_error_code error = journal_event_decode(battle, bytes, cut, &out, &status);
        assert_true(error == JOURNAL_ERROR_BAD_BYTES || error == JOURNAL_ERROR_BAD_MEMBER);
    }
    static const uint8_t patterns[] = {0x01, 0x80, 0xff, 0x20};
    int refused = 0;
    for (size_t at = 0; at < len; at++)
        for (size_t p = 0; p < sizeof patterns; p++) {
            uint8_t *copy = malloc(len);
            assert_non_null(copy);
            memcpy(copy, bytes, len);
            copy[at] ^= patterns[p];
            if (journal_event_decode(battle, copy, len, &out, &status) != JOURNAL_OK)
                refused++;
            free(copy);
        }
    assert_true(refused > 0);
    free(bytes);

    uint8_t *battle_bytes = NULL;
    size_t battle_len = 0;
    assert_int_equal(journal_battle_encode(battle, &battle_bytes, &battle_len, &status),
                     JOURNAL_OK);
    brigade_battle *decoded = malloc(sizeof *decoded);
    assert_non_null(decoded);
    for (size_t cut = 0; cut < battle_len; cut += 7)
        assert_int_not_equal(journal_battle_decode(battle_bytes, cut, decoded, &status),
                             JOURNAL_OK);
    for (size_t at = 0; at < battle_len; at += 3) {
        battle_bytes[at] ^= 0x41;
        (void)journal_battle_decode(battle_bytes, battle_len, decoded, &status);
        battle_bytes[at] ^= 0x41;
    }
    assert_int_equal(journal_battle_decode(battle_bytes, battle_len, decoded, &status),
                     JOURNAL_OK);
    free(decoded);
    free(battle_bytes);
    free(resolved);
    free(battle);
}

static void test_unencodable(void **state)
{
    (void)state;
    brigade_battle *battle = scenario_file("example_a.json");
    journal_fault status;
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
    e.unit.unit = 5; /* example A has two units */
    e.unit.pursuit_of = -1;
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(journal_event_encode(battle, &e, &bytes, &len, &status),
                     JOURNAL_ERROR_UNFIT);
    assert_null(bytes);
    assert_string_equal(status.member, "unit");

    /* A note cut inside a UTF-8 character (bytes c3 a9 = "é", cut after c3). */
    e.unit.unit = 0;
    snprintf(e.unit.note, sizeof e.unit.note, "charg\xc3");
    assert_int_equal(journal_event_encode(battle, &e, &bytes, &len, &status),
                     JOURNAL_ERROR_UNFIT);
    assert_string_equal(status.member, "note");
    assert_non_null(strstr(status.message, "UTF-8"));

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_PHASE_BEGUN;
    e.phase.phase = (brigade_phase)42;
    assert_int_equal(journal_event_encode(battle, &e, &bytes, &len, &status),
                     JOURNAL_ERROR_UNFIT);
    assert_string_equal(status.member, "phase");

    memset(&e, 0, sizeof e);
    e.kind = (brigade_event_kind)99;
    assert_int_equal(journal_event_encode(battle, &e, &bytes, &len, &status),
                     JOURNAL_ERROR_UNFIT);
    assert_string_equal(status.member, "kind");

    /* A readable event on the wire: names, not numbers. */
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UNIT_CHANGED;
    e.unit.unit = 1;
    e.unit.cause = BRIGADE_CAUSE_MELEE;
    e.unit.status = BRIGADE_STATUS_PUSHED_BACK;
    e.unit.pursuit_of = 0;
    protocol_value *tree = event_tree(battle, &e);
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

/* The clock (PROTOCOL.md §11.2): an event's clock_ms and the battle's
 * "clock" are written only in a game with a clock, read back exactly, and
 * refused in a game without one (its bytes as before issue 15). */
static void test_clock_round_trip(void **state)
{
    (void)state;
    brigade_battle *plain = scenario_file("example_a.json");
    brigade_battle *timed = scenario_file("example_a.json");
    assert_true(brigade_battle_clock_set(timed, 90, 30));
    battle_round_trip(timed);
    journal_fault status;
    protocol_value *tree = battle_tree(plain);
    assert_null(protocol_value_map_get(tree, "clock"));
    protocol_value_free(tree);
    tree = journal_battle_to_value(timed, &status);
    protocol_value *clock = protocol_value_map_get(tree, "clock");
    assert_non_null(clock);
    assert_int_equal(protocol_value_int_get(protocol_value_map_get(clock, "a")), 5400000);
    assert_int_equal(protocol_value_int_get(protocol_value_map_get(clock, "minutes_per_side")),
                     90);
    protocol_value_free(tree);

    /* A flag fallen: in the battle's clock and as an event. */
    timed->clock.ms[1] = 0;
    timed->clock.flags = BRIGADE_SEAT_BIT(BRIGADE_SIDE_B);
    timed->clock.flag_count = 1;
    timed->clock.flag_order[0] = BRIGADE_SIDE_B;
    battle_round_trip(timed);
    brigade_event e, out;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_FLAG_FELL;
    e.side.side = BRIGADE_SIDE_A;
    e.clock_ms = 1234567;
    event_round_trip(timed, &e, &out);
    assert_int_equal(out.clock_ms, 1234567);
    tree = journal_event_to_value(timed, &e, &status);
    assert_int_equal(protocol_value_int_get(protocol_value_map_get(tree, "clock_ms")), 1234567);
    /* The same event in a game without a clock: not encodable, not read. */
    expect_refused(plain, tree, "clock_ms", "without a clock");
    protocol_value_free(tree);
    assert_null(journal_event_to_value(plain, &e, &status));
    assert_int_equal(status.code, JOURNAL_ERROR_UNFIT);
    assert_string_equal(status.member, "clock_ms");
    /* No time charged: no member, the bytes of an older build. */
    e.kind = BRIGADE_BATTLE_EVENT_SIDE_DONE;
    e.clock_ms = 0;
    tree = journal_event_to_value(timed, &e, &status);
    assert_null(protocol_value_map_get(tree, "clock_ms"));
    protocol_value_free(tree);
    free(plain);
    free(timed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_kind),
        cmocka_unit_test(test_strict_decoding),
        cmocka_unit_test(test_dice_events),
        cmocka_unit_test(test_umpire_round_trip),
        cmocka_unit_test(test_reports_round_trip),
        cmocka_unit_test(test_old_rows),
        cmocka_unit_test(test_strict_battle),
        cmocka_unit_test(test_bytes_cut_and_flipped),
        cmocka_unit_test(test_unencodable),
        cmocka_unit_test(test_clock_round_trip),
    };
    return cmocka_run_group_tests_name("journal_event_codec", tests, NULL, NULL);
}
