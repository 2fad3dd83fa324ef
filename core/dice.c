/*
 * core/dice.c: dice that anyone can verify afterwards (core/dice.h,
 * design.md "Dice", PROTOCOL.md §10.3).
 */
#include "core/dice.h"

#include "core/helpers.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <string.h>

/* The message's fixed opening, so that these blocks serve nothing else. */
static const char die_label[] = "brigade.v1 die";

/* Below this a byte maps to a face without bias: 252 = 6 x 42. */
#define FACE_BYTE_LIMIT 252

/* Block k of die `number` (core/dice.h). Returns false if HMAC failed. */
static bool die_block(const brigade_dice_seeds *seeds, uint64_t number, uint8_t k,
                      uint8_t block[BRIGADE_DICE_DIGEST_BYTES])
{
    uint8_t message[sizeof die_label - 1 + 2 * BRIGADE_DICE_SEED_BYTES + 8 + 1];
    size_t at = 0;
    memcpy(message + at, die_label, sizeof die_label - 1);
    at += sizeof die_label - 1;
    memcpy(message + at, seeds->player[BRIGADE_SIDE_A], BRIGADE_DICE_SEED_BYTES);
    at += BRIGADE_DICE_SEED_BYTES;
    memcpy(message + at, seeds->player[BRIGADE_SIDE_B], BRIGADE_DICE_SEED_BYTES);
    at += BRIGADE_DICE_SEED_BYTES;
    for (int shift = 56; shift >= 0; shift -= 8)
        message[at++] = (uint8_t)(number >> shift);
    message[at++] = k;
    unsigned int length = 0;
    return HMAC(EVP_sha256(), seeds->server, BRIGADE_DICE_SEED_BYTES, message, at, block,
                &length) != NULL &&
           length == BRIGADE_DICE_DIGEST_BYTES;
}

int brigade_dice_face(const brigade_dice_seeds *seeds, uint64_t number)
{
    uint8_t block[BRIGADE_DICE_DIGEST_BYTES];
    for (unsigned k = 0; k <= 255; k++) {
        if (!die_block(seeds, number, (uint8_t)k, block))
            return 0;
        for (int i = 0; i < BRIGADE_DICE_DIGEST_BYTES; i++)
            if (block[i] < FACE_BYTE_LIMIT)
                return block[i] % 6 + 1;
    }
    return 0; /* 256 blocks of 32 bytes all 252 or more: never in practice */
}

bool brigade_dice_commitment(const uint8_t server_seed[BRIGADE_DICE_SEED_BYTES],
                             char hex[BRIGADE_DICE_DIGEST_HEX + 1])
{
    uint8_t digest[BRIGADE_DICE_DIGEST_BYTES];
    unsigned int length = 0;
    if (EVP_Digest(server_seed, BRIGADE_DICE_SEED_BYTES, digest, &length, EVP_sha256(), NULL) != 1 ||
        length != BRIGADE_DICE_DIGEST_BYTES)
        return false;
    brigade_dice_seed_to_hex(digest, hex);
    return true;
}

void brigade_dice_seed_to_hex(const uint8_t seed[BRIGADE_DICE_SEED_BYTES],
                              char hex[BRIGADE_DICE_DIGEST_HEX + 1])
{
    brigade_hex_encode(seed, BRIGADE_DICE_SEED_BYTES, hex);
}

bool brigade_dice_seed_from_hex(const char *hex, uint8_t seed[BRIGADE_DICE_SEED_BYTES])
{
    return hex != NULL && brigade_hex_decode(hex, strlen(hex), seed, BRIGADE_DICE_SEED_BYTES);
}

/* brigade_dice_source.roll over brigade_verifiable_dice: the next two dice. */
static bool verifiable_dice_roll(void *context, const char *name, int faces[2])
{
    brigade_verifiable_dice *dice = context;
    (void)name; /* the number, not the name, picks the dice (core/dice.h) */
    int first = brigade_dice_face(dice->seeds, dice->next_number);
    int second = brigade_dice_face(dice->seeds, dice->next_number + 1);
    if (first == 0 || second == 0) {
        dice->failed = true;
        return false;
    }
    faces[0] = first;
    faces[1] = second;
    dice->next_number += 2;
    return true;
}

void brigade_verifiable_dice_source(brigade_verifiable_dice *dice, brigade_dice_source *source)
{
    source->context = dice;
    source->roll = verifiable_dice_roll;
}
