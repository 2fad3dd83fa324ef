/*
 * tests/protocol/state_test.c: the wire snapshot of a battle
 * (protocol/game_state.h, PROTOCOL.md §7.1) and the members of issue 10
 * (D34-D46): state.reports, a unit's fled_turn, a charge's uncontrolled and
 * occupies, each present only when set, so that an older game's snapshot
 * hashes as it did (§8, issue 10 point 4); the deltas that bring them in
 * and take them out (§7.2); the log entries of the new event kinds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/battle.h"
#include "protocol/codec.h"
#include "protocol/delta.h"
#include "journal/event_codec.h"
#include "protocol/game_state.h"
#include "journal_driver.h"
#include "old_battle_charged.h"

/* Battles of scenarios/example_a.json played by tests/journal's driver
 * (seed 2) with the build before issue 10 (commit aab12b5), as that build's
 * event codec stored them (a journal snapshot), with the snapshot hash that
 * build's protocol_state_from_battle(battle, "g-old") gave: once the first
 * charge is answered (turn 1), and once a unit is pursuing (turn 21). */
/* old_charged: the first is in old_battle_charged.h (shared with the
 * journal's codec test). */
static const char old_charged_hash[] = "5e975653bdf6cf7081a0a71a3e4fe20ec1ebfd73a1f1bd659a8d2498ab56aade";
/* old_pursuing, 1890 bytes */
/* Written out whole though it begins as old_battle_charged does: recorded bytes. */
static const char old_pursuing[] =
    "de0012a6666f726d617402a57469746c65d93c576f726b6564206578616d706c6520413a"
    "204272697469736820686561767920647261676f6f6e73206d656574204672656e636820"
    "68757373617273a772756c6573657489ab6d6f72616c655f706173739705060607080808"
    "ae6d6f72616c655f67656e6572616c01bb6d6f72616c655f756e666f726d65645f6f725f"
    "7761766572696e67feb46d6f72616c655f666c616e6b5f6f725f72656172feba6d6f7261"
    "6c655f696e66616e7472795f62795f636176616c7279ffaf6d6f72616c655f6661696c5f"
    "66617203ac726574726561745f6d6f76659acc96cc96cc96ccb4ccb4ccb47878783cb068"
    "616c665f6368617267655f6d6f76659a4b4b4b5a5a5a3c3c3c00ad6275615f66616c6c5f"
    "6261636b3ca47475726e15a57068617365a86d6f76656d656e74a473746570a67265706f"
    "7274aa696e6974696174697665a141a770686173696e67a142a86177616974696e6792a1"
    "41a142a5736964657382a14182a46e616d65a64672656e6368a4646f6e65c2a14282a46e"
    "616d65a742726974697368a4646f6e65c2a5756e69747392de0014a26964a76875737361"
    "7273a46e616d65ab3565204875737361726473a473696465a141a474797065ad6c696768"
    "745f636176616c7279a5636c617373a46c696e65a76669677572657301a66e6174696f6e"
    "a66672656e6368a9666f726d6174696f6ea46c696e65a6666f726d6564c2a87761766572"
    "696e67c2a6737461747573aa72657472656174696e67a767656e6572616c82a4726f6c65"
    "a46e6f6e65a6726174696e67a761766572616765a773617070657273c2a572616e6b7300"
    "a6686f72736573a66e6f726d616ca77465727261696ea46f70656ea9646566656e64696e"
    "67a46e6f6e65a46d6f7665a0a5626f6e7573a46e6f6e65aa707572737569745f6f66c0de"
    "0014a26964a8647261676f6f6e73a46e616d65b43173742028526f79616c292044726167"
    "6f6f6e73a473696465a142a474797065ad68656176795f636176616c7279a5636c617373"
    "a46c696e65a76669677572657301a66e6174696f6ea762726974697368a9666f726d6174"
    "696f6ea46c696e65a6666f726d6564c2a87761766572696e67c2a6737461747573a87075"
    "727375696e67a767656e6572616c82a4726f6c65a46e6f6e65a6726174696e67a7617665"
    "72616765a773617070657273c2a572616e6b7300a6686f72736573a66e6f726d616ca774"
    "65727261696ea46f70656ea9646566656e64696e67a46e6f6e65a46d6f7665a0a5626f6e"
    "7573a677696e6e6572aa707572737569745f6f66a768757373617273a763686172676573"
    "9189a4756e6974a8647261676f6f6e73a6746172676574a768757373617273a666616369"
    "6e67a472656172a76c656164696e67c2a773617070657273c2a97265696e666f726365c2"
    "a8726573706f6e7365a57374616e64ae636861726765725f6d6f72616c6586a674657374"
    "6564c3a464696365920304a5746f74616c07a7706173735f6f6e07a6706173736564c3a9"
    "6661696c65645f627900ad7461726765745f6d6f72616c6586a6746573746564c2a46469"
    "6365920000a5746f74616c00a7706173735f6f6e00a6706173736564c2a96661696c6564"
    "5f627900a66d656c65657390ad6d656c65655f6e756d6265727301a5726f6c6c7332a665"
    "76656e7473cd0263a46469636584aa636f6d6d69746d656e74a0a6736565645f61a0a673"
    "6565645f62a0ab7365727665725f73656564a0a6666f756768749185a56d656c656586a2"
    "6964a65432312e4d31a66e756d62657201a5726f756e6401a77465727261696ea46f7065"
    "6eab666f756768745f7475726e00a76d656d62657273928ca4756e6974a7687573736172"
    "73a86368617267696e67c2ab7265696e666f7263696e67c2a76c656164696e67c2a77361"
    "7070657273c2ad666c616e6b5f6f725f72656172c3b27075736865645f6261636b5f6265"
    "666f7265c2ad646963655f7265636f72646564c2a464696365920000aa6d61795f726572"
    "6f6c6cc2ad7265726f6c6c5f63686f73656ec2aa7265726f6c6c5f646965ff8ca4756e69"
    "74a8647261676f6f6e73a86368617267696e67c3ab7265696e666f7263696e67c2a76c65"
    "6164696e67c2a773617070657273c2ad666c616e6b5f6f725f72656172c2b27075736865"
    "645f6261636b5f6265666f7265c2ad646963655f7265636f72646564c2a4646963659200"
    "00aa6d61795f7265726f6c6cc2ad7265726f6c6c5f63686f73656ec2aa7265726f6c6c5f"
    "646965ffa5756e6974739288a76669677572657301a6737461747573aa72657472656174"
    "696e67a6666f726d6564c2a87761766572696e67c2a8726573756c746564c3aa63617375"
    "616c7469657300a9746573745f6b696e64a46e6f6e65a9746573745f6469636592000088"
    "a76669677572657301a6737461747573a66e6f726d616ca6666f726d6564c3a877617665"
    "72696e67c2a8726573756c746564c3aa63617375616c7469657300a9746573745f6b696e"
    "64a770757273756974a9746573745f64696365920502a677696e6e6572a142a672657375"
    "6c74a46175746fa96f76657272756c6564c2";
static const char old_pursuing_hash[] = "837ca9659b7cc035780da57964ce922fbfb540ca36f841f78ed2af5ea7f93a8a";

/* The battle of scenarios/`name` (malloc'd), which must load. */
static brigade_battle *scenario(const char *name)
{
    brigade_battle *battle = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, name);
    assert_non_null(battle);
    return battle;
}

/* The log entry of `e` at `seq` (protocol_state_log_entry), which must be
 * made; the caller frees it. */
static protocol_value *log_entry(const brigade_battle *battle, const brigade_event *e, int64_t seq)
{
    protocol_value *entry = protocol_state_log_entry(battle, e, seq);
    assert_non_null(entry);
    return entry;
}

/* `text` (hex) as a battle decoded by this build's codec (malloc'd). */
static brigade_battle *old_battle(const char *text)
{
    size_t len = strlen(text) / 2;
    uint8_t *bytes = malloc(len);
    assert_non_null(bytes);
    for (size_t i = 0; i < len; i++) {
        unsigned byte = 0;
        assert_int_equal(sscanf(text + 2 * i, "%2x", &byte), 1);
        bytes[i] = (uint8_t)byte;
    }
    brigade_battle *battle = malloc(sizeof *battle);
    assert_non_null(battle);
    journal_fault status;
    if (journal_battle_decode(bytes, len, battle, &status) != JOURNAL_OK)
        fail_msg("old battle: %s", status.message);
    free(bytes);
    return battle;
}

static void state_hash(const protocol_value *state, char hex[PROTOCOL_HASH_HEX_SIZE])
{
    assert_int_equal(protocol_snapshot_hash(state, hex), PROTOCOL_FAULT_OK);
}

/* An older game's states hash as they did: no new member appears. */
static void test_old_states_hash(void **state)
{
    (void)state;
    const char *const rows[] = {old_battle_charged, old_pursuing};
    const char *const hashes[] = {old_charged_hash, old_pursuing_hash};
    for (int i = 0; i < 2; i++) {
        brigade_battle *battle = old_battle(rows[i]);
        protocol_value *snapshot = protocol_state_from_battle(battle, "g-old");
        assert_non_null(snapshot);
        assert_null(protocol_value_map_get(snapshot, "reports"));
        char hex[PROTOCOL_HASH_HEX_SIZE];
        state_hash(snapshot, hex);
        assert_string_equal(hex, hashes[i]);
        protocol_value_free(snapshot);
        free(battle);
    }
}

/* Applies old -> new's delta to a copy of old, checking it gives new. */
static void delta_check(const protocol_value *old_state, const protocol_value *new_state)
{
    protocol_value *ops = NULL;
    assert_int_equal(protocol_delta_compute(old_state, new_state, &ops), PROTOCOL_FAULT_OK);
    assert_true(protocol_value_count(ops) > 0);
    protocol_value *copy = protocol_value_clone(old_state);
    assert_non_null(copy);
    protocol_fault status;
    if (protocol_delta_apply(copy, ops, &status) != PROTOCOL_FAULT_OK)
        fail_msg("delta: %s", status.message);
    char got[PROTOCOL_HASH_HEX_SIZE], want[PROTOCOL_HASH_HEX_SIZE];
    state_hash(copy, got);
    state_hash(new_state, want);
    assert_string_equal(got, want);
    assert_true(protocol_value_equal(copy, new_state));
    protocol_value_free(copy);
    protocol_value_free(ops);
}

static const protocol_value *member(const protocol_value *map, const char *key)
{
    const protocol_value *value = protocol_value_map_get(map, key);
    if (value == NULL)
        fail_msg("no member \"%s\"", key);
    return value;
}

static const char *text_of(const protocol_value *map, const char *key)
{
    const char *text = protocol_value_string_get(member(map, key), NULL);
    if (text == NULL)
        fail_msg("member \"%s\" is not a string", key);
    return text;
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* The new members appear when set, with their values, and deltas bring
 * them in and take them out again. */
static void test_new_members(void **state)
{
    (void)state;
    brigade_battle *battle = old_battle(old_battle_charged);
    assert_true(battle->unit_count >= 2 && battle->charge_count >= 1);
    protocol_value *before = protocol_state_from_battle(battle, "g");
    assert_non_null(before);

    battle->units[0].fled_turn = 1;
    battle->charges[0].uncontrolled = true;
    battle->charges[0].occupies = true;
    battle->report_numbers = 2;
    battle->report_count = 2;
    /* The reports written out member by member: their values are the data checked. */
    brigade_report *r = &battle->reports[0];
    r->number = 1;
    r->kind = BRIGADE_REPORT_RALLY;
    r->side = BRIGADE_SIDE_B;
    r->unit = 1;
    r->target = -1;
    r->state = BRIGADE_REPORT_STANDS;
    r = &battle->reports[1];
    r->number = 2;
    r->kind = BRIGADE_REPORT_CONTACT;
    r->side = BRIGADE_SIDE_A;
    r->unit = 0;
    r->target = 1;
    r->state = BRIGADE_REPORT_AWAITS_UMPIRE;
    r->contested = true;
    snprintf(r->contest, sizeof r->contest, "3\" short");
    protocol_value *after = protocol_state_from_battle(battle, "g");
    assert_non_null(after);

    const protocol_value *units = member(after, "units");
    const protocol_value *unit0 = member(units, battle->units[0].id);
    assert_int_equal(protocol_value_int_get(member(unit0, "fled_turn")), 1);
    assert_null(protocol_value_map_get(member(units, battle->units[1].id), "fled_turn"));
    const protocol_value *charge = protocol_value_array_get(member(after, "charges"), 0);
    assert_true(protocol_value_bool_get(member(charge, "uncontrolled")));
    assert_true(protocol_value_bool_get(member(charge, "occupies")));
    const protocol_value *before_charge = protocol_value_array_get(member(before, "charges"), 0);
    assert_null(protocol_value_map_get(before_charge, "uncontrolled"));
    assert_null(protocol_value_map_get(before_charge, "occupies"));

    const protocol_value *reports = member(after, "reports");
    assert_int_equal(protocol_value_count(reports), 2);
    const protocol_value *rally = protocol_value_array_get(reports, 0);
    assert_int_equal(protocol_value_int_get(member(rally, "number")), 1);
    assert_string_equal(text_of(rally, "kind"), "rally");
    assert_string_equal(text_of(rally, "side"), "B");
    assert_string_equal(text_of(rally, "unit"), battle->units[1].id);
    assert_int_equal(protocol_value_kind_of(member(rally, "target")), PROTOCOL_VALUE_NIL);
    assert_string_equal(text_of(rally, "facing"), "front");
    assert_string_equal(text_of(rally, "state"), "stands");
    assert_false(protocol_value_bool_get(member(rally, "contested")));
    assert_int_equal(protocol_value_kind_of(member(rally, "contest")), PROTOCOL_VALUE_NIL);
    assert_int_equal(protocol_value_kind_of(member(rally, "ruling")), PROTOCOL_VALUE_NIL);
    const protocol_value *contact = protocol_value_array_get(reports, 1);
    assert_string_equal(text_of(contact, "kind"), "contact");
    assert_string_equal(text_of(contact, "target"), battle->units[1].id);
    assert_string_equal(text_of(contact, "state"), "awaits_umpire");
    assert_true(protocol_value_bool_get(member(contact, "contested")));
    assert_string_equal(text_of(contact, "contest"), "3\" short");
    assert_int_equal(protocol_value_kind_of(member(contact, "ruling")), PROTOCOL_VALUE_NIL);
    assert_int_equal(protocol_value_count(contact), 10);

    delta_check(before, after);
    delta_check(after, before);
    protocol_value_free(before);
    protocol_value_free(after);
    free(battle);
}

/* Rules version 2 shows rules_version and a pursuer's quarry; an old
 * battle (version 1) shows neither, whatever its pursuers. */
static void test_rules_version(void **state)
{
    (void)state;
    brigade_battle *battle = old_battle(old_battle_charged);
    assert_int_equal(battle->rules_version, 1);
    battle->units[0].status = BRIGADE_STATUS_PURSUING;
    battle->units[0].pursuit_of = 1;
    protocol_value *old_state = protocol_state_from_battle(battle, "g");
    assert_non_null(old_state);
    assert_null(protocol_value_map_get(old_state, "rules_version"));
    const protocol_value *unit0 = member(member(old_state, "units"), battle->units[0].id);
    assert_null(protocol_value_map_get(unit0, "pursuing"));

    battle->rules_version = BRIGADE_RULES_VERSION;
    protocol_value *new_state = protocol_state_from_battle(battle, "g");
    assert_non_null(new_state);
    assert_int_equal(protocol_value_int_get(member(new_state, "rules_version")), BRIGADE_RULES_VERSION);
    unit0 = member(member(new_state, "units"), battle->units[0].id);
    assert_string_equal(text_of(unit0, "pursuing"), battle->units[1].id);
    const protocol_value *unit1 = member(member(new_state, "units"), battle->units[1].id);
    assert_null(protocol_value_map_get(unit1, "pursuing"));
    protocol_value_free(old_state);
    protocol_value_free(new_state);
    free(battle);
}

/* A unit's starting strength (issue 14): `strength` from rules version 2
 * on, the scenario's figures (example A: 8 hussars, 12 dragoons), kept
 * while figures fall; absent in an older game's state. */
static void test_unit_strength(void **state)
{
    (void)state;
    brigade_battle *battle = scenario("example_a.json");
    assert_int_equal(battle->rules_version, BRIGADE_RULES_VERSION);
    int dragoons = brigade_battle_unit_find(battle, "dragoons");
    assert_true(dragoons >= 0);
    battle->units[dragoons].figures = 9;
    protocol_value *snapshot = protocol_state_from_battle(battle, "g");
    assert_non_null(snapshot);
    const protocol_value *units = member(snapshot, "units");
    assert_int_equal(protocol_value_int_get(member(member(units, "dragoons"), "strength")), 12);
    assert_int_equal(protocol_value_int_get(member(member(units, "dragoons"), "figures")), 9);
    assert_int_equal(protocol_value_int_get(member(member(units, "hussars"), "strength")), 8);
    protocol_value_free(snapshot);
    battle->rules_version = 1;
    snapshot = protocol_state_from_battle(battle, "g");
    assert_non_null(snapshot);
    assert_null(protocol_value_map_get(member(member(snapshot, "units"), "dragoons"), "strength"));
    protocol_value_free(snapshot);
    free(battle);
}

/* state.end (§7.1): nil until the battle ends, then its cause and reason;
 * absent in an older game's state. */
static void test_end(void **state)
{
    (void)state;
    brigade_battle *battle = scenario("example_a.json");
    protocol_value *before = protocol_state_from_battle(battle, "g");
    assert_non_null(before);
    assert_int_equal(protocol_value_kind_of(member(before, "end")), PROTOCOL_VALUE_NIL);
    battle->phase = BRIGADE_PHASE_ENDED;
    battle->end_cause = BRIGADE_END_NO_UNITS;
    snprintf(battle->end_reason, sizeof battle->end_reason, "%s",
             "Side B (British) has no units left in play");
    protocol_value *after = protocol_state_from_battle(battle, "g");
    assert_non_null(after);
    const protocol_value *end = member(after, "end");
    assert_string_equal(text_of(end, "cause"), "no_units");
    assert_string_equal(text_of(end, "reason"), "Side B (British) has no units left in play");
    assert_int_equal(protocol_value_count(end), 2);
    delta_check(before, after);
    protocol_value_free(after);
    battle->rules_version = 1;
    after = protocol_state_from_battle(battle, "g");
    assert_non_null(after);
    assert_null(protocol_value_map_get(after, "end"));
    protocol_value_free(after);
    protocol_value_free(before);
    free(battle);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* The umpire's end with a result (§11.5, §7.1): state.end.result, and the
 * end's log entry says it in words and carries it; without a result
 * neither has it. */
static void test_end_result(void **state)
{
    (void)state;
    brigade_battle *battle = scenario("example_a.json");
    brigade_battle *plain = malloc(sizeof *plain);
    assert_non_null(plain);
    memcpy(plain, battle, sizeof *plain);
    protocol_value *before = protocol_state_from_battle(battle, "g");
    assert_non_null(before);
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UMPIRE_RULED;
    e.umpire.ruling = BRIGADE_UMPIRE_END;
    e.umpire.unit = -1;
    snprintf(e.umpire.text, sizeof e.umpire.text, "loss on time");
    assert_true(brigade_battle_fold(plain, &e));
    e.umpire.end_result = BRIGADE_END_RESULT_B;
    assert_true(brigade_battle_fold(battle, &e));
    brigade_event ended;
    memset(&ended, 0, sizeof ended);
    ended.kind = BRIGADE_BATTLE_EVENT_PHASE_BEGUN;
    ended.phase.phase = BRIGADE_PHASE_ENDED;
    assert_true(brigade_battle_fold(battle, &ended));
    assert_true(brigade_battle_fold(plain, &ended));

    protocol_value *after = protocol_state_from_battle(battle, "g");
    assert_non_null(after);
    const protocol_value *end = member(after, "end");
    assert_string_equal(text_of(end, "cause"), "umpire");
    assert_string_equal(text_of(end, "reason"), "loss on time");
    assert_string_equal(text_of(end, "result"), "B");
    assert_int_equal(protocol_value_count(end), 3);
    delta_check(before, after);
    protocol_value *entry = log_entry(battle, &e, 7);
    assert_string_equal(text_of(entry, "text"),
                        "the umpire ends the battle: a win for side B (British) (loss on time)");
    assert_string_equal(text_of(entry, "ruling"), "end");
    assert_string_equal(text_of(entry, "result"), "B");
    protocol_value_free(entry);
    protocol_value_free(after);

    /* Without a result: the end as it always was. */
    after = protocol_state_from_battle(plain, "g");
    assert_non_null(after);
    end = member(after, "end");
    assert_null(protocol_value_map_get(end, "result"));
    assert_int_equal(protocol_value_count(end), 2);
    e.umpire.end_result = BRIGADE_END_RESULT_NONE;
    entry = log_entry(plain, &e, 7);
    assert_string_equal(text_of(entry, "text"), "the umpire ends the battle: loss on time");
    assert_null(protocol_value_map_get(entry, "result"));
    protocol_value_free(entry);
    protocol_value_free(after);
    protocol_value_free(before);
    free(plain);
    free(battle);
}

/* A tied initiative's entry (§7.1): rolls and the tied totals, and a text
 * that says it was rolled again; none of them without a tie. */
static void test_initiative_entry(void **state)
{
    (void)state;
    brigade_battle *battle = old_battle(old_battle_charged);
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_INITIATIVE_WON;
    e.initiative.winner = BRIGADE_SIDE_A;
    e.initiative.total[0] = 9;
    e.initiative.total[1] = 4;
    e.initiative.rolls = 3;
    e.initiative.ties[0] = 7;
    e.initiative.ties[1] = 5;
    protocol_value *entry = log_entry(battle, &e, 3);
    assert_string_equal(text_of(entry, "text"), "side A wins the initiative, 9 to 4; tied 2 times "
                                                "first (7 to 7, 5 to 5), rolled again");
    assert_int_equal(protocol_value_int_get(member(entry, "rolls")), 3);
    const protocol_value *ties = member(entry, "ties");
    assert_int_equal(protocol_value_count(ties), 2);
    assert_int_equal(protocol_value_int_get(protocol_value_array_get(ties, 0)), 7);
    assert_int_equal(protocol_value_int_get(protocol_value_array_get(ties, 1)), 5);
    protocol_value_free(entry);
    e.initiative.rolls = 1;
    memset(e.initiative.ties, 0, sizeof e.initiative.ties);
    entry = log_entry(battle, &e, 3);
    assert_string_equal(text_of(entry, "text"), "side A wins the initiative, 9 to 4");
    assert_null(protocol_value_map_get(entry, "rolls"));
    assert_null(protocol_value_map_get(entry, "ties"));
    protocol_value_free(entry);
    free(battle);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* An automatic result's entry (§7.1) names which and its rule. */
static void test_automatic_entry(void **state)
{
    (void)state;
    brigade_battle *battle = old_battle(old_battle_charged);
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_MELEE_RESOLVED;
    snprintf(e.resolved.melee_id, sizeof e.resolved.melee_id, "T2.M1");
    e.resolved.winner = BRIGADE_SIDE_B;
    e.resolved.result = BRIGADE_RESULT_AUTO;
    e.resolved.automatic = BRIGADE_AUTO_BROKEN;
    protocol_value *entry = log_entry(battle, &e, 9);
    assert_string_equal(text_of(entry, "automatic"), "broken");
    assert_string_equal(text_of(entry, "rule"), "12.14");
    assert_string_equal(text_of(entry, "text"),
                        "melee T2.M1: side B wins; auto: a broken unit contacted loses at once, "
                        "with no dice, and is removed from play (12.14)");
    protocol_value_free(entry);
    free(battle);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* The log entries of the new kinds (§7.1): kind, text and details. */
static void test_log_entries(void **state)
{
    (void)state;
    brigade_battle *battle = old_battle(old_battle_charged);
    brigade_event e;
    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_REPORTED;
    e.report.report.number = 4;
    e.report.report.kind = BRIGADE_REPORT_UNCONTROLLED;
    e.report.report.side = BRIGADE_SIDE_A;
    e.report.report.unit = 0;
    e.report.report.target = 1;
    e.report.report.facing = BRIGADE_FACING_FLANK;
    e.report.report.state = BRIGADE_REPORT_STANDS;
    protocol_value *entry = log_entry(battle, &e, 17);
    assert_int_equal(protocol_value_int_get(member(entry, "seq")), 17);
    assert_string_equal(text_of(entry, "kind"), "reported");
    assert_true(strlen(text_of(entry, "text")) > 0);
    assert_int_equal(protocol_value_int_get(member(entry, "number")), 4);
    assert_string_equal(text_of(entry, "report"), "uncontrolled");
    assert_string_equal(text_of(entry, "side"), "A");
    assert_string_equal(text_of(entry, "unit"), battle->units[0].id);
    assert_string_equal(text_of(entry, "target"), battle->units[1].id);
    assert_string_equal(text_of(entry, "facing"), "flank");
    assert_string_equal(text_of(entry, "state"), "stands");
    protocol_value_free(entry);
    /* no target: none in sight */
    e.report.report.target = -1;
    entry = log_entry(battle, &e, 17);
    assert_null(protocol_value_map_get(entry, "target"));
    assert_null(protocol_value_map_get(entry, "facing"));
    protocol_value_free(entry);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_REPORT_ANSWERED;
    e.answer_report.number = 4;
    e.answer_report.state = BRIGADE_REPORT_REJECTED;
    e.answer_report.contested = true;
    snprintf(e.answer_report.text, sizeof e.answer_report.text, "measured: out of sight");
    entry = log_entry(battle, &e, 18);
    assert_string_equal(text_of(entry, "kind"), "report_answered");
    assert_true(strlen(text_of(entry, "text")) > 0);
    assert_int_equal(protocol_value_int_get(member(entry, "number")), 4);
    assert_string_equal(text_of(entry, "state"), "rejected");
    assert_true(protocol_value_bool_get(member(entry, "contested")));
    assert_string_equal(text_of(entry, "reason"), "measured: out of sight");
    protocol_value_free(entry);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_TEST_TAKEN;
    e.test.unit = 1;
    snprintf(e.test.roll, sizeof e.test.roll, "T2.%s.pursuit", battle->units[1].id);
    e.test.kind = BRIGADE_TEST_PURSUIT;
    e.test.dice[0] = 4;
    e.test.dice[1] = 6;
    e.test.total = 9;
    e.test.outcome = BRIGADE_OUTCOME_PURSUIT;
    entry = log_entry(battle, &e, 19);
    assert_string_equal(text_of(entry, "kind"), "test_taken");
    assert_true(strlen(text_of(entry, "text")) > 0);
    assert_string_equal(text_of(entry, "unit"), battle->units[1].id);
    assert_string_equal(text_of(entry, "name"), e.test.roll);
    const protocol_value *test = member(entry, "test");
    assert_string_equal(text_of(test, "kind"), "pursuit");
    assert_int_equal(protocol_value_int_get(member(test, "total")), 9);
    assert_string_equal(text_of(test, "outcome"), "pursuit");
    assert_int_equal(protocol_value_count(member(test, "dice")), 2);
    assert_int_equal(protocol_value_count(member(test, "modifiers")), 0);
    protocol_value_free(entry);

    memset(&e, 0, sizeof e);
    e.kind = BRIGADE_BATTLE_EVENT_UMPIRE_RULED;
    e.umpire.ruling = BRIGADE_UMPIRE_RULE;
    e.umpire.unit = -1;
    snprintf(e.umpire.text, sizeof e.umpire.text, "measured: out of sight");
    entry = log_entry(battle, &e, 18);
    assert_string_equal(text_of(entry, "kind"), "umpire_ruled");
    assert_string_equal(text_of(entry, "ruling"), "rule");
    assert_string_equal(text_of(entry, "reason"), "measured: out of sight");
    protocol_value_free(entry);
    free(battle);
}

/* Applies protocol_state_delta(before, after) to before's snapshot and
 * checks it gives after's. Returns whether the units were diffed one by
 * one (the battles have the same units). */
static bool delta_checked(const brigade_battle *before, const brigade_battle *after)
{
    protocol_value *ops = NULL;
    assert_int_equal(protocol_state_delta(before, after, "g-delta", &ops), PROTOCOL_FAULT_OK);
    protocol_value *state = protocol_state_from_battle(before, "g-delta");
    protocol_value *want = protocol_state_from_battle(after, "g-delta");
    assert_non_null(state);
    assert_non_null(want);
    protocol_fault status;
    if (protocol_delta_apply(state, ops, &status) != PROTOCOL_FAULT_OK)
        fail_msg("the delta does not apply: %s", status.message);
    if (!protocol_value_equal(state, want)) {
        char *got = protocol_value_to_json(state, 0), *expected = protocol_value_to_json(want, 0);
        fail_msg("turn %d %s: the delta gives\n%s\ninstead of\n%s", after->turn,
                 brigade_phase_name(after->phase), got, expected);
    }
    /* Nothing changed: no op at all. */
    protocol_value *none = NULL;
    assert_int_equal(protocol_state_delta(after, after, "g-delta", &none), PROTOCOL_FAULT_OK);
    assert_int_equal(protocol_value_count(none), 0);
    protocol_value_free(none);
    protocol_value_free(ops);
    protocol_value_free(state);
    protocol_value_free(want);
    return before->unit_count == after->unit_count;
}

/* The delta of every action of whole games (tests/journal's driver: charges,
 * melees, morale, reports, adjustments) equals the diff of the whole
 * snapshots; and with a unit fewer (the other form of the delta). */
static void test_state_delta(void **state)
{
    (void)state;
    const char *scenarios[] = {"example_a.json", "village.json"};
    int actions = 0, by_unit = 0, units_changed = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t seed = 1; seed <= 6; seed++) {
            brigade_battle *battle = scenario(scenarios[s]);
            brigade_battle *before = malloc(sizeof *before);
            assert_non_null(before);
            *before = *battle;
            journal_rng rng;
            brigade_event_list events;
            assert_int_equal(journal_driver_start(battle, &rng, seed, &events), BRIGADE_OK);
            assert_true(brigade_battle_fold_all(battle, &events));
            delta_checked(before, battle);
            for (int step = 0; step < 300 && battle->phase != BRIGADE_PHASE_ENDED; step++) {
                if (!journal_driver_next(battle, &rng, &events))
                    break;
                *before = *battle;
                assert_true(brigade_battle_fold_all(battle, &events));
                by_unit += delta_checked(before, battle);
                for (int i = 0; i < battle->unit_count; i++)
                    units_changed += memcmp(&before->units[i], &battle->units[i],
                                            sizeof battle->units[i]) != 0;
                actions++;
            }
            /* Each member the driver's games may leave untouched, changed
             * on its own: a player's report (D46), an event awaiting the
             * umpire, a rollback, the umpire's seat, a side done. */
            *before = *battle;
            brigade_report *report = &battle->reports[battle->report_count++];
            memset(report, 0, sizeof *report);
            report->number = 1;
            report->kind = BRIGADE_REPORT_ADJUST;
            report->side = BRIGADE_SIDE_A;
            report->unit = 0;
            report->target = -1;
            report->state = BRIGADE_REPORT_STANDS;
            report->has_figures = true;
            report->figures = 3;
            snprintf(report->note, sizeof report->note, "two stands lost to skirmishers");
            delta_checked(before, battle);
            *before = *battle;
            report->state = BRIGADE_REPORT_ACCEPTED;
            delta_checked(before, battle);
            *before = *battle;
            brigade_pending_event *pending = &battle->pending[battle->pending_count++];
            memset(pending, 0, sizeof *pending);
            pending->unit = 0;
            pending->event = BRIGADE_EVENT_DOUBLE_SIX;
            snprintf(pending->melee_id, sizeof pending->melee_id, "T1.M1");
            delta_checked(before, battle);
            *before = *battle;
            battle->rolled_back[battle->rolled_back_count++] =
                (brigade_rolled_back){.first = 3, .end = 5, .seq = 9, .to_seq = 4};
            delta_checked(before, battle);
            *before = *battle;
            battle->umpired = !battle->umpired;
            battle->sides[1].done = !battle->sides[1].done;
            delta_checked(before, battle);
            *before = *battle;
            battle->report_count = 0;
            battle->pending_count = 0;
            delta_checked(before, battle);

            /* A unit fewer (as when skirmishers leave the table, D39): the
             * whole snapshots are diffed. */
            *before = *battle;
            battle->unit_count--;
            assert_false(delta_checked(before, battle));
            assert_false(delta_checked(battle, before));
            brigade_event_list_free(&events);
            free(before);
            free(battle);
        }
    /* The games were long and the units changed under the delta. */
    assert_true(actions > 1000);
    assert_int_equal(by_unit, actions);
    assert_true(units_changed > 200);
}

/* Written out whole, as each test here is: it builds, checks and frees its
 * own values, so that it reads alone. */
/* state.ruleset (§7.1): absent under the built-in default (the state and
 * its hash as they were), present under a house ruleset with one entry a
 * member that differs, in rulesets/README.md's order, and hashed (§8);
 * the game's deltas carry it through unchanged. */
static void test_ruleset(void **state)
{
    (void)state;
    brigade_battle *battle = scenario("example_a.json");
    protocol_value *plain = protocol_state_from_battle(battle, "g");
    assert_non_null(plain);
    assert_null(protocol_value_map_get(plain, "ruleset"));
    char plain_hash[PROTOCOL_HASH_HEX_SIZE], house_hash[PROTOCOL_HASH_HEX_SIZE];
    state_hash(plain, plain_hash);

    static const char house[] =
        "{\"cavalry_may_charge_bua\": true, \"unit\": \"cm\","
        " \"moves\": {\"retreat\": {\"dragoons\": 25}}, \"morale\": {\"pass\": {\"line\": 6}}}";
    brigade_error error;
    assert_true(brigade_ruleset_parse(house, strlen(house), &battle->ruleset, &error));
    protocol_value *with = protocol_state_from_battle(battle, "g");
    assert_non_null(with);
    const protocol_value *ruleset = member(with, "ruleset");
    assert_int_equal(protocol_value_count(ruleset), 2);
    assert_string_equal(text_of(ruleset, "unit"), "cm");
    const protocol_value *differs = member(ruleset, "differs");
    static const char *const want[][3] = {
        {"unit", "Mandatory-move phase", "Distances are in centimetres (default inches)"},
        {"morale.pass.line", "Charge phase, morale tests",
         "Morale test, Line: passes on 6+ (default 7+)"},
        {"moves.retreat.dragoons", "Mandatory-move phase",
         "Retreat or broken move, Dragoons: 25 cm (default 15\")"},
        {"cavalry_may_charge_bua", "Charge phase, declarations (12.11)",
         "Cavalry may charge a built-up area: yes (default no)"},
    };
    assert_int_equal(protocol_value_count(differs), 4);
    for (size_t i = 0; i < 4; i++) {
        const protocol_value *entry = protocol_value_array_get(differs, i);
        assert_int_equal(protocol_value_count(entry), 3);
        assert_string_equal(text_of(entry, "member"), want[i][0]);
        assert_string_equal(text_of(entry, "rule"), want[i][1]);
        assert_string_equal(text_of(entry, "text"), want[i][2]);
    }
    state_hash(with, house_hash);
    assert_string_not_equal(plain_hash, house_hash);
    /* Removed, the state is the default's again, hash and all. */
    protocol_value_map_remove(with, "ruleset");
    state_hash(with, house_hash);
    assert_string_equal(plain_hash, house_hash);

    /* A move of the game under the house ruleset: the delta leaves it. */
    brigade_battle *before = malloc(sizeof *before);
    assert_non_null(before);
    *before = *battle;
    battle->turn = 2;
    assert_true(delta_checked(before, battle));
    protocol_value *ops = NULL;
    assert_int_equal(protocol_state_delta(before, battle, "g", &ops), PROTOCOL_FAULT_OK);
    char *text = protocol_value_to_json(ops, 0);
    assert_non_null(text);
    assert_null(strstr(text, "ruleset"));
    free(text);
    protocol_value_free(ops);
    protocol_value_free(with);
    protocol_value_free(plain);
    free(before);
    free(battle);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_old_states_hash),
        cmocka_unit_test(test_new_members),
        cmocka_unit_test(test_rules_version),
        cmocka_unit_test(test_unit_strength),
        cmocka_unit_test(test_end),
        cmocka_unit_test(test_end_result),
        cmocka_unit_test(test_initiative_entry),
        cmocka_unit_test(test_automatic_entry),
        cmocka_unit_test(test_log_entries),
        cmocka_unit_test(test_state_delta),
        cmocka_unit_test(test_ruleset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
