/*
 * client-cli/game_input.c: the command language of `brigade play` (see
 * game_input.h), parsed into protocol_action (protocol/message.h) and local
 * commands. Names of phases, steps and statuses come from core/ and
 * protocol/, never spelled here.
 */
#include "game_input.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/battle.h"
#include "core/helpers.h"
#include "core/melee.h"
#include "game_display.h"
#include "game_rules.h"

/* Longest line accepted, in bytes. */
#define GAME_INPUT_LINE_MAX 1000
/* Most words on one line. */
#define GAME_INPUT_WORDS_MAX 24
/* Entries `log` lists when no number is given. */
#define GAME_INPUT_LOG_DEFAULT 20

typedef struct game_input_words game_input_words;
typedef struct game_input_call game_input_call;

/* Reads a command's words after its name into input (the row's kind and
 * action kind already set, its word count checked when the row gives
 * one). 0, or -1 with message[size] saying what is wrong. */
typedef int game_input_parse_fn(const game_input_call *call);

/* One command of the language, for parsing and for help: a row of the
 * command table (game_input_parse looks the typed name up in it). */
typedef struct game_input_command {
    const char *name;
    const char *syntax;
    const char *when;
    const char *what;
    int audience; /* 0: every seat; 1: the players only; 2: the umpire only */
    int offer;    /* a game_offer_kind: listed (with a state) only when offered; -1: always */
    game_input_kind kind;       /* what the line is */
    protocol_action_kind action; /* GAME_INPUT_ACT: the action it sends */
    int words_min, words_max;   /* words after the name; -1: its parser checks them */
    game_input_parse_fn *parse; /* NULL: the name alone */
} game_input_command;

/* What a parser reads and writes: the row, the line as typed and split
 * into words, the context (NULL without one) and its state (NULL without
 * one); what the line is (input) with its action (&input->action); where
 * a refusal says why (message[size]). */
struct game_input_call {
    const game_input_command *command;
    const char *line;
    const game_input_context *context;
    const game_input_words *words;
    const protocol_value *state;
    game_input *input;
    protocol_action *action;
    char *message;
    size_t size;
};

static game_input_parse_fn game_input_initiative, game_input_charge, game_input_uncontrolled,
    game_input_respond, game_input_unit_report, game_input_reroll, game_input_adjust,
    game_input_contact, game_input_contest, game_input_accept, game_input_wait, game_input_log,
    game_input_umpire, game_input_settle, game_input_overrule, game_input_rule,
    game_input_rollback;

/* A row's last five members: an action it sends (its kind, the words after
 * the name, its parser), or a local command of the name alone. */
#define GAME_INPUT_ACTION(kind, words_min, words_max, parse)                                     \
    GAME_INPUT_ACT, PROTOCOL_ACTION_##kind, words_min, words_max, parse
#define GAME_INPUT_LOCAL(kind) GAME_INPUT_##kind, PROTOCOL_ACTION_DONE, 0, 0, NULL

static const game_input_command game_input_commands[] = {
    {"initiative", "initiative A|B",
     "Initiative phase (step choose), by the seat that won the roll",
     "choose which side is phasing this turn", 1, -1,
     GAME_INPUT_ACTION(CHOOSE_INITIATIVE, 1, 1, game_input_initiative)},
    {"charge", "charge UNIT TARGET [front|flank|rear] [leading] [sappers] [reinforce]",
     "Charge phase (step declare), when your side is awaited",
     "declare a charge of your UNIT on the enemy TARGET, striking its front (the\n"
     "default), flank or rear; leading: its general leads (12.4); sappers: it brings\n"
     "the brigade's sappers (12.10); reinforce: it joins a melee in contact (12.8)", 1, -1,
     GAME_INPUT_ACTION(DECLARE_CHARGE, 2, 6, game_input_charge)},
    {"uncontrolled", "uncontrolled UNIT TARGET [front|flank|rear]\n  uncontrolled UNIT none",
     "Charge phase (step declare), for a pursuing UNIT of yours with no enemy to\n"
     "pursue (12.24 f)",
     "name the target of your pursuing UNIT's uncontrolled charge: the nearest enemy\n"
     "in sight within 22 degrees, struck in the front (the default), flank or rear;\n"
     "none: there is none in sight. Without it the unit is blown when the phase\n"
     "ends (12.24 g). The other side may contest it", 1, GAME_OFFER_UNCONTROLLED,
     GAME_INPUT_ACTION(UNCONTROLLED_CHARGE, -1, -1, game_input_uncontrolled)},
    {"respond", "respond UNIT stand|countercharge",
     "Charge phase (step respond), by the owner of a charged unit",
     "answer a charge on your UNIT: it stands, or counter-charges its charger; a\n"
     "square, a battery, an unformed, pursuing (12.24 f) or engaged unit, and a\n"
     "unit defending a built-up area against a charger outside it (12.9) only stand",
     1, GAME_OFFER_RESPOND,
     GAME_INPUT_ACTION(RESPOND, 2, 2, game_input_respond)},
    {"withdraw", "withdraw UNIT",
     "Charge phase (step declare), when your side is awaited, before your done",
     "take back the charge (or the uncontrolled-charge report) your UNIT declared\n"
     "this turn, as if it had never been declared", 1, GAME_OFFER_WITHDRAW,
     GAME_INPUT_ACTION(WITHDRAW_CHARGE, 1, 1, game_input_unit_report)},
    {"occupy", "occupy UNIT",
     "Charge phase (step occupy), for a charger of yours whose built-up area's\n"
     "defenders fled (12.9 e)",
     "name a charging UNIT of yours that occupies the built-up area (at least one,\n"
     "12.9 f); it rolls its reform test at once (12.22 b)", 1, GAME_OFFER_OCCUPY,
     GAME_INPUT_ACTION(OCCUPY, 1, 1, game_input_unit_report)},
    {"reroll", "reroll UNIT 0|1|decline",
     "Melee phase (step reroll), when your UNIT's sappers may re-roll (12.10)",
     "re-roll die 0 or die 1 of the unit's melee dice, or keep both", 1, -1,
     GAME_INPUT_ACTION(SAPPERS_REROLL, 2, 2, game_input_reroll)},
    {"adjust", "adjust UNIT [figures=N] [formed=yes|no] [status=S] [formation=F] note=\"text\"",
     "Mandatory moves, Movement, Fire and Morale (step report), either side's units",
     "report what happened on the table; the note is required. Of your own unit\n"
     "it applies at once; of the other side's unit it is a report that side\n"
     "answers (accept or contest) before its done. (S: normal,\n"
     "retreating, broken, pursuing, pushed_back, dispersed, removed, blown; F: a\n"
     "formation the unit's type may take: line, column, square, austrian_mass,\n"
     "open_order, skirmish, march_column, unlimbered, limbered)", 1, -1,
     GAME_INPUT_ACTION(ADJUST, 2, 6, game_input_adjust)},
    {"contact", "contact PURSUER UNIT",
     "Mandatory moves (step report), for a pursuing unit of yours (12.24, 12.25)",
     "report that your PURSUER's pursuit reached the enemy UNIT: the one it pursues,\n"
     "a friend of it that a fleeing unit unformed in passing, or skirmishers it\n"
     "passed through. It changes the other side's units: it stands once that side\n"
     "accepts it (or the umpire upholds it)", 1, GAME_OFFER_CONTACT,
     GAME_INPUT_ACTION(CONTACT, 2, 2, game_input_contact)},
    {"reform", "reform UNIT",
     "Movement phase (step report), for an unformed UNIT of yours that is normal\n"
     "and in no melee",
     "report that your UNIT spends its move reforming: it is formed when the phase\n"
     "ends. The other side may contest it", 1, GAME_OFFER_REFORM,
     GAME_INPUT_ACTION(REFORM, 1, 1, game_input_unit_report)},
    {"rally", "rally UNIT",
     "Morale phase (step report), for a broken UNIT of yours that made its broken\n"
     "move this turn (12.19 a)",
     "report that your broken UNIT rallies: it is normal (still unformed) when the\n"
     "phase ends. The other side may contest it", 1, GAME_OFFER_RALLY,
     GAME_INPUT_ACTION(RALLY, 1, 1, game_input_unit_report)},
    {"contest", "contest REPORT REASON",
     "while your side is awaited and before its done, for a report of the other\n"
     "side in this phase (the screen lists them under 'reports this phase')",
     "contest the other side's report number REPORT, saying why: with an umpire\n"
     "seated it waits for the umpire's ruling; without one a report about the\n"
     "other side's own unit stands, a contact does not, and the contest goes to\n"
     "the log", 1, GAME_OFFER_CONTEST,
     GAME_INPUT_ACTION(CONTEST, -1, -1, game_input_contest)},
    {"accept", "accept REPORT",
     "for a report of the other side that awaits your answer (a contact, an\n"
     "adjust of your unit)",
     "accept the other side's report number REPORT: it stands", 1,
     GAME_OFFER_ACCEPT,
     GAME_INPUT_ACTION(ACCEPT, 1, 1, game_input_accept)},
    {"done", "done", "Charge (steps declare and occupy) and the report steps of Mandatory moves,\n"
     "Movement, Fire and Morale, when they await your side",
     "say your side has finished this step", 1, -1,
     GAME_INPUT_ACTION(DONE, 0, 0, NULL)},
    {"wait", "wait COND...",
     "any time (for scripts)",
     "block until the state satisfies every COND: turn=N, phase=P, step=S,\n"
     "awaiting=A|B|none, phasing=A|B|none, seq=N (at least N), held=yes|no (the\n"
     "umpire holds the game); gives up after --timeout seconds (exit 1)", 0, -1,
     GAME_INPUT_WAIT, PROTOCOL_ACTION_DONE, -1, -1, game_input_wait},
    {"state", "state", "any time", "show the turn, phase, units, charges and melees", 0, -1,
     GAME_INPUT_LOCAL(STATE)},
    {"log", "log [N|all]", "any time",
     "list the log's last N entries (20 by default; all: every one), each with the\n"
     "seq of the action that made it; entries an umpire rolled back say so", 0, -1,
     GAME_INPUT_LOG, PROTOCOL_ACTION_DONE, 0, 1, game_input_log},
    {"hash", "hash", "any time", "print the local snapshot's seq and SHA-256 hash", 0, -1,
     GAME_INPUT_LOCAL(HASH)},
    {"who", "who", "any time",
     "show who is connected: each side, the umpire, and how many spectators watch", 0, -1,
     GAME_INPUT_LOCAL(WHO)},
    {"help", "help", "any time", "print this list", 0, -1,
     GAME_INPUT_LOCAL(HELP)},
    {"quit", "quit", "any time", "leave (end of input does the same)", 0, -1,
     GAME_INPUT_LOCAL(QUIT)},
    {"hold", "hold REASON", "any time after the battle begins, the umpire",
     "hold the game: the players' actions are refused (held) until release", 2, -1,
     GAME_INPUT_ACTION(HOLD, -1, -1, game_input_umpire)},
    {"release", "release REASON", "while the game is held, the umpire",
     "let the game go on", 2, -1,
     GAME_INPUT_ACTION(RELEASE, -1, -1, game_input_umpire)},
    {"note", "note TEXT", "any time after the battle begins, the umpire",
     "add TEXT to the game's log", 2, -1,
     GAME_INPUT_ACTION(NOTE, -1, -1, game_input_umpire)},
    {"umpire-adjust",
     "umpire-adjust UNIT [figures=N] [formed=yes|no] [status=S] [formation=F] reason=\"text\"",
     "any time after the battle begins, the umpire",
     "set a unit's figures, formed, status or formation (any side, any phase); the\n"
     "reason is required and goes to the log", 2, -1,
     GAME_INPUT_ACTION(UMPIRE_ADJUST, 2, 6, game_input_adjust)},
    {"settle", "settle UNIT double_six|risk_to_general REASON",
     "while the event waits for you (the screen says 'waiting for the umpire to\n"
     "settle'; the Melee phase stops in step settle until every one is settled)",
     "settle a double six or risk to a general (12.15) of UNIT's melee:\n"
     "REASON says what you ruled; record what the\n"
     "ruling does to units with umpire-adjust", 2, -1,
     GAME_INPUT_ACTION(SETTLE, -1, -1, game_input_settle)},
    {"overrule", "overrule MELEE RESULT [A|B] [UNIT OUTCOME] REASON\n"
     "  overrule MELEE UNIT OUTCOME REASON",
     "for a melee fought this turn (the screen lists them under 'melees fought\n"
     "this turn')",
     "fight the melee again with the same dice and RESULT imposed (broken, retreat,\n"
     "pushed_back, draw, square_holds; the winner A or B follows all but draw),\n"
     "and/or UNIT's reform or pursuit test OUTCOME (pass, fail; excellent, unformed,\n"
     "blown, pursuit); casualties and statuses follow the tables (12.18-12.23)", 2, -1,
     GAME_INPUT_ACTION(OVERRULE, -1, -1, game_input_overrule)},
    {"rule", "rule REPORT upheld|rejected REASON",
     "for a contested report that awaits your ruling (the screen lists them under\n"
     "'reports this phase')",
     "rule on the contested report REPORT: upheld, it stands; rejected, it does not;\n"
     "REASON goes to the log", 2, GAME_OFFER_RULE,
     GAME_INPUT_ACTION(RULE, -1, -1, game_input_rule)},
    {"rollback", "rollback SEQ REASON",
     "any time after the battle begins, to a seq of the battle ('log' lists them)",
     "take the game back to the state after the action of SEQ; later entries stay in\n"
     "the log marked rolled back; the game is then held until you release it", 2, -1,
     GAME_INPUT_ACTION(ROLLBACK, -1, -1, game_input_rollback)},
    {"end", "end [result=A|B|draw] REASON", "any time after the battle begins, the umpire",
     "end the battle (a time limit, the players' agreement): nothing more can be\n"
     "played or rolled back, and the dice seed is revealed for 'brigade verify';\n"
     "result= gives the game's result: a win for side A's side, for side B's, or a\n"
     "draw (in a tournament, the table's result; without it the organiser gives it)", 2, -1,
     GAME_INPUT_ACTION(END, -1, -1, game_input_umpire)},
};

#define GAME_INPUT_COMMAND_COUNT ((size_t)BRIGADE_COUNT_OF(game_input_commands))

/* Writes `text`, each line after the first indented by `indent`. */
static void game_input_help_lines(FILE *out, const char *text, const char *indent)
{
    for (const char *c = text; *c; c++) {
        fputc(*c, out);
        if (*c == '\n')
            fputs(indent, out);
    }
}

/* `text` as one paragraph (its line breaks are spaces) from `column`,
 * wrapped before column 80 at spaces, each further line indented by
 * `indent` spaces: the help fits 80 columns with whole words (a word
 * longer than a line stands alone). Columns count UTF-8 characters. */
static void game_input_help_wrap(FILE *out, const char *text, size_t column, size_t indent)
{
    const size_t width = 79;
    const char *c = text;
    bool first = true;
    while (*c) {
        while (*c == ' ' || *c == '\n')
            c++;
        if (!*c)
            break;
        size_t length = 0, columns = 0;
        while (c[length] && c[length] != ' ' && c[length] != '\n') {
            columns += ((unsigned char)c[length] & 0xC0) != 0x80;
            length++;
        }
        if (!first && column + 1 + columns > width) {
            fprintf(out, "\n%*s", (int)indent, "");
            column = indent;
        } else if (!first) {
            fputc(' ', out);
            column++;
        }
        fwrite(c, 1, length, out);
        column += columns;
        c += length;
        first = false;
    }
}

/* What an offered command may name now: "hussars", "3 (contact dragoons
 * -> hussars)", for the help's "allowed now:" line. */
static void game_input_help_offers(FILE *out, const protocol_value *state, const game_offer *offers,
                                   size_t count, game_offer_kind kind)
{
    size_t listed = 0;
    fputs("\n      allowed now: ", out);
    for (size_t i = 0; i < count; i++) {
        if (offers[i].kind != kind)
            continue;
        fputs(listed++ ? ", " : "", out);
        if (kind == GAME_OFFER_CONTEST || kind == GAME_OFFER_ACCEPT || kind == GAME_OFFER_RULE) {
            char what[GAME_RULES_WHAT_SIZE];
            game_rules_report_what(game_rules_report(state, offers[i].report), what,
                                   sizeof(what));
            fprintf(out, "%s %" PRId64 " (", game_offer_command(kind), offers[i].report);
            game_display_text(out, what);
            fputs(")", out);
        } else {
            fprintf(out, "%s ", game_offer_command(kind));
            game_display_text(out, offers[i].unit);
            if (kind == GAME_OFFER_RESPOND)
                fputs(offers[i].countercharge ? " stand|countercharge" : " stand", out);
        }
    }
}

void game_input_help_write(FILE *out, const char *seat, const protocol_value *state)
{
    bool umpire = seat && strcmp(seat, "umpire") == 0;
    bool spectator = seat && strcmp(seat, "spectator") == 0;
    bool known = protocol_value_kind_of(state) == PROTOCOL_VALUE_MAP;
    game_offer offers[GAME_OFFERS_MAX];
    size_t offer_count = known ? game_rules_offers(state, seat, offers, GAME_OFFERS_MAX) : 0;
    if (spectator)
        fputs("You watch as a spectator: you see the battle and cannot act (the players'\n"
              "and the umpire's orders are refused, read_only). Your commands (words in\n"
              "CAPITALS are yours to fill in; [..] is optional):\n",
              out);
    else
        fputs("Commands (words in CAPITALS are yours to fill in; [..] is optional):\n", out);
    size_t hidden = 0;
    for (size_t i = 0; i < GAME_INPUT_COMMAND_COUNT; i++) {
        const game_input_command *command = &game_input_commands[i];
        if (spectator ? command->audience != 0 : command->audience == (umpire ? 1 : 2))
            continue;
        bool offered = command->offer >= 0 &&
                       game_rules_offered(offers, offer_count, (game_offer_kind)command->offer);
        /* respond is listed always, its units when there are some. */
        bool always = command->offer == GAME_OFFER_RESPOND;
        if (known && command->offer >= 0 && !offered && !always) {
            hidden++;
            continue;
        }
        fputs("\n  ", out);
        game_input_help_lines(out, command->syntax, "  ");
        fputs("\n      ", out);
        game_input_help_wrap(out, command->what, 6, 6);
        fputs("\n      allowed: ", out);
        game_input_help_wrap(out, command->when, 15, 6);
        if (offered)
            game_input_help_offers(out, state, offers, offer_count,
                                   (game_offer_kind)command->offer);
        fputc('\n', out);
    }
    if (hidden && umpire)
        fputs("\n(rule REPORT upheld|rejected REASON is listed when a contested report awaits "
              "your\nruling; none does now.)\n",
              out);
    else if (hidden)
        fputs("\n(The reports of the rules and their answers, rally, reform, uncontrolled,\n"
              "contact, contest, accept and occupy, are listed when the rules allow them for\n"
              "your side; those not listed are not allowed now.)\n",
              out);
    fputs("\nA double-quoted part may hold blanks (\\\" and \\\\ inside it); '#' starts\n"
          "a comment.\n",
          out);
}

/* ----------------------------------------------------------------- words */

typedef struct game_input_words {
    char buffer[GAME_INPUT_LINE_MAX + 1];
    char *words[GAME_INPUT_WORDS_MAX];
    size_t count;
} game_input_words;

static int game_input_fail(char *message, size_t size, const char *format, ...)
    BRIGADE_PRINTF(3, 4);

static int game_input_fail(char *message, size_t size, const char *format, ...)
{
    if (message && size) {
        va_list args;
        va_start(args, format);
        vsnprintf(message, size, format, args);
        va_end(args);
    }
    return -1;
}

/* game_input_fail into a parser's call->message[size]: -1. */
#define GAME_INPUT_REFUSE(call, ...) game_input_fail((call)->message, (call)->size, __VA_ARGS__)

/* Splits `line` into words (see game_input.h). */
static int game_input_split(const char *line, game_input_words *words, char *message,
                            size_t size)
{
    size_t length = strlen(line);
    while (length && (line[length - 1] == '\n' || line[length - 1] == '\r'))
        length--;
    if (length > GAME_INPUT_LINE_MAX)
        return game_input_fail(message, size, "the line is too long (at most %d characters)",
                               GAME_INPUT_LINE_MAX);
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)line[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return game_input_fail(message, size,
                                   "the line holds a control character (byte 0x%02x at "
                                   "column %zu)",
                                   c, i + 1);
    }
    if (!brigade_utf8_valid(line, length))
        return game_input_fail(message, size, "the line is not valid UTF-8 text");

    words->count = 0;
    char *out = words->buffer;
    size_t i = 0;
    for (;;) {
        while (i < length && (line[i] == ' ' || line[i] == '\t'))
            i++;
        if (i >= length || line[i] == '#')
            break;
        if (words->count == GAME_INPUT_WORDS_MAX)
            return game_input_fail(message, size, "too many words (at most %d)",
                                   GAME_INPUT_WORDS_MAX);
        words->words[words->count++] = out;
        bool quoted = false;
        size_t quote_column = 0;
        while (i < length && (quoted || (line[i] != ' ' && line[i] != '\t'))) {
            char c = line[i++];
            if (c == '"') {
                quoted = !quoted;
                quote_column = i;
            } else if (quoted && c == '\\' && i < length && (line[i] == '"' || line[i] == '\\')) {
                *out++ = line[i++];
            } else {
                *out++ = c;
            }
        }
        if (quoted)
            return game_input_fail(message, size,
                                   "the quote opened at column %zu is not closed", quote_column);
        *out++ = '\0';
    }
    return 0;
}

/* -------------------------------------------------------------- values */

/* A whole number in [minimum, maximum], decimal digits only. */
static bool game_input_number(const char *word, int64_t minimum, int64_t maximum, int64_t *out)
{
    if (!word[0] || strlen(word) > 18)
        return false;
    int64_t value = 0;
    for (const char *c = word; *c; c++) {
        if (!isdigit((unsigned char)*c))
            return false;
        value = value * 10 + (*c - '0');
    }
    if (value < minimum || value > maximum)
        return false;
    *out = value;
    return true;
}

/* Lists the state's unit ids into `out` ("hussars, dragoons"), at most a
 * dozen. */
static void game_input_unit_list(const protocol_value *state, char *out, size_t size)
{
    const protocol_value *units = protocol_value_map_get(state, "units");
    size_t count = protocol_value_count(units);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < count && i < 12; i++) {
        const char *key = protocol_value_map_key_at(units, i, NULL);
        int written = snprintf(out + used, size - used, "%s%s", i ? ", " : "", key ? key : "?");
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
    if (count > 12 && used + 6 < size)
        strcat(out, ", ...");
}

/* Checks a unit id: 1..PROTOCOL_UNIT_ID_MAX bytes, no '.', and, when the
 * state has units, one of them. Copies it into out. */
static int game_input_unit(const char *command, const char *role, const char *word,
                           const protocol_value *state, char out[PROTOCOL_UNIT_ID_MAX + 1],
                           char *message, size_t size)
{
    size_t length = strlen(word);
    if (length == 0)
        return game_input_fail(message, size, "%s: the %s is empty", command, role);
    if (length > PROTOCOL_UNIT_ID_MAX)
        return game_input_fail(message, size, "%s: %s '%.40s...' is too long (at most %d bytes)",
                               command, role, word, PROTOCOL_UNIT_ID_MAX);
    if (strchr(word, '.') || strchr(word, '='))
        return game_input_fail(message, size, "%s: '%s' is not a unit id (%s)", command, word,
                               strchr(word, '.') ? "no '.' in unit ids" : "a unit id has no '='");
    const protocol_value *units = protocol_value_map_get(state, "units");
    if (protocol_value_kind_of(units) == PROTOCOL_VALUE_MAP &&
        !protocol_value_map_get(units, word)) {
        char list[400];
        game_input_unit_list(state, list, sizeof(list));
        return game_input_fail(message, size, "%s: no unit '%s' (the units are: %s)", command,
                               word, list[0] ? list : "none");
    }
    memcpy(out, word, length + 1);
    return 0;
}

static int game_input_arguments(const char *command, const game_input_words *words,
                                size_t minimum, size_t maximum, const char *syntax,
                                char *message, size_t size)
{
    size_t given = words->count - 1;
    if (given < minimum || given > maximum) {
        if (given < minimum)
            return game_input_fail(message, size, "%s: missing %s (usage: %s)", command,
                                   minimum - given == 1 ? "a word" : "words", syntax);
        return game_input_fail(message, size, "%s: unexpected '%s' (usage: %s)", command,
                               words->words[maximum + 1], syntax);
    }
    return 0;
}


/* The row of the command named `name`, or of the help and quit aliases
 * (?, exit); NULL when there is none. */
static const game_input_command *game_input_command_find(const char *name)
{
    if (strcmp(name, "?") == 0)
        name = "help";
    else if (strcmp(name, "exit") == 0)
        name = "quit";
    for (size_t i = 0; i < GAME_INPUT_COMMAND_COUNT; i++)
        if (strcmp(game_input_commands[i].name, name) == 0)
            return &game_input_commands[i];
    return NULL;
}

/* The usage of the command `name` (its row's syntax), or the name itself. */
static const char *game_input_syntax(const char *name)
{
    const game_input_command *command = game_input_command_find(name);
    return command ? command->syntax : name;
}

/* ------------------------------------------------------------ commands */

/* The two units a command names first (call->words 1 and 2, game_input_unit
 * each): `first` (its role in the messages) into first_id, then `second`
 * into second_id. 0, or -1 with the call's message saying which is wrong. */
static int game_input_two_units(const game_input_call *call, const char *first,
                                char first_id[PROTOCOL_UNIT_ID_MAX + 1], const char *second,
                                char second_id[PROTOCOL_UNIT_ID_MAX + 1])
{
    const char *command = call->command->name;
    if (game_input_unit(command, first, call->words->words[1], call->state, first_id,
                        call->message, call->size) ||
        game_input_unit(command, second, call->words->words[2], call->state, second_id,
                        call->message, call->size))
        return -1;
    return 0;
}

static int game_input_initiative(const game_input_call *call)
{
    const char *word = call->words->words[1];
    protocol_seat seat;
    char upper[2] = {(char)toupper((unsigned char)word[0]), '\0'};
    if (strlen(word) != 1 || !protocol_seat_parse(upper, &seat))
        return GAME_INPUT_REFUSE(call, "initiative: '%s' is not a side (A or B)", word);
    call->action->as.choose_initiative.phasing = seat;
    return 0;
}

/* A charge of `seat`'s own pursuing unit that has no enemy to pursue
 * (game_rules.h): its only charge is the uncontrolled one (12.24 f, D38),
 * which the charge becomes, with a notice. Flags it cannot carry are
 * refused. */
static int game_input_charge_uncontrolled(const protocol_value *state, const char *seat,
                                          game_input *input, char *message, size_t size)
{
    protocol_action *action = &input->action;
    char unit[PROTOCOL_UNIT_ID_MAX + 1], target[PROTOCOL_UNIT_ID_MAX + 1];
    const protocol_value *record = protocol_value_map_get(protocol_value_map_get(state, "units"),
                                                          action->as.declare_charge.unit);
    const char *side = protocol_value_string_get(protocol_value_map_get(record, "side"), NULL);
    const char *status = protocol_value_string_get(protocol_value_map_get(record, "status"), NULL);
    if (!seat || !side || !status || strcmp(seat, side) != 0 || strcmp(status, "pursuing") != 0 ||
        game_rules_has_enemy_to_pursue(state, action->as.declare_charge.unit))
        return 0;
    memcpy(unit, action->as.declare_charge.unit, sizeof(unit));
    memcpy(target, action->as.declare_charge.target, sizeof(target));
    protocol_facing facing = action->as.declare_charge.facing;
    if (action->as.declare_charge.leading || action->as.declare_charge.sappers ||
        action->as.declare_charge.reinforce)
        return game_input_fail(message, size,
                               "charge: '%s' is pursuing with no enemy to pursue: its only "
                               "charge is the uncontrolled one, without %s (12.24 f): "
                               "uncontrolled %s %s %s",
                               unit,
                               action->as.declare_charge.leading   ? "'leading'"
                               : action->as.declare_charge.sappers ? "'sappers'"
                                                                   : "'reinforce'",
                               unit, target, protocol_facing_name(facing));
    memset(action, 0, sizeof(*action));
    action->kind = PROTOCOL_ACTION_UNCONTROLLED_CHARGE;
    memcpy(action->as.uncontrolled_charge.unit, unit, sizeof(unit));
    memcpy(action->as.uncontrolled_charge.target, target, sizeof(target));
    action->as.uncontrolled_charge.has_target = true;
    action->as.uncontrolled_charge.facing = facing;
    snprintf(input->notice, sizeof(input->notice),
             "'%s' is pursuing with no enemy to pursue: its charge is sent as its uncontrolled "
             "charge, 'uncontrolled %s %s %s' (12.24 f; the other side may contest it)",
             unit, unit, target, protocol_facing_name(facing));
    return 0;
}

static int game_input_charge(const game_input_call *call)
{
    if (game_input_two_units(call, "charging unit", call->action->as.declare_charge.unit,
                             "target", call->action->as.declare_charge.target))
        return -1;
    call->action->as.declare_charge.facing = PROTOCOL_FACING_FRONT;
    bool facing_given = false;
    for (size_t i = 3; i < call->words->count; i++) {
        const char *word = call->words->words[i];
        protocol_facing facing;
        bool *flag = NULL;
        if (protocol_facing_parse(word, &facing)) {
            if (facing_given)
                return GAME_INPUT_REFUSE(call, "charge: the facing is given twice");
            facing_given = true;
            call->action->as.declare_charge.facing = facing;
            continue;
        }
        if (strcmp(word, "leading") == 0)
            flag = &call->action->as.declare_charge.leading;
        else if (strcmp(word, "sappers") == 0)
            flag = &call->action->as.declare_charge.sappers;
        else if (strcmp(word, "reinforce") == 0)
            flag = &call->action->as.declare_charge.reinforce;
        if (!flag)
            return GAME_INPUT_REFUSE(call,
                                     "charge: '%s' is not one of front, flank, rear, leading, "
                                     "sappers, reinforce",
                                     word);
        if (*flag)
            return GAME_INPUT_REFUSE(call, "charge: '%s' is given twice", word);
        *flag = true;
    }
    return game_input_charge_uncontrolled(call->state, call->context ? call->context->seat : NULL,
                                          call->input, call->message, call->size);
}

static int game_input_respond(const game_input_call *call)
{
    if (game_input_unit("respond", "unit", call->words->words[1], call->state,
                        call->action->as.respond.unit, call->message, call->size))
        return -1;
    if (!protocol_response_parse(call->words->words[2], &call->action->as.respond.response))
        return GAME_INPUT_REFUSE(call, "respond: '%s' is not a response (stand or countercharge)",
                                 call->words->words[2]);
    return 0;
}

static int game_input_reroll(const game_input_call *call)
{
    if (game_input_unit("reroll", "unit", call->words->words[1], call->state,
                        call->action->as.sappers_reroll.unit, call->message, call->size))
        return -1;
    const char *word = call->words->words[2];
    if (strcmp(word, "0") == 0)
        call->action->as.sappers_reroll.die = 0;
    else if (strcmp(word, "1") == 0)
        call->action->as.sappers_reroll.die = 1;
    else if (strcmp(word, "decline") == 0)
        call->action->as.sappers_reroll.die = -1;
    else
        return GAME_INPUT_REFUSE(call,
                                 "reroll: '%s' is not 0, 1 or decline (die 0 or die 1 is "
                                 "re-rolled; decline keeps both)",
                                 word);
    return 0;
}

/* The unit of `state` named `id`, or NULL. */
static const protocol_value *game_input_state_unit(const protocol_value *state, const char *id)
{
    return protocol_value_map_get(protocol_value_map_get(state, "units"), id);
}

/* The formation names (core/names.c) into out: "line, column, ...". With a
 * troop type known, only those the type may take. */
static void game_input_formation_list(bool typed, brigade_troop_type type, char *out,
                                      size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < BRIGADE_FORMATION_COUNT; i++) {
        brigade_formation formation = (brigade_formation)i;
        if (typed && !brigade_formation_allowed(type, formation))
            continue;
        int written = snprintf(out + used, size - used, "%s%s", used ? ", " : "",
                               brigade_formation_name(formation));
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
}

/* formation=F of adjust and umpire-adjust: a formation name, and one the
 * unit's type may take when the state says its type (PROTOCOL.md §5.3,
 * §7.1). */
static int game_input_formation(const char *command, const char *unit, const char *value,
                                const protocol_value *state, char *out, size_t out_size,
                                char *message, size_t size)
{
    const char *type_name =
        protocol_value_string_get(protocol_value_map_get(game_input_state_unit(state, unit),
                                                         "type"),
                                  NULL);
    brigade_troop_type type = BRIGADE_TYPE_INFANTRY;
    bool typed = type_name && brigade_troop_type_parse(type_name, &type);
    brigade_formation formation;
    char list[200];
    if (!brigade_formation_parse(value, &formation)) {
        game_input_formation_list(typed, type, list, sizeof(list));
        return game_input_fail(message, size, "%s: formation='%.40s' is not a formation%s%s%s (%s)",
                               command, value, typed ? " " : "", typed ? unit : "",
                               typed ? " may take" : "", list);
    }
    if (typed && !brigade_formation_allowed(type, formation)) {
        game_input_formation_list(true, type, list, sizeof(list));
        return game_input_fail(message, size,
                               "%s: %s (%s) cannot take formation %s; it may take %s", command,
                               unit, type_name, value, list);
    }
    snprintf(out, out_size, "%s", brigade_formation_name(formation));
    return 0;
}

/* The value of `word`, a KEY=VALUE of the call's command, and the length
 * of its key; NULL, the call's message saying so with the `keys` it takes,
 * when the word has no '='. */
static const char *game_input_value(const game_input_call *call, const char *word,
                                    const char *keys, size_t *key_length)
{
    const char *equals = strchr(word, '=');
    if (!equals) {
        GAME_INPUT_REFUSE(call, "%s: '%s' is not KEY=VALUE (%s)", call->command->name, word, keys);
        return NULL;
    }
    *key_length = (size_t)(equals - word);
    return equals + 1;
}

/* adjust, or umpire-adjust (its why is reason=, not note=). */
static int game_input_adjust(const game_input_call *call)
{
    bool umpire = call->action->kind == PROTOCOL_ACTION_UMPIRE_ADJUST;
    const char *name = call->command->name;
    const char *why = umpire ? "reason" : "note";
    const char *keys = umpire ? "figures=, formed=, status=, formation=, reason="
                              : "figures=, formed=, status=, formation=, note=";
    if (game_input_unit(name, "unit", call->words->words[1], call->state,
                        call->action->as.adjust.unit, call->message, call->size))
        return -1;
    bool has_note = false;
    for (size_t i = 2; i < call->words->count; i++) {
        const char *word = call->words->words[i];
        size_t key_length;
        const char *value = game_input_value(call, word, keys, &key_length);
        if (!value)
            return -1;
#define GAME_INPUT_KEY(name) (key_length == sizeof(name) - 1 && memcmp(word, name, key_length) == 0)
        if (GAME_INPUT_KEY("figures")) {
            int64_t figures;
            if (call->action->as.adjust.has_figures)
                return GAME_INPUT_REFUSE(call, "%s: figures= is given twice", name);
            if (!game_input_number(value, 0, PROTOCOL_FIGURES_MAX, &figures))
                return GAME_INPUT_REFUSE(call, "%s: figures='%s' is not a whole number 0..%d", name,
                                         value, PROTOCOL_FIGURES_MAX);
            call->action->as.adjust.has_figures = true;
            call->action->as.adjust.figures = (int)figures;
        } else if (GAME_INPUT_KEY("formed")) {
            if (call->action->as.adjust.has_formed)
                return GAME_INPUT_REFUSE(call, "%s: formed= is given twice", name);
            if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
                call->action->as.adjust.formed = true;
            else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0)
                call->action->as.adjust.formed = false;
            else
                return GAME_INPUT_REFUSE(call, "%s: formed='%s' is not yes or no", name, value);
            call->action->as.adjust.has_formed = true;
        } else if (GAME_INPUT_KEY("status")) {
            brigade_status status;
            if (call->action->as.adjust.has_status)
                return GAME_INPUT_REFUSE(call, "%s: status= is given twice", name);
            /* Any of the eight (core/melee.h): a report may record an outcome. */
            if (!brigade_status_parse_any(value, &status))
                return GAME_INPUT_REFUSE(call,
                                         "%s: status='%s' is not a status (normal, "
                                         "retreating, broken, pursuing, pushed_back, dispersed, "
                                         "removed, blown)",
                                         name, value);
            call->action->as.adjust.has_status = true;
            snprintf(call->action->as.adjust.status, sizeof(call->action->as.adjust.status), "%s",
                     brigade_status_name(status));
        } else if (GAME_INPUT_KEY("formation")) {
            if (call->action->as.adjust.has_formation)
                return GAME_INPUT_REFUSE(call, "%s: formation= is given twice", name);
            if (game_input_formation(name, call->action->as.adjust.unit, value, call->state,
                                     call->action->as.adjust.formation,
                                     sizeof(call->action->as.adjust.formation), call->message,
                                     call->size))
                return -1;
            call->action->as.adjust.has_formation = true;
        } else if (umpire ? GAME_INPUT_KEY("reason") : GAME_INPUT_KEY("note")) {
            size_t length = strlen(value);
            if (has_note)
                return GAME_INPUT_REFUSE(call, "%s: %s= is given twice", name, why);
            if (length == 0)
                return GAME_INPUT_REFUSE(call, "%s: the %s is empty (say %s)", name, why,
                                         umpire ? "why" : "what happened");
            if (length > PROTOCOL_NOTE_MAX)
                return GAME_INPUT_REFUSE(call, "%s: the %s is %zu bytes long, at most %d", name,
                                         why, length, PROTOCOL_NOTE_MAX);
            memcpy(call->action->as.adjust.note, value, length + 1);
            has_note = true;
        } else if (GAME_INPUT_KEY("note") || GAME_INPUT_KEY("reason")) {
            return GAME_INPUT_REFUSE(call, "%s: say why with %s=\"...\", not %.*s=", name, why,
                                     (int)key_length, word);
        } else {
            return GAME_INPUT_REFUSE(call,
                                     "%s: unknown key '%.*s' (figures, formed, status, formation, "
                                     "%s)",
                                     name, (int)(key_length > 40 ? 40 : key_length), word, why);
        }
#undef GAME_INPUT_KEY
    }
    if (!call->action->as.adjust.has_figures && !call->action->as.adjust.has_formed &&
        !call->action->as.adjust.has_status && !call->action->as.adjust.has_formation)
        return GAME_INPUT_REFUSE(call,
                                 "%s: say what changed: figures=N, formed=yes|no, status=S or "
                                 "formation=F",
                                 name);
    if (!has_note)
        return GAME_INPUT_REFUSE(call, "%s: %s=\"...\" is required (say %s)", name, why,
                                 umpire ? "why" : "what happened");
    return 0;
}

/* Joins words[from..] with single blanks into out (the reason of an
 * umpire's action, PROTOCOL.md §5.3: 1..PROTOCOL_NOTE_MAX bytes). `what`
 * names it in messages ("reason", "text"). */
static int game_input_reason(const char *command, const char *what,
                             const game_input_words *words, size_t from,
                             char out[PROTOCOL_NOTE_MAX + 1], char *message, size_t size)
{
    if (words->count <= from)
        return game_input_fail(message, size, "%s: give the %s at the end (%s)", command, what,
                               game_input_syntax(command));
    size_t at = 0;
    for (size_t i = from; i < words->count; i++) {
        size_t length = strlen(words->words[i]);
        if (at + length + (i > from) > PROTOCOL_NOTE_MAX)
            return game_input_fail(message, size, "%s: the %s is longer than %d bytes", command,
                                   what, PROTOCOL_NOTE_MAX);
        if (i > from)
            out[at++] = ' ';
        memcpy(out + at, words->words[i], length);
        at += length;
    }
    out[at] = '\0';
    if (at == 0)
        return game_input_fail(message, size, "%s: the %s is empty", command, what);
    return 0;
}

/* hold, release, note, end: the rest of the line is the reason (PROTOCOL.md
 * §5.3), 1..PROTOCOL_NOTE_MAX bytes. `end` may first take `result=A`,
 * `result=B` or `result=draw` (§11.5): the game's result; `end REASON`
 * alone ends it without one, as it always did. */
static int game_input_umpire(const game_input_call *call)
{
    const char *command = call->command->name;
    size_t from = 1;
    static const char key[] = "result=";
    if (call->action->kind == PROTOCOL_ACTION_END && call->words->count > 1 &&
        strncmp(call->words->words[1], key, sizeof(key) - 1) == 0) {
        const char *value = call->words->words[1] + sizeof(key) - 1;
        if (!protocol_result_parse(value, &call->action->as.umpire.result))
            return GAME_INPUT_REFUSE(call,
                                     "end: result=%.40s is not a result: result=A (a win for side "
                                     "A), result=B (a win for side B) or result=draw (%s)",
                                     value, game_input_syntax(command));
        call->action->as.umpire.has_result = true;
        from = 2;
    }
    return game_input_reason(
        command, call->action->kind == PROTOCOL_ACTION_NOTE ? "text" : "reason", call->words, from,
        call->action->as.umpire.reason, call->message, call->size);
}

/* The D9 events an umpire settles (PROTOCOL.md §5.3 settle, state.pending). */
static const char *const game_input_settle_events[] = {"double_six", "risk_to_general"};

/* "double_six of hussars (T1.M1), risk_to_general of dragoons (T1.M1)" from
 * state.pending into out; "" when none. */
static void game_input_pending_list(const protocol_value *pending, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < protocol_value_count(pending); i++) {
        const protocol_value *entry = protocol_value_array_get(pending, i);
        const char *event = protocol_value_string_get(protocol_value_map_get(entry, "event"), NULL);
        const char *unit = protocol_value_string_get(protocol_value_map_get(entry, "unit"), NULL);
        const char *melee = protocol_value_string_get(protocol_value_map_get(entry, "melee"), NULL);
        int written = snprintf(out + used, size - used, "%s%.31s of %.31s (%.31s)",
                               used ? ", " : "", event ? event : "?", unit ? unit : "?",
                               melee ? melee : "?");
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
}

/* settle UNIT double_six|risk_to_general REASON... (PROTOCOL.md §5.3): the
 * event must be one of state.pending when the state has that member. */
static int game_input_settle(const game_input_call *call)
{
    const char *syntax = game_input_syntax("settle");
    if (call->words->count < 3)
        return GAME_INPUT_REFUSE(call, "settle: missing %s (usage: %s)",
                                 call->words->count < 2 ? "the unit and the event" : "the event",
                                 syntax);
    if (game_input_unit("settle", "unit", call->words->words[1], call->state,
                        call->action->as.settle.unit, call->message, call->size))
        return -1;
    const char *event = call->words->words[2];
    int known = 0;
    while (known < BRIGADE_COUNT_OF(game_input_settle_events) &&
           strcmp(event, game_input_settle_events[known]) != 0)
        known++;
    if (known == BRIGADE_COUNT_OF(game_input_settle_events))
        return GAME_INPUT_REFUSE(call,
                                 "settle: '%.40s' is not an event (double_six or "
                                 "risk_to_general; usage: %s)",
                                 event, syntax);
    snprintf(call->action->as.settle.event, sizeof(call->action->as.settle.event), "%s",
             game_input_settle_events[known]);
    const protocol_value *pending = protocol_value_map_get(call->state, "pending");
    if (protocol_value_kind_of(pending) == PROTOCOL_VALUE_ARRAY) {
        bool found = false;
        for (size_t i = 0; i < protocol_value_count(pending) && !found; i++) {
            const protocol_value *entry = protocol_value_array_get(pending, i);
            const char *unit =
                protocol_value_string_get(protocol_value_map_get(entry, "unit"), NULL);
            const char *what =
                protocol_value_string_get(protocol_value_map_get(entry, "event"), NULL);
            found = unit && what && strcmp(unit, call->action->as.settle.unit) == 0 &&
                    strcmp(what, call->action->as.settle.event) == 0;
        }
        if (!found) {
            char list[300];
            game_input_pending_list(pending, list, sizeof(list));
            if (!list[0]) {
                /* D46: in a report phase step settle is the rulings'. */
                game_offer offers[GAME_OFFERS_MAX];
                size_t count = game_rules_offers(call->state, "umpire", offers, GAME_OFFERS_MAX);
                for (size_t i = 0; i < count; i++)
                    if (offers[i].kind == GAME_OFFER_RULE) {
                        char what[GAME_RULES_WHAT_SIZE];
                        game_rules_report_what(game_rules_report(call->state, offers[i].report),
                                               what, sizeof(what));
                        return game_input_fail(
                            call->message, call->size,
                            "settle: no event awaits the umpire: no melee raised a double six "
                            "or a risk to a general to settle; report %" PRId64
                            " (%.200s) awaits your ruling: rule %" PRId64 " upheld|rejected REASON",
                            offers[i].report, what, offers[i].report);
                    }
                return GAME_INPUT_REFUSE(call,
                                         "settle: no event awaits the umpire: no melee raised a "
                                         "double six or a risk to a general to settle");
            }
            return GAME_INPUT_REFUSE(call, "settle: no %s of %s awaits the umpire (pending: %s)",
                                     call->action->as.settle.event, call->action->as.settle.unit,
                                     list);
        }
    }
    return game_input_reason("settle", "reason", call->words, 3, call->action->as.settle.reason,
                             call->message, call->size);
}

/* The state.fought entry of `melee`, or NULL. */
static const protocol_value *game_input_fought(const protocol_value *fought, const char *melee)
{
    for (size_t i = 0; i < protocol_value_count(fought); i++) {
        const protocol_value *entry = protocol_value_array_get(fought, i);
        const char *id = protocol_value_string_get(protocol_value_map_get(entry, "melee"), NULL);
        if (id && strcmp(id, melee) == 0)
            return entry;
    }
    return NULL;
}

/* Joins the strings of an array (or the `key` members of its maps) into
 * out: "T1.M1, T1.M2". */
static void game_input_join(const protocol_value *array, const char *key, char *out,
                            size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < protocol_value_count(array); i++) {
        const protocol_value *item = protocol_value_array_get(array, i);
        const char *text = protocol_value_string_get(key ? protocol_value_map_get(item, key)
                                                         : item,
                                                     NULL);
        int written = snprintf(out + used, size - used, "%s%.31s", used ? ", " : "",
                               text ? text : "?");
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
}

/* Whether `unit` is one of the fought melee's units (true when the melee's
 * units are not known). */
static bool game_input_fought_has(const protocol_value *melee, const char *unit)
{
    const protocol_value *units = protocol_value_map_get(melee, "units");
    if (protocol_value_kind_of(units) != PROTOCOL_VALUE_ARRAY)
        return true;
    for (size_t i = 0; i < protocol_value_count(units); i++) {
        const char *id = protocol_value_string_get(protocol_value_array_get(units, i), NULL);
        if (id && strcmp(id, unit) == 0)
            return true;
    }
    return false;
}

/* A melee result an umpire may impose (core/names.c, all but "auto"),
 * or -1. */
static int game_input_melee_result(const char *word)
{
    for (int result = BRIGADE_RESULT_BROKEN; result < BRIGADE_RESULT_AUTO; result++)
        if (strcmp(word, brigade_melee_result_name((brigade_melee_result)result)) == 0)
            return result;
    return -1;
}

/* A reform or pursuit test outcome (core/names.c, 12.22, 12.23), or -1. */
static int game_input_test_outcome(const char *word)
{
    for (int outcome = BRIGADE_OUTCOME_PASS; outcome <= BRIGADE_OUTCOME_PURSUIT; outcome++)
        if (strcmp(word, brigade_test_outcome_name((brigade_test_outcome)outcome)) == 0)
            return outcome;
    return -1;
}

/* Whether `word` is a side, A or B (either case), into *seat. */
static bool game_input_side(const char *word, protocol_seat *seat)
{
    char upper[2] = {(char)toupper((unsigned char)word[0]), '\0'};
    return strlen(word) == 1 && protocol_seat_parse(upper, seat) &&
           (*seat == PROTOCOL_SEAT_A || *seat == PROTOCOL_SEAT_B);
}

/* The unit and outcome of an overrule at words[at], words[at + 1]. */
static int game_input_overrule_unit(const game_input_words *words, size_t at,
                                    const protocol_value *state, const protocol_value *melee,
                                    protocol_action *action, char *message, size_t size)
{
    const char *unit = words->words[at];
    if (game_input_unit("overrule", "unit", unit, state, action->as.overrule.unit, message,
                        size))
        return -1;
    if (melee && !game_input_fought_has(melee, unit)) {
        char list[200];
        game_input_join(protocol_value_map_get(melee, "units"), NULL, list, sizeof(list));
        return game_input_fail(message, size, "overrule: %s did not fight in melee %s (%s did)",
                               unit, action->as.overrule.melee, list);
    }
    if (at + 1 >= words->count)
        return game_input_fail(message, size,
                               "overrule: missing %s's test outcome (pass, fail, excellent, "
                               "unformed, blown, pursuit) after the unit",
                               unit);
    const char *outcome = words->words[at + 1];
    if (game_input_test_outcome(outcome) < 0)
        return game_input_fail(message, size,
                               "overrule: '%.40s' is not a test outcome (reform test 12.22: "
                               "pass, fail; pursuit test 12.23: excellent, unformed, blown, "
                               "pursuit)",
                               outcome);
    action->as.overrule.has_unit = true;
    snprintf(action->as.overrule.outcome, sizeof(action->as.overrule.outcome), "%s", outcome);
    return 0;
}

/*
 * overrule MELEE RESULT [A|B] [UNIT OUTCOME] REASON...
 * overrule MELEE UNIT OUTCOME REASON...
 * (PROTOCOL.md §5.3, §10.2): the melee must be one of state.fought when the
 * state has that member, the unit one of the melee's; the winner follows
 * every result but a draw, which has none.
 */
static int game_input_overrule(const game_input_call *call)
{
    static const char usage[] = "usage: overrule MELEE RESULT [A|B] [UNIT OUTCOME] REASON..., "
                                "or overrule MELEE UNIT OUTCOME REASON...";
    if (call->words->count < 3)
        return GAME_INPUT_REFUSE(call, "overrule: missing %s (%s)",
                                 call->words->count < 2 ? "the melee" : "the result or the unit",
                                 usage);
    const char *melee_id = call->words->words[1];
    if (strlen(melee_id) > PROTOCOL_UNIT_ID_MAX)
        return GAME_INPUT_REFUSE(call, "overrule: melee '%.40s...' is too long", melee_id);
    snprintf(call->action->as.overrule.melee, sizeof(call->action->as.overrule.melee), "%s",
             melee_id);
    const protocol_value *fought = protocol_value_map_get(call->state, "fought");
    const protocol_value *melee = NULL;
    if (protocol_value_kind_of(fought) == PROTOCOL_VALUE_ARRAY) {
        melee = game_input_fought(fought, melee_id);
        if (!melee) {
            char list[200];
            game_input_join(fought, "melee", list, sizeof(list));
            if (!list[0])
                return GAME_INPUT_REFUSE(call, "overrule: no melee has been fought this turn (only "
                                               "the melees fought this turn may be overruled)");
            return GAME_INPUT_REFUSE(call, "overrule: '%.40s' is not a melee fought this turn (%s)",
                                     melee_id, list);
        }
    }
    size_t at = 2;
    const char *word = call->words->words[at];
    int result = game_input_melee_result(word);
    if (result >= 0) {
        call->action->as.overrule.has_result = true;
        snprintf(call->action->as.overrule.result, sizeof(call->action->as.overrule.result), "%s",
                 word);
        at++;
        protocol_seat winner;
        bool sided = at < call->words->count && game_input_side(call->words->words[at], &winner);
        if (result == BRIGADE_RESULT_DRAW) {
            if (sided)
                return GAME_INPUT_REFUSE(call,
                                         "overrule: a draw has no winner; drop '%s' (or quote a "
                                         "reason that begins with it)",
                                         call->words->words[at]);
        } else {
            if (!sided)
                return GAME_INPUT_REFUSE(call,
                                         "overrule: result '%s' needs the winner, A or B, after "
                                         "it (%s)",
                                         word, usage);
            call->action->as.overrule.has_winner = true;
            call->action->as.overrule.winner = winner;
            at++;
        }
        /* An outcome too: a unit of the melee followed by an outcome. */
        if (at + 1 < call->words->count &&
            game_input_test_outcome(call->words->words[at + 1]) >= 0 &&
            game_input_state_unit(call->state, call->words->words[at]) &&
            (!melee || game_input_fought_has(melee, call->words->words[at]))) {
            if (game_input_overrule_unit(call->words, at, call->state, melee, call->action,
                                         call->message, call->size))
                return -1;
            at += 2;
        }
    } else {
        const protocol_value *units = protocol_value_map_get(call->state, "units");
        bool is_unit = protocol_value_kind_of(units) != PROTOCOL_VALUE_MAP ||
                       protocol_value_map_get(units, word);
        if (!is_unit) {
            char list[200] = "";
            if (melee)
                game_input_join(protocol_value_map_get(melee, "units"), NULL, list,
                                sizeof(list));
            return GAME_INPUT_REFUSE(call,
                                     "overrule: '%.40s' is neither a result (broken, retreat, "
                                     "pushed_back, draw, square_holds) nor a unit%s%s%s",
                                     word, list[0] ? " of the melee (" : "", list,
                                     list[0] ? ")" : "");
        }
        if (game_input_overrule_unit(call->words, at, call->state, melee, call->action,
                                     call->message, call->size))
            return -1;
        at += 2;
    }
    if (at >= call->words->count)
        return GAME_INPUT_REFUSE(call, "overrule: give the reason at the end (%s)", usage);
    return game_input_reason("overrule", "reason", call->words, at,
                             call->action->as.overrule.reason, call->message, call->size);
}

/* The first seq of the battle that still counts: the least seq of a log
 * entry of turn 1 or later not rolled back (the state after it has begun);
 * 0 when the log shows none. */
static int64_t game_input_first_battle_seq(const protocol_value *state)
{
    const protocol_value *log = protocol_value_map_get(state, "log");
    int64_t first = 0;
    for (size_t i = 0; i < protocol_value_count(log); i++) {
        const protocol_value *entry = protocol_value_array_get(log, i);
        const protocol_value *entry_seq = protocol_value_map_get(entry, "seq");
        const protocol_value *turn = protocol_value_map_get(entry, "turn");
        if (protocol_value_kind_of(entry_seq) != PROTOCOL_VALUE_INT ||
            protocol_value_kind_of(turn) != PROTOCOL_VALUE_INT ||
            protocol_value_int_get(turn) < 1 || game_display_rolled_back(state, i, NULL))
            continue;
        int64_t at = protocol_value_int_get(entry_seq);
        if (at >= 1 && (first == 0 || at < first))
            first = at;
    }
    return first;
}

/* rollback SEQ REASON... (PROTOCOL.md §5.3): SEQ in 1..seq-1; the log tells
 * whether it was rolled back itself or came before the battle began. */
static int game_input_rollback(const game_input_call *call)
{
    const game_input_context *context = call->context;
    const char *syntax = game_input_syntax("rollback");
    if (call->words->count < 2)
        return GAME_INPUT_REFUSE(call,
                                 "rollback: missing the seq to go back to (usage: "
                                 "%s; 'log' lists the seqs)",
                                 syntax);
    int64_t seq = context ? context->seq : 0;
    int64_t to_seq;
    if (!game_input_number(call->words->words[1], 1, PROTOCOL_INT_SAFE_MAX, &to_seq))
        return GAME_INPUT_REFUSE(call,
                                 "rollback: '%.40s' is not a seq (a whole number from 1; 'log' "
                                 "lists them)",
                                 call->words->words[1]);
    const protocol_value *log = protocol_value_map_get(call->state, "log");
    int64_t first = game_input_first_battle_seq(call->state);
    char range[80];
    /* What may be given: from the battle's first seq to the game's last. */
    if (seq > 0 && first > 0 && first + 1 < seq)
        snprintf(range, sizeof(range), "go back to %" PRId64 "..%" PRId64, first, seq - 1);
    else if (seq > 0 && first > 0 && first + 1 == seq)
        snprintf(range, sizeof(range), "go back to %" PRId64, first);
    else if (seq > 1 && first <= 0 &&
             protocol_value_int_get(protocol_value_map_get(call->state, "turn")) >= 1)
        snprintf(range, sizeof(range), "go back to 1..%" PRId64, seq - 1); /* no log shown */
    else
        snprintf(range, sizeof(range), "no earlier seq of the battle to go back to yet");
    if (seq > 0 && to_seq >= seq)
        return GAME_INPUT_REFUSE(
            call, "rollback: seq %" PRId64 " is not before the game's seq %" PRId64 " (%s)", to_seq,
            seq, range);
    if (first > 0 && to_seq < first)
        return GAME_INPUT_REFUSE(call,
                                 "rollback: the battle had not begun at seq %" PRId64
                                 " (turn 0; it began at seq %" PRId64 "): %s",
                                 to_seq, first, range);
    bool seen = false, begun = false;
    for (size_t i = 0; i < protocol_value_count(log); i++) {
        const protocol_value *entry = protocol_value_array_get(log, i);
        const protocol_value *entry_seq = protocol_value_map_get(entry, "seq");
        if (protocol_value_kind_of(entry_seq) != PROTOCOL_VALUE_INT ||
            protocol_value_int_get(entry_seq) != to_seq)
            continue;
        int64_t by = 0;
        if (game_display_rolled_back(call->state, i, &by))
            return GAME_INPUT_REFUSE(call,
                                     "rollback: seq %" PRId64 " was itself rolled back (by seq "
                                     "%" PRId64 "); pick a seq that still counts ('log')",
                                     to_seq, by);
        seen = true;
        if (protocol_value_int_get(protocol_value_map_get(entry, "turn")) >= 1)
            begun = true;
    }
    if (seen && !begun)
        return GAME_INPUT_REFUSE(
            call, "rollback: the battle had not begun at seq %" PRId64 " (turn 0): %s", to_seq,
            range);
    call->action->as.rollback.to_seq = to_seq;
    return game_input_reason("rollback", "reason", call->words, 2, call->action->as.rollback.reason,
                             call->message, call->size);
}

/* ------------------------------------------- reports and their answers */

/* rally UNIT, reform UNIT, occupy UNIT, withdraw UNIT (D34, D37, D41): the
 * unit one of the state's. */
static int game_input_unit_report(const game_input_call *call)
{
    return game_input_unit(call->command->name, "unit", call->words->words[1], call->state,
                           call->action->as.unit_report.unit, call->message, call->size);
}

/* uncontrolled UNIT TARGET [front|flank|rear] | uncontrolled UNIT none
 * (12.24 f, D38): "none" names no unit (no enemy in sight) and takes no
 * facing. */
static int game_input_uncontrolled(const game_input_call *call)
{
    const char *syntax = "uncontrolled UNIT TARGET [front|flank|rear], or uncontrolled UNIT none";
    if (game_input_arguments("uncontrolled", call->words, 2, 3, syntax, call->message, call->size))
        return -1;
    if (game_input_unit("uncontrolled", "pursuing unit", call->words->words[1], call->state,
                        call->action->as.uncontrolled_charge.unit, call->message, call->size))
        return -1;
    call->action->as.uncontrolled_charge.facing = PROTOCOL_FACING_FRONT;
    if (strcmp(call->words->words[2], "none") == 0) {
        if (call->words->count == 4)
            return GAME_INPUT_REFUSE(call,
                                     "uncontrolled: '%s' after none: a facing goes with a target "
                                     "(usage: %s)",
                                     call->words->words[3], syntax);
        return 0;
    }
    if (game_input_unit("uncontrolled", "target", call->words->words[2], call->state,
                        call->action->as.uncontrolled_charge.target, call->message, call->size)) {
        /* Say that "none" is the other choice. */
        size_t length = strlen(call->message);
        if (length + 40 < call->size)
            snprintf(call->message + length, call->size - length, "; or 'none': no enemy in sight");
        return -1;
    }
    call->action->as.uncontrolled_charge.has_target = true;
    if (call->words->count == 4 &&
        !protocol_facing_parse(call->words->words[3], &call->action->as.uncontrolled_charge.facing))
        return GAME_INPUT_REFUSE(call, "uncontrolled: facing '%s' is not one of front, flank, rear",
                                 call->words->words[3]);
    return 0;
}

/* contact PURSUER UNIT (D39). */
static int game_input_contact(const game_input_call *call)
{
    return game_input_two_units(call, "pursuer", call->action->as.contact.unit, "unit reached",
                                call->action->as.contact.target);
}

/* The numbers of state.reports into out: "3 (contact dragoons -> hussars),
 * 4 (reform hussars)". */
static void game_input_report_list(const protocol_value *state, char *out, size_t size)
{
    const protocol_value *reports = protocol_value_map_get(state, "reports");
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < protocol_value_count(reports) && i < 8; i++) {
        const protocol_value *report = protocol_value_array_get(reports, i);
        char what[GAME_RULES_WHAT_SIZE];
        game_rules_report_what(report, what, sizeof(what));
        int written = snprintf(out + used, size - used, "%s%" PRId64 " (%s)", used ? ", " : "",
                               protocol_value_int_get(protocol_value_map_get(report, "number")),
                               what);
        if (written < 0 || (size_t)written >= size - used)
            return;
        used += (size_t)written;
    }
}

/* A report number at words[1] (contest, accept, rule): a whole number,
 * and with a state one of state.reports (this phase's, PROTOCOL.md §7.1:
 * the member is absent when the phase has none). */
static int game_input_report_number(const char *command, const game_input_words *words,
                                    const protocol_value *state, int64_t *out, char *message,
                                    size_t size)
{
    if (words->count < 2)
        return game_input_fail(message, size, "%s: missing the report's number (usage: %s)",
                               command, game_input_syntax(command));
    if (!game_input_number(words->words[1], 1, PROTOCOL_REPORT_NUMBER_MAX, out))
        return game_input_fail(message, size,
                               "%s: '%.40s' is not a report number (a whole number from 1; "
                               "the screen lists them under 'reports this phase')",
                               command, words->words[1]);
    if (protocol_value_kind_of(state) == PROTOCOL_VALUE_MAP && !game_rules_report(state, *out)) {
        char list[600];
        game_input_report_list(state, list, sizeof(list));
        if (!list[0])
            return game_input_fail(message, size,
                                   "%s: no report %" PRId64 ": this phase has no reports",
                                   command, *out);
        return game_input_fail(message, size,
                               "%s: no report %" PRId64 " in this phase (the reports: %s)",
                               command, *out, list);
    }
    return 0;
}

/* contest REPORT REASON... (D46). */
static int game_input_contest(const game_input_call *call)
{
    if (game_input_report_number("contest", call->words, call->state,
                                 &call->action->as.contest.report, call->message, call->size))
        return -1;
    return game_input_reason("contest", "reason", call->words, 2, call->action->as.contest.reason,
                             call->message, call->size);
}

/* accept REPORT (D46). */
static int game_input_accept(const game_input_call *call)
{
    return game_input_report_number("accept", call->words, call->state,
                                    &call->action->as.accept.report, call->message, call->size);
}

/* rule REPORT upheld|rejected REASON... (the umpire's, D46). */
static int game_input_rule(const game_input_call *call)
{
    if (game_input_report_number("rule", call->words, call->state, &call->action->as.rule.report,
                                 call->message, call->size))
        return -1;
    if (call->words->count < 3)
        return GAME_INPUT_REFUSE(call, "rule: missing upheld or rejected (usage: %s)",
                                 game_input_syntax("rule"));
    const char *word = call->words->words[2];
    if (strcmp(word, "upheld") == 0 || strcmp(word, "uphold") == 0)
        call->action->as.rule.upheld = true;
    else if (strcmp(word, "rejected") == 0 || strcmp(word, "reject") == 0)
        call->action->as.rule.upheld = false;
    else
        return GAME_INPUT_REFUSE(call,
                                 "rule: '%.40s' is not upheld or rejected (upheld: the report "
                                 "stands; rejected: it does not)",
                                 word);
    return game_input_reason("rule", "reason", call->words, 3, call->action->as.rule.reason,
                             call->message, call->size);
}

/* log [N|all] */
static int game_input_log(const game_input_call *call)
{
    call->input->log_count = GAME_INPUT_LOG_DEFAULT;
    if (call->words->count == 2) {
        int64_t count;
        if (strcmp(call->words->words[1], "all") == 0)
            call->input->log_count = 0;
        else if (game_input_number(call->words->words[1], 1, 1000000, &count))
            call->input->log_count = (size_t)count;
        else
            return GAME_INPUT_REFUSE(call, "log: '%.40s' is not a number of entries or 'all'",
                                     call->words->words[1]);
    }
    return 0;
}

/* Whether `word` is the wire name of a phase (core/battle.h). */
static bool game_input_phase_known(const char *word)
{
    for (int phase = BRIGADE_PHASE_INITIATIVE; phase <= BRIGADE_PHASE_ENDED; phase++)
        if (strcmp(word, brigade_phase_name((brigade_phase)phase)) == 0)
            return true;
    return false;
}

/* Every step core/battle.c names ("?" past the last one). */
static bool game_input_step_known(const char *word)
{
    for (int step = BRIGADE_STEP_NONE; step < 64; step++) {
        const char *name = brigade_step_name((brigade_step)step);
        if (strcmp(name, "?") == 0)
            break;
        if (strcmp(word, name) == 0)
            return true;
    }
    return false;
}

static int game_input_wait(const game_input_call *call)
{
    const char *line = call->line;
    if (call->words->count < 2)
        return GAME_INPUT_REFUSE(call, "wait: missing a condition (usage: wait COND..., e.g. wait "
                                       "phase=melee awaiting=A)");
    if (call->words->count - 1 > GAME_WAIT_CONDITIONS_MAX)
        return GAME_INPUT_REFUSE(call, "wait: too many conditions (at most %d)",
                                 GAME_WAIT_CONDITIONS_MAX);
    game_wait *wait = &call->input->wait;
    memset(wait, 0, sizeof(*wait));
    for (size_t i = 1; i < call->words->count; i++) {
        const char *word = call->words->words[i];
        size_t key_length;
        const char *value = game_input_value(
            call, word, "turn, phase, step, awaiting, phasing, seq, held", &key_length);
        if (!value)
            return -1;
        game_wait_condition *condition = &wait->conditions[wait->count];
        memset(condition, 0, sizeof(*condition));
#define GAME_INPUT_KEY(name) (key_length == sizeof(name) - 1 && memcmp(word, name, key_length) == 0)
        if (GAME_INPUT_KEY("turn") || GAME_INPUT_KEY("seq")) {
            bool turn = GAME_INPUT_KEY("turn");
            condition->key = turn ? GAME_WAIT_TURN : GAME_WAIT_SEQ;
            if (!game_input_number(value, turn ? 1 : 0, PROTOCOL_INT_SAFE_MAX,
                                   &condition->number))
                return GAME_INPUT_REFUSE(call, "wait: %s='%s' is not a whole number%s",
                                         turn ? "turn" : "seq", value, turn ? " from 1" : "");
        } else if (GAME_INPUT_KEY("phase")) {
            condition->key = GAME_WAIT_PHASE;
            if (!game_input_phase_known(value))
                return GAME_INPUT_REFUSE(call,
                                         "wait: phase='%s' is not a phase (initiative, "
                                         "mandatory_moves, charge, movement, fire, melee, "
                                         "morale, ended)",
                                         value);
        } else if (GAME_INPUT_KEY("step")) {
            condition->key = GAME_WAIT_STEP;
            if (!game_input_step_known(value))
                return GAME_INPUT_REFUSE(call,
                                         "wait: step='%s' is not a step (choose, declare, "
                                         "respond, reroll, report, settle, or empty)",
                                         value);
        } else if (GAME_INPUT_KEY("awaiting") || GAME_INPUT_KEY("phasing")) {
            bool awaiting = GAME_INPUT_KEY("awaiting");
            condition->key = awaiting ? GAME_WAIT_AWAITING : GAME_WAIT_PHASING;
            if (strcmp(value, "A") != 0 && strcmp(value, "B") != 0 &&
                strcmp(value, "none") != 0)
                return GAME_INPUT_REFUSE(call, "wait: %s='%s' is not A, B or none",
                                         awaiting ? "awaiting" : "phasing", value);
        } else if (GAME_INPUT_KEY("held")) {
            condition->key = GAME_WAIT_HELD;
            if (strcmp(value, "yes") == 0)
                condition->number = 1;
            else if (strcmp(value, "no") != 0)
                return GAME_INPUT_REFUSE(call, "wait: held='%s' is not yes or no", value);
        } else {
            return GAME_INPUT_REFUSE(call,
                                     "wait: unknown key '%.*s' (turn, phase, step, awaiting, "
                                     "phasing, seq, held)",
                                     (int)(key_length > 40 ? 40 : key_length), word);
        }
#undef GAME_INPUT_KEY
        if (condition->key != GAME_WAIT_TURN && condition->key != GAME_WAIT_SEQ &&
            condition->key != GAME_WAIT_HELD) {
            if (strlen(value) >= sizeof(condition->text))
                return GAME_INPUT_REFUSE(call, "wait: '%s' is too long", value);
            strcpy(condition->text, value);
        }
        wait->count++;
    }
    /* The text after "wait", for messages. */
    const char *rest = strstr(line, "wait");
    rest = rest ? rest + 4 : "";
    while (*rest == ' ' || *rest == '\t')
        rest++;
    snprintf(wait->text, sizeof(wait->text), "%s", rest);
    size_t length = strlen(wait->text);
    while (length && (wait->text[length - 1] == '\n' || wait->text[length - 1] == '\r' ||
                      wait->text[length - 1] == ' '))
        wait->text[--length] = '\0';
    return 0;
}

/* A player's command typed by the umpire: what to use instead (the server
 * would refuse it with wrong_seat, PROTOCOL.md §5.3). */
static int game_input_umpire_refuse(const char *command, char *message, size_t size)
{
    if (strcmp(command, "adjust") == 0)
        return game_input_fail(message, size,
                               "adjust is the players' report; the umpire adjusts a unit with "
                               "umpire-adjust UNIT [figures=N] [formed=yes|no] [status=S] "
                               "[formation=F] reason=\"text\"");
    return game_input_fail(message, size,
                           "%s is a player's command; the umpire's are hold, release, note, "
                           "umpire-adjust, settle, overrule, rule, rollback and end ('help')",
                           command);
}

int game_input_parse(const char *line, const game_input_context *context, game_input *input,
                     char *message, size_t size)
{
    memset(input, 0, sizeof(*input));
    const protocol_value *state = context ? context->state : NULL;
    bool umpire = context && context->seat && strcmp(context->seat, "umpire") == 0;
    game_input_words *words = malloc(sizeof(*words));
    if (!words)
        return game_input_fail(message, size, "out of memory");
    int result = game_input_split(line, words, message, size);
    if (result != 0 || words->count == 0) {
        free(words);
        return result;
    }
    const char *typed = words->words[0];
    const game_input_command *command = game_input_command_find(typed);
    bool player = context && context->seat &&
                  (strcmp(context->seat, "A") == 0 || strcmp(context->seat, "B") == 0);
    if (!command) {
        result = game_input_fail(message, size, "unknown command '%.40s' (type 'help' for the list)",
                                 typed);
    } else if (umpire && command->audience == 1) {
        result = game_input_umpire_refuse(typed, message, size);
    } else if (player && command->action == PROTOCOL_ACTION_RULE) {
        result = game_input_fail(message, size,
                                 "rule is the umpire's ruling on a contested report; a player "
                                 "answers the other side's report with accept REPORT or contest "
                                 "REPORT REASON ('help')");
    } else {
        /* An alias (?, exit) names itself in the usage, as typed. */
        const char *syntax = strcmp(typed, command->name) == 0 ? command->syntax : typed;
        input->kind = command->kind;
        if (command->kind == GAME_INPUT_ACT)
            input->action.kind = command->action;
        if (command->words_min >= 0)
            result = game_input_arguments(typed, words, (size_t)command->words_min,
                                          (size_t)command->words_max, syntax, message, size);
        if (result == 0 && command->parse) {
            const game_input_call call = {command, line,           context, words, state,
                                          input,   &input->action, message, size};
            result = command->parse(&call);
        }
    }
    free(words);
    if (result != 0)
        memset(input, 0, sizeof(*input));
    return result;
}

/* ---------------------------------------------------------------- wait */

static bool game_wait_string_is(const protocol_value *value, const char *text)
{
    const char *string = protocol_value_string_get(value, NULL);
    return string && strcmp(string, text) == 0;
}

bool game_wait_satisfied(const game_wait *wait, const protocol_value *state, int64_t seq)
{
    if (protocol_value_kind_of(state) != PROTOCOL_VALUE_MAP)
        return false;
    for (size_t i = 0; i < wait->count; i++) {
        const game_wait_condition *condition = &wait->conditions[i];
        switch (condition->key) {
        case GAME_WAIT_TURN: {
            const protocol_value *turn = protocol_value_map_get(state, "turn");
            if (protocol_value_kind_of(turn) != PROTOCOL_VALUE_INT ||
                protocol_value_int_get(turn) != condition->number)
                return false;
            break;
        }
        case GAME_WAIT_SEQ:
            if (seq < condition->number)
                return false;
            break;
        case GAME_WAIT_HELD: {
            bool held = protocol_value_kind_of(protocol_value_map_get(state, "hold")) ==
                        PROTOCOL_VALUE_STRING;
            if (held != (condition->number == 1))
                return false;
            break;
        }
        case GAME_WAIT_PHASE:
            if (!game_wait_string_is(protocol_value_map_get(state, "phase"), condition->text))
                return false;
            break;
        case GAME_WAIT_STEP:
            if (!game_wait_string_is(protocol_value_map_get(state, "step"), condition->text))
                return false;
            break;
        case GAME_WAIT_PHASING: {
            const protocol_value *phasing = protocol_value_map_get(state, "phasing");
            if (strcmp(condition->text, "none") == 0) {
                if (protocol_value_kind_of(phasing) != PROTOCOL_VALUE_NIL)
                    return false;
            } else if (!game_wait_string_is(phasing, condition->text)) {
                return false;
            }
            break;
        }
        case GAME_WAIT_AWAITING: {
            const protocol_value *awaiting = protocol_value_map_get(state, "awaiting");
            if (protocol_value_kind_of(awaiting) != PROTOCOL_VALUE_ARRAY)
                return false;
            size_t count = protocol_value_count(awaiting);
            if (strcmp(condition->text, "none") == 0) {
                if (count != 0)
                    return false;
                break;
            }
            bool found = false;
            for (size_t k = 0; k < count; k++)
                if (game_wait_string_is(protocol_value_array_get(awaiting, k), condition->text))
                    found = true;
            if (!found)
                return false;
            break;
        }
        }
    }
    return true;
}
