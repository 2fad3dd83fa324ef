/*
 * tests/server/password_test.c: the spectator password's stored hash
 * (server/password.h): scrypt against known answers with a fixed salt
 * (computed by Python's hashlib.scrypt, itself checked against RFC 7914's
 * vector: see the comment of each), the stored text's format, verify good
 * and bad, the old SHA-256 kind, the parse errors of damaged texts, the
 * cost bounds, the cache tag, and the default cost measured.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "server/password.h"

static const unsigned char salt_00_0f[SERVER_PASSWORD_SALT_BYTES] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
    0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f};

/* hashlib.scrypt(b"pass word", salt=bytes(range(16)), n=1024, r=8, p=1,
 * dklen=32); the same hashlib gives RFC 7914's scrypt("password", "NaCl",
 * 1024, 8, 16) = fdbabe1c9d347200... */
static const char kat_small[] =
    "scrypt$1024$8$1$000102030405060708090a0b0c0d0e0f$"
    "f71184f654b08d08f56a9205eacac80726805d5cd7fdd3ff266d6a13f6b1d228";

static void test_known_answer(void **state)
{
    (void)state;
    server_password_params params = {1024, 8, 1};
    char out[SERVER_PASSWORD_STORED_MAX + 1];
    char error[160] = "";
    assert_int_equal(server_password_hash_with("pass word", 9, &params, salt_00_0f, out, error,
                                               sizeof error),
                     0);
    assert_string_equal(out, kat_small);

    /* The default cost, UTF-8 bytes: hashlib.scrypt("Mot de passe été"
     * .encode(), salt=bytes(range(0xf0, 0x100)), n=16384, r=8, p=1). */
    unsigned char salt[SERVER_PASSWORD_SALT_BYTES];
    for (int i = 0; i < SERVER_PASSWORD_SALT_BYTES; i++)
        salt[i] = (unsigned char)(0xf0 + i);
    server_password_params defaults = {SERVER_PASSWORD_SCRYPT_N, SERVER_PASSWORD_SCRYPT_R,
                                       SERVER_PASSWORD_SCRYPT_P};
    const char *utf8 = "Mot de passe \xc3\xa9t\xc3\xa9";
    assert_int_equal(server_password_hash_with(utf8, strlen(utf8), &defaults, salt, out, error,
                                               sizeof error),
                     0);
    assert_string_equal(out, "scrypt$16384$8$1$f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff$"
                             "8f9b19fd06ddd5ff0c67c6bcfd172d92a0c83c6156d70dbfad0b75c546aeeec0");
}

static void test_hash_and_verify(void **state)
{
    (void)state;
    char one[SERVER_PASSWORD_STORED_MAX + 1], two[SERVER_PASSWORD_STORED_MAX + 1];
    char error[160] = "";
    assert_int_equal(server_password_hash("pass word", 9, one, error, sizeof error), 0);
    assert_int_equal(server_password_hash("pass word", 9, two, error, sizeof error), 0);
    /* scrypt$16384$8$1$<32 hex>$<64 hex>, a new salt each time. */
    assert_int_equal(strncmp(one, "scrypt$16384$8$1$", 17), 0);
    assert_int_equal(strlen(one), 17 + 32 + 1 + 64);
    assert_string_not_equal(one, two);
    assert_memory_not_equal(one + 17, two + 17, 32);
    server_password_stored parsed;
    assert_int_equal(server_password_parse(one, &parsed, error, sizeof error), 0);
    assert_int_equal(parsed.kind, SERVER_PASSWORD_SCRYPT);
    assert_int_equal(parsed.params.n, 16384);
    assert_int_equal(parsed.params.r, 8);
    assert_int_equal(parsed.params.p, 1);

    bool legacy = true;
    assert_int_equal(server_password_verify(one, "pass word", 9, &legacy, error, sizeof error),
                     SERVER_PASSWORD_MATCH);
    assert_false(legacy);
    assert_int_equal(server_password_verify(two, "pass word", 9, NULL, error, sizeof error),
                     SERVER_PASSWORD_MATCH);
    /* One byte off, one byte short, one byte more, another case. */
    assert_int_equal(server_password_verify(one, "pass wore", 9, NULL, error, sizeof error),
                     SERVER_PASSWORD_MISMATCH);
    assert_int_equal(server_password_verify(one, "pass wor", 8, NULL, error, sizeof error),
                     SERVER_PASSWORD_MISMATCH);
    assert_int_equal(server_password_verify(one, "pass words", 10, NULL, error, sizeof error),
                     SERVER_PASSWORD_MISMATCH);
    assert_int_equal(server_password_verify(one, "Pass word", 9, NULL, error, sizeof error),
                     SERVER_PASSWORD_MISMATCH);
    /* The known answer verifies with its own (stored) parameters. */
    assert_int_equal(server_password_verify(kat_small, "pass word", 9, NULL, error,
                                            sizeof error),
                     SERVER_PASSWORD_MATCH);
    assert_int_equal(server_password_verify(kat_small, "pass wore", 9, NULL, error,
                                            sizeof error),
                     SERVER_PASSWORD_MISMATCH);
}

/* The SHA-256 kind of schema versions 2 to 4: verifies, says legacy. */
static void test_legacy_sha256(void **state)
{
    (void)state;
    /* hashlib.sha256(b"pass word") */
    static const unsigned char sha[SERVER_PASSWORD_HASH_BYTES] = {
        0x78, 0x98, 0x0e, 0x25, 0x7f, 0x41, 0x24, 0x37, 0xfb, 0xf9, 0x34,
        0x37, 0x87, 0xbc, 0x00, 0xec, 0x5b, 0x10, 0x63, 0x64, 0x29, 0xbc,
        0x00, 0x0b, 0x29, 0x01, 0x07, 0x33, 0x5b, 0x08, 0x97, 0x86};
    char stored[SERVER_PASSWORD_STORED_MAX + 1];
    server_password_from_sha256(sha, stored);
    assert_string_equal(stored,
                        "sha256$78980e257f412437fbf9343787bc00ec5b10636429bc000b290107335b089786");
    char error[160] = "";
    bool legacy = false;
    assert_int_equal(server_password_verify(stored, "pass word", 9, &legacy, error, sizeof error),
                     SERVER_PASSWORD_MATCH);
    assert_true(legacy);
    assert_int_equal(server_password_verify(stored, "pass wore", 9, &legacy, error, sizeof error),
                     SERVER_PASSWORD_MISMATCH);
    server_password_stored parsed;
    assert_int_equal(server_password_parse(stored, &parsed, error, sizeof error), 0);
    assert_int_equal(parsed.kind, SERVER_PASSWORD_SHA256);
    assert_memory_equal(parsed.hash, sha, sizeof sha);
}

/* Each damaged text is refused with a reason that names its fault. */
static void test_parse_errors(void **state)
{
    (void)state;
    static const char hash64[] =
        "f71184f654b08d08f56a9205eacac80726805d5cd7fdd3ff266d6a13f6b1d228";
    static const char salt32[] = "000102030405060708090a0b0c0d0e0f";
    char text[512];
    const struct {
        const char *format; /* %s: the salt, then the hash, where used */
        const char *named;  /* in the error */
    } cases[] = {
        {"", "empty"},
        {"bcrypt$10$abc", "unknown kind 'bcrypt'"},
        {"scrypt", "5 fields after it (N, r, p, salt, hash), not 0"},
        {"scrypt$1024$8$1$%s", "not 4"},
        {"scrypt$1024$8$1$%s$%s$extra", "not 6"},
        {"scrypt$1000$8$1$%s$%s", "N 1000 is not a power of two"},
        {"scrypt$1$8$1$%s$%s", "N 1 is not a power of two"},
        {"scrypt$2097152$8$1$%s$%s", "N 2097152 is not a power of two from 2 to 1048576"},
        {"scrypt$1048576$32$1$%s$%s", "MiB, over 256"},
        {"scrypt$65536$8$16$%s$%s", "N r p = 8388608, over 4194304"},
        {"scrypt$1024$0$1$%s$%s", "r 0 is not 1 to 32"},
        {"scrypt$1024$8$17$%s$%s", "p 17 is not 1 to 16"},
        {"scrypt$01024$8$1$%s$%s", "N '01024' is not a decimal number"},
        {"scrypt$-1024$8$1$%s$%s", "N '-1024' is not a decimal number"},
        {"scrypt$1024$$1$%s$%s", "r '' is not a decimal number"},
        {"scrypt$1024$8$99999999999$%s$%s", "p '99999999999' is not a decimal number"},
        {"scrypt$1024$8$1$%.30s$%s", "the salt is not 32 lower-case hex"},
        {"scrypt$1024$8$1$%sAB$%s", "the salt is not 32 lower-case hex"},
        {"scrypt$1024$8$1$%s$%.62s", "the hash is not 64 lower-case hex"},
        {"sha256", "'sha256' has 1 field after it, not 0"},
        {"sha256$%s$%s", "'sha256' has 1 field after it, not 2"},
        {"sha256$%.62s", "the SHA-256 is not 64 lower-case hex"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (strncmp(cases[i].format, "sha256$%.62s", 12) == 0 ||
            strncmp(cases[i].format, "sha256$%s$%s", 12) == 0)
            snprintf(text, sizeof text, cases[i].format, hash64, hash64);
        else
            snprintf(text, sizeof text, cases[i].format, salt32, hash64);
        /* The upper-case salt case: "...0e0fAB" is 34 characters. */
        char error[200] = "";
        server_password_stored parsed;
        memset(&parsed, 0x55, sizeof parsed);
        if (server_password_parse(text, &parsed, error, sizeof error) != -1)
            fail_msg("'%s' parsed", text);
        if (!strstr(error, cases[i].named))
            fail_msg("'%s': error '%s' does not name '%s'", text, error, cases[i].named);
        assert_int_equal(strncmp(error, "stored password: ", 17), 0);
        server_password_stored zero;
        memset(&zero, 0, sizeof zero);
        assert_memory_equal(&parsed, &zero, sizeof zero);
        assert_int_equal(server_password_verify(text, "pass word", 9, NULL, error, sizeof error),
                         SERVER_PASSWORD_ERROR);
    }
    /* Upper-case hex is not the text this module writes. */
    snprintf(text, sizeof text, "scrypt$1024$8$1$%s$%s", salt32,
             "F71184F654B08D08F56A9205EACAC80726805D5CD7FDD3FF266D6A13F6B1D228");
    char error[200] = "";
    server_password_stored parsed;
    assert_int_equal(server_password_parse(text, &parsed, error, sizeof error), -1);
    assert_non_null(strstr(error, "the hash is not 64 lower-case hex"));
    /* Too long a text. */
    memset(text, 'a', 300);
    text[300] = '\0';
    assert_int_equal(server_password_parse(text, &parsed, error, sizeof error), -1);
    assert_non_null(strstr(error, "300 bytes, over 160"));
}

/* hash_with refuses parameters out of bounds, naming them; nothing is
 * written. */
static void test_params_refused(void **state)
{
    (void)state;
    char out[SERVER_PASSWORD_STORED_MAX + 1] = "untouched";
    char error[160] = "";
    server_password_params bad = {1000, 8, 1};
    assert_int_equal(server_password_hash_with("x", 1, &bad, salt_00_0f, out, error, sizeof error),
                     -1);
    assert_string_equal(out, "");
    assert_non_null(strstr(error, "N 1000 is not a power of two"));
    bad = (server_password_params){1024, 8, 0};
    assert_int_equal(server_password_hash_with("x", 1, &bad, salt_00_0f, out, error, sizeof error),
                     -1);
    assert_non_null(strstr(error, "p 0 is not 1 to 16"));
}

/* The cache tag: HMAC-SHA-256 under the key (hmac.new(bytes(range(32)),
 * b"pass word", hashlib.sha256)); another key or password, another tag. */
static void test_tag(void **state)
{
    (void)state;
    unsigned char key[SERVER_PASSWORD_KEY_BYTES];
    for (int i = 0; i < SERVER_PASSWORD_KEY_BYTES; i++)
        key[i] = (unsigned char)i;
    static const unsigned char want[SERVER_PASSWORD_TAG_BYTES] = {
        0xbf, 0xc2, 0xce, 0x11, 0x9f, 0x4d, 0xcd, 0xc5, 0x58, 0x52, 0x7e,
        0x1f, 0x47, 0x4a, 0xdd, 0x37, 0x9b, 0xe5, 0xb7, 0x6a, 0x87, 0x80,
        0x8e, 0x97, 0x01, 0x7e, 0xd7, 0x89, 0xa9, 0xe3, 0x75, 0x8b};
    unsigned char tag[SERVER_PASSWORD_TAG_BYTES], other[SERVER_PASSWORD_TAG_BYTES];
    assert_true(server_password_tag(key, "pass word", 9, tag));
    assert_memory_equal(tag, want, sizeof want);
    assert_true(server_password_tag(key, "pass wore", 9, other));
    assert_memory_not_equal(tag, other, sizeof tag);
    key[0] ^= 1;
    assert_true(server_password_tag(key, "pass word", 9, other));
    assert_memory_not_equal(tag, other, sizeof tag);
}

/* The default cost, measured (the README's figure): printed, and bounded
 * loosely so that a default changed by mistake (a cost of 1 ms, or of
 * seconds) fails. */
static void test_default_cost(void **state)
{
    (void)state;
    char out[SERVER_PASSWORD_STORED_MAX + 1];
    char error[160] = "";
    double best = 1e9;
    for (int i = 0; i < 3; i++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        assert_int_equal(server_password_hash("pass word", 9, out, error, sizeof error), 0);
        clock_gettime(CLOCK_MONOTONIC, &end);
        double ms = (double)(end.tv_sec - start.tv_sec) * 1e3 +
                    (double)(end.tv_nsec - start.tv_nsec) / 1e6;
        if (ms < best)
            best = ms;
    }
    printf("scrypt N=%d r=%d p=%d: %.1f ms (best of 3)\n", SERVER_PASSWORD_SCRYPT_N,
           SERVER_PASSWORD_SCRYPT_R, SERVER_PASSWORD_SCRYPT_P, best);
    assert_true(best > 5.0);
    assert_true(best < 2000.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answer),
        cmocka_unit_test(test_hash_and_verify),
        cmocka_unit_test(test_legacy_sha256),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_params_refused),
        cmocka_unit_test(test_tag),
        cmocka_unit_test(test_default_cost),
    };
    return cmocka_run_group_tests_name("server_password", tests, NULL, NULL);
}
