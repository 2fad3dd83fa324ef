/*
 * server/password.h: the spectator password at rest (issue 13 point 5,
 * PROTOCOL.md §5.1, §5.2): a salted slow hash to store, its stored text
 * parsed and verified, and a fast keyed tag for brigaded's in-memory cache
 * of passwords verified good. Nothing here is global or keeps state; each
 * function may run on any thread (brigaded runs the slow ones on the libuv
 * threadpool, never on its loop).
 *
 * The stored text (the journal's games.spectator_password, journal.h):
 *
 *   scrypt$N$r$p$<salt>$<hash>
 *
 * N, r, p scrypt's cost parameters (RFC 7914) in decimal, <salt> 16 random
 * bytes and <hash> the 32 bytes of scrypt(password, salt, N, r, p) (OpenSSL's
 * EVP_PBE_scrypt), both lower-case hex. The parameters travel with the hash,
 * so that new hashes can cost more while old ones still verify. The
 * password's bytes are hashed as given (UTF-8, 1 .. 127 bytes, §5.1).
 *
 *   sha256$<hash>
 *
 * the unsalted SHA-256 that journals of schema versions 2 to 4 kept: it
 * verifies (SERVER_PASSWORD_MATCH with *legacy set, the caller should store
 * a new scrypt hash then), and is never made for a new password.
 *
 * Errors: functions that fail write one line naming what is wrong into
 * error[size] ("stored password: N 1000 is not a power of two"), never the
 * password.
 */
#ifndef BRIGADE_SERVER_PASSWORD_H
#define BRIGADE_SERVER_PASSWORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cost of a new hash: scrypt N = 2^14, r = 8, p = 1, 16 MiB of memory
 * and about 50 ms of one core on the project's machine (README "Secrets at
 * rest" says how it was measured). */
#define SERVER_PASSWORD_SCRYPT_N 16384
#define SERVER_PASSWORD_SCRYPT_R 8
#define SERVER_PASSWORD_SCRYPT_P 1
/* Bytes of a salt and of a hash. */
#define SERVER_PASSWORD_SALT_BYTES 16
#define SERVER_PASSWORD_HASH_BYTES 32
/* The costliest stored parameters verified: N up to 2^20, r up to 32, p
 * up to 16, at most 256 MiB of memory (128 r (N + p) bytes) and N r p at
 * most 2^22 (about 32 times the default work), so that a damaged or forged
 * stored text cannot take a worker's memory or minutes. */
#define SERVER_PASSWORD_N_MAX (1u << 20)
#define SERVER_PASSWORD_R_MAX 32u
#define SERVER_PASSWORD_P_MAX 16u
#define SERVER_PASSWORD_MEMORY_MAX (256ull * 1024 * 1024)
#define SERVER_PASSWORD_WORK_MAX (1ull << 22)
/* Longest stored text this module writes or reads, bytes. */
#define SERVER_PASSWORD_STORED_MAX 160
/* Bytes of a cache tag (server_password_tag) and of its key. */
#define SERVER_PASSWORD_TAG_BYTES 32
#define SERVER_PASSWORD_KEY_BYTES 32

/* scrypt's cost parameters (RFC 7914). */
typedef struct server_password_params {
    uint64_t n; /* CPU and memory cost, a power of two >= 2 */
    uint32_t r; /* block size */
    uint32_t p; /* parallelism */
} server_password_params;

/* The kinds of stored text. */
typedef enum server_password_kind {
    SERVER_PASSWORD_SCRYPT = 0,
    SERVER_PASSWORD_SHA256 /* schema versions 2 to 4: verify, then replace */
} server_password_kind;

/* A stored text parsed (server_password_parse). */
typedef struct server_password_stored {
    server_password_kind kind;
    server_password_params params;                      /* SCRYPT only */
    unsigned char salt[SERVER_PASSWORD_SALT_BYTES];     /* SCRYPT only */
    unsigned char hash[SERVER_PASSWORD_HASH_BYTES];
} server_password_stored;

/* The result of server_password_verify. */
typedef enum server_password_result {
    SERVER_PASSWORD_ERROR = -1,   /* the stored text does not parse, or the KDF failed */
    SERVER_PASSWORD_MATCH = 0,
    SERVER_PASSWORD_MISMATCH = 1
} server_password_result;

/*
 * The stored text of `password` (length bytes) with a new random salt
 * (OpenSSL RAND_bytes) and the default parameters
 * (SERVER_PASSWORD_SCRYPT_*) into out. Slow (about 50 ms): never on
 * brigaded's loop. Returns 0, or -1 (the random source or scrypt failed,
 * memory) with the reason in error[size].
 */
int server_password_hash(const char *password, size_t length,
                         char out[SERVER_PASSWORD_STORED_MAX + 1], char *error, size_t size);

/* As server_password_hash, with the given parameters and salt (tests; a
 * change of the default cost). Refuses parameters outside the bounds
 * above (-1, named). */
int server_password_hash_with(const char *password, size_t length,
                              const server_password_params *params,
                              const unsigned char salt[SERVER_PASSWORD_SALT_BYTES],
                              char out[SERVER_PASSWORD_STORED_MAX + 1], char *error,
                              size_t size);

/* The stored text of an unsalted SHA-256 kept by schema versions 2 to 4
 * ("sha256$<hex>") into out. */
void server_password_from_sha256(const unsigned char sha256[SERVER_PASSWORD_HASH_BYTES],
                                 char out[SERVER_PASSWORD_STORED_MAX + 1]);

/*
 * Parses a stored text into *out. Returns 0, or -1 with error[size] naming
 * what is wrong (an unknown kind, a field missing or extra, N not a power
 * of two or a cost over the bounds, a salt or hash that is not lower-case
 * hex of the right length); *out is then zeroed.
 */
int server_password_parse(const char *stored, server_password_stored *out, char *error,
                          size_t size);

/*
 * Whether `password` (length bytes) is the one `stored` holds, compared in
 * constant time. *legacy (may be NULL) is set when the stored text is the
 * old unsalted SHA-256 (store server_password_hash's text instead). Slow
 * for scrypt (as long as its parameters say): never on brigaded's loop.
 * SERVER_PASSWORD_ERROR with the reason in error[size] when the stored
 * text does not parse or scrypt fails.
 */
server_password_result server_password_verify(const char *stored, const char *password,
                                              size_t length, bool *legacy, char *error,
                                              size_t size);

/*
 * HMAC-SHA-256 of `password` under `key` (a random key of the process, made
 * at start) into out: what brigaded's cache keeps of a password verified
 * good, in memory only, never on disk, so that the next joins with it cost
 * a fast hash instead of scrypt. Fast (about a microsecond). Returns false
 * when OpenSSL fails (out zeroed: cache nothing, compare nothing).
 */
bool server_password_tag(const unsigned char key[SERVER_PASSWORD_KEY_BYTES],
                         const char *password, size_t length,
                         unsigned char out[SERVER_PASSWORD_TAG_BYTES]);

/*
 * Whether `password` (NUL-terminated) is the one a cache holds as
 * known_tag (when `known`: a password verified good before, PROTOCOL.md
 * §5.2): its tag under `key` compared in constant time, then wiped. Fast;
 * false when nothing is known or OpenSSL fails.
 */
bool server_password_tag_known(const unsigned char key[SERVER_PASSWORD_KEY_BYTES], bool known,
                               const unsigned char known_tag[SERVER_PASSWORD_TAG_BYTES],
                               const char *password);

#endif
