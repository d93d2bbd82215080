/* protocol/vectors/ (its README.md) through the C bot's handle(), read_request() and reply writers.
 * Included at the end of bot.c (it uses that file's static functions); `./bot --vectors DIR`.
 * Prints `reply NAME HEX` per reply and `ok ...`, or `FAIL ...` lines and exits 1. */

static int failures = 0;

static void fail(const char *what, const char *name) {
    fprintf(stderr, "FAIL %s %s\n", what, name);
    failures++;
}

/* The bytes of a vector's "hex" into a malloc'd buffer (*size set). */
static char *vector_bytes(const msgpack_object *v, size_t *size) {
    const msgpack_object *hex = get(v, "hex");
    *size = hex != NULL && hex->type == MSGPACK_OBJECT_STR ? hex->via.str.size / 2 : 0;
    char *out = malloc(*size + 1);
    for (size_t i = 0; i < *size; i++) {
        char two[3] = {hex->via.str.ptr[2 * i], hex->via.str.ptr[2 * i + 1], 0};
        out[i] = (char)strtol(two, NULL, 16);
    }
    return out;
}

static void vector_name(const msgpack_object *v, char *out, size_t size) { copy_str(get(v, "name"), out, size); }

/* a and b are the same MessagePack value (integers by value, maps whatever their key order). */
static bool same(const msgpack_object *a, const msgpack_object *b) {
    if (a->type != b->type) return false;
    switch (a->type) {
    case MSGPACK_OBJECT_POSITIVE_INTEGER: return a->via.u64 == b->via.u64;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: return a->via.i64 == b->via.i64;
    case MSGPACK_OBJECT_BOOLEAN: return a->via.boolean == b->via.boolean;
    case MSGPACK_OBJECT_NIL: return true;
    case MSGPACK_OBJECT_STR:
        return a->via.str.size == b->via.str.size && memcmp(a->via.str.ptr, b->via.str.ptr, a->via.str.size) == 0;
    case MSGPACK_OBJECT_ARRAY:
        if (a->via.array.size != b->via.array.size) return false;
        for (uint32_t i = 0; i < a->via.array.size; i++)
            if (!same(&a->via.array.ptr[i], &b->via.array.ptr[i])) return false;
        return true;
    case MSGPACK_OBJECT_MAP:
        if (a->via.map.size != b->via.map.size) return false;
        for (uint32_t i = 0; i < a->via.map.size; i++) {
            const msgpack_object *k = &a->via.map.ptr[i].key, *other = NULL;
            for (uint32_t j = 0; j < b->via.map.size && other == NULL; j++)
                if (same(k, &b->via.map.ptr[j].key)) other = &b->via.map.ptr[j].val;
            if (other == NULL || !same(&a->via.map.ptr[i].val, other)) return false;
        }
        return true;
    default: return false;
    }
}

/* The request's fields as read equal the vector's "read" map. */
static bool read_as_expected(const struct request *r, const msgpack_object *want) {
    const msgpack_object *cards = get(want, "cards"), *actions = get(want, "actions");
    int64_t stacks[MAX_SEATS], bets[MAX_SEATS];
    char phase[8];
    copy_str(get(want, "phase"), phase, sizeof phase);
    bool ok = r->is_draw == is_str(get(want, "type"), "draw") && r->seq == get_int(want, "seq", -1) &&
              strcmp(r->phase, phase) == 0 && r->seat == get_int(want, "seat", -1) &&
              r->button == get_int(want, "button", -1) && r->pot == get_int(want, "pot", -1) &&
              r->call_amount == get_int(want, "call_amount", -1) && r->min_to == get_int(want, "min_to", -1) &&
              r->max_to == get_int(want, "max_to", -1) && r->max_discards == get_int(want, "max_discards", -1) &&
              r->decision_ms == get_int(want, "decision_ms", -1) && r->bank_ms == get_int(want, "bank_ms", -1) &&
              r->n_stacks == get_ints(want, "stacks", stacks, MAX_SEATS) &&
              memcmp(r->stacks, stacks, sizeof(int64_t) * (size_t)r->n_stacks) == 0 &&
              r->n_bets == get_ints(want, "bets", bets, MAX_SEATS) &&
              memcmp(r->bets, bets, sizeof(int64_t) * (size_t)r->n_bets) == 0 &&
              cards != NULL && (int)cards->via.array.size == r->n_cards &&
              actions != NULL && (int)actions->via.array.size == r->n_actions;
    for (int i = 0; ok && i < r->n_cards; i++) ok = is_str(&cards->via.array.ptr[i], r->cards[i]);
    for (int i = 0; ok && i < r->n_actions; i++) ok = is_str(&actions->via.array.ptr[i], r->actions[i]);
    return ok;
}

static const msgpack_object *items(const msgpack_object *root, const char *key, uint32_t *n) {
    const msgpack_object *list = get(root, key);
    *n = list != NULL && list->type == MSGPACK_OBJECT_ARRAY ? list->via.array.size : 0;
    return *n ? list->via.array.ptr : NULL;
}

static int run_vectors(const char *dir) {
    char path[4096], name[128];
    snprintf(path, sizeof path, "%s/messages.msgpack", dir);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "FAIL cannot open %s\n", path);
        return 1;
    }
    static char file[1 << 20];
    size_t file_size = fread(file, 1, sizeof file, f);
    fclose(f);
    msgpack_unpacked all;
    msgpack_unpacked_init(&all);
    size_t off = 0;
    if (msgpack_unpack_next(&all, file, file_size, &off) != MSGPACK_UNPACK_SUCCESS) {
        fprintf(stderr, "FAIL %s is not MessagePack\n", path);
        return 1;
    }
    const msgpack_object *root = &all.data, *v;
    msgpack_sbuffer out;
    msgpack_sbuffer_init(&out);
    uint32_t n;
    size_t size;
    v = items(root, "requests", &n);
    for (uint32_t i = 0; i < n; i++) {
        char *data = vector_bytes(&v[i], &size);
        vector_name(&v[i], name, sizeof name);
        msgpack_unpacked msg;
        msgpack_unpacked_init(&msg);
        size_t o = 0;
        struct request r;
        if (msgpack_unpack_next(&msg, data, size, &o) != MSGPACK_UNPACK_SUCCESS || !read_request(&msg.data, &r) ||
            !read_as_expected(&r, get(&v[i], "read")))
            fail("request (the fields read)", name);
        msgpack_unpacked_destroy(&msg);
        msgpack_sbuffer_clear(&out);
        if (handle(data, size, &out) != REPLY) {
            fail("request (no reply)", name);
        } else {
            msgpack_unpacked reply;
            msgpack_unpacked_init(&reply);
            o = 0;
            msgpack_unpack_next(&reply, out.data, out.size, &o);
            if (!is_str(get(&reply.data, "type"), r.is_draw ? "discard" : "action") ||
                get_int(&reply.data, "seq", -1) != r.seq)
                fail("request (the reply's type or seq)", name);
            msgpack_unpacked_destroy(&reply);
        }
        free(data);
    }
    v = items(root, "notifications", &n);
    for (uint32_t i = 0; i < n; i++) {
        char *data = vector_bytes(&v[i], &size);
        vector_name(&v[i], name, sizeof name);
        const msgpack_object *exit = get(&v[i], "exit");
        msgpack_sbuffer_clear(&out);
        if (handle(data, size, &out) != (exit != NULL && exit->via.boolean ? EXIT : NOTHING)) fail("notification", name);
        free(data);
    }
    v = items(root, "bad_requests", &n);
    for (uint32_t i = 0; i < n; i++) {
        char *data = vector_bytes(&v[i], &size);
        vector_name(&v[i], name, sizeof name);
        msgpack_sbuffer_clear(&out);
        if (handle(data, size, &out) != NOTHING) fail("bad request (not ignored)", name);
        free(data);
    }
    v = items(root, "replies", &n);
    for (uint32_t i = 0; i < n; i++) {
        vector_name(&v[i], name, sizeof name);
        const msgpack_object *d = get(&v[i], "decision"), *cards = get(d, "cards");
        msgpack_sbuffer_clear(&out);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &out, msgpack_sbuffer_write);
        if (cards != NULL) {
            char held[MAX_CARDS][3];
            const char *thrown[MAX_CARDS];
            int k = 0;
            for (uint32_t j = 0; j < cards->via.array.size && k < MAX_CARDS; j++, k++) {
                copy_str(&cards->via.array.ptr[j], held[k], 3);
                thrown[k] = held[k];
            }
            pack_discard(&pk, get_int(d, "seq", 0), thrown, k);
        } else {
            char action[8];
            copy_str(get(d, "action"), action, sizeof action);
            pack_action(&pk, get_int(d, "seq", 0), action, get_int(d, "amount", 0));
        }
        msgpack_unpacked reply;
        msgpack_unpacked_init(&reply);
        size_t o = 0;
        if (msgpack_unpack_next(&reply, out.data, out.size, &o) != MSGPACK_UNPACK_SUCCESS ||
            !same(&reply.data, get(&v[i], "value")))
            fail("reply (not the expected map)", name);
        msgpack_unpacked_destroy(&reply);
        printf("reply %s ", name);
        for (size_t j = 0; j < out.size; j++) printf("%02x", (unsigned char)out.data[j]);
        printf("\n");
    }
    msgpack_sbuffer_destroy(&out);
    msgpack_unpacked_destroy(&all);
    if (failures) return 1;
    printf("ok messages\n");
    return 0;
}
