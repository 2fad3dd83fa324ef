/*
 * core/field_names.h: each enumeration's name function (battle.h, melee.h)
 * taken as `const char *(int value)`, the shape a table of fields or of
 * enumerations holds (core/battle_fields.c, journal/event_codec.c): one
 * adapter an enumeration, here once. Out of range: "?", as the names give.
 */
#ifndef BRIGADE_CORE_FIELD_NAMES_H
#define BRIGADE_CORE_FIELD_NAMES_H

#include "core/battle.h"

static inline const char *type_n(int v) { return brigade_troop_type_name((brigade_troop_type)v); }
static inline const char *class_n(int v) { return brigade_class_name((brigade_class)v); }
static inline const char *formation_n(int v) { return brigade_formation_name((brigade_formation)v); }
static inline const char *status_n(int v) { return brigade_status_name((brigade_status)v); }
static inline const char *horses_n(int v) { return brigade_horses_name((brigade_horses)v); }
static inline const char *terrain_n(int v) { return brigade_terrain_name((brigade_terrain)v); }
static inline const char *defending_n(int v) { return brigade_defending_name((brigade_defending)v); }
static inline const char *bonus_n(int v) { return brigade_bonus_name((brigade_bonus)v); }
static inline const char *facing_n(int v) { return brigade_facing_name((brigade_facing)v); }
static inline const char *response_n(int v) { return brigade_response_name((brigade_response)v); }
static inline const char *result_n(int v) { return brigade_melee_result_name((brigade_melee_result)v); }
static inline const char *test_kind_n(int v) { return brigade_test_kind_name((brigade_test_kind)v); }
static inline const char *phase_n(int v) { return brigade_phase_name((brigade_phase)v); }
static inline const char *step_n(int v) { return brigade_step_name((brigade_step)v); }
static inline const char *end_cause_n(int v) { return brigade_end_cause_name((brigade_end_cause)v); }
static inline const char *end_result_n(int v) { return brigade_end_result_name((brigade_end_result)v); }
static inline const char *report_kind_n(int v) { return brigade_report_kind_name((brigade_report_kind)v); }
static inline const char *report_state_n(int v) { return brigade_report_state_name((brigade_report_state)v); }
static inline const char *side_n(int v) { return brigade_side_name((brigade_side)v); }
static inline const char *effect_n(int v) { return brigade_morale_effect_name((brigade_morale_effect)v); }
static inline const char *role_n(int v) { return brigade_general_role_name((brigade_general_role)v); }
static inline const char *rating_n(int v) { return brigade_general_rating_name((brigade_general_rating)v); }
static inline const char *outcome_n(int v) { return brigade_test_outcome_name((brigade_test_outcome)v); }
static inline const char *ruling_n(int v) { return brigade_umpire_ruling_name((brigade_umpire_ruling)v); }
static inline const char *auto_kind_n(int v) { return brigade_auto_kind_name((brigade_auto_kind)v); }
static inline const char *length_unit_n(int v) { return brigade_length_unit_name((brigade_length_unit)v); }

#endif
