/* A complete poker bot in C: the starter for C authors (protocol/PROTOCOL.md is the contract).
 *
 * Talks to the referee over ZeroMQ (libzmq, a DEALER socket on HARNESS_ENDPOINT) in MessagePack
 * maps (msgpack-c). It says hello with HARNESS_SECRET, then answers every request:
 *   act  -> "check" if it is legal, else "call" (never folds, never raises);
 *   draw -> throws away its lowest cards that pair nothing, at most 2 and at most legal.max_discards
 *           (it holds seven cards and keeps five, R4.1).
 * It exits on match_end or a fatal error. Build: make -C bots/c (Debian: libzmq3-dev libmsgpack-dev).
 * Replace decide_action() and decide_discards() with your own strategy.
 */
#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define PROTOCOL_VERSION 1
#define MAX_CARDS 7

/* The value of `key` in a MessagePack map, or NULL. */
static const msgpack_object *get(const msgpack_object *map, const char *key) {
    if (map == NULL || map->type != MSGPACK_OBJECT_MAP) return NULL;
    size_t n = strlen(key);
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == n && memcmp(k->via.str.ptr, key, n) == 0)
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

static int is_str(const msgpack_object *o, const char *s) {
    return o != NULL && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(s) &&
           memcmp(o->via.str.ptr, s, o->via.str.size) == 0;
}

static int64_t get_int(const msgpack_object *map, const char *key, int64_t fallback) {
    const msgpack_object *o = get(map, key);
    if (o != NULL && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) return (int64_t)o->via.u64;
    if (o != NULL && o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) return o->via.i64;
    return fallback;
}

static void pack_str(msgpack_packer *pk, const char *s) {
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

/* Send one MessagePack map (already packed into buf) as a single ZeroMQ frame. */
static int send_buffer(void *sock, msgpack_sbuffer *buf) {
    int rc = zmq_send(sock, buf->data, buf->size, 0);
    msgpack_sbuffer_clear(buf);
    return rc < 0 ? -1 : 0;
}

/* Strategy, betting: check when it is free, else call. `actions` is legal.actions. */
static const char *decide_action(const msgpack_object *actions) {
    if (actions != NULL && actions->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < actions->via.array.size; i++)
            if (is_str(&actions->via.array.ptr[i], "check")) return "check";
    return "call";
}

static int rank_of(char c) { return (int)(strchr("23456789TJQKA", c) - "23456789TJQKA"); }

/* Strategy, the draw: pick the cards to throw (indexes into `cards`); returns how many. */
static int decide_discards(const msgpack_object *cards, int max_discards, int out[MAX_CARDS]) {
    int n = 0, count[13] = {0}, ranks[MAX_CARDS];
    if (cards == NULL || cards->type != MSGPACK_OBJECT_ARRAY) return 0;
    int held = (int)cards->via.array.size < MAX_CARDS ? (int)cards->via.array.size : MAX_CARDS;
    for (int i = 0; i < held; i++) {
        const msgpack_object *c = &cards->via.array.ptr[i];
        ranks[i] = (c->type == MSGPACK_OBJECT_STR && c->via.str.size == 2) ? rank_of(c->via.str.ptr[0]) : 12;
        if (ranks[i] >= 0 && ranks[i] < 13) count[ranks[i]]++;
    }
    int limit = max_discards < held - 5 ? max_discards : held - 5; /* keep five */
    for (int r = 0; r < 13 && n < limit; r++)       /* lowest ranks first */
        for (int i = 0; i < held && n < limit; i++)
            if (ranks[i] == r && count[r] == 1) out[n++] = i;
    return n;
}

int main(void) {
    const char *endpoint = getenv("HARNESS_ENDPOINT"), *secret = getenv("HARNESS_SECRET");
    const char *name = getenv("HARNESS_BOT_NAME") ? getenv("HARNESS_BOT_NAME") : "cbot";
    if (endpoint == NULL || secret == NULL) {
        fprintf(stderr, "HARNESS_ENDPOINT and HARNESS_SECRET must be set (the harness starts this bot)\n");
        return 2;
    }
    void *ctx = zmq_ctx_new();
    void *sock = zmq_socket(ctx, ZMQ_DEALER);
    int linger = 0, timeout_ms = 60000; /* exit if the referee says nothing for a minute */
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(sock, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    if (zmq_connect(sock, endpoint) != 0) {
        fprintf(stderr, "cannot connect to %s: %s\n", endpoint, zmq_strerror(zmq_errno()));
        return 1;
    }
    msgpack_sbuffer buf;
    msgpack_packer pk;
    msgpack_sbuffer_init(&buf);
    msgpack_packer_init(&pk, &buf, msgpack_sbuffer_write);

    msgpack_pack_map(&pk, 4); /* hello */
    pack_str(&pk, "type"); pack_str(&pk, "hello");
    pack_str(&pk, "v"); msgpack_pack_int(&pk, PROTOCOL_VERSION);
    pack_str(&pk, "secret"); pack_str(&pk, secret);
    pack_str(&pk, "name"); pack_str(&pk, name);
    send_buffer(sock, &buf);

    msgpack_unpacked msg;
    msgpack_unpacked_init(&msg);
    int status = 0;
    for (;;) {
        zmq_msg_t frame;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, sock, 0) < 0) { /* timeout: the referee is gone */
            zmq_msg_close(&frame);
            status = 1;
            break;
        }
        size_t off = 0;
        int ok = msgpack_unpack_next(&msg, zmq_msg_data(&frame), zmq_msg_size(&frame), &off) ==
                 MSGPACK_UNPACK_SUCCESS;
        zmq_msg_close(&frame);
        if (!ok) continue;
        const msgpack_object *root = &msg.data, *type = get(root, "type");
        const msgpack_object *legal = get(root, "legal"), *state = get(root, "state");
        int64_t seq = get_int(root, "seq", 0);
        int events = 0;
        size_t events_size = sizeof events;
        if ((is_str(type, "act") || is_str(type, "draw")) &&
            zmq_getsockopt(sock, ZMQ_EVENTS, &events, &events_size) == 0 && (events & ZMQ_POLLIN)) {
            /* PROTOCOL.md section 8: a message queued behind a request means it timed out; skip it */
            fprintf(stderr, "skipped request %lld: it timed out while this bot was busy\n", (long long)seq);
            continue;
        }
        if (is_str(type, "act")) {
            msgpack_pack_map(&pk, 5);
            pack_str(&pk, "type"); pack_str(&pk, "action");
            pack_str(&pk, "v"); msgpack_pack_int(&pk, PROTOCOL_VERSION);
            pack_str(&pk, "seq"); msgpack_pack_int64(&pk, seq);
            pack_str(&pk, "action"); pack_str(&pk, decide_action(get(legal, "actions")));
            pack_str(&pk, "amount"); msgpack_pack_int(&pk, 0);
            send_buffer(sock, &buf);
        } else if (is_str(type, "draw")) {
            const msgpack_object *cards = get(state, "cards");
            int throw_away[MAX_CARDS];
            int n = decide_discards(cards, (int)get_int(legal, "max_discards", 0), throw_away);
            msgpack_pack_map(&pk, 4);
            pack_str(&pk, "type"); pack_str(&pk, "discard");
            pack_str(&pk, "v"); msgpack_pack_int(&pk, PROTOCOL_VERSION);
            pack_str(&pk, "seq"); msgpack_pack_int64(&pk, seq);
            pack_str(&pk, "cards"); msgpack_pack_array(&pk, (size_t)n);
            for (int i = 0; i < n; i++) {
                const msgpack_object *c = &cards->via.array.ptr[throw_away[i]];
                msgpack_pack_str(&pk, c->via.str.size);
                msgpack_pack_str_body(&pk, c->via.str.ptr, c->via.str.size);
            }
            send_buffer(sock, &buf);
        } else if (is_str(type, "match_end")) {
            break;
        } else if (is_str(type, "error")) {
            const msgpack_object *fatal = get(root, "fatal"), *text = get(root, "message");
            if (text != NULL && text->type == MSGPACK_OBJECT_STR)
                fprintf(stderr, "referee: %.*s\n", (int)text->via.str.size, text->via.str.ptr);
            if (fatal != NULL && fatal->type == MSGPACK_OBJECT_BOOLEAN && fatal->via.boolean) break;
        } /* welcome, match_start, hand_start, hand_end: nothing to do */
    }
    msgpack_unpacked_destroy(&msg);
    msgpack_sbuffer_destroy(&buf);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return status;
}
