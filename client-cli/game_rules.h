/*
 * client-cli/game_rules.h: what a seat may do now, read from the wire
 * state alone (PROTOCOL.md §7.1), for `brigade play`'s help and for the
 * line that tells each side what it is awaited for (issue 10 point 5).
 *
 * The server decides (core/battle.c): this is a mirror of the rules the
 * client can see, used to offer commands, never to refuse them. It covers
 * the players' reports of D34-D46 and their answers:
 *
 *   rally UNIT         Morale, step report, awaited: an own broken unit that
 *                      made its broken move this turn (fled_turn == turn) and
 *                      fought no melee since (state.fought, D34)
 *   reform UNIT        Movement, step report, awaited: an own unformed
 *                      `normal` unit in no melee (D37)
 *   uncontrolled UNIT  Charge, step declare, awaited: an own pursuing unit
 *                      with no enemy to pursue (12.24 f, D38), which has not
 *                      reported its uncontrolled charge yet
 *   contact PURSUER    Mandatory moves, step report, awaited: an own pursuing
 *                      unit with an enemy to pursue (D39)
 *   contest REPORT     the other side's report of this phase, not contested
 *                      yet and in force or awaiting an answer, while this
 *                      seat is awaited and not done (D46)
 *   accept REPORT      the other side's report awaiting this seat's answer
 *   occupy UNIT        Charge, step occupy, awaited: an own charger (D41)
 *   rule REPORT        the umpire: a report awaiting its ruling (D46)
 *   respond UNIT       Charge, step respond, awaited: an own unit charged and
 *                      not answering yet (not a charger itself); `countercharge`
 *                      says whether it may counter-charge (see
 *                      game_rules_may_countercharge), else it may only stand
 *
 * "Has an enemy to pursue" mirrors core/battle.h
 * brigade_battle_has_enemy_to_pursue: the unit it pursues is in play and
 * made a retreat or broken move this turn (fled_turn == turn; until the
 * Mandatory-move phase has ended: it is retreating or broken). The pursued
 * unit is the unit's `pursuing` member when the server sends one; else the
 * latest mandatory-move instruction the log shows for it ("pursue 'ID'");
 * else, unknown, any enemy unit in play that fled counts.
 */
#ifndef BRIGADE_CLIENT_CLI_GAME_RULES_H
#define BRIGADE_CLIENT_CLI_GAME_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/value.h"

typedef enum game_offer_kind {
    GAME_OFFER_RALLY = 0,
    GAME_OFFER_REFORM,
    GAME_OFFER_UNCONTROLLED,
    GAME_OFFER_CONTACT,
    GAME_OFFER_CONTEST,
    GAME_OFFER_ACCEPT,
    GAME_OFFER_OCCUPY,
    GAME_OFFER_RULE,
    GAME_OFFER_RESPOND,
    GAME_OFFER_WITHDRAW,     /* Charge/declare: a unit of the seat's with a declaration this
                                turn (a charge or an uncontrolled-charge report) */
    GAME_OFFER_KIND_COUNT
} game_offer_kind;

/* Most offers game_rules_offers returns. */
#define GAME_OFFERS_MAX 64

/* A size that holds any game_rules_report_what text. */
#define GAME_RULES_WHAT_SIZE 320

/* One command the seat may give now. */
typedef struct game_offer {
    game_offer_kind kind;
    char unit[40];   /* rally, reform, uncontrolled, contact, occupy, respond, withdraw: the
                        unit */
    int64_t report;  /* contest, accept, rule: the report's number */
    bool countercharge; /* respond: it may counter-charge too (else: stand only) */
} game_offer;

/* The command word of an offer kind: "rally", ..., "rule". */
const char *game_offer_command(game_offer_kind kind);

/*
 * The offers for `seat` ("A", "B", "umpire"; anything else has none) in
 * `state`, in the order of the kinds above, each kind's in the state's
 * order, at most `max` into `out`. Returns how many.
 */
size_t game_rules_offers(const protocol_value *state, const char *seat, game_offer *out,
                         size_t max);

/* Whether `kind` is among the offers. */
bool game_rules_offered(const game_offer *offers, size_t count, game_offer_kind kind);

/* Whether the pursuing unit `id` has an enemy to pursue now (see above);
 * false for a unit that is not pursuing. */
bool game_rules_has_enemy_to_pursue(const protocol_value *state, const char *id);

/* The report of `number` in state.reports, or NULL. */
const protocol_value *game_rules_report(const protocol_value *state, int64_t number);

/* "contact dragoons -> hussars", "rally hussars", "uncontrolled dragoons -> hussars
 * (flank)", "uncontrolled dragoons: no enemy in sight"; an adjustment of the
 * other side's unit (kind "adjust"): "'dragoons' 11 figures, unformed,
 * status broken, formation square — carbine fire" (what it sets, then its
 * note): the report's what, into out (GAME_RULES_WHAT_SIZE holds any). */
void game_rules_report_what(const protocol_value *report, char *out, size_t size);

/*
 * Whether the charged unit `id` may counter-charge the first unit charging
 * it (not as a reinforcement), as core/battle.c's charge_check for a
 * counter-charge decides it: both in play, `id` in no melee, not blown,
 * broken, retreating or pushed back, not artillery (12.16) nor in square
 * (the project's defaults), not pursuing (12.24 f, D38), formed (D26); as
 * cavalry not against a charger in a built-up area nor in rough terrain
 * unless Cossacks (12.11); not defending a built-up area against a charger
 * outside it (12.9). When it may not, `why` (may be NULL) says why in a
 * few words ("it is in square (default)").
 */
bool game_rules_may_countercharge(const protocol_value *state, const char *id, char *why,
                                  size_t size);

/* The first unit charging `id` (not as a reinforcement), or NULL. */
const char *game_rules_first_charger(const protocol_value *state, const char *id);

/* Whether `seat` ("A" or "B") is awaited and has not said done. */
bool game_rules_seat_awaited(const protocol_value *state, const char *seat);

#endif
