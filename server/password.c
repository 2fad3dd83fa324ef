/*
 * server/password.c: the spectator password's stored hash (see
 * server/password.h), on OpenSSL: EVP_PBE_scrypt, SHA-256, HMAC,
 * RAND_bytes, CRYPTO_memcmp.
 */
#include "server/password.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "core/helpers.h"

_Static_assert(SHA256_DIGEST_LENGTH == SERVER_PASSWORD_HASH_BYTES, "a SHA-256 is the hash size");

/* Exactly 2 * count lower-case hex characters of text[0..length) into
 * bytes (the only text this module writes: upper case is refused); false
 * otherwise. */
static bool hex_get(const char *text, size_t length, unsigned char *bytes, size_t count)
{
    for (size_t i = 0; i < length; i++)
        if (text[i] >= 'A' && text[i] <= 'F')
            return false;
    return brigade_hex_decode(text, length, bytes, count);
}

/* Whether the parameters are within the bounds of password.h, else false
 * with the reason. */
static bool params_check(const server_password_params *params, char *error, size_t size)
{
    uint64_t n = params->n;
    if (n < 2 || n > SERVER_PASSWORD_N_MAX || (n & (n - 1)) != 0) {
        snprintf(error, size, "scrypt N %" PRIu64 " is not a power of two from 2 to %u", n,
                 SERVER_PASSWORD_N_MAX);
        return false;
    }
    if (params->r < 1 || params->r > SERVER_PASSWORD_R_MAX) {
        snprintf(error, size, "scrypt r %" PRIu32 " is not 1 to %u", params->r,
                 SERVER_PASSWORD_R_MAX);
        return false;
    }
    if (params->p < 1 || params->p > SERVER_PASSWORD_P_MAX) {
        snprintf(error, size, "scrypt p %" PRIu32 " is not 1 to %u", params->p,
                 SERVER_PASSWORD_P_MAX);
        return false;
    }
    uint64_t memory = 128ull * params->r * (n + params->p);
    if (memory > SERVER_PASSWORD_MEMORY_MAX) {
        snprintf(error, size, "scrypt N %" PRIu64 ", r %" PRIu32 " need %" PRIu64
                 " MiB, over %llu", n, params->r, memory >> 20,
                 SERVER_PASSWORD_MEMORY_MAX >> 20);
        return false;
    }
    if (n * params->r * params->p > SERVER_PASSWORD_WORK_MAX) {
        snprintf(error, size, "scrypt N r p = %" PRIu64 ", over %llu", n * params->r * params->p,
                 SERVER_PASSWORD_WORK_MAX);
        return false;
    }
    return true;
}

/* scrypt(password, salt) with checked parameters into out. */
static bool scrypt_derive(const char *password, size_t length,
                          const server_password_params *params,
                          const unsigned char salt[SERVER_PASSWORD_SALT_BYTES],
                          unsigned char out[SERVER_PASSWORD_HASH_BYTES], char *error, size_t size)
{
    /* OpenSSL's own bound on what it allocates: what these parameters
     * need, and some room. */
    uint64_t maxmem = 128ull * params->r * (params->n + params->p + 2) + (1u << 20);
    if (EVP_PBE_scrypt(password, length, salt, SERVER_PASSWORD_SALT_BYTES, params->n, params->r,
                       params->p, maxmem, out, SERVER_PASSWORD_HASH_BYTES) != 1) {
        snprintf(error, size, "scrypt failed (OpenSSL EVP_PBE_scrypt, out of memory?)");
        return false;
    }
    return true;
}

int server_password_hash_with(const char *password, size_t length,
                              const server_password_params *params,
                              const unsigned char salt[SERVER_PASSWORD_SALT_BYTES],
                              char out[SERVER_PASSWORD_STORED_MAX + 1], char *error,
                              size_t size)
{
    out[0] = '\0';
    if (!params_check(params, error, size))
        return -1;
    unsigned char hash[SERVER_PASSWORD_HASH_BYTES];
    if (!scrypt_derive(password, length, params, salt, hash, error, size))
        return -1;
    int at = snprintf(out, SERVER_PASSWORD_STORED_MAX + 1, "scrypt$%" PRIu64 "$%" PRIu32
                      "$%" PRIu32 "$", params->n, params->r, params->p);
    /* At most 6 + 7 + 2 + 2 + 4 + 32 + 1 + 64 = 118 bytes. */
    brigade_hex_encode(salt, SERVER_PASSWORD_SALT_BYTES, out + at);
    at += 2 * SERVER_PASSWORD_SALT_BYTES;
    out[at++] = '$';
    brigade_hex_encode(hash, SERVER_PASSWORD_HASH_BYTES, out + at);
    at += 2 * SERVER_PASSWORD_HASH_BYTES;
    out[at] = '\0';
    OPENSSL_cleanse(hash, sizeof hash);
    return 0;
}

int server_password_hash(const char *password, size_t length,
                         char out[SERVER_PASSWORD_STORED_MAX + 1], char *error, size_t size)
{
    unsigned char salt[SERVER_PASSWORD_SALT_BYTES];
    if (RAND_bytes(salt, (int)sizeof salt) != 1) {
        out[0] = '\0';
        snprintf(error, size, "the random source failed (OpenSSL RAND_bytes)");
        return -1;
    }
    server_password_params params = {SERVER_PASSWORD_SCRYPT_N, SERVER_PASSWORD_SCRYPT_R,
                                     SERVER_PASSWORD_SCRYPT_P};
    return server_password_hash_with(password, length, &params, salt, out, error, size);
}

void server_password_from_sha256(const unsigned char sha256[SERVER_PASSWORD_HASH_BYTES],
                                 char out[SERVER_PASSWORD_STORED_MAX + 1])
{
    memcpy(out, "sha256$", 7);
    brigade_hex_encode(sha256, SERVER_PASSWORD_HASH_BYTES, out + 7);
}

/* A decimal field of 1 to 10 digits, no sign or leading zero, into *out;
 * false otherwise. */
static bool decimal_get(const char *text, size_t length, uint64_t *out)
{
    if (length < 1 || length > 10 || (text[0] == '0' && length > 1))
        return false;
    uint64_t value = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return false;
        value = value * 10 + (uint64_t)(text[i] - '0');
    }
    *out = value;
    return true;
}

int server_password_parse(const char *stored, server_password_stored *out, char *error,
                          size_t size)
{
    memset(out, 0, sizeof *out);
    if (!stored || !stored[0]) {
        snprintf(error, size, "stored password: empty");
        return -1;
    }
    size_t total = strlen(stored);
    if (total > SERVER_PASSWORD_STORED_MAX) {
        snprintf(error, size, "stored password: %zu bytes, over %d", total,
                 SERVER_PASSWORD_STORED_MAX);
        return -1;
    }
    /* The fields between '$': the kind, then at most 5. */
    size_t count = 1;
    for (const char *c = stored; *c; c++)
        count += *c == '$';
    const char *field[6] = {0};
    size_t length[6] = {0};
    const char *at = stored;
    for (size_t i = 0; i < count && i < 6; i++) {
        const char *end = strchr(at, '$');
        field[i] = at;
        length[i] = end ? (size_t)(end - at) : strlen(at);
        at = end ? end + 1 : at + length[i];
    }
    server_password_stored parsed;
    memset(&parsed, 0, sizeof parsed);
    if (length[0] == 6 && memcmp(field[0], "sha256", 6) == 0) {
        if (count != 2) {
            snprintf(error, size, "stored password: 'sha256' has 1 field after it, not %zu",
                     count - 1);
            return -1;
        }
        if (!hex_get(field[1], length[1], parsed.hash, sizeof parsed.hash)) {
            snprintf(error, size, "stored password: the SHA-256 is not %d lower-case hex "
                                  "characters", 2 * SERVER_PASSWORD_HASH_BYTES);
            return -1;
        }
        parsed.kind = SERVER_PASSWORD_SHA256;
        *out = parsed;
        return 0;
    }
    if (length[0] != 6 || memcmp(field[0], "scrypt", 6) != 0) {
        snprintf(error, size, "stored password: unknown kind '%.*s' (scrypt, sha256)",
                 (int)(length[0] > 16 ? 16 : length[0]), field[0]);
        return -1;
    }
    if (count != 6) {
        snprintf(error, size, "stored password: 'scrypt' has 5 fields after it (N, r, p, salt, "
                              "hash), not %zu", count - 1);
        return -1;
    }
    uint64_t n = 0, r = 0, p = 0;
    static const char *const names[] = {"N", "r", "p"};
    uint64_t *values[] = {&n, &r, &p};
    for (int i = 0; i < 3; i++)
        if (!decimal_get(field[1 + i], length[1 + i], values[i])) {
            snprintf(error, size, "stored password: scrypt %s '%.*s' is not a decimal number",
                     names[i], (int)(length[1 + i] > 16 ? 16 : length[1 + i]), field[1 + i]);
            return -1;
        }
    parsed.kind = SERVER_PASSWORD_SCRYPT;
    parsed.params.n = n;
    parsed.params.r = r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
    parsed.params.p = p > UINT32_MAX ? UINT32_MAX : (uint32_t)p;
    char why[128];
    if (!params_check(&parsed.params, why, sizeof why)) {
        snprintf(error, size, "stored password: %s", why);
        return -1;
    }
    if (!hex_get(field[4], length[4], parsed.salt, sizeof parsed.salt)) {
        snprintf(error, size, "stored password: the salt is not %d lower-case hex characters",
                 2 * SERVER_PASSWORD_SALT_BYTES);
        return -1;
    }
    if (!hex_get(field[5], length[5], parsed.hash, sizeof parsed.hash)) {
        snprintf(error, size, "stored password: the hash is not %d lower-case hex characters",
                 2 * SERVER_PASSWORD_HASH_BYTES);
        return -1;
    }
    *out = parsed;
    return 0;
}

server_password_result server_password_verify(const char *stored, const char *password,
                                              size_t length, bool *legacy, char *error,
                                              size_t size)
{
    if (legacy)
        *legacy = false;
    server_password_stored parsed;
    if (server_password_parse(stored, &parsed, error, size) != 0)
        return SERVER_PASSWORD_ERROR;
    unsigned char hash[SERVER_PASSWORD_HASH_BYTES];
    if (parsed.kind == SERVER_PASSWORD_SHA256) {
        SHA256((const unsigned char *)password, length, hash);
        if (legacy)
            *legacy = true;
    } else if (!scrypt_derive(password, length, &parsed.params, parsed.salt, hash, error,
                              size)) {
        OPENSSL_cleanse(&parsed, sizeof parsed);
        return SERVER_PASSWORD_ERROR;
    }
    bool same = CRYPTO_memcmp(hash, parsed.hash, sizeof hash) == 0;
    OPENSSL_cleanse(hash, sizeof hash);
    OPENSSL_cleanse(&parsed, sizeof parsed);
    return same ? SERVER_PASSWORD_MATCH : SERVER_PASSWORD_MISMATCH;
}

bool server_password_tag(const unsigned char key[SERVER_PASSWORD_KEY_BYTES],
                         const char *password, size_t length,
                         unsigned char out[SERVER_PASSWORD_TAG_BYTES])
{
    unsigned int written = 0;
    if (HMAC(EVP_sha256(), key, SERVER_PASSWORD_KEY_BYTES, (const unsigned char *)password,
             length, out, &written) != NULL &&
        written == SERVER_PASSWORD_TAG_BYTES)
        return true;
    OPENSSL_cleanse(out, SERVER_PASSWORD_TAG_BYTES);
    return false;
}

bool server_password_tag_known(const unsigned char key[SERVER_PASSWORD_KEY_BYTES], bool known,
                               const unsigned char known_tag[SERVER_PASSWORD_TAG_BYTES],
                               const char *password)
{
    if (!known)
        return false;
    unsigned char tag[SERVER_PASSWORD_TAG_BYTES];
    bool same = server_password_tag(key, password, strlen(password), tag) &&
                CRYPTO_memcmp(tag, known_tag, sizeof(tag)) == 0;
    OPENSSL_cleanse(tag, sizeof(tag));
    return same;
}
