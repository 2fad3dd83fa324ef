/*
 * server/refs.h: reference counts of objects freed with free(), the
 * websocket sessions of server/game.c and server/relay.c (one reference
 * for the connection, one for each request in flight that holds it).
 *
 * An object so counted has its count, an unsigned, as its first member;
 * its creator sets it to 1.
 */
#ifndef BRIGADE_SERVER_REFS_H
#define BRIGADE_SERVER_REFS_H

/* One more reference to `object` (not NULL); returns object. */
void *server_refs_take(void *object);

/* One reference less to `object` (NULL: nothing); the last frees it. */
void server_refs_drop(void *object);

#endif
