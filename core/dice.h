/*
 * core/dice.h: dice that anyone can verify afterwards (design.md "Dice").
 *
 * At game creation the server draws a secret seed (32 bytes) and publishes
 * its commitment, SHA-256(server seed). Each player adds a seed of its own
 * (32 bytes) when it first joins; nothing is rolled before both are in.
 * Die number n of the game (n = 0, 1, 2, ... counts every die rolled, two
 * for each 2D6, and is never reused) is
 *
 *   block(n, k) = HMAC-SHA-256(key = server seed,
 *                              message = "brigade.v1 die" || seed A || seed B
 *                                        || n as 8 bytes big-endian
 *                                        || k as 1 byte)
 *
 * for k = 0: the face is (b mod 6) + 1 for the first byte b of the block
 * below 252 (= 6 x 42, so every face is equally likely: no modulo bias).
 * If all 32 bytes are 252 or more (a chance of about 1e-51), k = 1, 2, ...
 * gives the next blocks. When the game ends the server reveals its seed;
 * with the players' seeds, anyone can recompute every die of the journal
 * (PROTOCOL.md §10.3).
 *
 * Pure computation (OpenSSL's HMAC and SHA-256); no I/O: the server draws
 * the seeds from the OS and hands them in.
 */
#ifndef BRIGADE_CORE_DICE_H
#define BRIGADE_CORE_DICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/melee.h"

/* Bytes in a seed (the server's and each player's). */
#define BRIGADE_DICE_SEED_BYTES 32
/* Bytes in a SHA-256 digest, and its hex text without NUL. */
#define BRIGADE_DICE_DIGEST_BYTES 32
#define BRIGADE_DICE_DIGEST_HEX 64

/* The seeds of one game. A player's seed is all zero until it joins. */
typedef struct brigade_dice_seeds {
    uint8_t server[BRIGADE_DICE_SEED_BYTES];
    uint8_t player[2][BRIGADE_DICE_SEED_BYTES]; /* indexed by brigade_side */
} brigade_dice_seeds;

/*
 * One die of the game: the face (1..6) of die number `number` (0-based)
 * under `seeds`, as the top of this file defines it. Returns the face, or
 * 0 if OpenSSL's HMAC failed (out of memory).
 */
int brigade_dice_face(const brigade_dice_seeds *seeds, uint64_t number);

/*
 * The commitment to a server seed: SHA-256(seed) as 64 lower-case hex
 * characters and a NUL into hex[65]. Returns false if OpenSSL failed.
 */
bool brigade_dice_commitment(const uint8_t server_seed[BRIGADE_DICE_SEED_BYTES],
                             char hex[BRIGADE_DICE_DIGEST_HEX + 1]);

/* A seed as 64 lower-case hex characters and a NUL, into hex[65]. */
void brigade_dice_seed_to_hex(const uint8_t seed[BRIGADE_DICE_SEED_BYTES],
                              char hex[BRIGADE_DICE_DIGEST_HEX + 1]);

/* Reads 64 hex characters (either case) into seed. Returns false, and
 * leaves seed unchanged, for any other text. */
bool brigade_dice_seed_from_hex(const char *hex, uint8_t seed[BRIGADE_DICE_SEED_BYTES]);

/*
 * A dice source (core/melee.h) over the verifiable dice. Every roll asked
 * for, whatever its name, takes the next two dice numbers: faces
 * {face(n), face(n + 1)}, and next_number grows by 2 (a sappers'
 * "<unit>.reroll" uses the first face). The caller keeps next_number with
 * the game and advances it only for rolls that are journaled, so that the
 * journal's rolls, in order, are dice 0, 1, 2, ... (PROTOCOL.md §10.3).
 */
typedef struct brigade_verifiable_dice {
    const brigade_dice_seeds *seeds;
    uint64_t next_number; /* the next die's number */
    bool failed;          /* set when OpenSSL failed; the roll then answered false */
} brigade_verifiable_dice;

/* Fills `source` to roll through `dice` (which must outlive it). */
void brigade_verifiable_dice_source(brigade_verifiable_dice *dice, brigade_dice_source *source);

#endif
