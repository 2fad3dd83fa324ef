/*
 * server/chain.h: the chained hash tables of the server (the games by id in
 * server/game.c, the rate entries by address in server/rate.c): an array of
 * bucket heads, each a singly linked list through a pointer member of the
 * entry.
 */
#ifndef BRIGADE_SERVER_CHAIN_H
#define BRIGADE_SERVER_CHAIN_H

#include <stddef.h>
#include <string.h>

/* Frees every entry of a chained hash table. buckets is the table's array of
 * bucket_count entry pointers (server_game **, server_rate_entry ** ...);
 * next_offset is offsetof(entry type, next), the member that links a chain.
 * Each entry's next is read before free_entry(entry) is called, so
 * free_entry may free the whole entry. The buckets array itself is left to
 * the caller. No errors; NULL heads are empty buckets. */
static inline void server_chain_free_all(void *buckets, size_t bucket_count,
                                         size_t next_offset,
                                         void (*free_entry)(void *entry))
{
    for (size_t i = 0; i < bucket_count; i++) {
        void *entry;
        memcpy(&entry, (char *)buckets + i * sizeof(entry), sizeof(entry));
        while (entry) {
            void *next;
            memcpy(&next, (char *)entry + next_offset, sizeof(next));
            free_entry(entry);
            entry = next;
        }
    }
}

#endif
