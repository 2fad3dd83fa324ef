/*
 * tests/journal/fields_test.c: the battle's members described once
 * (core/battle_fields.h) and the two encodings it drives, the wire
 * snapshot (protocol/game_state.h, PROTOCOL.md §7.1) and the journal's
 * battle (journal/event_codec.h):
 *
 * - every member of brigade_battle_unit has a row, and the rows are sound
 *   (keys unique, wire order 1..N, a rule each);
 * - each row, set on its own to a value other than the scenario's,
 *   round-trips through the journal's encoding and, when sent, through the
 *   wire snapshot;
 * - recorded games (both shipped scenarios, two seeds each, every state
 *   from the start to the end) encode to the wire bytes, journal bytes and
 *   snapshot hashes they had before the table (digests pinned from commit
 *   2aab1e2, which wrote each member out by hand);
 * - brigade_battle_consistent, the invariants folds and the journal assert.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "core/battle.h"
#include "core/battle_fields.h"
#include "journal/event_codec.h"
#include "journal_driver.h"
#include "protocol/codec.h"
#include "protocol/game_state.h"

/* ---- the table ------------------------------------------------------------ */

/* The bytes a row's member takes, and their alignment. */
static size_t field_extent(const brigade_field *f, size_t *align)
{
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        *align = 1;
        return f->size;
    case BRIGADE_FIELD_BOOL:
        *align = _Alignof(bool);
        return sizeof(bool);
    case BRIGADE_FIELD_GENERAL:
        *align = _Alignof(int);
        return f->offset2 + sizeof(int) - f->offset;
    default:
        *align = _Alignof(int);
        return sizeof(int);
    }
}

static size_t align_up(size_t at, size_t align)
{
    return (at + align - 1) / align * align;
}

static int by_offset(const void *a, const void *b)
{
    const brigade_field *x = *(const brigade_field *const *)a, *y = *(const brigade_field *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Every member of brigade_battle_unit has a row: laid end to end in offset
 * order, with only the padding their alignment needs, the rows fill the
 * struct (a member added without a row leaves a gap and fails here). Keys
 * are unique, the wire order is 1..N, each row names its rule. */
static void test_unit_table(void **state)
{
    (void)state;
    int count = 0;
    const brigade_field *fields = brigade_unit_fields(&count);
    assert_true(count >= 20);
    const brigade_field *sorted[64];
    assert_true(count <= 64);
    for (int i = 0; i < count; i++)
        sorted[i] = &fields[i];
    qsort(sorted, (size_t)count, sizeof sorted[0], by_offset);
    size_t end = 0;
    for (int i = 0; i < count; i++) {
        size_t align = 1;
        size_t extent = field_extent(sorted[i], &align);
        if (sorted[i]->offset != align_up(end, align))
            fail_msg("%s at %zu: a member without a row lies before it (expected %zu)",
                     sorted[i]->journal_key, sorted[i]->offset, align_up(end, align));
        end = sorted[i]->offset + extent;
    }
    assert_int_equal(align_up(end, _Alignof(brigade_battle_unit)), sizeof(brigade_battle_unit));

    int wired = 0;
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        assert_non_null(f->journal_key);
        assert_true(f->rule != NULL && strlen(f->rule) > 4);
        assert_true((f->wire_key != NULL) == (f->wire_when != BRIGADE_FIELD_NEVER));
        assert_true((f->wire_key != NULL) == (f->wire_rank > 0));
        wired += f->wire_key != NULL;
        for (int k = 0; k < i; k++) {
            assert_string_not_equal(f->journal_key, fields[k].journal_key);
            if (f->wire_key != NULL && fields[k].wire_key != NULL) {
                assert_string_not_equal(f->wire_key, fields[k].wire_key);
                assert_int_not_equal(f->wire_rank, fields[k].wire_rank);
            }
        }
    }
    for (int i = 0; i < count; i++)
        assert_true(fields[i].wire_rank <= wired);
}

/* ---- each row through both encodings ------------------------------------- */

/* Whether row `f` holds the same in units `a` and `b`. */
static bool field_same(const brigade_field *f, const brigade_battle_unit *a,
                       const brigade_battle_unit *b)
{
    if (f->kind == BRIGADE_FIELD_TEXT)
        return strcmp(brigade_field_text(f, a), brigade_field_text(f, b)) == 0;
    if (f->kind == BRIGADE_FIELD_GENERAL)
        return a->general_role == b->general_role && a->general_rating == b->general_rating;
    return brigade_field_int(f, a) == brigade_field_int(f, b);
}

/* Sets row `f` of `u` to a value other than the one it holds. */
static void field_change(const brigade_field *f, brigade_battle_unit *u)
{
    int now = brigade_field_int(f, u);
    switch (f->kind) {
    case BRIGADE_FIELD_TEXT:
        snprintf(brigade_field_text_mut(f, u), f->size, "zz_%s", f->journal_key);
        break;
    case BRIGADE_FIELD_INT:
        brigade_field_set_int(f, u, now == f->min + 3 ? f->min + 4 : f->min + 3);
        break;
    case BRIGADE_FIELD_BOOL:
        brigade_field_set_int(f, u, !now);
        break;
    case BRIGADE_FIELD_ENUM:
    case BRIGADE_FIELD_SIDE:
        brigade_field_set_int(f, u, (now + 1) % f->count);
        break;
    case BRIGADE_FIELD_UNIT:
        brigade_field_set_int(f, u, now == 1 ? 0 : 1);
        u->status = BRIGADE_STATUS_PURSUING; /* so that the wire sends the quarry */
        break;
    case BRIGADE_FIELD_GENERAL:
        u->general_role = u->general_role == BRIGADE_GENERAL_BRIGADIER ? BRIGADE_GENERAL_CINC
                                                                       : BRIGADE_GENERAL_BRIGADIER;
        u->general_rating = u->general_rating == BRIGADE_RATING_EXCELLENT ? BRIGADE_RATING_POOR
                                                                          : BRIGADE_RATING_EXCELLENT;
        break;
    default:
        break;
    }
}

/* The journal's battle encoding of `battle`, decoded again. */
static brigade_battle *journal_again(const brigade_battle *battle)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    journal_event_status status;
    if (journal_battle_encode(battle, &bytes, &len, &status) != JOURNAL_EVENT_OK)
        fail_msg("encode: %s", status.message);
    brigade_battle *back = malloc(sizeof *back);
    assert_non_null(back);
    if (journal_battle_decode(bytes, len, back, &status) != JOURNAL_EVENT_OK)
        fail_msg("decode: %s", status.message);
    free(bytes);
    return back;
}

/* Each row of brigade_unit_fields, changed on its own in the first unit of
 * example A, comes back the same from the journal (with every other row
 * as it was) and, when the wire sends it, from the wire snapshot
 * (protocol_state_unit_read); a row the wire does not send is absent from
 * the snapshot's unit. */
static void test_unit_fields_round_trip(void **state)
{
    (void)state;
    brigade_battle *base = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, "example_a.json");
    assert_non_null(base);
    assert_true(base->rules_version >= BRIGADE_RULES_VERSION_PLAYERS);
    brigade_battle *battle = malloc(sizeof *battle);
    assert_non_null(battle);
    int count = 0;
    const brigade_field *fields = brigade_unit_fields(&count);
    for (int i = 0; i < count; i++) {
        const brigade_field *f = &fields[i];
        *battle = *base;
        brigade_battle_unit *u = &battle->units[0];
        field_change(f, u);
        assert_false(field_same(f, u, &base->units[0]));

        brigade_battle *back = journal_again(battle);
        for (int k = 0; k < count; k++)
            if (!field_same(&fields[k], &back->units[0], u))
                fail_msg("journal: %s changed, %s came back otherwise", f->journal_key,
                         fields[k].journal_key);
        free(back);

        protocol_value *snapshot = protocol_state_from_battle(battle, "g-fields");
        assert_non_null(snapshot);
        const protocol_value *wire =
            protocol_value_map_get(protocol_value_map_get(snapshot, "units"), u->id);
        assert_non_null(wire);
        if (f->wire_key == NULL) {
            assert_null(protocol_value_map_get(wire, f->journal_key));
        } else {
            brigade_battle_unit read = base->units[0];
            char error[160];
            if (!protocol_state_unit_read(wire, battle, &read, error, sizeof error))
                fail_msg("wire: %s: %s", f->wire_key, error);
            if (!field_same(f, &read, u))
                fail_msg("wire: %s did not come back", f->wire_key);
        }
        protocol_value_free(snapshot);
    }
    free(battle);
    free(base);
}

/* A wire unit with a member of the wrong type or out of bounds is
 * refused with the member named, and *out is left as it was. */
static void test_unit_read_errors(void **state)
{
    (void)state;
    brigade_battle *battle = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, "example_a.json");
    assert_non_null(battle);
    static const struct {
        const char *key;
        const char *error;
    } cases[] = {
        {"figures", "figures: not an integer in 0..100000"},
        {"status", "status: not a status name"},
        {"formed", "formed: not a boolean"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        protocol_value *snapshot = protocol_state_from_battle(battle, "g-fields");
        assert_non_null(snapshot);
        protocol_value *wire =
            protocol_value_map_get(protocol_value_map_get(snapshot, "units"), battle->units[0].id);
        assert_int_equal(protocol_value_map_set(wire, cases[i].key,
                                                protocol_value_string_new("lots")), 0);
        brigade_battle_unit out = battle->units[1];
        char error[160] = "";
        assert_false(protocol_state_unit_read(wire, battle, &out, error, sizeof error));
        assert_string_equal(error, cases[i].error);
        assert_memory_equal(&out, &battle->units[1], sizeof out);
        protocol_value_free(snapshot);
    }
    free(battle);
}

/* brigade_battle_consistent, which folds and journal_append assert: true of
 * a scenario's battle, false once a count, a unit's figures or a quarry is
 * out of bounds. */
static void test_battle_consistent(void **state)
{
    (void)state;
    brigade_battle *battle = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, "village.json");
    assert_non_null(battle);
    assert_true(brigade_battle_consistent(battle));
    brigade_battle *broken = malloc(sizeof *broken);
    assert_non_null(broken);
    *broken = *battle;
    broken->units[1].figures = -1;
    assert_false(brigade_battle_consistent(broken));
    *broken = *battle;
    broken->units[0].pursuit_of = battle->unit_count;
    assert_false(brigade_battle_consistent(broken));
    *broken = *battle;
    broken->charge_count = BRIGADE_BATTLE_CHARGES_MAX + 1;
    assert_false(brigade_battle_consistent(broken));
    *broken = *battle;
    broken->awaiting |= 4u;
    assert_false(brigade_battle_consistent(broken));
    free(broken);
    free(battle);
}

/* ---- recorded games: the bytes of every state ----------------------------- */

/* Adds the wire snapshot's bytes, its snapshot hash and the journal's bytes
 * of `battle` to `digest`. */
static void pin_state(EVP_MD_CTX *digest, const brigade_battle *battle)
{
    protocol_value *state = protocol_state_from_battle(battle, "g-pin");
    assert_non_null(state);
    uint8_t *bytes = NULL;
    size_t len = 0;
    assert_int_equal(protocol_codec_encode(state, 0, &bytes, &len), PROTOCOL_CODEC_OK);
    EVP_DigestUpdate(digest, bytes, len);
    free(bytes);
    char hash[PROTOCOL_HASH_HEX_SIZE];
    assert_int_equal(protocol_snapshot_hash(state, hash), PROTOCOL_CODEC_OK);
    EVP_DigestUpdate(digest, hash, strlen(hash));
    protocol_value_free(state);
    journal_event_status status;
    assert_int_equal(journal_battle_encode(battle, &bytes, &len, &status), JOURNAL_EVENT_OK);
    EVP_DigestUpdate(digest, bytes, len);
    free(bytes);
}

/* The SHA-256 (hex) of every state of scenario `name` played by the
 * driver with `seed`, from the start to the end (at most 400 actions);
 * `*states` receives how many states it covers. */
static void pin_game(const char *name, uint64_t seed, char hex[65], int *states)
{
    brigade_battle *battle = journal_driver_scenario_file(BRIGADE_SCENARIO_DIR, name);
    assert_non_null(battle);
    EVP_MD_CTX *digest = EVP_MD_CTX_new();
    assert_non_null(digest);
    EVP_DigestInit_ex(digest, EVP_sha256(), NULL);
    journal_rng rng;
    journal_rng_seed(&rng, seed);
    brigade_dice_source dice = journal_rng_dice(&rng);
    brigade_event_list events;
    brigade_event_list_init(&events);
    brigade_battle_error error;
    pin_state(digest, battle);
    assert_int_equal(brigade_battle_start(battle, &dice, &events, &error), BRIGADE_BATTLE_OK);
    assert_true(brigade_battle_fold_all(battle, &events));
    *states = 1;
    for (int step = 0; step < 400 && battle->phase != BRIGADE_PHASE_ENDED; step++) {
        pin_state(digest, battle);
        (*states)++;
        brigade_side seat;
        brigade_command command;
        brigade_event_list_clear(&events);
        if (!journal_driver_step(battle, &rng, &seat, &command, &events))
            break;
        assert_true(brigade_battle_fold_all(battle, &events));
    }
    pin_state(digest, battle);
    unsigned char sum[32];
    unsigned int sum_len = 0;
    EVP_DigestFinal_ex(digest, sum, &sum_len);
    EVP_MD_CTX_free(digest);
    for (unsigned i = 0; i < sum_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    brigade_event_list_free(&events);
    free(battle);
}

/* The digests of commit 2aab1e2 (each member written out by hand). */
#define PIN_EXAMPLE_A_2 "5b6f69c2de8176462e855cf5bbe0a549a134d0467700ac0097e799fef77f778d"
#define PIN_EXAMPLE_A_7 "38c30b870c8cdc1239c651c5d640aefa330ac7556672adc5eb460bb2d9012f74"
#define PIN_VILLAGE_2 "19e09f5ca94ea60a0490ab433aad6073e7f3862216b2f2729678a1bb4bb91c72"
#define PIN_VILLAGE_7 "9b4593a5719377ca99c05f51417c6974c3f387f57434c27139cad5ccffa6411b"

static void test_recorded_games_bytes(void **state)
{
    (void)state;
    static const struct {
        const char *scenario;
        uint64_t seed;
        const char *digest;
    } games[] = {
        {"example_a.json", 2, PIN_EXAMPLE_A_2},
        {"example_a.json", 7, PIN_EXAMPLE_A_7},
        {"village.json", 2, PIN_VILLAGE_2},
        {"village.json", 7, PIN_VILLAGE_7},
    };
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++) {
        char hex[65];
        int states = 0;
        pin_game(games[i].scenario, games[i].seed, hex, &states);
        printf("%s seed %d: %d states, %s\n", games[i].scenario, (int)games[i].seed, states, hex);
        assert_true(states > 20);
        assert_string_equal(hex, games[i].digest);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unit_table),
        cmocka_unit_test(test_unit_fields_round_trip),
        cmocka_unit_test(test_unit_read_errors),
        cmocka_unit_test(test_battle_consistent),
        cmocka_unit_test(test_recorded_games_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
