/*
 * unit_melee_results: the results table of 12.18 (rules/melee.md §6) band
 * by band and at its edges, with its exceptions: squares (D13), infantry
 * pushed back by cavalry (D25), draws (D14, D32), artillery (12.19 h, D19),
 * built-up areas (12.19 i-j, D21, D29); and 12.6 (each side's best unit
 * speaks for it, every loser takes the side's result, D16).
 *
 * Unless said otherwise: infantry in line, class line, not charging; an
 * infantry unit adds +2 for its type, so its total is dice + 2.
 */
#include "melee_fixture.h"

/* The melees the rows share (each unit with its roll). */

/* Infantry in line against infantry in line, 24 figures each. */
#define INF_DUEL(a0, a1, b0, b1)                                                                \
    {FX_UNIT("a", A, INFANTRY, LINE, (a0), (a1), 24)},                                          \
    {FX_UNIT("b", B, INFANTRY, LINE, (b0), (b1), 24)}

/* Cuirassiers 12, line, charging: dice + 5 + 2; square 24 against cavalry:
 * dice + 2 + 4 + 2 (24 against 12 is 2:1). */
#define CUIR_VS_SQUARE(c0, c1, s0, s1)                                                          \
    {FX_UNIT("cuir", A, CUIRASSIERS, LINE, (c0), (c1), 12, .charging = true)},                  \
    {FX_UNIT("sq", B, INFANTRY, LINE, (s0), (s1), 24),                                          \
     .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)}

/* Light cavalry 12 against a foot unit of `foot_type`, 12. */
#define LC_VS(foot_type, lc_charging, c0, c1, f0, f1)                                           \
    {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, (c0), (c1), 12, .charging = (lc_charging))},         \
    {.unit = {.id = "foot", .side = BRIGADE_SIDE_B, .type = (foot_type),                        \
              .unit_class = BRIGADE_CLASS_LINE, .figures = 12},                                 \
     .faces = {(f0), (f1)}}

/* In terrain bua: a column of 24 attacks a village of 20 defending a
 * building. */
#define BUA_ATTACK(col_charging, c0, c1, v0, v1)                                                \
    {FX_UNIT("col", A, INFANTRY, LINE, (c0), (c1), 24, .charging = (col_charging)),             \
     .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},                                           \
    {FX_UNIT("vil", B, INFANTRY, LINE, (v0), (v1), 20, .defending = BRIGADE_DEFENDING_BUILDING)}

/* The cases, a row each (fx_row: units, further rolls, expected values;
 * every row but the one marked rolls_unchecked asks exactly the rolls it
 * scripts, FX_EXPECT_ALL_USED); a row a result of 12.18 (or the decision on
 * it) with its dice and totals worked out in its comment; the rows share
 * fx_row's shape and each stays whole, so that its numbers read against
 * the rule. */
static const fx_row rows[] = {
    /* ---------------------------------------------------------- the bands */
    /* 12.18: difference 0: draw; infantry against infantry (like arms, D14):
     * both unformed, the melee goes on, no tests; casualties as losers (12.20:
     * 24/12 = 2 each). */
    {.name = "band_0_draw_like_arms", .rule = "12.18",
     .units = {INF_DUEL(3, 4, 2, 5)},
     .checks = {FX_MELEE(SCORED, true), FX_MELEE(SCORE_A, 9), FX_MELEE(SCORE_B, 9),
                FX_MELEE(DIFFERENCE, 0), FX_MELEE(WINNER, BRIGADE_SIDE_NONE),
                FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_MELEE(CONTINUES, true),
                FX_IS("a", STATUS, BRIGADE_STATUS_NORMAL), FX_IS("a", FORMED, false),
                FX_IS("a", TEST_KIND, BRIGADE_TEST_NONE), FX_IS("a", CASUALTIES, 2),
                FX_IS("b", STATUS, BRIGADE_STATUS_NORMAL), FX_IS("b", FORMED, false),
                FX_IS("b", TEST_KIND, BRIGADE_TEST_NONE), FX_IS("b", CASUALTIES, 2)}},
    /* 12.18: difference 1: pushed back (unformed); the infantry winner takes the
     * reform test (line, 8+: 4+4 passes, stays formed). */
    {.name = "band_1_pushed_back", .rule = "12.18",
     .units = {INF_DUEL(4, 5, 3, 5)},
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 1), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_MELEE(CONTINUES, false),
                FX_IS("b", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("b", FORMED, false),
                FX_IS("b", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("a", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("a", TEST_KIND, BRIGADE_TEST_REFORM),
                FX_IS("a", TEST_OUTCOME, BRIGADE_OUTCOME_PASS), FX_IS("a", FORMED, true)}},
    /* 12.18: difference 2: still pushed back. */
    {.name = "band_2_pushed_back", .rule = "12.18",
     .units = {INF_DUEL(4, 5, 3, 4)},
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 2), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK),
                FX_IS("b", STATUS, BRIGADE_STATUS_PUSHED_BACK)}},
    /* 12.18: difference 3: retreat. */
    {.name = "band_3_retreat", .rule = "12.18",
     .units = {INF_DUEL(5, 6, 3, 5)},
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 3), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT), FX_MELEE(CONTINUES, false),
                FX_IS("b", STATUS, BRIGADE_STATUS_RETREATING), FX_IS("b", FORMED, false)}},
    /* 12.18: difference 6: still retreat. */
    {.name = "band_6_retreat", .rule = "12.18",
     .units = {INF_DUEL(5, 6, 2, 3)},
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 6), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("b", STATUS, BRIGADE_STATUS_RETREATING)}},
    /* 12.18: difference 7: broken. */
    {.name = "band_7_broken", .rule = "12.18",
     .units = {INF_DUEL(5, 6, 1, 3)},
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 7), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_MELEE(CONTINUES, false),
                FX_IS("b", STATUS, BRIGADE_STATUS_BROKEN), FX_IS("b", FORMED, false)}},
    /* 12.18: a large difference (12): broken. a: guard charging in line,
     * 11 + 2 + 2 + 2 = 17; b: 3 + 2 = 5. */
    {.name = "band_large_broken", .rule = "12.18",
     .units = {
               {FX_UNIT("a", A, INFANTRY, GUARD, 6, 5, 24, .charging = true)},
               {FX_UNIT("b", B, INFANTRY, LINE, 1, 2, 24)},
              },
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 17), FX_MELEE(DIFFERENCE, 12),
                FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN),
                FX_IS("b", STATUS, BRIGADE_STATUS_BROKEN)}},
    /* 12.18 for side B: A 2+3+2 = 7, B 4+5+2 = 11: difference 4, B wins, A
     * retreats; only B tests. */
    {.name = "band_side_b_wins", .rule = "12.18 for side B",
     .units = {INF_DUEL(2, 3, 4, 5)},
     .rolls = {{"b.reform", {4, 4}}},
     .checks = {FX_MELEE(WINNER, BRIGADE_SIDE_B), FX_MELEE(DIFFERENCE, 4),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("a", STATUS, BRIGADE_STATUS_RETREATING),
                FX_IS("a", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("b", TEST_KIND, BRIGADE_TEST_REFORM)}},
    /* 12.6, §3 step 4: every unit of the losing side suffers the side's result;
     * the side's best unit speaks for it. B (36) 11+2 = 13 against A's 24
     * (2+3+2 = 7) and 12 (3+4+2 = 9): difference 4, both A units retreat. */
    {.name = "losing_side_all_units", .rule = "12.6, §3 step 4",
     .units = {
               {FX_UNIT("a1", A, INFANTRY, LINE, 2, 3, 24)},
               {FX_UNIT("a2", A, INFANTRY, LINE, 3, 4, 12)},
               {FX_UNIT("b", B, INFANTRY, LINE, 5, 6, 36)},
              },
     .rolls = {{"b.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 9), FX_MELEE(SCORE_B, 13), FX_MELEE(SPEAKS_A, 1),
                FX_MELEE(SPEAKS_B, 2), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("a1", STATUS, BRIGADE_STATUS_RETREATING),
                FX_IS("a2", STATUS, BRIGADE_STATUS_RETREATING)}},
    /* §3 step 4, D16: a winning unit whose own total is below the enemy's score
     * still counts as a winner and tests. A: a1 24 (+2 numbers, first of the
     * tie, D18) 1+2+2+2 = 7, a2 24 6+5+2 = 13; B 24 3+5+2 = 10: A wins by 3;
     * both A units take the reform test. */
    {.name = "low_winner_still_winner", .rule = "§3 step 4, D16",
     .units = {
               {FX_UNIT("a1", A, INFANTRY, LINE, 1, 2, 24)},
               {FX_UNIT("a2", A, INFANTRY, LINE, 6, 5, 24)},
               {FX_UNIT("b", B, INFANTRY, LINE, 3, 5, 24)},
              },
     .rolls = {{"a1.reform", {4, 4}}, {"a2.reform", {2, 3}}},
     .checks = {FX_TOTAL("a1", 7), FX_TOTAL("a2", 13), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("a1", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("a1", TEST_KIND, BRIGADE_TEST_REFORM),
                FX_IS("a1", TEST_OUTCOME, BRIGADE_OUTCOME_PASS), FX_IS("a1", FORMED, true),
                FX_IS("a2", TEST_KIND, BRIGADE_TEST_REFORM),
                FX_IS("a2", TEST_OUTCOME, BRIGADE_OUTCOME_FAIL), FX_IS("a2", FORMED, false)}},
    /* -------------------------------------------------------------- squares */
    /* 12.18 note, D1, D13: cavalry beats a square by 6: the square holds and is
     * the winner; the cavalry is pushed back; neither takes a test. Casualties
     * (D13): the square as winner against pushed-back cavalry, 24/8 = 3, halved
     * (12.17 note 2) = 1.5 -> 1; the cavalry as loser against foot 12/12 = 1. */
    {.name = "square_holds_by_6", .rule = "12.18 note, D1, D13",
     .units = {CUIR_VS_SQUARE(5, 6, 1, 3)},
     .checks = {FX_MELEE(SCORE_A, 18), FX_MELEE(SCORE_B, 12), FX_MELEE(DIFFERENCE, 6),
                FX_MELEE(WINNER, BRIGADE_SIDE_B), FX_MELEE(RESULT, BRIGADE_RESULT_SQUARE_HOLDS),
                FX_MELEE(CONTINUES, false), FX_IS("cuir", STATUS, BRIGADE_STATUS_PUSHED_BACK),
                FX_IS("cuir", FORMED, false), FX_IS("cuir", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("cuir", CASUALTIES, 1), FX_IS("sq", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("sq", FORMED, true), FX_IS("sq", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("sq", CASUALTIES, 1)}},
    /* D13: by 1 the square holds too. */
    {.name = "square_holds_by_1", .rule = "D13",
     .units = {CUIR_VS_SQUARE(3, 4, 2, 3)},
     .checks = {FX_MELEE(DIFFERENCE, 1), FX_MELEE(WINNER, BRIGADE_SIDE_B),
                FX_MELEE(RESULT, BRIGADE_RESULT_SQUARE_HOLDS),
                FX_IS("cuir", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("sq", FORMED, true)}},
    /* 12.18: cavalry beats a square by 7: the square is broken; the cavalry
     * takes its pursuit test. Casualties: 12/1 = 12 on the square; the square
     * as loser 24/12 = 2, halved = 1. */
    {.name = "square_broken_by_7", .rule = "12.18",
     .units = {CUIR_VS_SQUARE(5, 6, 1, 2)},
     .rolls = {{"cuir.pursuit", {3, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 7), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN),
                FX_IS("sq", STATUS, BRIGADE_STATUS_BROKEN), FX_IS("sq", FORMED, false),
                FX_IS("sq", CASUALTIES, 12), FX_IS("cuir", TEST_KIND, BRIGADE_TEST_PURSUIT),
                FX_IS("cuir", CASUALTIES, 1)}},
    /* 12.18: the square's exception is against cavalry only: a column beating
     * a square by 2 pushes it back. Column charging: d + 2 + 2 + 1 = 12;
     * square against infantry: d + 2 = 10. */
    {.name = "square_pushed_back_by_infantry", .rule = "12.18",
     .units = {
               {FX_UNIT("col", A, INFANTRY, LINE, 3, 4, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("sq", B, INFANTRY, LINE, 3, 5, 24),
                .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 12), FX_MELEE(SCORE_B, 10), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK),
                FX_IS("sq", STATUS, BRIGADE_STATUS_PUSHED_BACK)}},
    /* D20, D25: an Austrian mass is not a square: beaten by cavalry by 2 it
     * retreats (infantry pushed back by cavalry retreats). */
    {.name = "austrian_mass_beaten_by_cavalry", .rule = "D20, D25",
     .units = {
               {FX_UNIT("cuir", A, CUIRASSIERS, LINE, 3, 4, 12, .charging = true)},
               {FX_UNIT("sq", B, INFANTRY, LINE, 1, 3, 24),
                .formation = FX_FORM(BRIGADE_FORMATION_AUSTRIAN_MASS)},
              },
     .rolls = {{"cuir.pursuit", {3, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 2), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("sq", STATUS, BRIGADE_STATUS_RETREATING),
                FX_IS("cuir", TEST_KIND, BRIGADE_TEST_PURSUIT)}},
    /* ------------------------------------------------------------------ D25 */
    /* 12.18 note, D25: infantry (not in square) pushed back by an all-cavalry
     * side retreats instead. Light cavalry charging 3+4+2+2 = 11; infantry 24
     * (2:1) 2+3+2+2 = 9. Retreat casualties: 12/1 = 12. */
    {.name = "infantry_pushed_back_by_cavalry_retreats", .rule = "12.18 note, D25",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 3, 4, 12, .charging = true)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 2, 3, 24)},
              },
     .rolls = {{"lc.pursuit", {3, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 2), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("inf", STATUS, BRIGADE_STATUS_RETREATING), FX_IS("inf", FORMED, false),
                FX_IS("inf", CASUALTIES, 12)}},
    /* D25: open order is infantry too: pushed back by cavalry, it retreats.
     * Light cavalry charging 11; open order 24 (2:1) 3+4+0+2 = 9. */
    {.name = "open_order_pushed_back_by_cavalry_retreats", .rule = "D25",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 3, 4, 12, .charging = true)},
               {FX_UNIT("oo", B, OPEN_ORDER, LINE, 3, 4, 24)},
              },
     .rolls = {{"lc.pursuit", {3, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 2), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("oo", STATUS, BRIGADE_STATUS_RETREATING)}},
    /* D25: the exception needs an all-cavalry winning side: cavalry and
     * infantry together push the infantry back. A: light cavalry 12 charging
     * 3+4+2+2 = 11, infantry 16 1+2+2 = 5; B: infantry 28 3+4+2 = 9.
     * Casualties on B (D28, D8): 12/6 + 16/8 = 4; on A: 28/12 = 2.33 -> 2
     * (A's largest unit is foot: not halved), shared 1 and 1. */
    {.name = "infantry_pushed_back_by_mixed_side", .rule = "D25",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 3, 4, 12, .charging = true)},
               {FX_UNIT("i", A, INFANTRY, LINE, 1, 2, 16)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 3, 4, 28)},
              },
     .rolls = {{"lc.pursuit", {3, 4}}, {"i.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 11), FX_MELEE(SCORE_B, 9),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK),
                FX_IS("inf", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("inf", CASUALTIES, 4),
                FX_IS("lc", CASUALTIES, 1), FX_IS("i", CASUALTIES, 1),
                FX_IS("lc", TEST_KIND, BRIGADE_TEST_PURSUIT),
                FX_IS("i", TEST_KIND, BRIGADE_TEST_REFORM)}},
    /* ---------------------------------------------------------------- draws */
    /* 12.18 draw, D14: cavalry draws with infantry: winner none, result draw;
     * the cavalry pushed back (unformed); the infantry takes a reform test
     * (4+4 = 8, line passes, stays formed); the melee does not go on.
     * Casualties, both as losers: cavalry on foot 12/12 = 1; infantry on
     * cavalry 12/12 halved = 0.5 -> 0. lc: 2+3+2+2 = 9; infantry 3+4+2 = 9. */
    {.name = "draw_cavalry_infantry", .rule = "12.18 draw, D14",
     .units = {LC_VS(BRIGADE_TYPE_INFANTRY, true, 2, 3, 3, 4)},
     .rolls = {{"foot.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 0), FX_MELEE(WINNER, BRIGADE_SIDE_NONE),
                FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_MELEE(CONTINUES, false),
                FX_IS("lc", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("lc", FORMED, false),
                FX_IS("lc", TEST_KIND, BRIGADE_TEST_NONE), FX_IS("lc", CASUALTIES, 0),
                FX_IS("foot", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("foot", TEST_KIND, BRIGADE_TEST_REFORM), FX_IS("foot", TEST_TOTAL, 8),
                FX_IS("foot", TEST_OUTCOME, BRIGADE_OUTCOME_PASS), FX_IS("foot", FORMED, true),
                FX_IS("foot", CASUALTIES, 1)}},
    /* D14: the infantry's reform test in a draw can fail: 3+4 = 7 < 8. */
    {.name = "draw_cavalry_infantry_reform_fails", .rule = "D14",
     .units = {LC_VS(BRIGADE_TYPE_INFANTRY, true, 2, 3, 3, 4)},
     .rolls = {{"foot.reform", {3, 4}}},
     .checks = {FX_IS("foot", TEST_OUTCOME, BRIGADE_OUTCOME_FAIL), FX_IS("foot", FORMED, false),
                FX_IS("foot", STATUS, BRIGADE_STATUS_NORMAL)}},
    /* 12.18 draw "a square always stays formed", D32: a square drawing with
     * cavalry takes no reform test and stays formed. lc 4+5+4 = 13; square
     * 3+4+2+4 = 13. */
    {.name = "draw_cavalry_square", .rule = "12.18, D32",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 4, 5, 12, .charging = true)},
               {FX_UNIT("foot", B, INFANTRY, LINE, 3, 4, 12),
                .formation = FX_FORM(BRIGADE_FORMATION_SQUARE)},
              },
     .checks = {FX_MELEE(DIFFERENCE, 0), FX_MELEE(WINNER, BRIGADE_SIDE_NONE),
                FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_MELEE(CONTINUES, false),
                FX_IS("lc", STATUS, BRIGADE_STATUS_PUSHED_BACK),
                FX_IS("foot", TEST_KIND, BRIGADE_TEST_NONE), FX_IS("foot", FORMED, true),
                FX_IS("foot", STATUS, BRIGADE_STATUS_NORMAL), FX_ASKED_SUFFIX(".reform", 0)}},
    /* D32: a defender of a fortified position drawing with cavalry takes no
     * reform test and stays formed. lc (not charging) 4+5+2 = 11; defender
     * 2+4+2+3 = 11. */
    {.name = "draw_cavalry_fortified", .rule = "D32", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 4, 5, 12)},
               {FX_UNIT("foot", B, INFANTRY, LINE, 2, 4, 12,
                .defending = BRIGADE_DEFENDING_FORTIFIED)},
              },
     .checks = {FX_MELEE(DIFFERENCE, 0), FX_MELEE(RESULT, BRIGADE_RESULT_DRAW),
                FX_MELEE(CONTINUES, false), FX_IS("lc", STATUS, BRIGADE_STATUS_PUSHED_BACK),
                FX_IS("foot", TEST_KIND, BRIGADE_TEST_NONE), FX_IS("foot", FORMED, true)}},
    /* 12.18 draw, D14: the artillery too takes the reform test; it is not
     * dispersed (it did not lose). lc (not charging) 1+2+2 = 5, battery 2+3 =
     * 5. Casualties: the battery on cavalry 12/12 = 1 (artillery not halved,
     * D8); the cavalry on foot 12/12 = 1. */
    {.name = "draw_cavalry_artillery", .rule = "12.18 draw, D14",
     .units = {LC_VS(BRIGADE_TYPE_ARTILLERY, false, 1, 2, 2, 3)},
     .rolls = {{"foot.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 0), FX_MELEE(WINNER, BRIGADE_SIDE_NONE),
                FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_MELEE(CONTINUES, false),
                FX_IS("lc", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("lc", CASUALTIES, 1),
                FX_IS("foot", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("foot", TEST_KIND, BRIGADE_TEST_REFORM), FX_IS("foot", FORMED, true),
                FX_IS("foot", CASUALTIES, 1)}},
    /* 12.18 draw, D14: cavalry against cavalry: both unformed, statuses
     * unchanged, the melee goes on; casualties 12/8 = 1 each. */
    {.name = "draw_cavalry_cavalry", .rule = "12.18 draw, D14",
     .units = {LC_VS(BRIGADE_TYPE_LIGHT_CAVALRY, false, 3, 4, 2, 5)},
     .checks = {FX_MELEE(WINNER, BRIGADE_SIDE_NONE), FX_MELEE(RESULT, BRIGADE_RESULT_DRAW),
                FX_MELEE(CONTINUES, true), FX_IS("lc", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("lc", FORMED, false), FX_IS("lc", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("lc", CASUALTIES, 1), FX_IS("foot", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("foot", FORMED, false), FX_IS("foot", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("foot", CASUALTIES, 1)}},
    /* 12.18 draw: infantry against artillery is like arms: both unformed, the
     * melee goes on, the battery is not dispersed. Infantry 1+2+2 = 5, battery
     * 2+3 = 5. */
    {.name = "draw_infantry_artillery", .rule = "12.18 draw",
     .units = {
               {FX_UNIT("a", A, INFANTRY, LINE, 1, 2, 12)},
               {FX_UNIT("b", B, ARTILLERY, LINE, 2, 3, 12)},
              },
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_MELEE(WINNER, BRIGADE_SIDE_NONE),
                FX_MELEE(CONTINUES, true), FX_IS("b", STATUS, BRIGADE_STATUS_NORMAL),
                FX_IS("b", FORMED, false), FX_IS("a", FORMED, false)}},
    /* D14 "any other draw is between like arms": a side of cavalry and
     * infantry drawing with infantry: all unformed, the melee goes on, no
     * tests. A: lc 12 1+2+2 = 5, infantry 12 3+4+2 = 9; B: infantry 24 3+4+2 =
     * 9 (24 against 24). */
    {.name = "draw_mixed_side", .rule = "D14",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 1, 2, 12)},
               {FX_UNIT("i", A, INFANTRY, LINE, 3, 4, 12)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 3, 4, 24)},
              },
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_MELEE(CONTINUES, true),
                FX_IS("lc", STATUS, BRIGADE_STATUS_NORMAL), FX_IS("lc", FORMED, false),
                FX_IS("lc", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("i", STATUS, BRIGADE_STATUS_NORMAL), FX_IS("i", FORMED, false),
                FX_IS("i", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("inf", STATUS, BRIGADE_STATUS_NORMAL), FX_IS("inf", FORMED, false),
                FX_IS("inf", TEST_KIND, BRIGADE_TEST_NONE)}},
    /* ------------------------------------------------------------ artillery */
    /* 12.18 note, 12.19 h, D19: a battery that loses is dispersed, even by 1.
     * Infantry 2+3+2 = 7, battery 2+4 = 6. The result is the band's
     * (pushed_back, D29); casualties: 12/8 = 1 on the battery, 12/12 = 1 on the
     * infantry. */
    {.name = "artillery_loses_by_1", .rule = "12.18 note, 12.19 h, D19",
     .units = {
               {FX_UNIT("inf", A, INFANTRY, LINE, 2, 3, 12)},
               {FX_UNIT("bty", B, ARTILLERY, LINE, 2, 4, 12)},
              },
     .rolls = {{"inf.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 1), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK),
                FX_IS("bty", STATUS, BRIGADE_STATUS_DISPERSED), FX_IS("bty", FORMED, false),
                FX_IS("bty", CASUALTIES, 1), FX_IS("bty", FIGURES, 11),
                FX_IS("inf", CASUALTIES, 1)}},
    /* D16, D29: a losing side of infantry and a battery: the infantry suffers
     * the side's result, the battery is dispersed. A infantry 36 4+5+2 = 11;
     * B infantry 24 3+5+2 = 10, battery 6 1+2 = 3 (36 against 30: no bonus). */
    {.name = "artillery_dispersed_beside_infantry", .rule = "D16, D29",
     .units = {
               {FX_UNIT("a", A, INFANTRY, LINE, 4, 5, 36)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 3, 5, 24)},
               {FX_UNIT("bty", B, ARTILLERY, LINE, 1, 2, 6)},
              },
     .rolls = {{"a.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 1), FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK),
                FX_IS("inf", STATUS, BRIGADE_STATUS_PUSHED_BACK),
                FX_IS("bty", STATUS, BRIGADE_STATUS_DISPERSED)}},
    /* 12.18 note, D25, D28, D29: cavalry beats a battery by 2: the battery is
     * dispersed (D25's retreat is for infantry only, so the band stays
     * pushed_back), and winning cavalry against pushed-back foot inflicts 1
     * per 6 (D28): 12/6 = 2. lc charging 1+2+4 = 7, battery 1+4 = 5. */
    {.name = "artillery_beaten_by_cavalry", .rule = "12.18 note, D25, D28, D29",
     .units = {LC_VS(BRIGADE_TYPE_ARTILLERY, true, 1, 2, 1, 4)},
     .rolls = {{"lc.pursuit", {3, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 2), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK),
                FX_IS("foot", STATUS, BRIGADE_STATUS_DISPERSED), FX_IS("foot", CASUALTIES, 2),
                FX_IS("lc", CASUALTIES, 1)}},
    /* D29 (with D25, D19, D8): the losing units end with different results
     * (infantry retreating from cavalry, the battery dispersed); the melee's
     * result and the casualty row follow the losing side's largest unit, the
     * infantry: retreat, so 1 per 1. lc 12 charging 3+4+2+2 = 11; B: infantry
     * 24 (28 against 12: +2) 2+3+2+2 = 9, battery 4 1+2 = 3. B loses 12: 6 and
     * 6, the battery capped at 4, the excess 2 to the infantry: 8. B inflicts
     * 24/12 halved = 1 + 4/12 = 0.33: 1.33 -> 1. */
    {.name = "mixed_losers_result_follows_largest", .rule = "D29 (with D25, D19, D8)",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 3, 4, 12, .charging = true)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 2, 3, 24)},
               {FX_UNIT("bty", B, ARTILLERY, LINE, 1, 2, 4)},
              },
     .rolls = {{"lc.pursuit", {3, 4}}},
     .checks = {FX_MELEE(SCORE_A, 11), FX_MELEE(SCORE_B, 9), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("inf", STATUS, BRIGADE_STATUS_RETREATING), FX_IS("inf", CASUALTIES, 8),
                FX_IS("bty", STATUS, BRIGADE_STATUS_DISPERSED), FX_IS("bty", CASUALTIES, 4),
                FX_IS("bty", FIGURES, 0), FX_IS("lc", CASUALTIES, 1)}},
    /* ------------------------------------------------------- built-up areas */
    /* 12.19 i, D21: a BUA defender pushed back the first time: result
     * pushed_back, the melee goes on; the winner takes its reform test. Column
     * charging without a breach 4+5+2+2 = 13 (note 7: no +1); village 3+5+2+2 =
     * 12. Casualties: 24/8 = 3 on the defender, 20/12 = 1 on the column. */
    {.name = "bua_first_push_back", .rule = "12.19 i, D21", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .units = {BUA_ATTACK(true, 4, 5, 3, 5)},
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 13), FX_MELEE(SCORE_B, 12), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_MELEE(CONTINUES, true),
                FX_IS("vil", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("vil", FORMED, false),
                FX_IS("vil", CASUALTIES, 3), FX_IS("col", TEST_KIND, BRIGADE_TEST_REFORM),
                FX_IS("col", CASUALTIES, 1)}},
    /* D21 is about the pushed-back band: a BUA defender beaten by 4 retreats
     * and the melee does not go on. Column 5+6+4 = 15, village 3+4+4 = 11. */
    {.name = "bua_first_time_retreat_band", .rule = "D21 is about the pushed-back band",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .units = {BUA_ATTACK(true, 5, 6, 3, 4)},
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(DIFFERENCE, 4), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_MELEE(CONTINUES, false), FX_IS("vil", STATUS, BRIGADE_STATUS_RETREATING)}},
    /* 12.19 j, D21: pushed back a second time (pushed_back_before) it retreats;
     * retreat casualties (24/6 = 4); no building modifier after the push back,
     * no charge in round 2 (D22). Column 4+5+2 = 11, village 3+5+2 = 10. */
    {.name = "bua_second_push_back_retreats", .rule = "12.19 j, D21",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 2,
     .units = {
               {FX_UNIT("col", A, INFANTRY, LINE, 4, 5, 24),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("vil", B, INFANTRY, LINE, 3, 5, 20, .pushed_back_before = true,
                .defending = BRIGADE_DEFENDING_BUILDING)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 11), FX_MELEE(SCORE_B, 10), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT), FX_MELEE(CONTINUES, false),
                FX_IS("vil", STATUS, BRIGADE_STATUS_RETREATING), FX_IS("vil", CASUALTIES, 4),
                FX_IS("col", CASUALTIES, 1)}},
    /* D21 needs a defender (defending not none): infantry standing in terrain
     * bua without a position is pushed back normally; the melee ends. Column
     * 4+5+2+2+1 = 14 (no defended position: note 7's +1 applies), infantry
     * 4+6+2 = 12. */
    {.name = "bua_no_defender_normal", .rule = "D21, note 7", .terrain = BRIGADE_TERRAIN_BUA,
     .round = 1,
     .units = {
               {FX_UNIT("col", A, INFANTRY, LINE, 4, 5, 24, .charging = true),
                .formation = FX_FORM(BRIGADE_FORMATION_COLUMN)},
               {FX_UNIT("vil", B, INFANTRY, LINE, 4, 6, 20,
                .defending = BRIGADE_DEFENDING_NONE)},
              },
     .rolls = {{"col.reform", {4, 4}}},
     .checks = {FX_MELEE(SCORE_A, 14), FX_MELEE(DIFFERENCE, 2),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_MELEE(CONTINUES, false)}},
    /* D29, D21 before D25: a BUA defender pushed back for the first time by
     * cavalry stays in the fight: pushed_back (not retreat), the melee goes on.
     * lc charging 4+5+4 = 13; village 12 3+4+2+2 = 11. Casualties: winning
     * cavalry on pushed-back foot 12/6 = 2 (D28); the infantry's 12/12 halved
     * = 0. The winner's test is not asserted here (see the report). */
    {.name = "bua_first_push_back_by_cavalry", .rule = "D29, D21 before D25",
     .terrain = BRIGADE_TERRAIN_BUA, .round = 1,
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 4, 5, 12, .charging = true)},
               {FX_UNIT("vil", B, INFANTRY, LINE, 3, 4, 12,
                .defending = BRIGADE_DEFENDING_BUILDING)},
              },
     .lenient_tests = true,
     .rolls_unchecked = true,
     .checks = {FX_MELEE(SCORE_A, 13), FX_MELEE(SCORE_B, 11), FX_MELEE(WINNER, BRIGADE_SIDE_A),
                FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_MELEE(CONTINUES, true),
                FX_IS("vil", STATUS, BRIGADE_STATUS_PUSHED_BACK), FX_IS("vil", CASUALTIES, 2),
                FX_IS("lc", CASUALTIES, 0)}},
};


int main(void)
{
    return FX_RUN_ROWS("results", rows, fx_row_test);
}
