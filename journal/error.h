/*
 * journal/error.h: the one error of the journal layer, for the storage
 * encoding of events and battles (journal/event_codec.h) and for the
 * database (journal/journal.h: journal_error() is its message and
 * journal_busy() tells BUSY, journal_fault_of() gives the whole).
 *
 * The codes and what each means:
 *
 *   JOURNAL_OK                no error
 *   JOURNAL_ERROR_BAD_BYTES   decode: not one msgpack map (protocol/codec.h refused it)
 *   JOURNAL_ERROR_BAD_MEMBER  decode: a member missing, unknown, of the wrong type, out of
 *                             range (member names it)
 *   JOURNAL_ERROR_UNFIT       encode: the event or battle holds what has no encoding (a unit
 *                             index beyond the battle, an enum out of its table, text that
 *                             is not UTF-8)
 *   JOURNAL_ERROR_NO_MEMORY   out of memory
 *   JOURNAL_ERROR_FAILED      the database: SQLite refused, a row failed its checksum or its
 *                             decode, no such game or seq, a journal of another format (the
 *                             message says which, with the game and seq)
 *   JOURNAL_ERROR_BUSY        the database: another writer held the lock past the busy
 *                             timeout (SQLite's BUSY or LOCKED): the same write may be tried
 *                             again (the server answers unavailable)
 *
 * journal_error_code_name() (event_codec.h) gives a code's snake_case name.
 */
#ifndef BRIGADE_JOURNAL_ERROR_H
#define BRIGADE_JOURNAL_ERROR_H

typedef enum journal_error_code {
    JOURNAL_OK = 0,
    JOURNAL_ERROR_BAD_BYTES,
    JOURNAL_ERROR_BAD_MEMBER,
    JOURNAL_ERROR_UNFIT,
    JOURNAL_ERROR_NO_MEMORY,
    JOURNAL_ERROR_FAILED,
    JOURNAL_ERROR_BUSY
} journal_error_code;

/* Sizes, counting the NUL: the largest the codec's status and the
 * database's message had before they were one type. */
#define JOURNAL_FAULT_MEMBER_SIZE 96
#define JOURNAL_FAULT_MESSAGE_SIZE 512

typedef struct journal_fault {
    journal_error_code code;
    /* The codec's offending member from the top ("kind", "charge.target",
     * "units[3].status"); "" for the whole and for the database. */
    char member[JOURNAL_FAULT_MEMBER_SIZE];
    /* One line for a log or an error answer: the codec's starts with its
     * member; the database's names what failed ("append game 3fa1 seq 12:
     * sqlite: disk I/O error (COMMIT)"). */
    char message[JOURNAL_FAULT_MESSAGE_SIZE];
} journal_fault;

#endif
