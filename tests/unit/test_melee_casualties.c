/*
 * unit_melee_casualties: the casualty table of 12.20 (rules/melee.md §8)
 * row by row, the halving of 12.17 note 2, and D8 (sum over the side, drop
 * the fraction of the sum, share evenly, remainder on the largest), D28
 * (winning cavalry against pushed-back foot 1 per 6), D33 (a unit loses at
 * most its figures, the excess passes on; 0 figures: removed; a winner
 * removed takes no test), D19 (a battery is dispersed, not removed), D3
 * (casualties inflicted by fighting figures).
 *
 * Infantry is in line, class line, not charging, unless said otherwise.
 */
#include "melee_fixture.h"

/* Unit a (side A) against unit b (side B), of types `at` and `bt` (without
 * BRIGADE_TYPE_), class line, each with its roll; a charges if `acharge`. */
#define TWO(at, af, acharge, a0, a1, bt, bf, b0, b1)                                            \
    {.unit = {.id = "a", .side = BRIGADE_SIDE_A, .type = BRIGADE_TYPE_##at,                     \
              .unit_class = BRIGADE_CLASS_LINE, .figures = (af), .charging = (acharge)},        \
     .faces = {(a0), (a1)}},                                                                    \
    {.unit = {.id = "b", .side = BRIGADE_SIDE_B, .type = BRIGADE_TYPE_##bt,                     \
              .unit_class = BRIGADE_CLASS_LINE, .figures = (bf)},                               \
     .faces = {(b0), (b1)}}

/* The rows about casualties only: any reform or pursuit test is answered
 * 2,3 (fx_dice lenient_tests) and the rolls asked are not counted. */
#define LENIENT .lenient_tests = true, .rolls_unchecked = true

/* The cases, a row each (fx_row); the rows share a shape: they are the
 * table (issue 18 point 5). Each case is spelled out as its row of the
 * 12.20 table (or the D-rule it checks), its dice and the sums worked out
 * in its comment, so that a reader can check it against the rules; the
 * repetition is deliberate. */
static const fx_row rows[] = {
    /* 12.20 row 1: winning cavalry against broken foot: 1 per 1 (12 cavalry
     * kill 12). lc 12 charging 5+6+4 = 15; infantry 24 (2:1) 1+3+2+2 = 8:
     * broken. The infantry on cavalry: 24/12 = 2, halved (note 2) = 1. */
    {.name = "cav_wins_vs_broken_foot", .rule = "12.20 row 1",
     .units = {TWO(LIGHT_CAVALRY, 12, true, 5, 6, INFANTRY, 24, 1, 3)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("b", CASUALTIES, 12),
                FX_IS("b", FIGURES, 12), FX_IS("a", CASUALTIES, 1), FX_IS("a", FIGURES, 11)}},
    /* 12.20 row 1: against retreating foot too: lc 15 against infantry 24
     * 3+5+2+2 = 12, difference 3, retreat: 12 per 12. */
    {.name = "cav_wins_vs_retreating_foot", .rule = "12.20 row 1",
     .units = {TWO(LIGHT_CAVALRY, 12, true, 5, 6, INFANTRY, 24, 3, 5)},
     LENIENT,
     .checks = {FX_MELEE(DIFFERENCE, 3), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("b", CASUALTIES, 12), FX_IS("b", FIGURES, 12)}},
    /* 12.20 row 1 (Cossacks): Cossacks against retreating foot: 1 per 4.
     * Cossacks 12 charging 5+6+2 = 13; infantry 24 1+3+2+2 = 8: retreat (5).
     * 12/4 = 3; the infantry's 24/12 halved = 1. */
    {.name = "cossacks_vs_retreating_foot", .rule = "12.20 row 1 (Cossacks)",
     .units = {TWO(COSSACKS, 12, true, 5, 6, INFANTRY, 24, 1, 3)},
     LENIENT,
     .checks = {FX_MELEE(DIFFERENCE, 5), FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT),
                FX_IS("b", CASUALTIES, 3), FX_IS("b", FIGURES, 21), FX_IS("a", CASUALTIES, 1),
                FX_IS("a", FIGURES, 11)}},
    /* 12.20 row 2: winning cavalry against broken cavalry: 1 per 4. Heavy 16
     * 5+6+4 = 15; light 12 2+3+2 = 7: broken. 16/4 = 4; the light cavalry,
     * losing against cavalry, 12/8 = 1.5 -> 1 (row 4). */
    {.name = "cav_wins_vs_broken_cav", .rule = "12.20 row 2",
     .units = {TWO(HEAVY_CAVALRY, 16, false, 5, 6, LIGHT_CAVALRY, 12, 2, 3)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("b", CASUALTIES, 4),
                FX_IS("b", FIGURES, 8), FX_IS("a", CASUALTIES, 1), FX_IS("a", FIGURES, 15)}},
    /* 12.20 row 3: winning cavalry against pushed-back cavalry: 1 per 6. Heavy
     * 12 3+4+4 = 11; light 12 3+5+2 = 10: pushed back. 12/6 = 2; 12/8 = 1. */
    {.name = "cav_wins_vs_pushed_back_cav", .rule = "12.20 row 3",
     .units = {TWO(HEAVY_CAVALRY, 12, false, 3, 4, LIGHT_CAVALRY, 12, 3, 5)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_IS("b", CASUALTIES, 2),
                FX_IS("b", FIGURES, 10), FX_IS("a", CASUALTIES, 1), FX_IS("a", FIGURES, 11)}},
    /* 12.20 row 4: losing cavalry against cavalry: 1 per 8. Light 16 loses
     * (1+2+2 = 5) to heavy 12 (5+6+4 = 15, broken): 16/8 = 2 on the heavy. */
    {.name = "cav_loses_vs_cav", .rule = "12.20 row 4",
     .units = {TWO(HEAVY_CAVALRY, 12, false, 5, 6, LIGHT_CAVALRY, 16, 1, 2)},
     LENIENT,
     /* b: 12/4 */
     .checks = {FX_MELEE(WINNER, BRIGADE_SIDE_A), FX_IS("a", CASUALTIES, 2),
                FX_IS("a", FIGURES, 10), FX_IS("b", CASUALTIES, 3), FX_IS("b", FIGURES, 13)}},
    /* 12.20 row 5: losing cavalry against foot: 1 per 12. Infantry 24 5+6+2 =
     * 13 breaks light cavalry 24 1+2+2 = 5: the cavalry inflicts 24/12 = 2;
     * the infantry, winning against broken units, 24/6 = 4, halved = 2. */
    {.name = "cav_loses_vs_foot", .rule = "12.20 row 5",
     .units = {TWO(INFANTRY, 24, false, 5, 6, LIGHT_CAVALRY, 24, 1, 2)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("a", CASUALTIES, 2),
                FX_IS("a", FIGURES, 22), FX_IS("b", CASUALTIES, 2), FX_IS("b", FIGURES, 22)}},
    /* 12.17 note 2: in rough terrain the infantry's casualties on cavalry are
     * not halved: same melee in rough terrain (difference 8, broken): 24/6 = 4. */
    {.name = "infantry_vs_cav_rough_not_halved", .rule = "12.17 note 2",
     .terrain = BRIGADE_TERRAIN_ROUGH, .round = 1,
     .units = {TWO(INFANTRY, 24, false, 5, 6, LIGHT_CAVALRY, 24, 1, 2)},
     LENIENT,
     .checks = {FX_IS("b", CASUALTIES, 4), FX_IS("b", FIGURES, 20), FX_IS("a", CASUALTIES, 2),
                FX_IS("a", FIGURES, 22)}},
    /* 12.20 row 6: winning infantry against broken units: 1 per 6 (24/6 = 4);
     * losing infantry: 1 per 12 (24/12 = 2). 13 against 5. */
    {.name = "inf_wins_vs_broken", .rule = "12.20 row 6",
     .units = {TWO(INFANTRY, 24, false, 5, 6, INFANTRY, 24, 1, 2)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("b", CASUALTIES, 4),
                FX_IS("b", FIGURES, 20), FX_IS("a", CASUALTIES, 2), FX_IS("a", FIGURES, 22)}},
    /* 12.20 row 6: against retreating units: 1 per 6. 13 against 10. */
    {.name = "inf_wins_vs_retreating", .rule = "12.20 row 6",
     .units = {TWO(INFANTRY, 30, false, 5, 6, INFANTRY, 24, 3, 5)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT), FX_IS("b", CASUALTIES, 5),
                FX_IS("b", FIGURES, 19), FX_IS("a", CASUALTIES, 2), FX_IS("a", FIGURES, 28)}},
    /* 12.20 row 7: winning infantry against pushed-back units: 1 per 8
     * (24/8 = 3); losing 24/12 = 2. 11 against 10. */
    {.name = "inf_wins_vs_pushed_back", .rule = "12.20 row 7",
     .units = {TWO(INFANTRY, 24, false, 4, 5, INFANTRY, 24, 3, 5)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_IS("b", CASUALTIES, 3),
                FX_IS("b", FIGURES, 21), FX_IS("a", CASUALTIES, 2), FX_IS("a", FIGURES, 22)}},
    /* 12.20 row 8, D8: a losing battery inflicts 1 per 12 and artillery is not
     * halved against cavalry: battery 24 (1+2 = 3) broken by light cavalry 24
     * (5+6+2 = 13): 24/12 = 2 on the cavalry. The cavalry kills 24 per 24
     * (row 1): the battery is capped at its 24 figures and dispersed, not
     * removed (D19). */
    {.name = "artillery_loses_vs_cav_not_halved", .rule = "12.20 row 8, D8",
     .units = {TWO(LIGHT_CAVALRY, 24, false, 5, 6, ARTILLERY, 24, 1, 2)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("a", CASUALTIES, 2),
                FX_IS("a", FIGURES, 22), FX_IS("b", CASUALTIES, 24), FX_IS("b", FIGURES, 0),
                FX_IS("b", STATUS, BRIGADE_STATUS_DISPERSED)}},
    /* 12.20 row 6 for artillery, D8: a winning battery against retreating
     * cavalry, 1 per 6, not halved: battery 12 5+6 = 11, light cavalry 12
     * 1+2+2 = 5: 12/6 = 2; the cavalry, losing against foot, 12/12 = 1. */
    {.name = "artillery_wins_vs_cav_not_halved", .rule = "12.20 row 6 for artillery, D8",
     .units = {TWO(ARTILLERY, 12, false, 5, 6, LIGHT_CAVALRY, 12, 1, 2)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT), FX_IS("b", CASUALTIES, 2),
                FX_IS("b", FIGURES, 10), FX_IS("a", CASUALTIES, 1), FX_IS("a", FIGURES, 11)}},
    /* D8: open order is infantry for the halving: open order 24 5+6 = 11 drives
     * off light cavalry 24 1+2+2 = 5 (retreat): 24/6 = 4, halved = 2. */
    {.name = "open_order_vs_cav_halved", .rule = "D8",
     .units = {TWO(OPEN_ORDER, 24, false, 5, 6, LIGHT_CAVALRY, 24, 1, 2)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_RETREAT), FX_IS("b", CASUALTIES, 2),
                FX_IS("b", FIGURES, 22), FX_IS("a", CASUALTIES, 2), FX_IS("a", FIGURES, 22)}},
    /* D28: winning cavalry against pushed-back foot: 1 per 6 (a cavalry and
     * infantry side pushes infantry back, so D25 does not turn it into a
     * retreat). A: lc 12 charging 3+4+2+2 = 11, infantry 16 1+2+2 = 5; B:
     * infantry 28 3+4+2 = 9. On B: 12/6 + 16/8 = 4. */
    {.name = "cav_wins_vs_pushed_back_foot", .rule = "D28",
     .units = {
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 3, 4, 12, .charging = true)},
               {FX_UNIT("i", A, INFANTRY, LINE, 1, 2, 16)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 3, 4, 28)},
              },
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_PUSHED_BACK), FX_IS("inf", CASUALTIES, 4),
                FX_IS("inf", FIGURES, 24)}},
    /* D8: the fraction of the SUM is dropped: two losing light cavalry units of
     * 12 (1+2+2 = 5 and 2+3+2 = 7) against heavy cavalry 24 (5+6+4 = 15,
     * broken): each inflicts 12/8 = 1.5, together 3 (not 1 + 1). The heavy
     * cavalry inflicts 24/4 = 6 on them, 3 each. */
    {.name = "fraction_of_sum_dropped_cavalry", .rule = "D8",
     .units = {
               {FX_UNIT("l1", A, LIGHT_CAVALRY, LINE, 1, 2, 12)},
               {FX_UNIT("l2", A, LIGHT_CAVALRY, LINE, 2, 3, 12)},
               {FX_UNIT("hc", B, HEAVY_CAVALRY, LINE, 5, 6, 24)},
              },
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("hc", CASUALTIES, 3),
                FX_IS("hc", FIGURES, 21), FX_IS("l1", CASUALTIES, 3), FX_IS("l1", FIGURES, 9),
                FX_IS("l2", CASUALTIES, 3), FX_IS("l2", FIGURES, 9)}},
    /* D8, note 2: halving comes before dropping the fraction of the sum: two
     * losing battalions of 18 against light cavalry 36 each inflict 18/12 =
     * 1.5, halved 0.75: together 1.5 -> 1 (per unit it would be 0). Cavalry 36
     * 5+6+2 = 13; battalions 1+2+2 = 5, 1+3+2 = 6: broken. */
    {.name = "fraction_of_sum_halved", .rule = "D8, note 2",
     .units = {
               {FX_UNIT("i1", A, INFANTRY, LINE, 1, 2, 18)},
               {FX_UNIT("i2", A, INFANTRY, LINE, 1, 3, 18)},
               {FX_UNIT("lc", B, LIGHT_CAVALRY, LINE, 5, 6, 36)},
              },
     LENIENT,
     .checks = {FX_MELEE(WINNER, BRIGADE_SIDE_B), FX_IS("lc", CASUALTIES, 1),
                FX_IS("lc", FIGURES, 35)}},
    /* D8: shared evenly, what cannot be shared falls whole on the largest unit:
     * B 48 breaks A's 12, 20 and 12 (listed in that order): 48/6 = 8 = 2 + 2
     * + 2 and the remainder 2 on the 20: 2, 4, 2. B 5+6+2 = 13; A at most
     * 2+2+2 = 6. */
    {.name = "shared_remainder_on_largest", .rule = "D8",
     .units = {
               {FX_UNIT("s1", A, INFANTRY, LINE, 1, 2, 12)},
               {FX_UNIT("big", A, INFANTRY, LINE, 1, 3, 20)},
               {FX_UNIT("s2", A, INFANTRY, LINE, 2, 2, 12)},
               {FX_UNIT("w", B, INFANTRY, LINE, 5, 6, 48)},
              },
     LENIENT,
     /* A inflicts as losers 44/12 = 3.67 -> 3 on its single enemy. */
     .checks = {FX_MELEE(DIFFERENCE, 7), FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN),
                FX_IS("s1", CASUALTIES, 2), FX_IS("s1", FIGURES, 10),
                FX_IS("big", CASUALTIES, 4), FX_IS("big", FIGURES, 16),
                FX_IS("s2", CASUALTIES, 2), FX_IS("s2", FIGURES, 10), FX_IS("w", CASUALTIES, 3),
                FX_IS("w", FIGURES, 45)}},
    /* D8: remainder 1 over two units: B 42 breaks A's 12 and 20: 42/6 = 7 =
     * 3 + 3, remainder 1 on the 20: 3 and 4. */
    {.name = "shared_remainder_one", .rule = "D8",
     .units = {
               {FX_UNIT("s", A, INFANTRY, LINE, 1, 2, 12)},
               {FX_UNIT("big", A, INFANTRY, LINE, 1, 3, 20)},
               {FX_UNIT("w", B, INFANTRY, LINE, 5, 6, 42)},
              },
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("s", CASUALTIES, 3),
                FX_IS("s", FIGURES, 9), FX_IS("big", CASUALTIES, 4),
                FX_IS("big", FIGURES, 16)}},
    /* D8, D33: a unit loses at most its figures; the excess passes to the next
     * largest. B 72 (+2 numbers: 13) breaks A's 20 (1+2+2 = 5) and 2 (1+3+2 =
     * 6): 72/6 = 12, 6 and 6; the 2-figure unit loses 2 and is removed, the
     * excess 4 goes to the 20: it loses 10. */
    {.name = "capped_excess_to_next_largest", .rule = "D8, D33",
     .units = {
               {FX_UNIT("big", A, INFANTRY, LINE, 1, 2, 20)},
               {FX_UNIT("tiny", A, INFANTRY, LINE, 1, 3, 2)},
               {FX_UNIT("w", B, INFANTRY, LINE, 4, 5, 72)},
              },
     LENIENT,
     .checks = {FX_MELEE(SCORE_B, 13), FX_MELEE(DIFFERENCE, 7), FX_IS("tiny", CASUALTIES, 2),
                FX_IS("tiny", FIGURES, 0), FX_IS("tiny", STATUS, BRIGADE_STATUS_REMOVED),
                FX_IS("tiny", FORMED, false), FX_IS("big", CASUALTIES, 10),
                FX_IS("big", FIGURES, 10), FX_IS("big", STATUS, BRIGADE_STATUS_BROKEN)}},
    /* D8: a unit brought to 0 figures is removed: lc 24 charging (2:1, +2)
     * 3+4+2+2+2 = 13 breaks infantry 10 (1+2+2 = 5): 24 casualties capped at
     * 10. The infantry's 10/12 halved is 0. */
    {.name = "wiped_out_removed", .rule = "D8",
     .units = {TWO(LIGHT_CAVALRY, 24, true, 3, 4, INFANTRY, 10, 1, 2)},
     LENIENT,
     .checks = {FX_MELEE(DIFFERENCE, 8), FX_IS("b", CASUALTIES, 10), FX_IS("b", FIGURES, 0),
                FX_IS("b", STATUS, BRIGADE_STATUS_REMOVED), FX_IS("b", FORMED, false),
                FX_IS("a", CASUALTIES, 0), FX_IS("a", FIGURES, 24)}},
    /* D19: a battery that loses is dispersed even when brought to 0 figures:
     * light cavalry 10 charging (4 figures: 2:1, +2) 5+6+2+2+2 = 17; battery 4
     * 2+3 = 5: 10 per 10 capped at 4; the battery inflicts 4/12 = 0 (the
     * shared case artillery_loses). */
    {.name = "battery_dispersed_over_removed", .rule = "D19",
     .units = {TWO(LIGHT_CAVALRY, 10, true, 5, 6, ARTILLERY, 4, 2, 3)},
     LENIENT,
     .checks = {FX_MELEE(SCORE_A, 17), FX_IS("b", CASUALTIES, 4), FX_IS("b", FIGURES, 0),
                FX_IS("b", STATUS, BRIGADE_STATUS_DISPERSED), FX_IS("a", CASUALTIES, 0),
                FX_IS("a", FIGURES, 10)}},
    /* D33: a winning unit brought to 0 figures is removed and takes no test.
     * A: heavy 12 charging 5+6+4+2 = 17 and light 1 charging 1+2+2+2 = 7; B:
     * infantry 96 (+2 numbers) 1+3+2+2 = 8: broken. B, losing, inflicts 96/12
     * = 8, halved = 4: 2 and 2, the light's 1 figure capped, the excess 1 to
     * the heavy: 3 and 1. */
    {.name = "winner_removed_no_test", .rule = "D33",
     .units = {
               {FX_UNIT("hc", A, HEAVY_CAVALRY, LINE, 5, 6, 12, .charging = true)},
               {FX_UNIT("lc", A, LIGHT_CAVALRY, LINE, 1, 2, 1, .charging = true)},
               {FX_UNIT("inf", B, INFANTRY, LINE, 1, 3, 96)},
              },
     .rolls = {{"hc.pursuit", {3, 4}}},
     /* 12/1 + 1/1 = 13 on the infantry. */
     .checks = {FX_MELEE(SCORE_A, 17), FX_MELEE(SCORE_B, 8),
                FX_MELEE(RESULT, BRIGADE_RESULT_BROKEN), FX_IS("lc", CASUALTIES, 1),
                FX_IS("lc", FIGURES, 0), FX_IS("lc", STATUS, BRIGADE_STATUS_REMOVED),
                FX_IS("lc", FORMED, false), FX_IS("lc", TEST_KIND, BRIGADE_TEST_NONE),
                FX_IS("hc", CASUALTIES, 3), FX_IS("hc", FIGURES, 9),
                FX_IS("hc", TEST_KIND, BRIGADE_TEST_PURSUIT), FX_IS("inf", CASUALTIES, 13),
                FX_IS("inf", FIGURES, 83)}},
    /* D3, D8: casualties are inflicted by fighting figures: light cavalry 24, 3
     * to a rank, fights with 12 in round 1. It loses (1+2+2+2 = 7 against
     * infantry 12 5+6+2 = 13, retreat) and inflicts 12/12 = 1 (not 24/12 = 2);
     * the infantry inflicts 12/6 = 2 halved = 1. */
    {.name = "cavalry_ranks_casualties", .rule = "D3, D8",
     .units = {
               {FX_UNIT("a", A, LIGHT_CAVALRY, LINE, 1, 2, 24, .charging = true, .ranks = 3)},
               {FX_UNIT("b", B, INFANTRY, LINE, 5, 6, 12)},
              },
     LENIENT,
     .checks = {FX_FIGHTING("a", 12), FX_MELEE(DIFFERENCE, 6), FX_IS("b", CASUALTIES, 1),
                FX_IS("b", FIGURES, 11), FX_IS("a", CASUALTIES, 1), FX_IS("a", FIGURES, 23)}},
    /* D14: in a draw between cavalry and foot both count as losers: cavalry 24
     * on foot 24/12 = 2; infantry 24 on cavalry 24/12 halved = 1. lc 24
     * charging 2+3+4 = 9; infantry 24 3+4+2 = 9. */
    {.name = "draw_cavalry_foot_both_losers", .rule = "D14",
     .units = {TWO(LIGHT_CAVALRY, 24, true, 2, 3, INFANTRY, 24, 3, 4)},
     LENIENT,
     .checks = {FX_MELEE(RESULT, BRIGADE_RESULT_DRAW), FX_IS("b", CASUALTIES, 2),
                FX_IS("b", FIGURES, 22), FX_IS("a", CASUALTIES, 1), FX_IS("a", FIGURES, 23)}},
};


int main(void)
{
    return FX_RUN_ROWS("casualties", rows, fx_row_test);
}
