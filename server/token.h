/*
 * server/token.h: brigaded's random ids and tokens and the hash kept of
 * them (server/game.h "Seat tokens and game ids", PROTOCOL.md §5.2, §11.1):
 * game ids, seat, umpire, spectator, organiser, player and umpire tokens
 * all come from OpenSSL's RAND_bytes as lower-case hex; the journal keeps
 * only their SHA-256 (README "Secrets at rest").
 */
#ifndef BRIGADE_SERVER_TOKEN_H
#define BRIGADE_SERVER_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#include "journal/journal.h"

/* `bytes` (at most 64) random bytes as lower-case hex into out, which holds
 * 2 * bytes + 1 chars. False (out unchanged) when RAND_bytes fails or bytes
 * is over 64. */
bool server_token_random_hex(char *out, size_t bytes);

/* The SHA-256 of a token's text (its NUL-terminated hex), as journaled. */
void server_token_hash(const char *token, unsigned char out[JOURNAL_HASH_SIZE]);

#endif
