/* A complete poker bot in C: the starter for C authors (protocol/PROTOCOL.md is the contract).
 *
 * Talks to the referee over ZeroMQ (libzmq, a DEALER socket on HARNESS_ENDPOINT) in MessagePack
 * maps (msgpack-c). It says hello with HARNESS_SECRET, then answers every request:
 *   act  -> "check" if it is legal, else "call" (never folds, never raises);
 *   draw -> throws away its lowest cards that pair nothing, at most 2 and at most legal.max_discards
 *           (it holds seven cards and keeps five, R4.1).
 * It exits on match_end or a fatal error. Build: make -C bots/c (Debian: libzmq3-dev libmsgpack-dev).
 * Replace decide_action() and decide_discards() with your own strategy (struct request has what a
 * request says). `./bot --vectors DIR` runs protocol/vectors/ (DIR) through handle(), without a referee.
 */
#include <msgpack.h>
#include <stdbool.h>
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

/* Up to `max` integers of the array at `key` into `out`; returns how many. */
static int get_ints(const msgpack_object *map, const char *key, int64_t *out, int max) {
    const msgpack_object *a = get(map, key);
    int n = 0;
    if (a == NULL || a->type != MSGPACK_OBJECT_ARRAY) return 0;
    for (uint32_t i = 0; i < a->via.array.size && n < max; i++) {
        const msgpack_object *o = &a->via.array.ptr[i];
        out[n++] = o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ? (int64_t)o->via.u64 : 0;
    }
    return n;
}

#define MAX_SEATS 8  /* 2-6 seats; 2-8 in Five Card Draw (PROTOCOL.md section 6 "Other games") */
#define MAX_ACTIONS 5

/* What an act or draw request says (PROTOCOL.md sections 5 and 6; protocol/vectors/README.md). */
struct request {
    int is_draw;
    int64_t seq, seat, button, pot, call_amount, min_to, max_to, max_discards, decision_ms, bank_ms;
    char phase[8];
    char cards[MAX_CARDS][3];
    int n_cards;
    int64_t stacks[MAX_SEATS], bets[MAX_SEATS];
    int n_stacks, n_bets;
    char actions[MAX_ACTIONS][8];
    int n_actions;
};

/* Copy the string at `key` (or the array item `o`) into out[size]; "" when it is not a fitting string. */
static void copy_str(const msgpack_object *o, char *out, size_t size) {
    out[0] = 0;
    if (o != NULL && o->type == MSGPACK_OBJECT_STR && o->via.str.size < size) {
        memcpy(out, o->via.str.ptr, o->via.str.size);
        out[o->via.str.size] = 0;
    }
}

/* Read an act/draw request; false when it has no usable seq (then it is ignored). */
static bool read_request(const msgpack_object *root, struct request *r) {
    const msgpack_object *seq = get(root, "seq"), *state = get(root, "state"), *legal = get(root, "legal");
    const msgpack_object *time = get(root, "time"), *cards = get(state, "cards"), *actions = get(legal, "actions");
    if (seq == NULL || seq->type != MSGPACK_OBJECT_POSITIVE_INTEGER) return false;
    memset(r, 0, sizeof *r);
    r->is_draw = is_str(get(root, "type"), "draw");
    r->seq = (int64_t)seq->via.u64;
    r->seat = get_int(state, "seat", 0);
    r->button = get_int(state, "button", 0);
    r->pot = get_int(state, "pot", 0);
    copy_str(get(state, "phase"), r->phase, sizeof r->phase);
    if (cards != NULL && cards->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < cards->via.array.size && r->n_cards < MAX_CARDS; i++)
            copy_str(&cards->via.array.ptr[i], r->cards[r->n_cards++], 3);
    r->n_stacks = get_ints(state, "stacks", r->stacks, MAX_SEATS);
    r->n_bets = get_ints(state, "bets", r->bets, MAX_SEATS);
    if (actions != NULL && actions->type == MSGPACK_OBJECT_ARRAY)
        for (uint32_t i = 0; i < actions->via.array.size && r->n_actions < MAX_ACTIONS; i++)
            copy_str(&actions->via.array.ptr[i], r->actions[r->n_actions++], 8);
    r->call_amount = get_int(legal, "call_amount", 0);
    r->min_to = get_int(legal, "min_to", 0);
    r->max_to = get_int(legal, "max_to", 0);
    r->max_discards = get_int(legal, "max_discards", 0);
    r->decision_ms = get_int(time, "decision_ms", 0);
    r->bank_ms = get_int(time, "bank_ms", 0);
    return true;
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

/* Strategy, betting: check when it is free, else call; *amount is the "to" total of a bet or raise. */
static const char *decide_action(const struct request *r, int64_t *amount) {
    *amount = 0;
    for (int i = 0; i < r->n_actions; i++)
        if (strcmp(r->actions[i], "check") == 0) return "check";
    return "call";
}

static int rank_of(char c) { return (int)(strchr("23456789TJQKA", c) - "23456789TJQKA"); }

/* Strategy, the draw: pick the cards to throw (indexes into r->cards); returns how many. */
static int decide_discards(const struct request *r, int out[MAX_CARDS]) {
    int n = 0, count[13] = {0}, ranks[MAX_CARDS], held = r->n_cards;
    for (int i = 0; i < held; i++) {
        ranks[i] = r->cards[i][0] && strchr("23456789TJQKA", r->cards[i][0]) ? rank_of(r->cards[i][0]) : 12;
        count[ranks[i]]++;
    }
    int limit = (int)r->max_discards < held - 5 ? (int)r->max_discards : held - 5; /* keep five */
    for (int r = 0; r < 13 && n < limit; r++)       /* lowest ranks first */
        for (int i = 0; i < held && n < limit; i++)
            if (ranks[i] == r && count[r] == 1) out[n++] = i;
    return n;
}

/* The replies (PROTOCOL.md section 5): `amount` is the "to" total of a bet or raise, 0 otherwise. */
static void pack_action(msgpack_packer *pk, int64_t seq, const char *action, int64_t amount) {
    msgpack_pack_map(pk, 5);
    pack_str(pk, "type"); pack_str(pk, "action");
    pack_str(pk, "v"); msgpack_pack_int(pk, PROTOCOL_VERSION);
    pack_str(pk, "seq"); msgpack_pack_int64(pk, seq);
    pack_str(pk, "action"); pack_str(pk, action);
    pack_str(pk, "amount"); msgpack_pack_int64(pk, amount);
}

/* n == 0 stands pat: an empty array, never nil. */
static void pack_discard(msgpack_packer *pk, int64_t seq, const char *const *cards, int n) {
    msgpack_pack_map(pk, 4);
    pack_str(pk, "type"); pack_str(pk, "discard");
    pack_str(pk, "v"); msgpack_pack_int(pk, PROTOCOL_VERSION);
    pack_str(pk, "seq"); msgpack_pack_int64(pk, seq);
    pack_str(pk, "cards"); msgpack_pack_array(pk, (size_t)n);
    for (int i = 0; i < n; i++) pack_str(pk, cards[i]);
}

/* What to do with one frame from the referee. */
enum handled { NOTHING, REPLY, EXIT };

/* Handle one frame: REPLY (the reply packed into `out`), EXIT (match_end, a fatal error) or NOTHING. */
static enum handled handle(const char *data, size_t size, msgpack_sbuffer *out) {
    msgpack_unpacked msg;
    msgpack_unpacked_init(&msg);
    size_t off = 0;
    enum handled result = NOTHING;
    if (msgpack_unpack_next(&msg, data, size, &off) != MSGPACK_UNPACK_SUCCESS || msg.data.type != MSGPACK_OBJECT_MAP) {
        fprintf(stderr, "ignored a frame that is not one MessagePack map (%zu bytes)\n", size);
        msgpack_unpacked_destroy(&msg);
        return NOTHING;
    }
    const msgpack_object *root = &msg.data, *type = get(root, "type");
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    struct request r;
    if ((is_str(type, "act") || is_str(type, "draw")) && !read_request(root, &r)) {
        fprintf(stderr, "ignored a request without a usable seq\n");
    } else if (is_str(type, "act")) {
        int64_t amount;
        const char *action = decide_action(&r, &amount);
        pack_action(&pk, r.seq, action, amount);
        result = REPLY;
    } else if (is_str(type, "draw")) {
        int throw_away[MAX_CARDS];
        const char *thrown[MAX_CARDS];
        int n = decide_discards(&r, throw_away);
        for (int i = 0; i < n; i++) thrown[i] = r.cards[throw_away[i]];
        pack_discard(&pk, r.seq, thrown, n);
        result = REPLY;
    } else if (is_str(type, "match_end")) {
        result = EXIT;
    } else if (is_str(type, "error")) {
        const msgpack_object *fatal = get(root, "fatal"), *text = get(root, "message");
        if (text != NULL && text->type == MSGPACK_OBJECT_STR)
            fprintf(stderr, "referee: %.*s\n", (int)text->via.str.size, text->via.str.ptr);
        if (fatal != NULL && fatal->type == MSGPACK_OBJECT_BOOLEAN && fatal->via.boolean) result = EXIT;
    } else if (!is_str(type, "welcome") && !is_str(type, "match_start") && !is_str(type, "hand_start") &&
               !is_str(type, "hand_end")) {
        fprintf(stderr, "ignored a message of an unknown type\n");
    }
    msgpack_unpacked_destroy(&msg);
    return result;
}

static int run_vectors(const char *dir); /* vectors.c, included at the end */

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--vectors") == 0) return run_vectors(argv[2]);
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

    int status = 0;
    for (;;) {
        zmq_msg_t frame;
        zmq_msg_init(&frame);
        if (zmq_msg_recv(&frame, sock, 0) < 0) { /* timeout: the referee is gone */
            zmq_msg_close(&frame);
            status = 1;
            break;
        }
        /* PROTOCOL.md section 8: a request with a message queued behind it timed out; skip it */
        msgpack_unpacked msg;
        msgpack_unpacked_init(&msg);
        size_t off = 0;
        int request = msgpack_unpack_next(&msg, zmq_msg_data(&frame), zmq_msg_size(&frame), &off) ==
                          MSGPACK_UNPACK_SUCCESS &&
                      (is_str(get(&msg.data, "type"), "act") || is_str(get(&msg.data, "type"), "draw"));
        msgpack_unpacked_destroy(&msg);
        int events = 0;
        size_t events_size = sizeof events;
        if (request && zmq_getsockopt(sock, ZMQ_EVENTS, &events, &events_size) == 0 && (events & ZMQ_POLLIN)) {
            fprintf(stderr, "skipped a request: it timed out while this bot was busy\n");
            zmq_msg_close(&frame);
            continue;
        }
        enum handled h = handle(zmq_msg_data(&frame), zmq_msg_size(&frame), &buf);
        zmq_msg_close(&frame);
        if (h == REPLY) send_buffer(sock, &buf);
        if (h == EXIT) break;
    }
    msgpack_sbuffer_destroy(&buf);
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return status;
}

/* The shared test vectors' runner (`./bot --vectors DIR`): in its own file, compiled with this one. */
#include "vectors.c"
