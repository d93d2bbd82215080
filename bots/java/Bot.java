// A complete poker bot in Java: the starter for Java authors (protocol/PROTOCOL.md is the contract).
//
// Talks to the referee over ZeroMQ through libzmq's Java binding (Debian's libzmq-java: a DEALER
// socket on HARNESS_ENDPOINT; pure-Java JeroMQ cannot reach ipc://) in MessagePack maps
// (msgpack-java's msgpack-core). It says hello with HARNESS_SECRET, then answers every request:
//   act  -> "check" if it is legal, else "call" (never folds, never raises);
//   draw -> stands pat (throws nothing away).
// It exits on match_end or a fatal error. Build: make -C bots/java; run: bots/java/run.sh.
// Replace decideAction() and decideDiscards() with your own strategy.
// `./run.sh --vectors DIR` runs protocol/vectors/ (DIR) through handle() (Vectors.java), without a referee.
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.value.Value;
import org.msgpack.value.ValueFactory;
import org.zeromq.ZMQ;

public final class Bot {
    static final int PROTOCOL_VERSION = 1;

    static Value get(Map<Value, Value> map, String key) {
        return map == null ? null : map.get(ValueFactory.newString(key));
    }

    static Map<Value, Value> mapOf(Value v) {
        return v != null && v.isMapValue() ? v.asMapValue().map() : null;
    }

    /** Strategy, betting: check when it is free, else call. */
    static String decideAction(Map<Value, Value> legal) {
        Value actions = get(legal, "actions");
        if (actions != null && actions.isArrayValue())
            for (Value a : actions.asArrayValue())
                if (a.isStringValue() && a.asStringValue().asString().equals("check")) return "check";
        return "call";
    }

    /** Strategy, the draw: the cards to throw away (none: stand pat). */
    static List<String> decideDiscards(List<String> cards, int maxDiscards) {
        return new ArrayList<>();
    }

    /** The replies (PROTOCOL.md section 5): amount is the "to" total of a bet or raise, 0 otherwise. */
    static byte[] actionReply(long seq, String action, long amount) throws IOException {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packMapHeader(5)
            .packString("type").packString("action")
            .packString("v").packInt(PROTOCOL_VERSION)
            .packString("seq").packLong(seq)
            .packString("action").packString(action)
            .packString("amount").packLong(amount);
        return p.toByteArray();
    }

    /** An empty list stands pat: an empty array, never nil. */
    static byte[] discardReply(long seq, List<String> cards) throws IOException {
        MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
        p.packMapHeader(4)
            .packString("type").packString("discard")
            .packString("v").packInt(PROTOCOL_VERSION)
            .packString("seq").packLong(seq)
            .packString("cards").packArrayHeader(cards.size());
        for (String c : cards) p.packString(c);
        return p.toByteArray();
    }

    /** What to do with one frame: reply (non-null: send it), exit (match_end, a fatal error), or neither. */
    record Handled(byte[] reply, boolean exit) {}

    static final Handled NOTHING = new Handled(null, false);

    static String typeOf(Map<Value, Value> msg) {
        Value t = get(msg, "type");
        return t != null && t.isStringValue() ? t.asStringValue().asString() : "";
    }

    /** The request's seq, or -1 when it has none usable (then the request is ignored). */
    static long seqOf(Map<Value, Value> msg) {
        Value seq = get(msg, "seq");
        return seq != null && seq.isIntegerValue() && seq.asIntegerValue().isInLongRange()
            && seq.asIntegerValue().toLong() >= 0 ? seq.asIntegerValue().toLong() : -1;
    }

    static Map<Value, Value> unpack(byte[] data) {
        try {
            org.msgpack.core.MessageUnpacker u = MessagePack.newDefaultUnpacker(data);
            Map<Value, Value> msg = mapOf(u.unpackValue());
            return u.hasNext() ? null : msg;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static Handled handle(byte[] data) throws IOException {
        Map<Value, Value> msg = unpack(data);
        if (msg == null) {
            System.err.println("ignored a frame that is not one MessagePack map (" + data.length + " bytes)");
            return NOTHING;
        }
        String type = typeOf(msg);
        Map<Value, Value> legal = mapOf(get(msg, "legal"));
        Map<Value, Value> state = mapOf(get(msg, "state"));
        long seq = seqOf(msg);
        if ((type.equals("act") || type.equals("draw")) && seq < 0) {
            System.err.println("ignored a request without a usable seq");
            return NOTHING;
        }
        switch (type) {
            case "act":
                return new Handled(actionReply(seq, decideAction(legal), 0), false);
            case "draw": {
                List<String> cards = new ArrayList<>();
                Value held = get(state, "cards");
                if (held != null && held.isArrayValue())
                    for (Value c : held.asArrayValue()) if (c.isStringValue()) cards.add(c.asStringValue().asString());
                Value max = get(legal, "max_discards");
                int maxDiscards = max != null && max.isIntegerValue() ? max.asIntegerValue().toInt() : 0;
                return new Handled(discardReply(seq, decideDiscards(cards, maxDiscards)), false);
            }
            case "match_end":
                return new Handled(null, true);
            case "error": {
                Value text = get(msg, "message"), fatal = get(msg, "fatal");
                if (text != null) System.err.println("referee: " + text);
                return new Handled(null, fatal != null && fatal.isBooleanValue() && fatal.asBooleanValue().getBoolean());
            }
            case "welcome": case "match_start": case "hand_start": case "hand_end":
                return NOTHING;
            default:
                System.err.println("ignored a message of unknown type " + type);
                return NOTHING;
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 2 && args[0].equals("--vectors")) System.exit(Vectors.run(args[1]));
        String endpoint = System.getenv("HARNESS_ENDPOINT");
        String secret = System.getenv("HARNESS_SECRET");
        String name = System.getenv().getOrDefault("HARNESS_BOT_NAME", "javabot");
        if (endpoint == null || secret == null) {
            System.err.println("HARNESS_ENDPOINT and HARNESS_SECRET must be set (the harness starts this bot)");
            System.exit(2);
        }
        ZMQ.Context ctx = ZMQ.context(1);
        ZMQ.Socket sock = ctx.socket(ZMQ.DEALER);
        sock.setLinger(0);
        sock.setReceiveTimeOut(60000); // exit if the referee says nothing for a minute
        sock.connect(endpoint);

        MessageBufferPacker hello = MessagePack.newDefaultBufferPacker();
        hello.packMapHeader(4)
            .packString("type").packString("hello")
            .packString("v").packInt(PROTOCOL_VERSION)
            .packString("secret").packString(secret)
            .packString("name").packString(name);
        sock.send(hello.toByteArray(), 0);

        int status = 0;
        while (true) {
            byte[] data = sock.recv(0);
            if (data == null) { // timeout: the referee is gone
                status = 1;
                break;
            }
            Map<Value, Value> msg = unpack(data);
            String type = msg == null ? "" : typeOf(msg);
            if ((type.equals("act") || type.equals("draw")) && (sock.getEvents() & ZMQ.Poller.POLLIN) != 0) {
                // PROTOCOL.md section 8: a request with a message queued behind it timed out; skip it
                System.err.println("skipped request " + seqOf(msg) + ": it timed out while this bot was busy");
                continue;
            }
            Handled h = handle(data);
            if (h.reply() != null) sock.send(h.reply(), 0);
            if (h.exit()) break;
        }
        sock.close();
        ctx.term();
        System.exit(status);
    }
}
