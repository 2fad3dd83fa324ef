/*
 * client-cli/journal_commands.c: `brigade replay` and `brigade export`
 * (journal_commands.h), over journal/journal.h opened read-only.
 *
 * A replay rebuilds the game from its initial battle and every event from
 * seq 0 (not from a snapshot), checking each row as the server does at
 * start, and makes each event's log entry as the server made it
 * (protocol/game_state.h): the lines printed are those `brigade play` shows,
 * and the state at the end is the server's, so its snapshot hash can be
 * compared with a client's.
 */
#include "journal_commands.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/battle.h"
#include "core/dice.h"
#include "game_display.h"
#include "protocol/codec.h"
#include "journal/event_codec.h"
#include "protocol/value.h"
#include "protocol/game_state.h"
#include "journal/journal.h"

typedef struct replay_options {
    const char *data_dir;
    const char *journal_file;
    const char *game;
    const char *output;
    bool json;
} replay_options;

static const char journal_usage_replay[] =
    "  replay (--data DIR | --journal FILE) [--game ID] [--json]\n"
    "                    without --game: list the journal's games; with it: print\n"
    "                    the game's events (turns, phases, every roll with its\n"
    "                    modifiers) and the snapshot hash of the rebuilt state\n";
static const char journal_usage_export[] =
    "  export (--data DIR | --journal FILE) --game ID OUTPUT\n"
    "                    write the game's journal to the new file OUTPUT, to replay\n"
    "                    elsewhere (brigade replay --journal OUTPUT --game ID)\n";
static const char journal_usage_verify[] =
    "  verify EXPORT [--game ID]\n"
    "                    recompute every die of an ended game (EXPORT: the file\n"
    "                    brigade export wrote) from the revealed server seed and\n"
    "                    the players' seeds, check the commitment; OK or each\n"
    "                    mismatch (PROTOCOL.md §10.3)\n";

void journal_commands_usage(FILE *out)
{
    fputs(journal_usage_replay, out);
    fputs(journal_usage_export, out);
    fputs(journal_usage_verify, out);
}

void journal_command_usage(FILE *out, const char *name)
{
    const char *text = strcmp(name, "replay") == 0   ? journal_usage_replay
                       : strcmp(name, "export") == 0 ? journal_usage_export
                                                     : journal_usage_verify;
    /* The usage line: the text's first line, without its indent. */
    size_t first = strcspn(text + 2, "\n");
    fprintf(out, "usage: brigade %.*s\n\n", (int)first, text + 2);
    fputs(text, out);
    fputs("-h, --help: print this help and exit.\n", out);
}

/* The long options of replay and export (getopt_long); --json is replay's. */
enum { REPLAY_OPT_DATA = 256, REPLAY_OPT_JOURNAL, REPLAY_OPT_GAME, REPLAY_OPT_JSON };

static const struct option replay_long_options[] = {
    {"data", required_argument, NULL, REPLAY_OPT_DATA},
    {"journal", required_argument, NULL, REPLAY_OPT_JOURNAL},
    {"game", required_argument, NULL, REPLAY_OPT_GAME},
    {"json", no_argument, NULL, REPLAY_OPT_JSON},
    {NULL, 0, NULL, 0},
};

/* The long option of verify. */
enum { VERIFY_OPT_GAME = 256 };

static const struct option verify_long_options[] = {
    {"game", required_argument, NULL, VERIFY_OPT_GAME},
    {NULL, 0, NULL, 0},
};

/* A walk with getopt_long over a journal command's argv (optstring "-:":
 * the words in order, a positional one returned as 1). */
typedef struct journal_words {
    int argc;
    char **argv;
    const struct option *table;
    bool joined;                 /* a long option may be --NAME=VALUE */
    const char *word;            /* the whole word last looked at */
    const struct option *option; /* the table's entry of the option found or
                                    missing its value; NULL when none */
} journal_words;

/* Starts a walk over argv[1..argc-1] (getopt_long afresh, its own messages off). */
static void journal_words_start(journal_words *words, int argc, char **argv,
                                const struct option *table, bool joined)
{
    *words = (journal_words){argc, argv, table, joined, NULL, NULL};
    opterr = 0; /* our own messages */
    optind = 0; /* glibc: start afresh */
}

/*
 * One step of the walk; sets words->word and words->option. As the
 * commands always took them, a long option is only its exact name (with
 * "=VALUE" when joined, never abbreviated), and "--" is an unknown option:
 * both come back as '?'. Returns getopt's code: -1 at the end, 1 for a
 * positional word, ':' for a missing value, else the option's val (its
 * value in optarg).
 */
static int journal_words_next(journal_words *words)
{
    int at = optind > 0 ? optind : 1; /* optind 0: getopt starts at 1 */
    int found = getopt_long(words->argc, words->argv, "-:", words->table, NULL);
    const char *word = words->word = at < words->argc ? words->argv[at] : NULL;
    const struct option *option = words->option = NULL;
    if (found == -1)
        return word ? '?' : -1; /* stopped early: on "--" */
    if (found == 1 || found == '?')
        return found;
    int code = found == ':' ? optopt : found;
    for (const struct option *entry = words->table; entry->name; entry++)
        if (entry->val == code)
            option = words->option = entry;
    size_t length = option ? strlen(option->name) : 0;
    const char *rest = word + 2 + length;
    bool exact = option && strncmp(word, "--", 2) == 0 &&
                 strncmp(word + 2, option->name, length) == 0 &&
                 (*rest == '\0' || (words->joined && *rest == '='));
    return exact ? found : '?';
}

/* Parses the options; 0, or 2 after one line on err. */
static int replay_options_parse(const char *name, bool exporting, int argc, char **argv,
                                 replay_options *options, FILE *err)
{
    memset(options, 0, sizeof(*options));
    journal_words words;
    journal_words_start(&words, argc, argv, replay_long_options, true);
    for (int found; (found = journal_words_next(&words)) != -1;) {
        const char *arg = words.word;
        if (found == 1 && exporting && !options->output) {
            options->output = arg;
            continue;
        }
        if (found == ':') {
            fprintf(err, "brigade %s: --%s needs a value\n", name, words.option->name);
            return 2;
        }
        if (found == 1 || found == '?' || (found == REPLAY_OPT_JSON && exporting)) {
            fprintf(err, "brigade %s: %s '", name,
                    arg[0] == '-' ? "unknown option" : "unexpected argument");
            game_display_text(err, arg);
            fputs("' (see 'brigade help')\n", err);
            return 2;
        }
        if (found == REPLAY_OPT_JSON) {
            options->json = true;
            continue;
        }
        if (!optarg[0]) {
            fprintf(err, "brigade %s: --%s: empty\n", name, words.option->name);
            return 2;
        }
        if (found == REPLAY_OPT_DATA)
            options->data_dir = optarg;
        else if (found == REPLAY_OPT_JOURNAL)
            options->journal_file = optarg;
        else
            options->game = optarg;
    }
    if (!options->data_dir == !options->journal_file) {
        fprintf(err, "brigade %s: give one of --data DIR (brigaded's data folder) and "
                     "--journal FILE\n", name);
        return 2;
    }
    if (exporting && (!options->game || !options->output)) {
        fprintf(err, "brigade export: missing %s (usage: brigade export (--data DIR | "
                     "--journal FILE) --game ID OUTPUT)\n",
                !options->game ? "--game ID" : "the OUTPUT file");
        return 2;
    }
    return 0;
}

/* Writes "brigade NAME: TEXT" and a newline on err, TEXT's control bytes
 * as '?'. */
static void journal_text_report(FILE *err, const char *name, const char *text)
{
    fprintf(err, "brigade %s: ", name);
    game_display_text(err, text);
    fputc('\n', err);
}

/* Writes "brigade NAME: game ID" then `what` on err; then, unless NULL,
 * `detail` (control bytes as '?') and a newline (else `what` ends the
 * line). */
static void journal_game_report(FILE *err, const char *name, const char *id, const char *what,
                                const char *detail)
{
    fprintf(err, "brigade %s: game ", name);
    game_display_text(err, id);
    fputs(what, err);
    if (detail) {
        game_display_text(err, detail);
        fputc('\n', err);
    }
}

static journal_db *replay_journal_open(const char *name, const replay_options *options,
                                              FILE *err)
{
    journal_options open_options = {.read_only = true};
    char message[1024];
    journal_db *journal =
        options->data_dir
            ? journal_open(options->data_dir, &open_options, message, sizeof(message))
            : journal_open_file(options->journal_file, &open_options, message,
                                       sizeof(message));
    if (!journal)
        journal_text_report(err, name, message);
    return journal;
}

static void replay_time_format(int64_t seconds, char *out, size_t size)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, size, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
        snprintf(out, size, "%" PRId64, seconds);
}

/* ---- listing ---------------------------------------------------------------- */

/* A new {type: "game", game, title, status, seq, created} line of
 * replay --json, or NULL when out of memory. */
static protocol_value *replay_game_line_new(const char *id, const char *title,
                                            journal_status status, int64_t seq, int64_t created)
{
    protocol_value *line = protocol_value_map_new();
    if (line && (protocol_value_map_set_string(line, "type", "game") != 0 ||
                 protocol_value_map_set_string(line, "game", id) != 0 ||
                 protocol_value_map_set_string(line, "title", title) != 0 ||
                 protocol_value_map_set_string(line, "status", journal_status_name(status)) != 0 ||
                 protocol_value_map_set_int(line, "seq", seq) != 0 ||
                 protocol_value_map_set_int(line, "created", created) != 0)) {
        protocol_value_free(line);
        line = NULL;
    }
    return line;
}

/* Prints one JSON line of `value` (consumed; NULL: nothing). */
static void replay_print_json(FILE *out, protocol_value *value)
{
    char *json = value ? protocol_value_to_json(value, 0) : NULL;
    if (json)
        fprintf(out, "%s\n", json);
    free(json);
    protocol_value_free(value);
}

typedef struct journal_listing {
    FILE *out;
    bool json;
} journal_listing;

static void replay_list_one(void *context, const journal_summary *game)
{
    journal_listing *listing = context;
    char created[64];
    replay_time_format(game->created, created, sizeof(created));
    if (listing->json) {
        protocol_value *line = replay_game_line_new(game->id, game->title, game->status,
                                                    game->seq, game->created);
        if (line && protocol_value_map_set_string(line, "damage", game->damage) != 0) {
            protocol_value_free(line);
            line = NULL;
        }
        replay_print_json(listing->out, line);
        return;
    }
    fprintf(listing->out, "%-26s %-8s seq %-6" PRId64 " %s  ", game->id,
            journal_status_name(game->status), game->seq, created);
    game_display_text(listing->out, game->title);
    if (game->damage[0]) {
        fputs("\n    damaged: ", listing->out);
        game_display_text(listing->out, game->damage);
    }
    fputc('\n', listing->out);
}

/* ---- replay ---------------------------------------------------------------- */

/* Prints the game's heading: a JSON line, or its id, title, status and sides. */
static void replay_heading_print(const journal_loaded *loaded, bool json, FILE *out)
{
    if (json) {
        replay_print_json(out, replay_game_line_new(loaded->id, loaded->title, loaded->status,
                                                    loaded->seq, loaded->created));
        return;
    }
    char created[64];
    replay_time_format(loaded->created, created, sizeof(created));
    const brigade_battle *units = loaded->base;
    fputs("Game ", out);
    game_display_text(out, loaded->id);
    fputs(": ", out);
    game_display_text(out, loaded->title);
    fprintf(out, "\n  %s, seq %" PRId64 ", created %s; side A ",
            journal_status_name(loaded->status), loaded->seq, created);
    game_display_text(out, units->sides[0].name);
    fputs(", side B ", out);
    game_display_text(out, units->sides[1].name);
    fputc('\n', out);
}

/* Prints `record` (played on `at`; `seat` its side's name or NULL) as one
 * JSON line of replay --json; nothing when out of memory. */
static void replay_event_json_print(const journal_loaded *loaded, const brigade_battle *at,
                                    const journal_record *record, const char *seat, FILE *out)
{
    char text[512];
    brigade_event_describe(at, &record->event, text, sizeof(text));
    journal_fault status;
    protocol_value *event = journal_event_to_value(loaded->base, &record->event, &status);
    protocol_value *line = protocol_value_map_new();
    if (!event || !line || protocol_value_map_set_string(line, "type", "event") != 0 ||
        protocol_value_map_set_int(line, "seq", record->seq) != 0 ||
        protocol_value_map_set_int(line, "index", record->index) != 0 ||
        protocol_value_map_set(line, "seat",
                               seat ? protocol_value_string_new(seat)
                                    : protocol_value_nil_new()) != 0 ||
        protocol_value_map_set_bool(line, "rolled_back", record->rolled_back) != 0 ||
        protocol_value_map_set_string(line, "text", text) != 0) {
        protocol_value_free(event);
        protocol_value_free(line);
        return;
    }
    if (protocol_value_map_set(line, "event", event) != 0) {
        protocol_value_free(line);
        return;
    }
    replay_print_json(out, line);
}

/* Prints the line that opens seq `record->seq` (who played it). */
static void replay_seq_heading_print(const journal_record *record, const char *seat, FILE *out)
{
    if (record->seq == 0)
        fputs("\nseq 0, the game begins\n", out);
    else if (seat)
        fprintf(out, "\nseq %" PRId64 ", side %s%s\n", record->seq, seat,
                record->rolled_back ? " (rolled back)" : "");
    else /* the umpire's seat; its first event tells the server's own end */
        fprintf(out, "\nseq %" PRId64 ", %s%s\n", record->seq,
                record->event.kind == BRIGADE_BATTLE_EVENT_UMPIRE_RULED &&
                        record->event.umpire.ruling == BRIGADE_UMPIRE_LAPSED
                    ? "the server (the battle left idle)"
                    : "the umpire",
                record->rolled_back ? " (rolled back)" : "");
}

/*
 * Folds from the initial battle into `work` in the order things happened,
 * making each event's log entry into `log` and printing it: the events the
 * umpire rolled back (PROTOCOL.md §10.2) are shown, marked, and described
 * against the battle they were played on, and each rollback goes back to
 * the battle as it was then (journal_history), so the state at the end is
 * the server's. Returns 0, or 1 after one line on err.
 */
static int replay_events_fold(const journal_loaded *loaded, const replay_options *options,
                              brigade_battle *work, protocol_value *log, FILE *out, FILE *err)
{
    journal_history history;
    if (journal_history_init(&history, work, &loaded->records) != 0) {
        fprintf(err, "brigade replay: out of memory\n");
        return 1;
    }
    int64_t shown_seq = -1;
    const journal_record *record;
    while ((record = journal_history_next(&history)) != NULL) {
        const brigade_battle *at = work;
        protocol_value *entry = protocol_state_log_entry(at, &record->event, record->seq);
        if (!entry || protocol_value_array_push(log, entry) != 0) {
            fprintf(err, "brigade replay: out of memory\n");
            journal_history_free(&history);
            return 1;
        }
        const char *seat = record->seat == BRIGADE_SIDE_NONE ? NULL
                                                             : brigade_side_name(record->seat);
        if (options->json) {
            replay_event_json_print(loaded, at, record, seat, out);
            continue;
        }
        if (record->seq != shown_seq) {
            shown_seq = record->seq;
            replay_seq_heading_print(record, seat, out);
        }
        fputs(record->rolled_back ? "  (rolled back) " : "  ", out);
        game_display_log_entry(out, entry);
    }
    bool failed = history.failed;
    if (failed)
        fprintf(err, "brigade replay: %s\n", history.error);
    journal_history_free(&history);
    return failed ? 1 : 0;
}

/* Prints the snapshot hash of `work` (the rebuilt game, its `log`
 * consumed) at the journal's last seq; returns the exit status. */
static int replay_hash_print(const journal_loaded *loaded, const replay_options *options,
                             const brigade_battle *work, protocol_value *log, FILE *out,
                             FILE *err)
{
    protocol_value *state = protocol_state_from_battle(work, loaded->id);
    char hex[PROTOCOL_HASH_HEX_SIZE] = "";
    int status = 0;
    if (!state || protocol_value_map_set(state, "log", log) != 0) {
        if (!state)
            protocol_value_free(log);
        status = 1;
    }
    if (status == 0 && protocol_snapshot_hash(state, hex) != PROTOCOL_FAULT_OK)
        status = 1;
    protocol_value_free(state);
    if (status != 0) {
        fprintf(err, "brigade replay: cannot hash the rebuilt state (out of memory)\n");
        return 1;
    }
    if (options->json)
        fprintf(out, "{\"type\":\"hash\",\"seq\":%" PRId64 ",\"hash\":\"%s\"}\n", loaded->seq,
                hex);
    else
        fprintf(out, "\nseq %" PRId64 ", snapshot hash %s\n", loaded->seq, hex);
    return 0;
}

/* Rebuilds and prints `loaded` (every event from seq 0); returns the exit
 * status. */
static int replay_game(journal_loaded *loaded, const replay_options *options,
                               FILE *out, FILE *err)
{
    replay_heading_print(loaded, options->json, out);
    brigade_battle *work = malloc(sizeof(*work));
    protocol_value *log = protocol_value_array_new();
    if (!work || !log) {
        free(work);
        protocol_value_free(log);
        fprintf(err, "brigade replay: out of memory\n");
        return 1;
    }
    memcpy(work, loaded->base, sizeof(*work));
    /* !loaded->battle: a damaged game's good part (journal_command_replay
     * says so). */
    if (replay_events_fold(loaded, options, work, log, out, err) != 0 || !loaded->battle) {
        free(work);
        protocol_value_free(log);
        return 1;
    }
    if (memcmp(work, loaded->battle, sizeof(*work)) != 0)
        fprintf(err, "brigade replay: warning: the replay and the journal's own rebuild differ\n");
    int status = replay_hash_print(loaded, options, work, log, out, err);
    free(work);
    return status;
}

/* What replay or export does with its journal once open: a status (0,
 * or 1 after a line on err); the runner closes the journal after it. */
typedef int replay_command_body(journal_db *journal, const replay_options *options, FILE *out,
                                FILE *err);

/* Parses replay's or export's command line, opens the journal it names
 * and runs `body` on it: 2 for a bad command line, 1 when the journal
 * cannot be opened (one line on err each), else the body's status. */
static int replay_command_run(const char *name, bool exporting, int argc, char **argv,
                              FILE *out, FILE *err, replay_command_body *body)
{
    replay_options options;
    int status = replay_options_parse(name, exporting, argc, argv, &options, err);
    if (status != 0)
        return status;
    journal_db *journal = replay_journal_open(name, &options, err);
    if (!journal)
        return 1;
    status = body(journal, &options, out, err);
    journal_close(journal);
    return status;
}

/* replay without --game: the journal's games, one a line. */
static int replay_list(journal_db *journal, const replay_options *options, FILE *out, FILE *err)
{
    journal_listing listing = {out, options->json};
    long count = journal_list(journal, replay_list_one, &listing);
    if (count < 0) {
        fprintf(err, "brigade replay: %s\n", journal_error(journal));
        return 1;
    }
    if (count == 0 && !options->json)
        fprintf(out, "no games in %s\n", journal_path(journal));
    return 0;
}

static int replay_body(journal_db *journal, const replay_options *options, FILE *out, FILE *err)
{
    if (!options->game)
        return replay_list(journal, options, out, err);
    journal_loaded loaded;
    if (journal_game_read(journal, options->game, true, &loaded) != 0) {
        fprintf(err, "brigade replay: %s\n", journal_error(journal));
        return 1;
    }
    int status = 0;
    if (!loaded.base) {
        journal_game_report(err, "replay", loaded.id, " is damaged: ", loaded.damage);
        status = 1;
    } else if (!loaded.battle) {
        /* Damaged in its events: what comes before the damage is shown. */
        status = replay_game(&loaded, options, out, err);
        char what[96];
        snprintf(what, sizeof(what), " is damaged after seq %" PRId64 " (shown up to there): ",
                 loaded.records.items[loaded.records.count - 1].seq);
        journal_game_report(err, "replay", loaded.id, what, loaded.damage);
        status = 1;
    } else {
        if (loaded.status == JOURNAL_DAMAGED) {
            fputs("brigade replay: note: the server marked this game damaged: ", err);
            game_display_text(err, loaded.damage);
            fputc('\n', err);
        }
        status = replay_game(&loaded, options, out, err);
    }
    journal_loaded_free(&loaded);
    if (fflush(out) != 0)
        status = 1;
    return status;
}

int journal_command_replay(int argc, char **argv, FILE *out, FILE *err)
{
    return replay_command_run("replay", false, argc, argv, out, err, replay_body);
}

static int export_body(journal_db *journal, const replay_options *options, FILE *out, FILE *err)
{
    if (journal_export(journal, options->game, options->output) != 0) {
        journal_text_report(err, "export", journal_error(journal));
        return 1;
    }
    fputs("Exported game ", out);
    game_display_text(out, options->game);
    fputs(" to ", out);
    game_display_text(out, options->output);
    fputs(".\nReplay it with: brigade replay --journal ", out);
    game_display_text(out, options->output);
    fputs(" --game ", out);
    game_display_text(out, options->game);
    fputc('\n', out);
    return fflush(out) == 0 ? 0 : 1;
}

int journal_command_export(int argc, char **argv, FILE *out, FILE *err)
{
    return replay_command_run("export", true, argc, argv, out, err, export_body);
}

/* ---- verify ------------------------------------------------------------ */

/* journal_list's callback for verify: the journal's one game. */
typedef struct verify_listing {
    char id[JOURNAL_GAME_ID_MAX + 1];
    long count;
} verify_listing;

static void verify_list_one(void *context, const journal_summary *game)
{
    verify_listing *listing = context;
    if (listing->count++ == 0)
        snprintf(listing->id, sizeof(listing->id), "%s", game->id);
}

/*
 * Checks the dice of one rebuilt game (PROTOCOL.md §10.3): the revealed
 * server seed against the commitment, no roll before both players' seeds,
 * and every roll's faces against dice 2k and 2k + 1, k counting every roll
 * event of the journal in (seq, index) order, the ones the umpire rolled
 * back included (§10.2: their numbers are never used again). Prints each
 * mismatch on `out`; returns how many.
 */
static long verify_game(const journal_loaded *loaded, FILE *out)
{
    const brigade_battle_dice *public_dice = &loaded->battle->dice;
    long mismatches = 0;
    brigade_dice_seeds seeds;
    memset(&seeds, 0, sizeof(seeds));
    char commitment[BRIGADE_DICE_DIGEST_HEX + 1] = "";
    if (!brigade_dice_seed_from_hex(public_dice->server_seed, seeds.server) ||
        !brigade_dice_commitment(seeds.server, commitment) ||
        strcmp(commitment, public_dice->commitment) != 0) {
        fprintf(out, "mismatch: commitment: SHA-256 of the revealed server seed is %s, the "
                     "game committed to %s\n",
                commitment[0] ? commitment : "(unreadable)", public_dice->commitment);
        mismatches++;
    }
    for (int side = 0; side < 2; side++)
        if (!brigade_dice_seed_from_hex(public_dice->seeds[side], seeds.player[side])) {
            fprintf(out, "mismatch: side %s has no dice seed\n",
                    brigade_side_name((brigade_side)side));
            mismatches++;
        }
    bool seeded[2] = {false, false};
    uint64_t number = 0;
    uint64_t rolled_back = 0; /* rolls of rolled-back actions */
    for (size_t i = 0; i < loaded->records.count; i++) {
        const journal_record *record = &loaded->records.items[i];
        const brigade_event *event = &record->event;
        if (event->kind == BRIGADE_BATTLE_EVENT_DICE_SEED_ADDED &&
            (event->dice.side == BRIGADE_SIDE_A || event->dice.side == BRIGADE_SIDE_B))
            seeded[event->dice.side] = true;
        if (event->kind != BRIGADE_BATTLE_EVENT_ROLL)
            continue;
        const char *marked = record->rolled_back ? ", rolled back" : "";
        if (!seeded[0] || !seeded[1]) {
            fprintf(out, "mismatch: %s (seq %" PRId64 "%s) was rolled before both players' "
                         "seeds were in\n",
                    event->roll.name, record->seq, marked);
            mismatches++;
        }
        int expected[2] = {brigade_dice_face(&seeds, number), brigade_dice_face(&seeds, number + 1)};
        if (expected[0] != event->roll.faces[0] || expected[1] != event->roll.faces[1]) {
            fprintf(out, "mismatch: %s (seq %" PRId64 "%s, dice %" PRIu64 " and %" PRIu64
                         "): expected %d, %d; journaled %d, %d\n",
                    event->roll.name, record->seq, marked, number, number + 1, expected[0],
                    expected[1], event->roll.faces[0], event->roll.faces[1]);
            mismatches++;
        }
        if (record->rolled_back)
            rolled_back++;
        number += 2;
    }
    memset(&seeds, 0, sizeof(seeds));
    if (mismatches == 0) {
        fprintf(out, "OK: %" PRIu64 " rolls (%" PRIu64 " dice) of game %s match the revealed "
                     "server seed, its commitment and the players' seeds",
                number / 2, number, loaded->id);
        if (rolled_back > 0)
            fprintf(out, " (%" PRIu64 " of the rolls rolled back by the umpire)", rolled_back);
        fputc('\n', out);
    }
    return mismatches;
}

int journal_command_verify(int argc, char **argv, FILE *out, FILE *err)
{
    const char *file = NULL, *game = NULL;
    journal_words words;
    journal_words_start(&words, argc, argv, verify_long_options, false);
    for (int found; (found = journal_words_next(&words)) != -1;) {
        const char *arg = words.word;
        if (found == VERIFY_OPT_GAME) {
            game = optarg;
        } else if (found == 1 && arg[0] != '-' && !file) {
            file = arg;
        } else {
            fprintf(err, "brigade verify: unexpected argument \"%s\" (usage: brigade verify "
                         "EXPORT [--game ID])\n",
                    arg);
            return 2;
        }
    }
    if (!file) {
        fputs("brigade verify: missing EXPORT (usage: brigade verify EXPORT [--game ID])\n", err);
        return 2;
    }
    replay_options options;
    memset(&options, 0, sizeof(options));
    options.journal_file = file;
    journal_db *journal = replay_journal_open("verify", &options, err);
    if (!journal)
        return 1;
    verify_listing listing;
    memset(&listing, 0, sizeof(listing));
    if (!game) {
        if (journal_list(journal, verify_list_one, &listing) < 0 || listing.count != 1) {
            fprintf(err, "brigade verify: %s holds %ld games: name one with --game ID\n", file,
                    listing.count);
            journal_close(journal);
            return listing.count > 1 ? 2 : 1;
        }
        game = listing.id;
    }
    journal_loaded loaded;
    if (journal_game_read(journal, game, true, &loaded) != 0) {
        journal_text_report(err, "verify", journal_error(journal));
        journal_close(journal);
        return 1;
    }
    int status = 1;
    if (!loaded.battle) {
        journal_game_report(err, "verify", loaded.id, " is damaged: ", loaded.damage);
    } else if (!loaded.battle->dice.commitment[0]) {
        journal_game_report(err, "verify", loaded.id,
                            " has no dice commitment (made before verifiable dice): nothing to "
                            "verify\n",
                            NULL);
    } else if (!loaded.battle->dice.server_seed[0]) {
        journal_game_report(err, "verify", loaded.id,
                            " has not ended: the server reveals its dice seed only in the "
                            "game's last event, so its dice cannot be verified yet\n",
                            NULL);
    } else {
        status = verify_game(&loaded, out) == 0 ? 0 : 1;
    }
    journal_loaded_free(&loaded);
    journal_close(journal);
    if (fflush(out) != 0)
        status = 1;
    return status;
}
