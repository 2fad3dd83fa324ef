/* server/token.c: random ids and tokens, their SHA-256 (server/token.h). */
#include "server/token.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "core/helpers.h"

bool server_token_random_hex(char *out, size_t bytes)
{
    unsigned char raw[64];
    if (bytes > sizeof(raw) || RAND_bytes(raw, (int)bytes) != 1)
        return false;
    brigade_hex_encode(raw, bytes, out);
    OPENSSL_cleanse(raw, sizeof(raw));
    return true;
}

void server_token_hash(const char *token, unsigned char out[JOURNAL_HASH_SIZE])
{
    journal_sha256(token, strlen(token), out);
}
