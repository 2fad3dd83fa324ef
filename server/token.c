/* server/token.c: random ids and tokens, their SHA-256 (server/token.h). */
#include "server/token.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

bool server_token_random_hex(char *out, size_t bytes)
{
    unsigned char raw[64];
    static const char digits[] = "0123456789abcdef";
    if (bytes > sizeof(raw) || RAND_bytes(raw, (int)bytes) != 1)
        return false;
    for (size_t i = 0; i < bytes; i++) {
        out[2 * i] = digits[raw[i] >> 4];
        out[2 * i + 1] = digits[raw[i] & 0x0f];
    }
    out[2 * bytes] = '\0';
    OPENSSL_cleanse(raw, sizeof(raw));
    return true;
}

void server_token_hash(const char *token, unsigned char out[JOURNAL_HASH_SIZE])
{
    journal_sha256(token, strlen(token), out);
}
